"""Foliage materials: what a mesh file says about its surfaces (glTF 2.0 metallic-roughness
materials, OBJ `.mtl` maps), and their images decoded to RGBA bytes.

An image is read only from inside the mesh's folder (no `..`, no absolute path, a regular file)
and its size is checked from its header before any pixel is allocated. An image that is missing,
refused or unreadable is left out with one warning naming it: the surface draws with its factor
colour. Texture coordinates follow glTF: (0, 0) is the image's top-left texel, row 0 its top row.
"""

from __future__ import annotations

import stat
import struct
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import numpy as np

from model import portable_math as pmath

MAX_TEXTURE_SIDE = 8192
ALPHA_MODES = ("OPAQUE", "MASK", "BLEND")
IDENTITY_UV = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0)
WRAP_MODES = {10497: "repeat", 33648: "mirror", 33071: "clamp"}  # glTF sampler wrapS/wrapT


class ImageError(Exception):
    """An image that cannot be used; the message names it and says why."""


@dataclass(frozen=True, eq=False)
class Texture:
    """Decoded texels, (height, width, 4) uint8 RGBA, and where they came from (for messages and
    for sharing one GPU texture between the materials that name the same image)."""

    pixels: np.ndarray
    source: str

    @property
    def size(self) -> tuple[int, int]:
        return int(self.pixels.shape[1]), int(self.pixels.shape[0])


@dataclass(frozen=True, eq=False)
class Material:
    """One surface's look. `base_color` multiplies the base texture (and the vertex colours);
    `uv_transform` (a, b, c, d, e, f) maps u, v to a u + b v + c, d u + e v + f (KHR_texture_transform
    of the base colour texture; the other textures share it)."""

    name: str = "default"
    base_color: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0)
    base_texture: Texture | None = None
    alpha_mode: str = "OPAQUE"
    alpha_cutoff: float = 0.5
    double_sided: bool = True
    normal_texture: Texture | None = None
    normal_scale: float = 1.0
    metallic: float = 1.0
    roughness: float = 1.0
    metallic_roughness_texture: Texture | None = None
    occlusion_texture: Texture | None = None
    occlusion_strength: float = 1.0
    uv_transform: tuple[float, ...] = IDENTITY_UV
    wrap: tuple[str, str] = ("repeat", "repeat")  # the base texture's sampler: repeat, mirror or clamp

    @property
    def alpha_tested(self) -> bool:
        return self.alpha_mode == "MASK"

    @property
    def blended(self) -> bool:
        return self.alpha_mode == "BLEND"

    def textures(self) -> list[Texture]:
        return [t for t in (self.base_texture, self.normal_texture, self.metallic_roughness_texture,
                            self.occlusion_texture) if t is not None]


DEFAULT_MATERIAL = Material()  # meshes without materials (the built-in set): lit from both sides


# ---- images ----------------------------------------------------------------------------------
def image_size(data: bytes) -> tuple[str, int, int]:
    """('png' | 'jpeg', width, height) from the header alone; ImageError for anything else."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        if len(data) < 24 or data[12:16] != b"IHDR":
            raise ImageError("truncated PNG header")
        width, height = struct.unpack(">II", data[16:24])
        return "png", width, height
    if data[:2] == b"\xff\xd8":
        pos = 2
        while pos + 4 <= len(data):
            if data[pos] != 0xFF:
                raise ImageError(f"bad JPEG marker at byte {pos}")
            marker = data[pos + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                pos += 2
                continue
            (length,) = struct.unpack(">H", data[pos + 2:pos + 4])
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                if pos + 9 > len(data):
                    break
                height, width = struct.unpack(">HH", data[pos + 5:pos + 9])
                return "jpeg", width, height
            pos += 2 + length
        raise ImageError("JPEG without a frame header")
    raise ImageError("not a PNG or JPEG image")


def decode_image(data: bytes) -> np.ndarray:
    """(height, width, 4) uint8 RGBA from PNG or JPEG bytes; the size is checked first."""
    kind, width, height = image_size(data)
    if not (0 < width <= MAX_TEXTURE_SIDE and 0 < height <= MAX_TEXTURE_SIDE):
        raise ImageError(f"{width} x {height} texels; at most {MAX_TEXTURE_SIDE} a side")
    import imagecodecs

    try:
        pixels = imagecodecs.png_decode(data) if kind == "png" else imagecodecs.jpeg8_decode(data)
    except Exception as e:  # the codec's own error types: all mean "damaged image"
        raise ImageError(f"cannot decode the {kind.upper()} ({e})") from None
    pixels = np.asarray(pixels)
    if pixels.dtype == np.uint16:
        pixels = (pixels >> 8).astype(np.uint8)
    if pixels.dtype != np.uint8 or pixels.shape[:2] != (height, width):
        raise ImageError(f"unexpected {kind.upper()} layout {pixels.shape} {pixels.dtype}")
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    channels = pixels.shape[2]
    rgba = np.empty((height, width, 4), np.uint8)
    rgba[..., :3] = pixels[..., :3] if channels >= 3 else pixels[..., :1]
    rgba[..., 3] = pixels[..., 3] if channels == 4 else pixels[..., 1] if channels == 2 else 255
    return rgba


def safe_image_path(folder: Path, name: str) -> Path:
    """`name` (relative, '/'-separated) inside `folder`; ImageError when it would leave it or is not a
    regular file."""
    rel = PurePosixPath(name.replace("\\", "/"))
    if rel.is_absolute() or (rel.parts and ":" in rel.parts[0]) or ".." in rel.parts or not rel.parts:
        raise ImageError("refused: the image must lie in the mesh's folder (no absolute path or '..')")
    base = folder.resolve()
    target = (base / Path(*rel.parts)).resolve()
    if base not in target.parents:
        raise ImageError("refused: the image resolves outside the mesh's folder")
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        raise ImageError("image file not found") from None
    except OSError as e:
        raise ImageError(e.strerror or str(e)) from None
    if not stat.S_ISREG(mode):
        raise ImageError("refused: not a regular file")
    return target


def read_image_file(folder: Path, name: str) -> Texture:
    """A texture from an image file beside the mesh; ImageError naming the file when it cannot be."""
    try:
        path = safe_image_path(folder, name)
    except ImageError as e:
        raise ImageError(f"{folder / name}: {e}") from None
    try:
        data = path.read_bytes()
        return Texture(decode_image(data), str(path))
    except OSError as e:
        raise ImageError(f"{path}: {e.strerror or e}") from None
    except ImageError as e:
        raise ImageError(f"{path}: {e}") from None


def uv_transform(offset=(0.0, 0.0), rotation: float = 0.0, scale=(1.0, 1.0)) -> tuple[float, ...]:
    """KHR_texture_transform's T · R · S as (a, b, c, d, e, f): u' = a u + b v + c, v' = d u + e v + f."""
    c, s = float(pmath.cos(rotation)), float(pmath.sin(rotation))
    sx, sy = scale
    return (c * sx, s * sy, float(offset[0]), -s * sx, c * sy, float(offset[1]))
