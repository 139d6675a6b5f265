"""Scene files: bit-exact round trips, stable bytes, atomic saves, one clear error per bad file."""

from __future__ import annotations

import os
import tomllib
import zlib
from pathlib import Path

import numpy as np
import pytest
import tomli_w

from model import atomic
from model.errors import FormatError
from model.formats import scene_file
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from model.terrain import Terrain


def make_scene(seed: int = 1, rows: int = 17, cols: int = 23) -> Scene:
    rng = np.random.default_rng(seed)
    heights = rng.normal(10.0, 30.0, (rows, cols)).astype(np.float32)
    heights[0, 0] = np.float32(1e-38)  # a denormal-ish value survives too
    terrain = Terrain(heights, spacing=1.5, origin=(-12.25, 7.5))
    terrain.add_layer("grass", (10, 200, 30), rng.integers(0, 256, (rows, cols), dtype=np.uint8))
    terrain.add_layer("rock", (128, 128, 128), rng.integers(0, 256, (rows, cols), dtype=np.uint8))
    return Scene(terrain=terrain, name="Round trip")


def save_v1(scene: Scene, path: Path) -> None:
    """Save as version 1 (one heights file, one weights file), as older builds did."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(scene_file, "scene_manifest", scene_file.scene_manifest_v1)
        save_scene(scene, path)


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_save_then_load_reproduces_everything_bit_for_bit(tmp_path: Path) -> None:
    scene = make_scene()
    path = tmp_path / "a.boscage"
    save_scene(scene, path)
    back = load_scene(path)
    assert back.name == "Round trip"
    assert back.path == path
    assert back.terrain.heights.dtype == np.float32
    assert back.terrain.heights.tobytes() == scene.terrain.heights.tobytes()
    assert back.terrain.spacing == 1.5 and back.terrain.origin == (-12.25, 7.5)
    assert [(la.name, la.color) for la in back.terrain.layers] == [
        ("grass", (10, 200, 30)), ("rock", (128, 128, 128))]
    for a, b in zip(back.terrain.layers, scene.terrain.layers, strict=True):
        assert a.weights.dtype == np.uint8
        assert np.array_equal(a.weights, b.weights)


def test_loaded_arrays_are_writable_copies(tmp_path: Path) -> None:
    save_scene(make_scene(), tmp_path / "a.boscage")
    back = load_scene(tmp_path / "a.boscage")
    back.terrain.heights[0, 0] = 5.0
    back.terrain.layers[0].weights[0, 0] = 3
    assert back.terrain.heights[0, 0] == 5.0


def test_saving_an_unchanged_scene_writes_identical_bytes(tmp_path: Path) -> None:
    path = tmp_path / "s.boscage"
    save_scene(make_scene(), path)
    first = files_of(tmp_path)
    save_scene(load_scene(path), path)
    assert files_of(tmp_path) == first


def test_the_manifest_is_readable_toml(tmp_path: Path) -> None:
    save_scene(make_scene(), tmp_path / "s.boscage")
    doc = tomllib.loads((tmp_path / "s.boscage").read_text())
    assert doc["format"] == "boscage-scene" and doc["version"] == 2
    crc = zlib.crc32(make_scene().terrain.heights.tobytes())
    assert doc["terrain"]["tile"] == 512 and doc["terrain"]["heights"] == [[f"s.heights_0_0.{crc:08x}.bin"]]
    assert doc["terrain"]["columns"] == 23 and doc["terrain"]["rows"] == 17
    assert [la["name"] for la in doc["layers"]] == ["grass", "rock"]


def test_an_edit_replaces_side_files_and_leaves_no_stale_ones(tmp_path: Path) -> None:
    path = tmp_path / "s.boscage"
    scene = make_scene()
    save_scene(scene, path)
    scene.terrain.heights[3, 4] += 1.0
    save_scene(scene, path)
    names = sorted(files_of(tmp_path))
    assert len(names) == 3 and names[0] == "s.boscage"
    assert load_scene(path).terrain.heights[3, 4] == scene.terrain.heights[3, 4]


def test_checksum_named_section_files_are_kept_while_named_and_dropped_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def write(scene, manifest, files):
        data = scene.sections["extra"]
        path = scene_file.versioned_side_path(manifest, "extra", data)
        files[path] = data
        return {"file": path.name}

    monkeypatch.setitem(scene_file.SECTION_WRITERS, "extra", write)
    path = tmp_path / "s.boscage"
    scene = make_scene()
    scene.sections["extra"] = b"first"
    save_scene(scene, path)
    first = [n for n in files_of(tmp_path) if ".extra." in n]
    scene.sections["extra"] = b"second"
    save_scene(scene, path)
    second = [n for n in files_of(tmp_path) if ".extra." in n]
    assert len(first) == len(second) == 1 and first != second
    unrelated = tmp_path / "s.notes.txt"
    unrelated.write_text("mine")
    other_scene = tmp_path / "t.heights.0badf00d.bin"
    other_scene.write_bytes(b"x")
    save_scene(scene, path)
    assert unrelated.exists() and other_scene.exists()  # only this scene's checksum-named files go


def test_a_scene_without_layers_round_trips(tmp_path: Path) -> None:
    scene = Scene(Terrain(np.arange(12, dtype=np.float32).reshape(3, 4)), name="bare")
    save_scene(scene, tmp_path / "b.boscage")
    back = load_scene(tmp_path / "b.boscage")
    assert back.terrain.layers == [] and np.array_equal(back.terrain.heights, scene.terrain.heights)


# ---- interrupted writes -------------------------------------------------------------------

def test_atomic_write_failing_mid_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "f.bin"
    target.write_bytes(b"old contents")

    def half_then_fail(f) -> None:
        f.write(b"new con")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic.atomic_write(target, half_then_fail)
    assert target.read_bytes() == b"old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["f.bin"]  # no temp file left behind


@pytest.mark.parametrize("fail_at", [1, 2, 3])
def test_a_save_interrupted_at_any_file_leaves_the_previous_scene_loadable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int) -> None:
    path = tmp_path / "s.boscage"
    old = make_scene(seed=1)
    save_scene(old, path)
    new = make_scene(seed=2)
    real_replace = os.replace
    calls = {"n": 0}

    def failing_replace(src, dst):
        calls["n"] += 1
        if calls["n"] == fail_at:  # 1: heights, 2: layers, 3: manifest
            raise OSError("power cut")
        return real_replace(src, dst)

    monkeypatch.setattr(atomic.os, "replace", failing_replace)
    with pytest.raises(OSError, match="power cut"):
        save_scene(new, path)
    monkeypatch.undo()
    back = load_scene(path)
    assert back.terrain.heights.tobytes() == old.terrain.heights.tobytes()
    assert np.array_equal(back.terrain.layers[1].weights, old.terrain.layers[1].weights)
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


# ---- bad files ----------------------------------------------------------------------------

def saved(tmp_path: Path) -> tuple[Path, dict]:
    """A version 1 scene: the bad-file cases of its (unchanged) reader; version 2's tiles have
    theirs in test_scene_file_tiles.py."""
    path = tmp_path / "bad.boscage"
    save_v1(make_scene(), path)
    return path, tomllib.loads(path.read_text())


def rewrite(path: Path, doc: dict) -> None:
    path.write_text(tomli_w.dumps(doc))


def side(path: Path, doc: dict, key: str) -> Path:
    return path.with_name(doc["terrain"][key])


def corrupt_truncated_heights(path, doc):
    f = side(path, doc, "heights")
    f.write_bytes(f.read_bytes()[:-10])
    return f, "bytes"


def corrupt_truncated_manifest(path, doc):
    path.write_bytes(path.read_bytes()[:40])
    return path, "TOML"


def corrupt_wrong_size(path, doc):
    doc["terrain"]["columns"] += 1
    rewrite(path, doc)
    return side(path, doc, "heights"), "expected"


def corrupt_unknown_version(path, doc):
    doc["version"] = 99
    rewrite(path, doc)
    return path, "version"


def corrupt_missing_side_file(path, doc):
    f = side(path, doc, "layers")
    f.unlink()
    return f, "missing"


def corrupt_checksum(path, doc):
    f = side(path, doc, "heights")
    data = bytearray(f.read_bytes())
    data[100] ^= 0xFF
    f.write_bytes(bytes(data))
    return f, "checksum"


def corrupt_escaping_side_name(path, doc):
    doc["terrain"]["heights"] = "../elsewhere.bin"
    rewrite(path, doc)
    return path, "plain file name"


def corrupt_not_a_scene(path, doc):
    path.write_text('format = "something-else"\n')
    return path, "not a Boscage scene"


def corrupt_binary_garbage(path, doc):
    path.write_bytes(b"\xff\xfe\x00garbage")
    return path, "UTF-8"


def corrupt_huge_grid(path, doc):
    doc["terrain"]["columns"] = 10 ** 9
    doc["terrain"]["rows"] = 10 ** 9
    rewrite(path, doc)
    return path, "impossible grid size"


def corrupt_nan_heights(path, doc):
    f = side(path, doc, "heights")
    heights = np.frombuffer(f.read_bytes(), "<f4").copy()
    heights[5] = np.nan
    f.write_bytes(heights.tobytes())
    doc["terrain"].pop("heights_crc32")
    rewrite(path, doc)
    return f, "NaN"


def corrupt_heights_past_the_range(path, doc):
    f = side(path, doc, "heights")
    heights = np.frombuffer(f.read_bytes(), "<f4").copy()
    heights[[3, 7]] = 2.0e7  # 20,000 km: no import lets such a height in, so no scene holds one
    f.write_bytes(heights.tobytes())
    doc["terrain"].pop("heights_crc32")
    rewrite(path, doc)
    return f, "2 beyond ±10,000 km"


def corrupt_duplicate_layer(path, doc):
    doc["layers"][1]["name"] = doc["layers"][0]["name"]
    rewrite(path, doc)
    return path, "duplicate layer"


def corrupt_bad_colour(path, doc):
    doc["layers"][0]["color"] = "green"
    rewrite(path, doc)
    return path, "colour"


def corrupt_missing_file(path, doc):
    path.unlink()
    return path, "not found"


def corrupt_empty_manifest(path, doc):
    path.write_bytes(b"")
    return path, "empty file"


def corrupt_infinite_spacing(path, doc):
    path.write_text(path.read_text().replace(f"spacing = {doc['terrain']['spacing']!r}", "spacing = inf"))
    return path, "positive number of metres"


def corrupt_nan_origin(path, doc):
    doc["terrain"]["origin"] = [float("nan"), 0.0]
    rewrite(path, doc)
    return path, "finite"


def corrupt_absurd_extent(path, doc):
    doc["terrain"]["spacing"] = 1e300
    rewrite(path, doc)
    return path, "span more than"


def corrupt_side_file_is_a_folder(path, doc):
    folder = path.with_name("heights_folder")
    folder.mkdir()
    doc["terrain"]["heights"] = folder.name
    rewrite(path, doc)
    return folder, "not a file"


def corrupt_checksum_not_hex(path, doc):
    doc["terrain"]["heights_crc32"] = 12345
    rewrite(path, doc)
    return path, "8 hexadecimal digits"


BAD_FILES = [corrupt_empty_manifest, corrupt_infinite_spacing, corrupt_nan_origin, corrupt_absurd_extent,
             corrupt_side_file_is_a_folder, corrupt_checksum_not_hex,
             corrupt_truncated_heights, corrupt_truncated_manifest,
             corrupt_wrong_size,
             corrupt_unknown_version, corrupt_missing_side_file, corrupt_checksum,
             corrupt_escaping_side_name, corrupt_not_a_scene, corrupt_binary_garbage,
             corrupt_huge_grid, corrupt_nan_heights, corrupt_heights_past_the_range, corrupt_duplicate_layer,
             corrupt_bad_colour,
             corrupt_missing_file]


@pytest.mark.parametrize("corrupt", BAD_FILES, ids=lambda f: f.__name__.removeprefix("corrupt_"))
def test_each_kind_of_bad_file_is_one_format_error_naming_file_and_problem(
        tmp_path: Path, corrupt) -> None:
    path, doc = saved(tmp_path)
    named, words = corrupt(path, doc)
    with pytest.raises(FormatError) as info:
        load_scene(path)
    assert info.value.path == str(named)
    assert words.lower() in info.value.reason.lower()
    assert str(named) in str(info.value)


def test_any_layer_name_a_save_writes_loads_back(tmp_path: Path) -> None:
    """Importers name layers after game data (long names, odd bytes): what is saved must open."""
    scene = make_scene()
    names = ["x" * 300, "cut\0here", "  ", "tab\there", "ünïcode ☘"]
    for name in names:
        scene.terrain.add_layer(name, (1, 2, 3))
    save_scene(scene, tmp_path / "odd.boscage")
    assert [la.name for la in load_scene(tmp_path / "odd.boscage").terrain.layers][-len(names):] == names


def test_a_side_file_kept_as_a_link_opens(tmp_path: Path) -> None:
    """Large-file stores (git-annex, some LFS set-ups) leave links to their object folder; the name
    in the manifest stays a plain name in the scene's folder, which is what keeps it inside."""
    path, doc = saved(tmp_path)
    f = side(path, doc, "heights")
    store = tmp_path / ".annex" / "objects"
    store.mkdir(parents=True)
    (store / "h").write_bytes(f.read_bytes())
    f.unlink()
    f.symlink_to(store / "h")
    assert load_scene(path).terrain.heights.tobytes() == make_scene().terrain.heights.tobytes()


