"""Hostile glTF: wrong types, sizes that lie and buffer files that leave the folder or never end
are one FormatError at their JSON path, refused before anything is allocated."""

from __future__ import annotations

import json
import os
import struct
import threading
from pathlib import Path

import numpy as np
import pytest

from model.errors import FormatError
from model.interchange import read_foliage

from .test_gltf import _foreign


def glb_parts(data: bytes) -> tuple[dict, bytes]:
    n = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + n])
    rest = data[20 + n:]
    return doc, rest[8:8 + struct.unpack_from("<I", rest, 0)[0]]


def glb(doc: dict, blob: bytes) -> bytes:
    text = json.dumps(doc).encode()
    text += b" " * (-len(text) % 4)
    blob += b"\0" * (-len(blob) % 4)
    head = b"glTF" + struct.pack("<II", 2, 28 + len(text) + len(blob))
    return (head + struct.pack("<II", len(text), 0x4E4F534A) + text
            + struct.pack("<II", len(blob), 0x004E4942) + blob)


@pytest.fixture
def good(tmp_path: Path) -> tuple[dict, bytes]:
    return glb_parts(_foreign(tmp_path, "source.glb").read_bytes())


def refusal(path: Path, data: bytes | str) -> FormatError:
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    with pytest.raises(FormatError) as e:
        read_foliage(path)
    return e.value


def test_random_bytes_are_not_glTF(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    e = refusal(tmp_path / "bad_noise.glb", rng.integers(0, 256, 4096, np.uint8).tobytes())
    assert str(e) == (f"{tmp_path / 'bad_noise.glb'} @ offset 0: not a glTF file: a binary glTF (.glb) "
                      "starts with 'glTF'")
    e = refusal(tmp_path / "bad_noise.gltf", rng.integers(0, 256, 4096, np.uint8).tobytes())
    assert "not a glTF file" in str(e)


@pytest.mark.parametrize("edit, place, words", [
    (lambda d: d["nodes"][2].update(translation="up"), "nodes[2].translation", "got a string"),
    (lambda d: d["nodes"][3].update(scale=[1, 2]), "nodes[3].scale", "array of 2 items"),
    (lambda d: d["nodes"][0].update(children=[1, "2"]), "nodes[0].children[1]", "got a string"),
    (lambda d: d["nodes"][0].update(children={"a": 1}), "nodes[0].children", "got an object"),
    (lambda d: d["nodes"][1].update(mesh=[0]), "nodes[1].mesh", "got an array"),
    (lambda d: d["nodes"][1]["extensions"].update(EXT_mesh_gpu_instancing=[1]),
     "nodes[1].extensions.EXT_mesh_gpu_instancing", "expected an object"),
    (lambda d: d["accessors"][2].update(count="2"), "accessors[2].count", "got a string"),
    (lambda d: d["accessors"][2].update(type=["VEC3"]), "accessors[2].type", "got an array"),
    (lambda d: d["bufferViews"][2].update(byteOffset=-4), "bufferViews[2].byteOffset", "got -4"),
    (lambda d: d["meshes"][0].update(primitives={"x": 1}), "meshes[0].primitives", "got an object"),
    (lambda d: d.update(scene="0"), "scene", "got a string"),
    (lambda d: d.update(nodes={}), "nodes", "expected an array"),
])
def test_a_wrong_type_is_named_by_its_json_path(tmp_path, good, edit, place, words) -> None:
    doc, blob = good
    edit(doc)
    e = refusal(tmp_path / "bad.glb", glb(doc, blob))
    assert e.path == str(tmp_path / "bad.glb") and e.place == place and words in e.reason, str(e)


@pytest.mark.parametrize("edit, place, words", [
    (lambda d: d["accessors"][2].update(count=2 ** 40), "accessors[2]", "view holds 24"),
    (lambda d: d["accessors"][2].pop("bufferView") and d["accessors"][2].update(count=2 ** 40),
     "accessors[2]", "has no bufferView and claims 1,099,511,627,776 elements"),
    (lambda d: d["bufferViews"][2].update(byteOffset=2 ** 40), "bufferViews[2]", "outside its buffer"),
    (lambda d: d["bufferViews"][2].update(byteStride=2 ** 40), "bufferViews[2].byteStride", "12 to 252"),
    (lambda d: d["buffers"][0].update(byteLength=2 ** 40), "buffers[0].byteLength", "data holds"),
])
def test_sizes_that_lie_are_refused_before_any_allocation(tmp_path, good, edit, place, words) -> None:
    import tracemalloc

    doc, blob = good
    edit(doc)
    path = tmp_path / "bad_lie.glb"
    path.write_bytes(glb(doc, blob))
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as e:
            read_foliage(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert e.value.place == place and words in e.value.reason, str(e.value)
    assert peak < 1 << 20


def as_gltf(tmp_path: Path, doc: dict, blob: bytes, uri: str, where: str = "data.bin") -> Path:
    doc = json.loads(json.dumps(doc))
    doc["buffers"][0]["uri"] = uri
    target = tmp_path / where
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        target.write_bytes(blob)
    path = tmp_path / "scene.gltf"
    path.write_text(json.dumps(doc))
    return path


def test_a_buffer_file_inside_the_folder_reads_like_the_binary_chunk(tmp_path, good) -> None:
    doc, blob = good
    from_glb = read_foliage(_foreign(tmp_path, "same.glb"))
    for uri, where in (("data.bin", "data.bin"), ("sub/my%20data.bin", "sub/my data.bin"),
                       ("./sub/../data.bin".replace("../", ""), "sub/data.bin")):
        got = read_foliage(as_gltf(tmp_path, doc, blob, uri, where))
        assert sorted(got.records) == sorted(from_glb.records)
        for name, records in got.records.items():
            assert records.tobytes() == from_glb.records[name].tobytes()


@pytest.mark.parametrize("uri", ["../data.bin", "/etc/passwd", "sub/../../data.bin", "data.bin%00.png",
                                 "data.bin\u0000", "C:\\data.bin", "file:///etc/passwd", "", "sub/"])
def test_a_buffer_uri_that_leaves_the_folder_is_refused(tmp_path, good, uri) -> None:
    doc, blob = good
    inner = tmp_path / "inner"
    inner.mkdir()
    (tmp_path / "data.bin").write_bytes(blob)
    doc = json.loads(json.dumps(doc))
    doc["buffers"][0]["uri"] = uri
    e = refusal(inner / "bad_scene.gltf", json.dumps(doc))
    assert e.place == "buffers[0].uri" and "relative file path inside" in e.reason, str(e)


def test_links_out_and_fifos_are_refused_without_reading_them(tmp_path, good) -> None:
    doc, blob = good
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "data.bin").write_bytes(blob)
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "link.bin").symlink_to(outside / "data.bin")
    (folder / "dir").symlink_to(outside, target_is_directory=True)
    os.mkfifo(folder / "pipe.bin")
    for uri, words in (("link.bin", "links outside"), ("dir/data.bin", "links outside"),
                       ("pipe.bin", "is not a file"), ("missing.bin", "missing")):
        doc2 = json.loads(json.dumps(doc))
        doc2["buffers"][0]["uri"] = uri
        result: list = []
        text = json.dumps(doc2)
        path = folder / "bad_scene.gltf"
        reader = threading.Thread(target=lambda out=result, t=text, p=path: out.append(refusal(p, t)),
                                  daemon=True)
        reader.start()
        reader.join(20)
        assert not reader.is_alive(), f"{uri}: the reader hangs"
        assert words in str(result[0]), str(result[0])
