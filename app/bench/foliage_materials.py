"""Foliage materials' cost in the viewport: a 1M-instance forest of a textured, alpha-tested card
type against the same forest untextured (the same cards, their material without its texture),
drawn for real into an offscreen framebuffer (needs a display; see `viewport`)."""

from __future__ import annotations

import json
import struct
import tempfile
from pathlib import Path

import numpy as np

from app.bench import BenchCase
from model.foliage import FoliageType, foliage_of
from model.foliage.builtin_textures import leaf_cluster
from model.formats.png import encode_png


def card_glb(textured: bool) -> bytes:
    """Two crossed 1 m cards (four triangles) with the leaf-cluster texture cut at 0.5, or with a
    plain opaque material of the same colour."""
    pos = np.array([[-0.5, 0, 0], [0.5, 0, 0], [0.5, 1, 0], [-0.5, 1, 0],
                    [0, 0, -0.5], [0, 0, 0.5], [0, 1, 0.5], [0, 1, -0.5]], np.float32)
    uv = np.tile(np.array([[0, 1], [1, 1], [1, 0], [0, 0]], np.float32), (2, 1))
    idx = np.array([0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7], np.uint16)
    png = encode_png(leaf_cluster()) if textured else b""
    blobs = [pos.tobytes(), uv.tobytes(), idx.tobytes(), png]
    views, offset = [], 0
    for b in blobs:
        views.append({"buffer": 0, "byteOffset": offset, "byteLength": len(b)})
        offset += (len(b) + 3) & ~3
    binary = b"".join(b + b"\0" * (((len(b) + 3) & ~3) - len(b)) for b in blobs)
    material = {"pbrMetallicRoughness": {"baseColorFactor": [0.3, 0.5, 0.2, 1.0]}, "doubleSided": True}
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "indices": 2,
                                       "material": 0}]}],
           "materials": [material], "buffers": [{"byteLength": len(binary)}], "bufferViews": views[:3],
           "accessors": [{"bufferView": 0, "componentType": 5126, "count": 8, "type": "VEC3",
                          "min": [-0.5, 0, -0.5], "max": [0.5, 1, 0.5]},
                         {"bufferView": 1, "componentType": 5126, "count": 8, "type": "VEC2"},
                         {"bufferView": 2, "componentType": 5123, "count": 12, "type": "SCALAR"}]}
    if textured:
        doc["bufferViews"] = views
        doc["images"] = [{"bufferView": 3, "mimeType": "image/png"}]
        doc["textures"] = [{"source": 0}]
        material["pbrMetallicRoughness"] = {"baseColorTexture": {"index": 0}}
        material.update(alphaMode="MASK", alphaCutoff=0.5)
    text = json.dumps(doc).encode()
    text += b" " * ((4 - len(text) % 4) % 4)
    body = struct.pack("<II", len(text), 0x4E4F534A) + text
    body += struct.pack("<II", len(binary), 0x004E4942) + binary
    return struct.pack("<III", 0x46546C67, 2, 12 + len(body)) + body


def _textured_vs_plain(quick: bool) -> float:
    from app.bench.viewport import AREA, _frame, _paired, _scene, _with_gl
    from rendering.foliage_renderer import FoliageRenderer

    def measure() -> float:
        from OpenGL import GL

        from app.bench.viewport import SIZE

        GL.glViewport(0, 0, SIZE, SIZE)
        GL.glEnable(GL.GL_DEPTH_TEST)
        with tempfile.TemporaryDirectory() as folder:
            renderers = []
            for textured in (True, False):
                scene = _scene(100_000 if quick else 1_000_000)
                name = "leaves.glb" if textured else "plain.glb"
                (Path(folder) / name).write_bytes(card_glb(textured))
                scene.path = Path(folder) / "bench.boscage"
                palette = foliage_of(scene).palette
                palette.replace(FoliageType("tuft", mesh=name, cull=(1e5, 1e5 + 1.0)))
                renderer = FoliageRenderer(scene)
                renderer.initialize()
                renderers.append(renderer)
            everything = _frame((-AREA / 2, 0, -AREA / 2), (AREA / 2, 2, AREA / 2))
            for r in renderers:
                r.draw(everything)  # uploads every chunk and the texture
            assert renderers[0].textures.uploads == 1 and not renderers[1].mesh_errors
            textured, plain = _paired(renderers[0].draw, renderers[1].draw, everything, everything,
                                      6 if quick else 4)
            for r in renderers:
                r.release()
            return textured / plain

    return _with_gl(measure)


CASES = [
    BenchCase("viewport.textured_cutout_forest_vs_untextured", budget=1.3,
              run=_textured_vs_plain,
              description="1M instances of an alpha-tested textured card type cost little more than "
                          "the same cards untextured"),
]
