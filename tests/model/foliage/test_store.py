import struct
import tomllib
import zlib

import numpy as np
import pytest

import model.foliage  # noqa: F401  (registers the scene section)
from model.errors import FormatError
from model.foliage.foliage_type import FoliageType, LayerFilter
from model.foliage.palette import Palette
from model.foliage.section import foliage_of
from model.foliage.store import MAGIC, decode_store, encode_store, load_store, save_store
from model.foliage.volume import FoliageVolume
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from tests.model.foliage.conftest import plane
from tests.model.foliage.test_volume import random_records

HEADER = 8 + 4 + 8 + 4


def instance_file(manifest):
    """The instance file a saved scene's manifest names."""
    return manifest.with_name(tomllib.loads(manifest.read_text())["foliage"]["instances"])


def make_volume(n_a=1000, n_b=500, cell_size=32.0):
    pal = Palette([FoliageType("a"), FoliageType("b", spacing=2.0), FoliageType("grass", storage="derived")])
    v = FoliageVolume(pal, cell_size)
    v.add("a", random_records(n_a, 1, span=200))
    v.add("b", random_records(n_b, 2, span=200))
    v.add("grass", random_records(300, 3, span=200))
    return v


def sorted_rows(records):
    return np.sort(np.ascontiguousarray(records).view("V28").ravel())


def test_round_trip_and_derived_types_never_written(tmp_path):
    v = make_volume()
    save_store(v, tmp_path / "f.foliage.bin")
    data = (tmp_path / "f.foliage.bin").read_bytes()
    assert data == encode_store(v)  # streaming and in-memory writers agree
    assert b"grass" not in data
    w = FoliageVolume(v.palette, 32.0)
    counts = load_store(tmp_path / "f.foliage.bin", w)
    assert counts == {"a": 1000, "b": 500}
    for t in ("a", "b"):
        assert w.all_records(t).tobytes() == v.all_records(t).tobytes()
    assert w.count("grass") == 0


def test_50000_instances_are_1_4_mb_plus_a_small_header(tmp_path):
    pal = Palette([FoliageType("tree")])
    v = FoliageVolume(pal)
    v.add("tree", random_records(50_000, 5, span=500))
    save_store(v, tmp_path / "f.bin")
    size = (tmp_path / "f.bin").stat().st_size
    assert size == 50_000 * 28 + HEADER + 2 + len("tree") + 8 + 4
    assert 1_400_000 <= size < 1_400_100


def test_written_with_32m_cells_read_into_64m_cells_recells(tmp_path):
    v = make_volume(cell_size=32.0)
    save_store(v, tmp_path / "f.bin")
    w = FoliageVolume(v.palette, 64.0)
    load_store(tmp_path / "f.bin", w)
    assert struct.unpack_from("<d", (tmp_path / "f.bin").read_bytes(), 12)[0] == 32.0
    assert len(w.keys()) < len(v.keys())
    for key, chunk in w.chunks():
        cx, cz = w.cell_of(chunk.records[:, 0], chunk.records[:, 2])
        assert (cx == key[0][0]).all() and (cz == key[0][1]).all()
    for t in ("a", "b"):
        assert np.array_equal(sorted_rows(w.all_records(t)), sorted_rows(v.all_records(t)))


def corrupt(data: bytes, offset: int, new: bytes, fix_crc: bool = True) -> bytes:
    out = bytearray(data)
    out[offset:offset + len(new)] = new
    if fix_crc:
        out[-4:] = struct.pack("<I", zlib.crc32(bytes(out[:-4])))
    return bytes(out)


def test_corrupt_truncated_and_oversized_files_are_clear_errors(tmp_path):
    v = make_volume(50, 20)
    good = encode_store(v)
    count_at = HEADER + 2 + 1  # the first type is "a"
    cases = {
        "magic": (corrupt(good, 0, b"NOTFOLI\0"), "bad magic"),
        "version": (corrupt(good, 8, struct.pack("<I", 9)), "version 9"),
        "truncated": (good[:200], "claims"),
        "tiny": (good[:10], "too short"),
        "huge count": (corrupt(good, count_at, struct.pack("<Q", 2**61)), "claims"),
        "type count": (corrupt(good, 20, struct.pack("<I", 2**31)), "claims"),
        "crc": (corrupt(good, HEADER + 20, b"\xff\xff", fix_crc=False), "checksum"),
        "trailing": (good[:-4] + b"xx" + struct.pack("<I", zlib.crc32(good[:-4] + b"xx")), "unexpected"),
        "cell size": (corrupt(good, 12, struct.pack("<d", -1.0)), "cell size"),
        "nan": (corrupt(good, count_at + 8, struct.pack("<f", float("nan"))), "NaN"),
    }
    for name, (data, words) in cases.items():
        p = tmp_path / f"{name}.bin"
        p.write_bytes(data)
        target = FoliageVolume(v.palette)
        with pytest.raises(FormatError) as e:
            load_store(p, target)
        assert str(p) in str(e.value) and words in str(e.value), name
        assert len(target) == 0, name  # nothing half-loaded
    with pytest.raises(FormatError, match="not found"):
        load_store(tmp_path / "missing.bin", FoliageVolume())


def test_oversized_count_is_refused_before_allocating(monkeypatch):
    v = make_volume(5, 5)
    data = corrupt(encode_store(v), HEADER + 3, struct.pack("<Q", 10**12))
    calls = []
    real = np.frombuffer
    monkeypatch.setattr(np, "frombuffer", lambda *a, **k: calls.append(a) or real(*a, **k))
    with pytest.raises(FormatError, match="claims 1000000000000 instances"):
        decode_store(data, FoliageVolume(), "x.bin")
    assert calls == []


