"""Terrain layer textures decoded and prepared for drawing: one square size per map kind, a mip chain
each, read once per file and shared (`TextureCache`). Numpy only: the renderer uploads what this makes.

A texture that is missing or cannot be read is one warning naming the file; its layer draws its
colour (albedo) or goes without that map.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from model.errors import FormatError, refuse_link_outside
from model.formats.texture_image import image_size, read_texture
from model.layer_material import MAP_KINDS, LayerMaterial, resolve

MAX_ARRAY_SIDE = 2048  # texels a side of every layer of one map kind's array, at most
MIN_ARRAY_SIDE = 16
CHANNELS = {"albedo": 4, "normal": 4, "roughness": 1, "height": 1}  # what each kind keeps, 8 bits each
CACHE_BYTES = 768 << 20


@dataclass(frozen=True)
class MapRequest:
    """One map of one layer: which slot of its kind's array it fills, and from which file."""

    slot: int
    kind: str
    path: Path


@dataclass
class PreparedMap:
    """A map ready to upload: uint8 mip levels (side, side, channels), largest first, and its mean
    colour (0..1, albedo: what the layer's colour tints towards)."""

    request: MapRequest
    levels: list[np.ndarray]
    mean: np.ndarray


def texture_requests(folder: Path, materials: Sequence[LayerMaterial]) -> list[MapRequest]:
    """Every map the materials name, slot = position in `materials`."""
    return [MapRequest(slot, kind, resolve(folder, m.map(kind)))
            for slot, m in enumerate(materials) for kind in MAP_KINDS if m.map(kind)]


def _power_of_two_at_most(n: int) -> int:
    return 1 << max(0, int(n).bit_length() - 1)


def array_sides(folder: Path, requests: Sequence[MapRequest],
                warn: Callable[[str], None]) -> tuple[dict[str, int], list[MapRequest]]:
    """Per map kind, the side of its array: the largest texture's, down to a power of two, within
    MIN..MAX_ARRAY_SIDE; and the requests whose headers passed. From the files' headers only; a
    file whose header fails is warned about here, once."""
    sides: dict[str, int] = {}
    readable: list[MapRequest] = []
    for r in requests:
        try:
            check_inside(folder, r.path)
            w, h, _ = image_size(r.path)
        except FormatError as e:
            warn(texture_warning(r, e))
            continue
        side = min(MAX_ARRAY_SIDE, max(MIN_ARRAY_SIDE, _power_of_two_at_most(max(w, h))))
        sides[r.kind] = max(sides.get(r.kind, 0), side)
        readable.append(r)
    return sides, readable


def check_inside(folder: Path, path: Path) -> None:
    """Refuse a texture reached through a link out of the scene's folder (its own or a folder's on
    the way; the manifest's path itself cannot leave it)."""
    refuse_link_outside(folder, path, "texture", "scene")
    if not path.exists():
        raise FormatError(path, None, "missing texture file")


def texture_warning(request: MapRequest, error: Exception) -> str:
    return f"{error} — the layer's {request.kind} map is not drawn" + (
        "; it shows its colour" if request.kind == "albedo" else "")


def resize(pixels: np.ndarray, side: int) -> np.ndarray:
    """Bilinear resample to side x side (float32), wrapping at the edges as a tiling texture does."""
    h, w = pixels.shape[:2]
    if (h, w) == (side, side):
        return pixels.astype(np.float32)
    # where the texture is larger, average to within 2x first, so the resample does not alias
    img = pixels.astype(np.float32)
    while all(n >= 2 * side and n % 2 == 0 for n in img.shape[:2]):
        img = 0.25 * (img[0::2, 0::2] + img[1::2, 0::2] + img[0::2, 1::2] + img[1::2, 1::2])
    h, w = img.shape[:2]
    y = (np.arange(side) + 0.5) * (h / side) - 0.5
    x = (np.arange(side) + 0.5) * (w / side) - 0.5
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    fy, fx = (y - y0).astype(np.float32)[:, None, None], (x - x0).astype(np.float32)[None, :, None]
    y0, y1 = y0 % h, (y0 + 1) % h
    x0, x1 = x0 % w, (x0 + 1) % w
    top = img[y0][:, x0] * (1 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1 - fx) + img[y1][:, x1] * fx
    return top * (1 - fy) + bottom * fy


