"""Every import refuses, with the row's line or index, a type name the scene reader refuses and an
instance the scene could not store, before anything is added."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from model.errors import FormatError
from model.foliage.foliage_type import foliage_type_from_dict, type_name_problem
from model.interchange import read_foliage

HEADER = "type,x,y,z,yaw_deg,pitch_deg,roll_deg,scale\n"
ROW = "{name},{x},0,0,0,0,0,1\n"


@pytest.mark.parametrize("name", ["", "   ", "a" * 256, "\u00e9" * 128, "tree\ud800"])
def test_one_rule_for_type_names_in_scenes_and_imports(name) -> None:
    problem = type_name_problem(name)
    assert problem is not None
    with pytest.raises(FormatError) as e:
        foliage_type_from_dict({"name": name})
    assert e.value.reason == problem


def test_good_names_pass() -> None:
    for name in ("conifer", "a" * 255, "\u00e9" * 127, "Fichte 2 (alt)", "\U0001f332"):
        assert type_name_problem(name) is None


@pytest.mark.parametrize("row, line, words", [
    (ROW.format(name="", x=1), 4, "non-empty name"),
    (ROW.format(name="  ", x=1), 4, "non-empty name"),
    (ROW.format(name="a" * 300, x=1), 4, "got 300 bytes"),
    (ROW.format(name="pine", x="3.4e38"), 4, "lies beyond"),
    (ROW.format(name="pine", x="-1e308"), 4, "lies beyond"),
    (ROW.format(name="pine", x="1e999"), 4, "not finite"),
    (ROW.format(name="pine", x="nan"), 4, "not finite"),
    ("pine,1,0,0,0,0,0,0\n", 4, "scale 0 is not above 0"),
])
def test_a_csv_row_is_refused_by_its_line(tmp_path: Path, row, line, words) -> None:
    path = tmp_path / "in.csv"
    path.write_text("# comment\n" + HEADER + ROW.format(name="pine", x=5) + row + ROW.format(name="fir", x=2))
    with pytest.raises(FormatError) as e:
        read_foliage(path)
    assert e.value.place == f"line {line}" and words in e.value.reason, str(e.value)


@pytest.mark.parametrize("item, words", [
    ({"type": "", "position": [0, 0, 0]}, "non-empty name"),
    ({"type": "x\ud800", "position": [0, 0, 0]}, "lone surrogate"),
    ({"type": "pine", "position": [3.4e38, 0, 0]}, "lies beyond"),
    ({"type": "pine", "position": [0, 0, 0], "scale": -1}, "not above 0"),
    ({"type": "pine", "position": [0, "0", 0]}, "not a finite number"),
    ({"type": "pine", "position": [0, 0, 0], "quaternion": [0, 0, 0, 1]},
     "has position, quaternion, but instances[0] of type 'pine' has position"),
])
def test_a_json_instance_is_refused_by_its_index(tmp_path: Path, item, words) -> None:
    path = tmp_path / "in.json"
    good = {"type": "pine", "position": [1, 2, 3], **({"scale": 1} if "scale" in item else {})}
    path.write_text(json.dumps({"instances": [good, good, item]}))
    with pytest.raises(FormatError) as e:
        read_foliage(path)
    assert e.value.place.startswith("instances[2]") and words in e.value.reason, str(e.value)
