"""CSV and JSON of instances: read by the standard library's csv/json, and round-tripped."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from trimesh import transformations as tf

from model.errors import FormatError
from model.interchange import Cancelled, ExportOptions, export_scene, read_foliage
from model.interchange.conventions import ENGINE_PRESETS

from .conftest import small_scene


def records_of(scene, name):
    return scene.sections["foliage"].volume.all_records(name)


def test_csv_states_its_conventions_and_holds_every_instance(tmp_path) -> None:
    scene = small_scene()
    out = tmp_path / "trees.csv"
    report = export_scene(scene, out, ExportOptions(matrix=True))
    lines = out.read_text().splitlines()
    comments = [line for line in lines if line.startswith("#")]
    assert any("up=y handedness=right units=m" in c for c in comments)
    assert any("R = Ry*Rx*Rz" in c for c in comments) and any("m03 m13 m23" in c for c in comments)
    rows = list(csv.DictReader(line for line in lines if not line.startswith("#")))
    assert len(rows) == report.instances == 65
    for name in ("conifer", "rock"):
        rec = records_of(scene, name)
        mine = [r for r in rows if r["type"] == name]
        assert len(mine) == len(rec)
        for r, want in zip(mine, rec, strict=True):
            assert [float(r[k]) for k in "xyz"] == pytest.approx(want[:3].tolist(), abs=1e-5)
            assert float(r["yaw_deg"]) == pytest.approx(np.degrees(float(want[3])), abs=1e-9)
            q = [float(r[k]) for k in ("qw", "qx", "qy", "qz")]
            rot = (tf.rotation_matrix(want[3], [0, 1, 0]) @ tf.rotation_matrix(want[4], [1, 0, 0])
                   @ tf.rotation_matrix(want[5], [0, 0, 1]))
            assert np.allclose(tf.quaternion_matrix(q), rot, atol=1e-6)
            m = np.array([float(r[f"m{i}{j}"]) for i in range(4) for j in range(4)]).reshape(4, 4)
            assert np.allclose(m[:3, :3], rot[:3, :3] * want[6], atol=1e-6)
            assert np.allclose(m[:3, 3], want[:3], atol=1e-4)


@pytest.mark.parametrize("suffix", [".csv", ".json"])
@pytest.mark.parametrize("matrix", [False, True])
def test_round_trip_is_bit_exact_without_conversion(tmp_path, suffix, matrix) -> None:
    scene = small_scene()
    out = tmp_path / f"rt{suffix}"
    export_scene(scene, out, ExportOptions(matrix=matrix))
    imported = read_foliage(out)
    assert sorted(imported.records) == ["conifer", "rock"]
    for name, rec in imported.records.items():
        assert np.array_equal(rec, records_of(scene, name))


@pytest.mark.parametrize("suffix", [".csv", ".json"])
@pytest.mark.parametrize("engine", ["Unreal", "Unity", "Blender"])
def test_round_trip_through_an_engine_frame(tmp_path, suffix, engine) -> None:
    scene = small_scene()
    out = tmp_path / f"{engine}{suffix}"
    export_scene(scene, out, ExportOptions(conventions=ENGINE_PRESETS[engine]))
    for name, rec in read_foliage(out).records.items():
        want = records_of(scene, name)
        assert np.abs(rec[:, :3] - want[:, :3]).max() <= 1e-5 * 100
        assert np.array_equal(rec[:, 3:], want[:, 3:])


def test_json_is_plain_json_with_palette_keys(tmp_path) -> None:
    scene = small_scene()
    out = tmp_path / "trees.json"
    export_scene(scene, out, ExportOptions(conventions=ENGINE_PRESETS["Unreal"], types=("rock",)))
    doc = json.loads(out.read_text())
    assert doc["format"] == "boscage-instances" and doc["conventions"]["units"] == "cm"
    assert doc["types"]["rock"]["palette"]["mesh"] == "builtin:rock"
    assert len(doc["instances"]) == 25 and {i["type"] for i in doc["instances"]} == {"rock"}
    first, want = doc["instances"][0], records_of(scene, "rock")[0]
    assert first["position"] == pytest.approx([want[0] * 100, want[2] * 100, want[1] * 100], abs=1e-3)
    imported = read_foliage(out)
    assert imported.extras["rock"]["name"] == "rock" and imported.meshes["rock"] == "builtin:rock"


def test_a_hand_written_csv_with_quaternions_only(tmp_path) -> None:
    path = tmp_path / "by_hand.csv"
    s = np.sin(np.pi / 4)
    path.write_text(f'type,x,y,z,qx,qy,qz,qw,scale\n"oak, old",1,2,3,0,{s},0,{s},2\n')
    rec = read_foliage(path).records["oak, old"]
    assert np.allclose(rec, [[1, 2, 3, np.pi / 2, 0, 0, 2]], atol=1e-6)


def test_bad_tables_give_one_clear_error(tmp_path) -> None:
    cases = {
        "no_header.csv": "",
        "no_type.csv": "x,y,z\n1,2,3\n",
        "unknown.csv": "type,x,y,z,colour\na,1,2,3,red\n",
        "short.csv": "type,x,y,z\na,1,2\n",
        "nan.csv": "type,x,y,z\na,1,nan,3\n",
        "word.csv": "type,x,y,z\na,1,2,3\na,1,two,3\n",
        "bad.json": "{",
        "no_instances.json": "{}",
        "bad_position.json": '{"instances": [{"type": "a", "position": [1, 2]}]}',
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(FormatError) as e:
            read_foliage(tmp_path / name)
        assert name in str(e.value)
    with pytest.raises(FormatError, match="line 3"):
        read_foliage(tmp_path / "word.csv")


def test_cancel_keeps_the_old_table(tmp_path) -> None:
    out = tmp_path / "t.csv"
    out.write_text("old")
    with pytest.raises(Cancelled):
        export_scene(small_scene(), out, progress=lambda d, t: d == 0)
    assert out.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["t.csv"]


def test_reading_a_long_csv_reports_progress_and_can_cancel(tmp_path) -> None:
    scene = small_scene({"rock": 70_000})
    out = tmp_path / "long.csv"
    export_scene(scene, out)
    seen = []
    imported = read_foliage(out, lambda d, t: seen.append((d, t)) or True)
    assert imported.count == 70_000 and len(seen) >= 2 and seen[-1][0] == seen[-1][1]
    with pytest.raises(Cancelled):
        read_foliage(out, lambda d, t: False)
