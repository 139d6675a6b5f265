"""`boscage scene info` tells a version 1 scene (saved as version 2 from now on) from a tiled one."""

from __future__ import annotations

import json

from app.cli import run_cli
from model.formats.scene_file import load_scene, save_scene
from tests.conftest import make_small_scene
from tests.model.test_scene_file import save_v1


def test_info_says_a_version_1_scene_is_written_as_version_2_when_saved(tmp_path, capsys) -> None:
    path = tmp_path / "old.boscage"
    save_v1(make_small_scene(rows=9, cols=10), path)
    assert run_cli(["scene", "info", str(path)]) == 0
    said = capsys.readouterr().out
    assert "version 1 (one side file each): written as version 2 (tiled) when saved" in said
    assert run_cli(["scene", "info", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["file_version"] == 1
    save_scene(load_scene(path), path)
    assert run_cli(["scene", "info", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["file_version"] == 2 and (doc["columns"], doc["rows"]) == (10, 9)
    assert run_cli(["scene", "info", str(path)]) == 0
    assert "version 1" not in capsys.readouterr().out