def _channels(pixels: np.ndarray, kind: str) -> np.ndarray:
    """The channels a kind keeps, 0..1 float: albedo/normal RGBA (grey spread, opaque), others the first."""
    p = pixels.astype(np.float32) / 255.0 if pixels.dtype == np.uint8 else np.clip(pixels, 0.0, 1.0)
    if CHANNELS[kind] == 1:
        return p[..., :1]
    c = p.shape[2]
    rgb = np.repeat(p[..., :1], 3, axis=2) if c < 3 else p[..., :3]
    return np.concatenate([rgb, np.ones(rgb.shape[:2] + (1,), np.float32)], axis=2)


def mip_chain(image: np.ndarray) -> list[np.ndarray]:
    """uint8 levels from `image` (float 0..1, square, power-of-two side) down to 1 x 1, 2 x 2 box filtered."""
    levels = []
    level = image
    while True:
        levels.append(np.clip(np.rint(level * 255.0), 0, 255).astype(np.uint8))
        if level.shape[0] == 1:
            return levels
        level = 0.25 * (level[0::2, 0::2] + level[1::2, 0::2] + level[0::2, 1::2] + level[1::2, 1::2])


def prepare(request: MapRequest, side: int) -> PreparedMap:
    """Decode, convert and resize one map (FormatError where it cannot be read)."""
    pixels = read_texture(request.path)
    image = resize(_channels(pixels, request.kind), side)
    levels = mip_chain(image)
    mean = levels[-1].reshape(-1).astype(np.float64) / 255.0
    return PreparedMap(request, levels, mean)


@dataclass
class TextureCache:
    """Prepared maps by (file, size, modification time, side), least recently used dropped past
    `max_bytes`: a scene's textures are read once, and reopening or redrawing it reads none again."""

    max_bytes: int = CACHE_BYTES
    _items: OrderedDict = field(default_factory=OrderedDict)
    _bytes: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    reads: int = 0  # files decoded (a test and the bench read it)

    def get(self, request: MapRequest, side: int) -> PreparedMap:
        st = os.stat(request.path)
        key = (str(request.path.resolve()), st.st_size, st.st_mtime_ns, request.kind, side)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return PreparedMap(request, hit.levels, hit.mean)
        prepared = prepare(request, side)
        size = sum(level.nbytes for level in prepared.levels)
        with self._lock:
            self.reads += 1
            self._items[key] = prepared
            self._bytes += size
            while self._bytes > self.max_bytes and len(self._items) > 1:
                _, old = self._items.popitem(last=False)
                self._bytes -= sum(level.nbytes for level in old.levels)
        return prepared

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._bytes = 0


TEXTURES = TextureCache()


def load_maps(folder: Path, requests: Sequence[MapRequest], sides: dict[str, int],
              warn: Callable[[str], None], cache: TextureCache = TEXTURES,
              cancelled: Callable[[], bool] = lambda: False):
    """Yield each request's PreparedMap as it is ready (the requests `array_sides` passed); one that
    cannot be read is warned about and skipped."""
    for r in requests:
        if cancelled():
            return
        try:
            check_inside(folder, r.path)
            yield cache.get(r, sides[r.kind])
        except FormatError as e:
            warn(texture_warning(r, e))
        except OSError as e:
            warn(texture_warning(r, FormatError(r.path, None, e.strerror or str(e))))
        except MemoryError:
            warn(texture_warning(r, FormatError(r.path, None, "not enough memory to decode it")))
