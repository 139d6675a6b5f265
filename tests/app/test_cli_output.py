"""What every command prints: strict JSON (RFC 8259) with --json, non-finite numbers named in words
in the human text, and a quiet end when the reader of stdout goes away."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import emit, fail, finite_or_null, non_finite_note, number_text, run_cli, strict_json

ROOT = Path(__file__).resolve().parents[2]


def strict(text: str):
    """json.loads that refuses NaN, Infinity and -Infinity, as an RFC 8259 parser does."""
    def refuse(name: str):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


class Args:
    json = True


def test_emit_and_fail_write_strict_json_at_any_depth(capsys) -> None:
    doc = {"a": float("nan"), "b": [1.5, float("inf"), (float("-inf"), {"c": float("nan")})], "d": "NaN"}
    emit(Args(), "", doc)
    assert strict(capsys.readouterr().out) == {"a": None, "b": [1.5, None, [None, {"c": None}]], "d": "NaN"}
    fail(Args(), "f.bin: bad\nsecond line")
    captured = capsys.readouterr()
    assert strict(captured.out) == {"error": "f.bin: bad second line"}
    assert captured.err == "boscage: error: f.bin: bad second line\n"  # always one line
    assert finite_or_null(2.0) == 2.0 and finite_or_null(float("nan")) is None


def test_strict_json_fails_loudly_rather_than_print_nan(monkeypatch) -> None:
    import app.cli

    monkeypatch.setattr(app.cli, "finite_or_null", lambda value: value)  # a value the walk missed
    with pytest.raises(ValueError, match="not JSON compliant"):
        strict_json({"x": [float("nan")]})


def test_non_finite_numbers_read_in_words() -> None:
    assert number_text(float("nan")) == "NaN (not a number)"
    assert number_text(float("inf")) == "+infinity (not finite)"
    assert number_text(float("-inf")) == "-infinity (not finite)"
    assert number_text(2.5) == "2.5" and number_text(1 / 3, ".2f") == "0.33"
    assert non_finite_note([1.0, {"a": float("-inf")}]) == "  — holds -infinity (not finite)"
    assert non_finite_note({"a": [1.0, 2]}) == ""


def _trn_with_nan_width(tmp_path: Path) -> Path:
    from model.trn import build

    path = tmp_path / "nan.trn"
    path.write_bytes(build.to_bytes(build.document("0014", build.header_values(map_width=float("nan")))))
    return path


def _rules_with_infinite_float(tmp_path: Path) -> Path:
    folder = tmp_path / "rules"
    folder.mkdir()
    text = (ROOT / "resources" / "plants" / "grass_a.txt").read_text()
    (folder / "grass_a.txt").write_text(text + "damageScale=f1e999\n")
    return folder


def _biomes_with_infinities(tmp_path: Path) -> Path:
    folder = tmp_path / "base"
    folder.mkdir()
    (folder / "Forest.json").write_text('{"Type": "Tile", "Weight": -1e999, "Fade": {"FadeStart": 1e999}}')
    return folder


def test_trn_info_with_a_nan_header_float(tmp_path: Path, capsys) -> None:
    path = _trn_with_nan_width(tmp_path)
    run_cli(["trn", "info", str(path), "--json"])
    assert strict(capsys.readouterr().out)["header"]["mapWidth"] is None
    run_cli(["trn", "info", str(path)])
    assert "map width     NaN (not a number) m" in capsys.readouterr().out


def test_plants_inspect_with_an_infinite_field(tmp_path: Path, capsys) -> None:
    folder = _rules_with_infinite_float(tmp_path)
    run_cli(["plants", "inspect", str(folder), "--json"])
    (rule,) = strict(capsys.readouterr().out)["rules"]
    assert rule["fields"]["damageScale"]["value"] is None and rule["fields"]["damageScale"]["raw"] == "f1e999"
    run_cli(["plants", "inspect", str(folder)])
    line = next(x for x in capsys.readouterr().out.splitlines() if "damageScale" in x)
    assert "f1e999" in line and line.endswith("holds +infinity (not finite)")


def test_biomes_info_with_infinite_numbers(tmp_path: Path, capsys) -> None:
    # a number past the float range is refused where it is read, naming the file and the JSON path;
    # the JSON report stays strict and the set's other assets still load
    folder = _biomes_with_infinities(tmp_path)
    (folder / "Meadow.json").write_text('{"Type": "Tile", "Weight": 2}')
    assert run_cli(["biomes", "info", str(folder), "--json"]) == 1
    doc = strict(capsys.readouterr().out)
    assert "Meadow" in [a["key"] for a in doc["assets"]]
    assert "Infinity" not in json.dumps(doc) and "Weight" in json.dumps(doc["errors"])
    run_cli(["biomes", "info", str(folder)])
    out = capsys.readouterr().out
    assert "Forest.json: Weight: number beyond the 64-bit float range" in out


def _cli(*argv: str, **kwargs) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "app", *argv], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def test_a_reader_that_closes_stdout_early_ends_the_command_quietly() -> None:
    child = _cli("scene", "info", str(ROOT / "resources" / "demo" / "demo.boscage"), "--json")
    child.stdout.close()  # before the child has written a byte: every write meets a closed pipe
    err = child.stderr.read().decode()
    assert child.wait(timeout=120) == 1
    assert err == ""  # no BrokenPipeError traceback, no "Exception ignored" at exit


def test_head_dash_1_after_a_long_json_document_is_quiet(tmp_path: Path) -> None:
    folder = tmp_path / "rules"
    folder.mkdir()
    for name in ("grass_a", "pine", "reed", "bush_a", "bush_b"):  # well past one pipe buffer
        text = (ROOT / "resources" / "plants" / f"{name}.txt").read_text()
        for copy in range(8):
            (folder / f"{name}_{copy}.txt").write_text(text)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    shell = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m app plants inspect "{folder}" --json | head -1'],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert shell.stdout == "{\n"
    assert shell.stderr == ""


def test_human_text_holding_a_lone_surrogate_prints_its_escape(capsys) -> None:
    class Human:
        json = False

    emit(Human(), "name a\ud800b", {})
    assert capsys.readouterr().out == "name a\\ud800b\n"


def test_biomes_info_of_a_lone_surrogate_names_the_place(tmp_path: Path, capsys) -> None:
    folder = tmp_path / "base"
    folder.mkdir()
    (folder / "Forest.json").write_text('{"Type": "Tile", "SeedName": "a\\ud800b"}')
    run_cli(["biomes", "info", str(folder)])  # refused where it is read, never a crash on printing
    assert "Forest.json: SeedName: string contains a lone surrogate (U+D800)" in capsys.readouterr().out
