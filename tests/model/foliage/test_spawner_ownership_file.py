"""The spawner ownership side file is named by its content like every other side file: a save
stopped before its manifest leaves the previous scene whole, ownership included."""

from __future__ import annotations

import errno
import re
import shutil
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from model.errors import FormatError
from model.foliage import foliage_of
from model.foliage.spawner_section import encode_owned, run_and_apply, spawners_of
from model.formats import scene_file
from model.formats.scene_file import load_scene, save_scene
from tests.model.foliage.test_spawner import hilly_scene

WHOLE_FILE_CRC = "2144df1c"  # the CRC-32 of any file that ends in its own CRC-32


def run(scene):
    return run_and_apply(scene, spawners_of(scene).spawners[0])


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def owned_file(manifest: Path) -> Path:
    (side,) = manifest.parent.glob(f"{manifest.stem}.spawned.*.bin")
    return side


@pytest.fixture
def saved(tmp_path: Path) -> Path:
    scene = hilly_scene(97)
    run(scene)
    path = tmp_path / "scene" / "hills.boscage"
    save_scene(scene, path)
    return path


def hand_edit(scene) -> None:
    """Three of the spawner's instances deleted by hand, then a re-run: they become overrides."""
    volume = foliage_of(scene).volume
    key = next(k for k, c in volume.chunks("conifer") if len(c) >= 3)
    volume.remove({key: np.arange(3)})
    run(scene)
    assert sum(len(k) for k in spawners_of(scene).removed["forest"].values()) == 3


def test_the_name_and_the_manifest_carry_the_contents_crc(saved: Path) -> None:
    side = owned_file(saved)
    data = side.read_bytes()
    (content,) = struct.unpack("<I", data[-4:])
    assert content == zlib.crc32(data[:-4])
    assert side.name == f"hills.spawned.{content:08x}.bin" and f"{content:08x}" != WHOLE_FILE_CRC
    assert f'crc32 = "{content:08x}"' in saved.read_text()
    scene = load_scene(saved)
    hand_edit(scene)
    save_scene(scene, saved)
    again = owned_file(saved)  # new content, new name; the old file is gone with the old manifest
    assert again != side and not side.exists()


def test_a_save_stopped_before_its_manifest_leaves_the_previous_scene_whole(saved, tmp_path, monkeypatch):
    clean = tmp_path / "clean"
    shutil.copytree(saved.parent, clean)
    clean_scene = load_scene(clean / saved.name)
    edited = load_scene(saved)
    hand_edit(edited)
    real_write = scene_file.atomic_write_text

    def full_disk_at_the_manifest(path, text):
        if Path(path) == saved:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        real_write(path, text)

    monkeypatch.setattr(scene_file, "atomic_write_text", full_disk_at_the_manifest)
    with pytest.raises(OSError):
        save_scene(edited, saved)
    monkeypatch.undo()
    assert len(list(saved.parent.glob("hills.spawned.*.bin"))) == 2  # the new one, and the named one
    reopened = load_scene(saved)
    for sets in ("owned", "removed"):
        mine, theirs = getattr(spawners_of(reopened), sets), getattr(spawners_of(clean_scene), sets)
        assert mine.keys() == theirs.keys()
        for name in mine:
            assert {t: k.tolist() for t, k in mine[name].items()} == \
                {t: k.tolist() for t, k in theirs[name].items()}
    # a later run gives the same bytes as on the scene nobody tried to save over, stale files gone
    for path in (saved, clean / saved.name):
        scene = load_scene(path)
        run(scene)
        save_scene(scene, path)
    assert folder_bytes(saved.parent) == folder_bytes(clean)


def test_older_saves_are_read_and_renamed_by_the_next_save(saved: Path) -> None:
    side = owned_file(saved)
    legacy = side.with_name(f"hills.spawned.{WHOLE_FILE_CRC}.bin")
    side.rename(legacy)
    text = saved.read_text()
    crc = re.search(r'crc32 = "([0-9a-f]{8})"\n', text[text.index("[spawned]"):]).group(1)
    saved.write_text(text.replace(side.name, legacy.name).replace(f'crc32 = "{crc}"',
                                                                  f'crc32 = "{WHOLE_FILE_CRC}"'))
    scene = load_scene(saved)
    assert spawners_of(scene).owned_count("forest") == len(foliage_of(scene).volume)
    save_scene(scene, saved)
    assert not legacy.exists() and owned_file(saved) == side


def test_a_file_that_is_not_what_its_name_says_is_refused(saved: Path) -> None:
    side = owned_file(saved)
    other = encode_owned({"forest": {"conifer": np.array([1, 2, 3], np.uint64)}})
    side.write_bytes(other)  # whole and valid by itself, but another content under this name
    text = saved.read_text()
    (crc,) = struct.unpack("<I", other[-4:])
    saved.write_text(re.sub(r'(\[spawned\][^\[]*crc32 = ")[0-9a-f]{8}', rf"\g<1>{crc:08x}", text))
    with pytest.raises(FormatError) as refused:
        load_scene(saved)
    assert refused.value.path == str(side) and "its name says" in refused.value.reason
    saved.write_text(text)  # the manifest's own checksum catches it too
    with pytest.raises(FormatError, match="checksum differs"):
        load_scene(saved)
