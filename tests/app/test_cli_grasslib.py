"""`boscage grasslib info` and `boscage grasslib pick` on libraries from the fixture generator."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import pytest

from app.cli import run_cli
from tests.model.grasslib import fixtures as fx


@pytest.fixture()
def seed_file(tmp_path: Path) -> Path:
    return fx.write(tmp_path / "seed.lib", fx.seed_shaped_bytes())


@pytest.fixture()
def small_file(tmp_path: Path) -> Path:
    return fx.write(tmp_path / "small.lib", fx.small_library_bytes())


def test_info_json_has_the_seed_counts(seed_file: Path, capsys) -> None:
    assert run_cli(["grasslib", "info", str(seed_file), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["size"], doc["models"], doc["groups"], doc["rules"], doc["tail_bytes"]) == \
        (30_247, 46, 190, 218, 443)
    assert doc["groups_by_rule_count"] == {"0": 61, "1": 57, "2": 55, "3": 17}
    assert [m["model"] for m in doc["rules_with_missing_models"]] == [46, 47, 48, 49, 50]
    assert [m["group"] for m in doc["rules_with_missing_models"]] == [185, 186, 187, 188, 189]
    assert doc["table_entries_no_group"] == 255 and list(doc["table_entries_with_group"]) == ["255"]
    assert doc["classes"]["rule"] == ["GrassPatternElement (0xA6FC073D)"]


def test_info_text(seed_file: Path, capsys) -> None:
    assert run_cli(["grasslib", "info", str(seed_file)]) == 0
    out = capsys.readouterr().out
    assert "models: 46   groups: 190   rules: 218" in out
    assert "61 with 0, 57 with 1, 55 with 2, 17 with 3" in out
    assert "group 189 rule 0: model 50" in out and "(inferred)" in out


@pytest.mark.parametrize("b5, group, active", [("0xFE", 1, True), ("0xFF", None, False), ("3", 3, True)])
def test_pick_json(small_file: Path, capsys, b5: str, group, active: bool) -> None:
    assert run_cli(["grasslib", "pick", str(small_file), "--material", "0", "--block4", "0x60",
                    "--block5", b5, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["group"], doc["weight"], doc["active"]) == (group, 48, active)
    assert len(doc["rule_fields"]) == (len(doc["rules"]) if active else 0)


def test_pick_weight_1_and_0(small_file: Path, capsys) -> None:
    assert run_cli(["grasslib", "pick", str(small_file), "--material", "1", "--block4", "1",
                    "--block5", "0xFE", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["group"], doc["weight"], doc["active"]) == (2, 1, True)
    assert run_cli(["grasslib", "pick", str(small_file), "--material", "1", "--block4", "0",
                    "--block5", "0xFE", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["group"], doc["weight"], doc["active"], doc["rules"]) == (2, 0, False, [])


def test_pick_text_flags_missing_models(small_file: Path, capsys) -> None:
    assert run_cli(["grasslib", "pick", str(small_file), "--material", "3", "--block4", "200",
                    "--block5", "0xFE"]) == 0
    out = capsys.readouterr().out
    assert "group 4" in out and "weight 100" in out and "MISSING MODEL" in out


def test_pick_usage_errors_exit_2(small_file: Path, capsys) -> None:
    assert run_cli(["grasslib", "pick", str(small_file), "--material", "256", "--block4", "0",
                    "--block5", "0"]) == 2
    assert run_cli(["grasslib", "pick", str(small_file), "--material", "x", "--block4", "0",
                    "--block5", "0"]) == 2


def test_bad_files_exit_1_naming_file_and_offset(seed_file: Path, tmp_path: Path, capsys) -> None:
    data = seed_file.read_bytes()
    long = fx.write(tmp_path / "long.lib", fx.with_extra(data))
    assert run_cli(["grasslib", "info", str(long)]) == 1
    err = capsys.readouterr().err
    assert "long.lib" in err and f"@ offset {len(data)}: 7 extra bytes" in err
    cut = fx.write(tmp_path / "cut.lib", data[:100])
    assert run_cli(["grasslib", "info", str(cut), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert "cut.lib @ offset 1" in doc["error"]
    huge = bytearray(data)
    struct.pack_into("<I", huge, 1, 0xFFFFFFFF)
    fx.write(tmp_path / "huge.lib", bytes(huge))
    assert run_cli(["grasslib", "pick", str(tmp_path / "huge.lib"), "--material", "0", "--block4", "0",
                    "--block5", "0"]) == 1
    assert "model count 4294967295" in capsys.readouterr().err


def test_tail_size_any_reads_a_library_with_another_tail(tmp_path: Path, capsys) -> None:
    data = fx.library_bytes(4, [0, 1, 2], b"\xff" * 255 + b"\x01", tail_raw_size=40)
    path = fx.write(tmp_path / "other.lib", data)
    assert run_cli(["grasslib", "info", str(path), "--json"]) == 1
    err = capsys.readouterr().err
    assert "other.lib" in err and "443-byte tail" in err
    assert run_cli(["grasslib", "info", str(path), "--tail-size", "any", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["groups"], doc["rules"], doc["tail_bytes"]) == (3, 3, 296)
    assert doc["table_entries_with_group"] == {"255": 1}
    assert run_cli(["grasslib", "info", str(path), "--tail-size", "296", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"] == 3
