"""Rule folders off the spec: control characters in `source=`, long chains, folders with no rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from model.errors import FormatError
from model.plants import loader
from model.plants.loader import RuleFolder, load_folder, load_rules
from tests.model.plants.conftest import simple_rule, write_rules


def test_a_nul_byte_in_source_names_the_file_and_line(tmp_path: Path) -> None:
    write_rules(tmp_path, {"a.txt": "index=n1\nsource=$b\0c.txt\n", "ok.txt": simple_rule(2)})
    with pytest.raises(FormatError) as e:
        RuleFolder(tmp_path).rule("a")
    assert e.value.path == str(tmp_path / "a.txt") and e.value.place == "line 2"
    assert "holds a control character" in e.value.reason
    load = load_folder(tmp_path)  # the folder still loads: one error for that file
    assert set(load.errors) == {"a"} and set(load.rules) == {"ok"}
    with pytest.raises(FormatError, match="a.txt: line 2"):
        load_rules(tmp_path)


def chain_folder(folder: Path, n: int) -> Path:
    """r0000 is a whole rule; every r_i inherits r_(i-1) and overrides its fertility."""
    files = {"r0000.txt": simple_rule(1)}
    files |= {f"r{i:04d}.txt": f"source=$r{i - 1:04d}.txt\nfertility=n{i % 50}\n" for i in range(1, n)}
    return write_rules(folder, files)


def test_long_source_chains_load_in_linear_time(tmp_path: Path, monkeypatch) -> None:
    """Each file is read once, each of its entries merged once and each name looked up a bounded
    number of times: re-walking or re-merging the chain per rule would make these grow as n²."""
    reads: list[Path] = []
    merged = looked_up = 0
    read, setting, path_of = loader.read_rule_file, loader.Setting, RuleFolder.path_of

    def counted_setting(*args):
        nonlocal merged
        merged += 1
        return setting(*args)

    def counted_path_of(self, *args, **kwargs):
        nonlocal looked_up
        looked_up += 1
        return path_of(self, *args, **kwargs)

    monkeypatch.setattr(loader, "read_rule_file", lambda path: reads.append(Path(path)) or read(path))
    monkeypatch.setattr(loader, "Setting", counted_setting)
    monkeypatch.setattr(RuleFolder, "path_of", counted_path_of)
    folder = chain_folder(tmp_path / "chain", 800)
    load = load_folder(folder)
    assert not load.errors and len(load.rules) == 800
    assert len(reads) == len(set(reads)) == 800  # every file read once
    assert merged == sum(len(f.entries) for f in load.files.values()) == 1605  # every entry merged once
    assert looked_up <= 3 * 800, looked_up  # the file, its parent link and its rule's path
    last = load.settings["r0799"]
    assert last["fertility"].path.name == "r0799.txt" and last["index"].path.name == "r0000.txt"
    assert load.rules["r0799"].fertility == 799 % 50 and load.rules["r0799"].index == 1
    assert RuleFolder(folder).chain("r0003") == ["r0003", "r0002", "r0001", "r0000"]


def test_a_broken_root_fails_every_rule_that_inherits_it(tmp_path: Path) -> None:
    folder = chain_folder(tmp_path, 50)
    (folder / "r0000.txt").write_text("index=nseven\n")
    load = load_folder(folder)
    assert len(load.errors) == 50 and not load.rules
    assert all("r0000.txt: line 1" in str(e) for e in load.errors.values())


def test_a_folder_without_rules_is_an_error(tmp_path: Path) -> None:
    from model.zones.names import plant_names_from_rules

    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FormatError, match=r"no plant rules here: .*\(\*\.txt\); it is empty") as e:
        load_rules(empty)
    assert e.value.path == str(empty)
    with pytest.raises(FormatError, match="no plant rules here"):
        plant_names_from_rules(empty)
    (empty / "altitude.0001.bin").write_bytes(b"\0\0")
    with pytest.raises(FormatError, match=r"it holds 1 other entries \(altitude.0001.bin\)"):
        load_rules(empty)