def test_scene_save_and_open_carry_palette_and_instances(tmp_path):
    terrain = plane(33)
    terrain.add_layer("grass", (0, 255, 0))
    scene = Scene(terrain, "Woods")
    f = foliage_of(scene)
    assert foliage_of(scene) is f and len(f.palette) == 0
    f.palette.add(FoliageType("oak", density=2.0, layer=LayerFilter("grass", 0.25)))
    f.palette.add(FoliageType("grass", storage="derived"))
    f.volume.add("oak", random_records(200, 7, span=16))
    f.volume.add("grass", random_records(50, 8, span=16))
    path = tmp_path / "woods.boscage"
    save_scene(scene, path)
    side = instance_file(path)
    assert side.name.startswith("woods.foliage.") and side.exists()
    text = path.read_text()
    assert "[foliage]" in text and 'name = "oak"' in text and "min_weight = 0.25" in text
    back = load_scene(path)
    g = foliage_of(back)
    assert g.palette == f.palette and g.volume.palette is g.palette
    assert g.volume.counts() == {"oak": 200}
    assert g.volume.all_records("oak").tobytes() == f.volume.all_records("oak").tobytes()
    # the side file is checked against the manifest
    side.write_bytes(side.read_bytes()[:-1] + b"\0")
    with pytest.raises(FormatError) as e:
        load_scene(path)
    assert side.name in str(e.value)


def test_scene_without_foliage_has_no_section(tmp_path):
    scene = Scene(plane(9))
    save_scene(scene, tmp_path / "s.boscage")
    assert not list(tmp_path.glob("s.foliage*"))
    assert "foliage" not in load_scene(tmp_path / "s.boscage").sections


def test_bad_foliage_section_names_the_key(tmp_path):
    scene = Scene(plane(9))
    foliage_of(scene).palette.add(FoliageType("a"))
    save_scene(scene, tmp_path / "s.boscage")
    text = (tmp_path / "s.boscage").read_text()
    (tmp_path / "s.boscage").write_text(text.replace('{ name = "a" }', '{ name = "a", wobble = 3 }'))
    with pytest.raises(FormatError) as e:
        load_scene(tmp_path / "s.boscage")
    assert e.value.place == "foliage.types[0].wobble"
    name = instance_file(tmp_path / "s.boscage").name
    (tmp_path / "s.boscage").write_text(text.replace(f'instances = "{name}"', f'instances = "../{name}"'))
    with pytest.raises(FormatError, match="plain file name"):
        load_scene(tmp_path / "s.boscage")


def test_magic_is_stable():
    assert MAGIC == b"BSCGFOL\0" and encode_store(FoliageVolume())[:8] == MAGIC


def test_loading_into_a_volume_that_has_instances_appends(tmp_path):
    v = make_volume(300, 100)
    save_store(v, tmp_path / "f.bin")
    target = FoliageVolume(v.palette)
    target.add("a", random_records(50, 9, span=200))
    seen = []
    target.changed.connect(seen.append)
    load_store(tmp_path / "f.bin", target)
    assert target.counts() == {"a": 350, "b": 100} and len(seen) == 1
    expected = np.concatenate([random_records(50, 9, span=200), v.all_records("a")])
    assert np.array_equal(sorted_rows(target.all_records("a")), sorted_rows(expected))
    with pytest.raises(ValueError):
        target.absorb(FoliageVolume(v.palette, 64.0))


def test_manifest_names_the_instance_files_own_checksum(tmp_path):
    scene = Scene(plane(9))
    f = foliage_of(scene)
    f.palette.add(FoliageType("a"))
    codes = set()
    for n in (0, 3, 7):
        f.volume.clear()
        f.volume.add("a", random_records(n, n, span=4))
        save_scene(scene, tmp_path / "s.boscage")
        data = instance_file(tmp_path / "s.boscage").read_bytes()
        assert instance_file(tmp_path / "s.boscage").name == f"s.foliage.{zlib.crc32(data[:-4]):08x}.bin"
        line = next(x for x in (tmp_path / "s.boscage").read_text().splitlines() if "instances_crc32" in x)
        assert f"{zlib.crc32(data[:-4]):08x}" in line
        codes.add(line)
    assert len(codes) == 3  # differs with the content
    # a side file from another save (valid on its own) does not pass for this scene's
    other = Scene(plane(9))
    foliage_of(other).palette.add(FoliageType("a"))
    foliage_of(other).volume.add("a", random_records(2, 1, span=4))
    save_scene(other, tmp_path / "o.boscage")
    instance_file(tmp_path / "s.boscage").write_bytes(instance_file(tmp_path / "o.boscage").read_bytes())
    with pytest.raises(FormatError, match="does not match the scene"):
        load_scene(tmp_path / "s.boscage")


def test_a_scene_can_start_with_the_builtin_palette(tmp_path):
    from model.foliage.palette import builtin_palette

    scene = Scene(plane(9))
    f = foliage_of(scene, builtin_palette())
    assert f.palette.names() == ["conifer", "broadleaf", "bush", "rock", "grass"]
    assert foliage_of(scene, Palette()) is f  # only used when the section is created
    save_scene(scene, tmp_path / "s.boscage")
    assert foliage_of(load_scene(tmp_path / "s.boscage")).palette == f.palette
