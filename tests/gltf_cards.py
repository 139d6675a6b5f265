"""Small glTF card meshes written by hand for material tests: one textured quad (two triangles)."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from model.formats.png import encode_png


def card_texture() -> np.ndarray:
    """8 x 8 RGBA: the left half red, the right half blue, the bottom three rows cut (alpha 0,
    a green that must never show)."""
    t = np.zeros((8, 8, 4), np.uint8)
    t[:, :4] = (220, 30, 30, 255)
    t[:, 4:] = (30, 40, 220, 255)
    t[5:] = (0, 255, 0, 0)
    return t


def card_gltf(texture: np.ndarray | None = None, material: dict | None = None, *, width: float = 2.0,
              height: float = 2.0, uri: str | None = None) -> tuple[dict, bytes]:
    """(JSON document, binary chunk) of a card facing +Z, from y = 0 to `height`; the texture
    embedded as a PNG buffer view (or named by `uri`)."""
    w = width / 2
    pos = np.array([[-w, 0, 0], [w, 0, 0], [w, height, 0], [-w, height, 0]], np.float32)
    nrm = np.tile(np.array([0, 0, 1], np.float32), (4, 1))
    uv = np.array([[0, 1], [1, 1], [1, 0], [0, 0]], np.float32)  # glTF: v = 0 at the image's top
    idx = np.array([0, 1, 2, 0, 2, 3], np.uint16)
    png = encode_png(texture) if texture is not None and uri is None else b""
    blobs = [pos.tobytes(), nrm.tobytes(), uv.tobytes(), idx.tobytes() + b"\0\0", png]
    views, offset = [], 0
    for b in blobs:
        views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(b)})
        offset += (len(b) + 3) & ~3
    binary = b"".join(b + b"\0" * (((len(b) + 3) & ~3) - len(b)) for b in blobs)
    views[3]["byteLength"] = 12
    mat = {"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}, "metallicFactor": 0.0},
           "alphaMode": "MASK", "doubleSided": True}
    mat.update(material or {})
    image = {"uri": uri} if uri is not None else {"bufferView": 4, "mimeType": "image/png"}
    doc = {
        "asset": {"version": "2.0"},
        "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2},
                                    "indices": 3, "material": 0}]}],
        "materials": [mat],
        "textures": [{"source": 0}],
        "images": [image],
        "buffers": [{"byteLength": len(binary)}],
        "bufferViews": views,
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
             "min": [-w, 0, 0], "max": [w, height, 0]},
            {"bufferView": 1, "componentType": 5126, "count": 4, "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": 4, "type": "VEC2"},
            {"bufferView": 3, "componentType": 5123, "count": 6, "type": "SCALAR"},
        ],
    }
    if texture is None and uri is None:
        del mat["pbrMetallicRoughness"]["baseColorTexture"]
        del doc["textures"], doc["images"]
    return doc, binary


def write_glb(path: Path, doc: dict, binary: bytes) -> Path:
    text = json.dumps(doc).encode()
    text += b" " * ((4 - len(text) % 4) % 4)
    body = struct.pack("<II", len(text), 0x4E4F534A) + text
    body += struct.pack("<II", len(binary), 0x004E4942) + binary
    path.write_bytes(struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body)
    return path


def card_glb(path: Path, texture: np.ndarray | None = None, material: dict | None = None, **kw) -> Path:
    doc, binary = card_gltf(card_texture() if texture is None else texture, material, **kw)
    return write_glb(path, doc, binary)
