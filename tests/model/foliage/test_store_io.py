"""The store's fast paths: CRC-32 in pieces, one-pass re-celling, streamed saves, versioned side files."""

import os
import tomllib
import zlib

import numpy as np
import pytest

import model.foliage  # noqa: F401  (registers the scene section)
from model import atomic
from model.errors import FormatError
from model.foliage import store
from model.foliage.foliage_type import FoliageType
from model.foliage.palette import Palette
from model.foliage.section import foliage_of
from model.foliage.store import cell_runs, crc32_combine, encode_store, load_store, save_store
from model.foliage.volume import FoliageVolume
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from tests.model.foliage.conftest import plane
from tests.model.foliage.test_volume import random_records

# ---- CRC-32 ---------------------------------------------------------------------------------

LENGTHS = [0, 1, 2, 3, 7, 8, 255, 256, 1000, 4097, 65_537, 1 << 20, (1 << 20) + 3]


def test_crc32_combine_matches_zlib_on_the_concatenation():
    rng = np.random.default_rng(5)
    for la in LENGTHS:
        for lb in LENGTHS:
            a = rng.integers(0, 256, la, dtype=np.uint8).tobytes()
            b = rng.integers(0, 256, lb, dtype=np.uint8).tobytes()
            assert crc32_combine(zlib.crc32(a), zlib.crc32(b), lb) == zlib.crc32(a + b), (la, lb)
    with pytest.raises(ValueError):
        crc32_combine(1, 2, -1)


def test_the_crc_function_in_use_is_zlibs():
    data = np.random.default_rng(6).integers(0, 256, 3_000_001, dtype=np.uint8)
    assert store._crc32(data) == zlib.crc32(data.tobytes())
    assert store._crc32(b"") == 0 and store._crc32(b"a", store._crc32(b"bc")) == zlib.crc32(b"bca")


# ---- re-celling -----------------------------------------------------------------------------

def reference_runs(records, cell_size):
    """Plain loop: each record's cell via `cell_of`, records grouped by cell in ascending cell
    order, file order kept within a cell."""
    v = FoliageVolume(cell_size=cell_size)
    groups: dict[tuple[int, int], list[int]] = {}
    for i, r in enumerate(records):
        groups.setdefault(v.cell_of(r[0], r[2]), []).append(i)
    return [(cell, groups[cell]) for cell in sorted(groups)]


def runs_of(records, cell_size):
    order, bounds, cells = cell_runs(records, cell_size)
    idx = np.arange(len(records)) if order is None else order
    return [(cell, idx[bounds[g]:bounds[g + 1]].tolist()) for g, cell in enumerate(cells)], order


