"""Which instances an export covers: types, region, chunk order."""

from __future__ import annotations

import numpy as np
import pytest

from model.interchange.instances import instance_chunks, instance_counts, selected_types
from model.interchange.options import ExportOptions
from model.scene import Scene
from model.terrain import Terrain


def test_every_stored_instance_once_type_by_type(scene) -> None:
    chunks = list(instance_chunks(scene))
    assert [c.type_name for c in chunks] == sorted(c.type_name for c in chunks)
    vol = scene.sections["foliage"].volume
    for name in ("conifer", "rock"):
        got = np.concatenate([c.records for c in chunks if c.type_name == name])
        assert np.array_equal(got, vol.all_records(name))
    assert [(c.type_name, c.cell, len(c.records)) for c in chunks] == instance_counts(scene)


def test_types_filter_and_unknown_type(scene) -> None:
    opts = ExportOptions(types=("rock",))
    assert selected_types(scene, opts) == ["rock"]
    assert {c.type_name for c in instance_chunks(scene, opts)} == {"rock"}
    with pytest.raises(ValueError, match="'oak'.*known: conifer, rock"):
        selected_types(scene, ExportOptions(types=("oak",)))


def test_region_keeps_instances_inside_half_open_box(scene) -> None:
    region = (-20.0, -35.0, 17.5, 40.0)
    opts = ExportOptions(region=region)
    got = {c.type_name: [] for c in instance_chunks(scene)}
    for c in instance_chunks(scene, opts):
        got[c.type_name].append(c.records)
    vol = scene.sections["foliage"].volume
    for name, parts in got.items():
        r = vol.all_records(name)
        x, z = r[:, 0], r[:, 2]
        inside = (x >= region[0]) & (x < region[2]) & (z >= region[1]) & (z < region[3])
        assert 0 < inside.sum() < len(r)
        mine = np.concatenate(parts)
        assert len(mine) == inside.sum()
        assert np.array_equal(np.sort(mine, axis=0), np.sort(r[inside], axis=0))
    total = sum(len(c.records) for c in instance_chunks(scene, opts))
    assert sum(n for *_, n in instance_counts(scene, opts)) == total


def test_a_scene_without_foliage_has_none() -> None:
    s = Scene(Terrain(np.zeros((4, 4), np.float32)))
    assert list(instance_chunks(s)) == [] and selected_types(s) == [] and "foliage" not in s.sections


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        ExportOptions(region=(5.0, 0.0, 1.0, 3.0))
    with pytest.raises(ValueError, match="terrain step"):
        ExportOptions(terrain_step=0)


def test_the_suffix_picks_the_format(tmp_path, scene) -> None:
    from model.errors import FormatError
    from model.interchange import FORMATS, export_scene, format_of, read_foliage

    assert set(FORMATS) == {".glb", ".gltf", ".usda", ".usdc", ".usdz", ".csv", ".json"}
    assert format_of("A.GLB") == ".glb"
    with pytest.raises(ValueError, match="unknown format '.fbx'"):
        export_scene(scene, tmp_path / "x.fbx")
    (tmp_path / "x.fbx").write_text("")
    with pytest.raises(FormatError, match="x.fbx: unknown format"):
        read_foliage(tmp_path / "x.fbx")
    assert not any(p.suffix == ".tmp" for p in tmp_path.iterdir())


@pytest.mark.parametrize("region", [None, (-20.0, -50.0, 45.0, 10.0)])
def test_tiled_chunks_are_the_same_chunks_tile_by_tile(region) -> None:
    from model.interchange.instances import tiled_chunks

    from .conftest import small_scene

    scene = small_scene({"conifer": 4000, "rock": 300, "bush": 50}, size=101, spacing=5.0)  # 500 m
    opts = ExportOptions(region=region, types=("conifer", "rock"))
    tiled = tiled_chunks(scene, opts, tile=4)
    assert list(tiled) == ["conifer", "rock"]
    for name, (cells, parts) in tiled.items():
        keys = [(c[0] // 4, c[1] // 4, c[0], c[1]) for c in cells.tolist()]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)  # tile by tile, then cell by cell
        expected = {c.cell: c.records for c in instance_chunks(scene, opts) if c.type_name == name}
        assert set(map(tuple, cells.tolist())) == set(expected)
        for cell, records in zip(cells.tolist(), parts, strict=True):
            assert np.array_equal(records, expected[tuple(cell)])
