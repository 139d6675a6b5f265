"""The images an export carries: each texture once, as PNG bytes, under a file name unique in the
export (`<type>_<material>_<map>.png`, `terrain_<row>_<column>.png`).

A texture is encoded once per process (the built-in trees' textures are the same objects in every
export); an opaque one is written as RGB. Names and bytes depend on the scene alone: the same
export gives the same files.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass, field

import numpy as np

from model.foliage.materials import Texture
from model.formats.png import encode_png

_ENCODED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Texture -> PNG bytes
MAP_SUFFIXES = {"base": "basecolor", "normal": "normal", "metallic_roughness": "metalrough",
                "occlusion": "occlusion"}


def png_of(texture: Texture) -> bytes:
    """The texture as PNG (RGB where every texel is opaque), encoded once per texture object."""
    data = _ENCODED.get(texture)
    if data is None:
        data = encode_png(rgb_or_rgba(texture.pixels))
        _ENCODED[texture] = data
    return data


def rgb_or_rgba(pixels: np.ndarray) -> np.ndarray:
    """RGBA texels as RGB where the alpha says nothing (all 255)."""
    return np.ascontiguousarray(pixels[..., :3]) if bool(np.all(pixels[..., 3] == 255)) else pixels


def file_stem(text: str) -> str:
    """A portable file name part for any type or material name."""
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_") or "texture"


@dataclass
class ExportImage:
    """One image of an export: its file name (also what a `.gltf` or USD stage names) and bytes."""

    name: str
    data: bytes
    size: tuple[int, int]  # width, height


@dataclass
class ImageTable:
    """The images of one export, each texture once (by identity), in the order first used."""

    images: list[ExportImage] = field(default_factory=list)
    _index: dict[int, int] = field(default_factory=dict)
    _held: list[Texture] = field(default_factory=list)  # keeps ids valid while the table lives
    _names: set[str] = field(default_factory=set)

    def add(self, texture: Texture, stem: str) -> int:
        """The image index of `texture`, added under a name made from `stem` the first time."""
        key = id(texture)
        if key in self._index:
            return self._index[key]
        self._held.append(texture)
        return self._add(png_of(texture), stem, texture.size, key)

    def add_pixels(self, pixels: np.ndarray, stem: str) -> int:
        """A new image from RGB(A) uint8 texels (a baked terrain tile)."""
        h, w = pixels.shape[:2]
        return self._add(encode_png(pixels), stem, (w, h), None)

    def _add(self, data: bytes, stem: str, size: tuple[int, int], key: int | None) -> int:
        base = file_stem(stem)
        name, k = f"{base}.png", 2
        while name.lower() in self._names:
            name, k = f"{base}_{k}.png", k + 1
        self._names.add(name.lower())
        self.images.append(ExportImage(name, data, size))
        if key is not None:
            self._index[key] = len(self.images) - 1
        return len(self.images) - 1

    def __len__(self) -> int:
        return len(self.images)


def texture_folder_name(stem: str) -> str:
    """The folder beside a `.gltf`, `.usda` or `.usdc` holding its images: `<stem>_textures`."""
    return f"{stem}_textures"