@pytest.mark.parametrize("scan_rows", [None, 64, 7])
def test_cell_runs_agree_with_a_plain_loop(monkeypatch, scan_rows):
    if scan_rows:  # many blocks, and parts scanned at once
        monkeypatch.setattr(store, "_SCAN_ROWS", scan_rows)
        monkeypatch.setattr(store, "_SCAN_PARTS", 2 if scan_rows == 64 else 3)
        monkeypatch.setattr(store, "_THREAD_BYTES", 0)
    rng = np.random.default_rng(8)
    edges = np.array([-64.0, -32.0, -0.0, 0.0, 31.999998, 32.0, -1e-30, 1e-30, 95.5], np.float32)
    records = random_records(3000, 9, span=150)
    records[:len(edges), 0] = edges
    records[:len(edges), 2] = edges[::-1]
    for cell_size in (32.0, 64.0, 10.0, 0.7):
        shuffled = records[rng.permutation(len(records))]
        expected = reference_runs(shuffled, cell_size)
        got, order = runs_of(shuffled, cell_size)
        assert got == expected and order is not None, cell_size
        # in cell order already (as written by the store): no reordering, same runs
        in_order = shuffled[np.concatenate([np.array(i) for _, i in expected])]
        got, order = runs_of(in_order, cell_size)
        assert order is None and got == reference_runs(in_order, cell_size), cell_size
    assert runs_of(records[:0], 32.0)[0] == []
    one = random_records(50, 3, span=5) + np.float32(200.0)
    assert runs_of(one, 32.0)[0] == reference_runs(one, 32.0)
    # in order except for one record moved back a cell, anywhere (block edges, the middle)
    in_order = records[np.concatenate([np.array(i) for _, i in reference_runs(records, 32.0)])]
    for at in (1, 6, 7, 63, 64, 65, len(in_order) // 2, len(in_order) - 1):
        bent = in_order.copy()
        bent[at, 0] = bent[at - 1, 0] - 32.0
        got, order = runs_of(bent, 32.0)
        assert order is not None and got == reference_runs(bent, 32.0), at
    # the scan's CRC of the records is the CRC of their bytes, however they are split
    assert store._scan(in_order, 32.0)[3] == zlib.crc32(in_order.tobytes())
    assert store._scan(shuffled, 10.0)[3] == zlib.crc32(shuffled.tobytes())
    last = len(in_order) - 1
    for at, column, value in ((0, 0, np.nan), (last // 2 + 3, 5, np.inf), (last, 6, -np.inf)):
        bad = in_order.copy()
        bad[at, column] = value
        assert store._scan(bad, 32.0)[0] is False, at


def test_add_runs_builds_chunks_in_one_change():
    v = FoliageVolume(Palette([FoliageType("t")]))
    seen = []
    v.changed.connect(seen.append)
    rec = random_records(10, 1, span=5)
    v.add_runs([("t", rec, np.array([0, 4, 10]), [(0, 0), (1, 0)])], copy=False)
    assert v.records((0, 0), "t").base is rec and v.records((1, 0), "t").base is rec
    assert len(seen) == 1 and sorted(seen[0]) == [((0, 0), "t"), ((1, 0), "t")]
    first = {k: c.version for k, c in v.chunks()}
    # into existing chunks, a cell named twice, copies: appended in order, every chunk touched
    more = random_records(6, 2, span=5)
    v.add_runs([("t", more, [0, 2, 3, 6], [(1, 0), (2, 2), (1, 0)]), ("u", more[:1], [0, 1], [(0, 0)])])
    assert np.array_equal(v.records((1, 0), "t"), np.concatenate([rec[4:], more[:2], more[3:]]))
    assert v.records((2, 2), "t").base is not more and v.type_names() == ["t", "u"] and len(v) == 17
    versions = {k: c.version for k, c in v.chunks()}
    assert versions[((1, 0), "t")] > first[((1, 0), "t")] and versions[((0, 0), "t")] == first[((0, 0), "t")]
    assert len(set(versions.values())) == len(versions) and len(seen) == 2
    with pytest.raises(ValueError):
        v.add_runs([("t", rec, [0, 5, 10], [(0, 0)])])


def test_a_file_in_cell_order_loads_as_views_of_one_buffer(tmp_path):
    v = FoliageVolume(Palette([FoliageType("t")]))
    v.add("t", random_records(5000, 4, span=300))
    save_store(v, tmp_path / "f.bin")
    w = FoliageVolume(v.palette)
    load_store(tmp_path / "f.bin", w)
    bases = {id(c.records.base) for _, c in w.chunks()}
    assert len(bases) == 1 and all(c.records.flags.writeable for _, c in w.chunks())
    assert [k for k, _ in w.chunks()] == [k for k, _ in v.chunks()]
    for key, chunk in v.chunks():
        assert np.array_equal(w.records(*key), chunk.records)


# ---- large files: streamed save, threaded CRC ----------------------------------------------

def big_volume(n=150_000, cell_size=32.0):
    pal = Palette([FoliageType("oak"), FoliageType("fir"), FoliageType("grass", storage="derived")])
    v = FoliageVolume(pal, cell_size)
    v.add("oak", random_records(n, 1, span=900))
    v.add("fir", random_records(n // 3, 2, span=900))
    v.add("grass", random_records(1000, 3, span=900))
    v.add("unlisted", random_records(7, 4, span=900))
    return v


@pytest.mark.parametrize("fast_crc", [True, False])
def test_large_files_stream_the_same_bytes_and_load_back(tmp_path, monkeypatch, fast_crc):
    if not fast_crc:  # the zlib path: CRC pieces on worker threads
        monkeypatch.setattr(store, "FAST_CRC", False)
        monkeypatch.setattr(store, "_crc32", zlib.crc32)
    v = big_volume()
    path = tmp_path / "big.foliage.bin"
    save_store(v, path)
    data = path.read_bytes()
    assert data == encode_store(v)
    assert int.from_bytes(data[-4:], "little") == zlib.crc32(data[:-4])
    assert len(data) > 2 * store._THREAD_BYTES  # large enough for the streamed path
    for cell_size in (32.0, 64.0):
        w = FoliageVolume(v.palette, cell_size)
        assert load_store(path, w) == {"oak": 150_000, "fir": 50_000, "unlisted": 7}
        for t in ("oak", "fir", "unlisted"):
            a = np.sort(np.ascontiguousarray(w.all_records(t)).view("V28").ravel())
            b = np.sort(np.ascontiguousarray(v.all_records(t)).view("V28").ravel())
            assert np.array_equal(a, b)
        for (cell, _), chunk in w.chunks():
            cx, cz = w.cell_of(chunk.records[:, 0], chunk.records[:, 2])
            assert (cx == cell[0]).all() and (cz == cell[1]).all()
    damaged = bytearray(data)
    damaged[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(damaged))
    target = FoliageVolume(v.palette)
    with pytest.raises(FormatError, match="checksum"):
        load_store(path, target)
    assert len(target) == 0


def test_a_write_failing_mid_save_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    v = big_volume()
    path = tmp_path / "f.foliage.bin"
    save_store(FoliageVolume(v.palette), path)
    before = path.read_bytes()
    real_crc = store._crc32
    calls = []

    def failing_crc(data, value=0):  # fails part-way through the file
        calls.append(len(data))
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real_crc(data, value)

    monkeypatch.setattr(store, "_crc32", failing_crc)
    with pytest.raises(OSError, match="no space left on device while writing .*f.foliage.bin"):
        save_store(v, path)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


@pytest.mark.parametrize("fail_at", [1, 3, 10**9])
def test_the_writer_thread_writes_in_order_and_reports_a_disk_error(fail_at):
    v = big_volume()

    class Disk:
        def __init__(self):
            self.parts = []

        def write(self, data):
            if len(self.parts) + 1 == fail_at:
                raise OSError(5, "Input/output error")
            self.parts.append(bytes(memoryview(data).cast("B")))

    disk = Disk()
    plan = store._plan(v)
    assert plan.end >= store._THREAD_BYTES  # the threaded path
    if fail_at < 10**9:
        with pytest.raises(OSError, match="Input/output"):
            store._write_blocks(disk, plan)
    else:
        store._write_blocks(disk, plan)
        assert b"".join(disk.parts) == encode_store(v)


def test_expected_checksum_is_checked_before_parsing(tmp_path):
    v = big_volume(2000)
    path = tmp_path / "f.bin"
    save_store(v, path)
    crc = int.from_bytes(path.read_bytes()[-4:], "little")
    assert load_store(path, FoliageVolume(v.palette), expect_crc=crc)["oak"] == 2000
    with pytest.raises(FormatError, match="does not match the scene"):
        load_store(path, FoliageVolume(v.palette), expect_crc=crc ^ 1)


# ---- versioned side file in a scene ---------------------------------------------------------

def foliage_scene(seed):
    scene = Scene(plane(17), f"Scene {seed}")
    f = foliage_of(scene)
    f.palette.add(FoliageType("oak"))
    f.palette.add(FoliageType("fir"))
    f.volume.add("oak", random_records(400, seed, span=60))
    f.volume.add("fir", random_records(100, seed + 50, span=60))
    return scene


def snapshot(scene):
    f = foliage_of(scene)
    return (scene.name, scene.terrain.heights.tobytes(), f.palette,
            {key: chunk.records.tobytes() for key, chunk in f.volume.chunks()})


def manifest_foliage(path):
    return tomllib.loads(path.read_text())["foliage"]


def test_the_instance_file_is_named_by_its_checksum_and_stale_ones_go(tmp_path):
    path = tmp_path / "s.boscage"
    scene = foliage_scene(1)
    save_scene(scene, path)
    first = manifest_foliage(path)["instances"]
    assert first == f"s.foliage.{manifest_foliage(path)['instances_crc32']}.bin"
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    save_scene(scene, path)  # unchanged: same names, same bytes
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    foliage_of(scene).volume.add("oak", random_records(3, 77, span=10))
    save_scene(scene, path)
    second = manifest_foliage(path)["instances"]
    assert second != first and (tmp_path / second).exists() and not (tmp_path / first).exists()
    assert snapshot(load_scene(path)) == snapshot(scene)


def test_a_save_interrupted_after_the_instance_file_keeps_the_previous_scene(tmp_path, monkeypatch):
    path = tmp_path / "s.boscage"
    old = foliage_scene(1)
    save_scene(old, path)
    old_files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    expected = snapshot(load_scene(path))
    assert expected == snapshot(old)
    written = []
    real_replace = os.replace

    def failing_replace(src, dst):
        if str(dst).endswith(".boscage"):  # the manifest: every side file is already in place
            assert any(".foliage." in name for name in written)
            raise OSError("power cut")
        written.append(os.path.basename(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", failing_replace)
    with pytest.raises(OSError, match="power cut"):
        save_scene(foliage_scene(2), path)
    monkeypatch.undo()
    assert snapshot(load_scene(path)) == expected
    for name, data in old_files.items():  # nothing the old manifest names was touched
        assert (tmp_path / name).read_bytes() == data
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
    # the orphan of the failed save goes with the next good one
    save_scene(old, path)
    doc = tomllib.loads(path.read_text())
    named = {path.name, doc["foliage"]["instances"], *(n for row in doc["terrain"]["heights"] for n in row)}
    assert {p.name for p in tmp_path.iterdir()} == named


def test_a_scene_saved_with_the_fixed_instance_name_still_opens_and_moves_on(tmp_path):
    path = tmp_path / "old.boscage"
    scene = foliage_scene(3)
    save_scene(scene, path)
    versioned = tmp_path / manifest_foliage(path)["instances"]
    legacy = tmp_path / "old.foliage.bin"
    versioned.rename(legacy)
    path.write_text(path.read_text().replace(versioned.name, legacy.name))
    assert snapshot(load_scene(path)) == snapshot(scene)
    save_scene(load_scene(path), path)
    assert not legacy.exists() and (tmp_path / manifest_foliage(path)["instances"]).exists()
    assert snapshot(load_scene(path)) == snapshot(scene)
    other = tmp_path / "other.foliage.bin"  # another scene's legacy file is left alone
    other.write_bytes(b"x")
    save_scene(scene, path)
    assert other.exists()