def test_bad_toml_names_its_line_and_column(tmp_path: Path) -> None:
    path, _ = saved(tmp_path)
    path.write_text('format = "boscage-scene"\nversion = 1\n[terrain\n')
    with pytest.raises(FormatError) as info:
        load_scene(path)
    assert info.value.place == "line 3, column 9" and info.value.reason.startswith("bad TOML")


def test_sections_hooks_write_and_read_beside_the_scene(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    def write(scene, manifest, files):
        files[scene_file.side_path(manifest, ".extra.txt")] = b"hello"
        return {"file": manifest.stem + ".extra.txt", "count": 1}

    seen = {}

    def read(scene, manifest, section):
        seen["section"] = section
        scene.sections["extra"] = manifest.with_name(section["file"]).read_bytes()

    monkeypatch.setitem(scene_file.SECTION_WRITERS, "extra", write)
    monkeypatch.setitem(scene_file.SECTION_READERS, "extra", read)
    save_scene(make_scene(), tmp_path / "x.boscage")
    back = load_scene(tmp_path / "x.boscage")
    assert seen["section"] == {"file": "x.extra.txt", "count": 1}
    assert back.sections["extra"] == b"hello"


def test_a_process_that_never_imported_foliage_keeps_a_scenes_foliage(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    path = tmp_path / "f.boscage"
    code = (
        "import sys, numpy as np\n"
        f"sys.path.insert(0, {str(root)!r})\n"
        "from model.formats.scene_file import load_scene, save_scene\n"
        "from model.scene import Scene\n"
        "from model.terrain import Terrain\n"
        "mode, path = sys.argv[1], sys.argv[2]\n"
        "if mode == 'write':\n"
        "    from model.foliage import SceneFoliage, builtin_palette\n"
        "    scene = Scene(Terrain(np.zeros((5, 5), np.float32)))\n"
        "    scene.sections['foliage'] = SceneFoliage(builtin_palette())\n"
        "    save_scene(scene, path)\n"
        "else:\n"
        "    assert 'model.foliage' not in sys.modules\n"
        "    scene = load_scene(path)\n"
        "    save_scene(scene, path)\n"
        "    print(type(scene.sections.get('foliage')).__name__, len(scene.sections['foliage'].palette))\n"
    )
    write = subprocess.run([sys.executable, "-c", code, "write", str(path)], capture_output=True, text=True)
    assert write.returncode == 0, write.stderr
    before = path.read_text()
    assert "[foliage]" in before
    resave = subprocess.run([sys.executable, "-c", code, "resave", str(path)], capture_output=True, text=True)
    assert resave.returncode == 0, resave.stderr
    kind, types = resave.stdout.split()
    assert kind == "SceneFoliage" and int(types) > 0
    assert path.read_text() == before


def test_progress_hears_every_side_file_byte_and_can_cancel(tmp_path: Path, monkeypatch) -> None:
    from model.formats import scene_file

    path, doc = saved(tmp_path)
    monkeypatch.setattr(scene_file, "READ_CHUNK", 100)  # several reports per file
    heard: list[tuple[int, int]] = []
    scene = load_scene(path, progress=lambda done, total: heard.append((done, total)) or True)
    t = scene.terrain
    total = t.rows * t.columns * (4 + len(t.layers))
    assert heard[-1] == (total, total) and len(heard) > 4
    assert all(b[0] > a[0] for a, b in zip(heard, heard[1:], strict=False))
    assert scene.terrain.heights.tobytes() == load_scene(path).terrain.heights.tobytes()
    stops = iter([True, False])
    with pytest.raises(scene_file.LoadCancelled):
        load_scene(path, progress=lambda done, total: next(stops))


def test_a_bad_layer_entry_is_refused_before_any_side_file_is_read(tmp_path: Path, monkeypatch) -> None:
    from model.formats import scene_file

    path, doc = saved(tmp_path)
    doc["layers"][1]["color"] = "blue"
    rewrite(path, doc)
    monkeypatch.setattr(scene_file, "_read_into", lambda *a: pytest.fail("read a side file"))
    with pytest.raises(FormatError, match="layers"):
        load_scene(path)


# ---- hostile manifests: links, deep nesting, impossible names -----------------------------

def _with_foliage(tmp_path: Path) -> tuple[Path, dict]:
    from model.foliage import SceneFoliage, builtin_palette

    scene = make_scene()
    scene.sections["foliage"] = SceneFoliage(builtin_palette())
    path = tmp_path / "f.boscage"
    save_v1(scene, path)
    return path, tomllib.loads(path.read_text())


def _link_out(tmp_path: Path, f: Path) -> Path:
    """Replace side file `f` by a link to a copy of it in a folder beside the scene's."""
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / f.name).write_bytes(f.read_bytes())
    f.unlink()
    f.symlink_to(outside / f.name)
    return f


@pytest.mark.parametrize("kind", ["heights", "layers", "instances"])
def test_a_side_file_linking_outside_the_scene_folder_is_refused(tmp_path: Path, kind: str) -> None:
    if kind == "instances":
        path, doc = _with_foliage(tmp_path)
        f = _link_out(tmp_path, path.with_name(doc["foliage"]["instances"]))
    else:
        path, doc = saved(tmp_path)
        f = _link_out(tmp_path, side(path, doc, kind))
    with pytest.raises(FormatError) as info:
        load_scene(path)
    assert info.value.path == str(f)
    assert "links outside the scene's folder" in info.value.reason


def test_a_link_loop_is_one_error(tmp_path: Path) -> None:
    path, doc = saved(tmp_path)
    f = side(path, doc, "heights")
    f.unlink()
    f.symlink_to(f)
    with pytest.raises(FormatError) as info:
        load_scene(path)
    assert info.value.path == str(f)


@pytest.mark.parametrize("where", ["heights", "layers", "instances"])
def test_a_side_file_name_too_long_for_any_file_system_is_one_error(tmp_path: Path, where: str) -> None:
    path, doc = _with_foliage(tmp_path)
    long = "h" * 300 + ".bin"
    if where == "instances":
        doc["foliage"]["instances"] = long
    else:
        doc["terrain"][where] = long
    rewrite(path, doc)
    with pytest.raises(FormatError) as info:
        load_scene(path)
    assert info.value.path == str(path)
    assert "304 bytes long" in info.value.reason
    assert info.value.place in ("terrain.heights", "terrain.layers", "foliage.instances")


def test_a_side_file_name_with_a_nul_byte_is_one_error(tmp_path: Path) -> None:
    path, doc = saved(tmp_path)
    doc["terrain"]["heights"] = "a\0b.bin"
    rewrite(path, doc)
    with pytest.raises(FormatError, match="plain file name"):
        load_scene(path)


@pytest.mark.parametrize("nesting", ["array", "inline_table", "dotted_key"])
def test_a_manifest_nested_a_thousand_levels_is_one_error_naming_the_place(
        tmp_path: Path, nesting: str) -> None:
    path, _ = saved(tmp_path)
    deep = {"array": "x = " + "[" * 1000 + "]" * 1000,
            "inline_table": "x = " + "{a = " * 1000 + "1" + "}" * 1000,
            "dotted_key": "x" + ".a" * 1000 + " = 1"}[nesting]
    path.write_text(path.read_text() + "\n[extra]\n" + deep + "\n")
    with pytest.raises(FormatError) as info:
        load_scene(path)
    assert info.value.path == str(path) and "nested deeper than" in info.value.reason
    line = len(path.read_text().splitlines())
    assert info.value.place.startswith(f"line {line}, column ") or info.value.place.startswith("extra.x.a")


# ---- temp files of an interrupted save ------------------------------------------------------

def test_the_next_save_removes_temp_files_a_killed_save_left_and_nothing_else(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "s.boscage"
    save_scene(make_scene(seed=1), path)
    root = Path(__file__).resolve().parents[2]
    # A real save killed part-way: the child stops dead (no clean-up runs) after its first fsync.
    code = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(root)!r})\n"
        "from model import atomic\n"
        "from tests.model.test_scene_file import make_scene\n"
        "from model.formats.scene_file import save_scene\n"
        "atomic.os.fsync = lambda fd: os._exit(9)\n"
        f"save_scene(make_scene(seed=2), {str(path)!r})\n"
    )
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert child.returncode == 9, child.stderr
    left = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert len(left) == 1 and left[0].startswith(".s.heights_0_0.")
    assert load_scene(path).terrain.heights.tobytes() == make_scene(seed=1).terrain.heights.tobytes()
    # temp files of this scene's manifest and of another scene, and a user's own file, beside it
    (tmp_path / ".s.boscage.abcd_123.tmp").write_bytes(b"half a manifest")
    others = [".other.boscage.abcd_123.tmp", ".s.notes.txt.abcd_123.tmp", "s.boscage.tmp",
              ".s.heights.12345678.bin.tmp", ".sx.heights.12345678.bin.abcdefgh.tmp"]
    for name in others:
        (tmp_path / name).write_bytes(b"not ours")
    save_scene(make_scene(seed=3), path)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")) == sorted(others)
    assert load_scene(path).terrain.heights.tobytes() == make_scene(seed=3).terrain.heights.tobytes()


def test_saving_over_a_folder_is_refused_before_any_file_is_written(tmp_path: Path) -> None:
    from model.errors import WriteError

    (tmp_path / "s.boscage").mkdir()
    with pytest.raises(WriteError, match="a folder has that name"):
        save_scene(make_scene(), tmp_path / "s.boscage")
    assert [p.name for p in tmp_path.iterdir()] == ["s.boscage"]


def test_opening_reads_each_side_file_once_into_the_arrays_it_keeps(tmp_path: Path) -> None:
    """No bytes object and no second copy: the terrain's arrays are views of what was read."""
    save_scene(make_scene(), tmp_path / "a.boscage")
    t = load_scene(tmp_path / "a.boscage").terrain
    buffer = t.layers[0].weights.base
    assert buffer is not None and all(la.weights.base is buffer for la in t.layers)
    assert buffer.nbytes == len(t.layers) * t.rows * t.columns and buffer.flags.writeable
    assert not t.heights.flags.owndata and t.heights.dtype == np.float32 and t.heights.flags.writeable
