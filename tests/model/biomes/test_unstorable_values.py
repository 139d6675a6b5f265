"""Values JSON can spell but the engine cannot hold: lone surrogates and numbers past the float
range are refused at read, one error naming the file and the JSON path."""

from __future__ import annotations

import pytest

from model.biomes import export_flattened, flattened_json, load_biome_set
from model.errors import FormatError
from tests.model.biomes.biome_sets import messages, write_set

DIGITS_400 = "9" * 400


@pytest.mark.parametrize("text,place,reason", [
    ('{"Type": "Tile", "Zones": [{"Zone": "a\\ud800b"}]}', "Zones[0].Zone",
     "string contains a lone surrogate (U+D800): not Unicode text"),
    ('{"Type": "Tile", "Tags": {"x\\udfff": []}}', 'Tags["x\\udfff"]',
     "key contains a lone surrogate (U+DFFF): not Unicode text"),
    (f'{{"Type": "Tile", "Weight": {DIGITS_400}}}', "Weight",
     "integer of 400 digits is beyond the 64-bit float range (largest about 1.8e308)"),
    (f'{{"Type": "Tile", "Zones": [{{"Zone": "z", "Order": -{DIGITS_400}, "ConvertedPin": true}}]}}',
     "Zones[0].Order", "integer of 400 digits is beyond the 64-bit float range (largest about 1.8e308)"),
    (f'{{"Type": "Tile", "Weight": {"7" * 5000}}}', "Weight",  # past Python's 4,300-digit guard
     "integer of 5000 digits is beyond the 64-bit float range (largest about 1.8e308)"),
    ('{"Type": "Tile", "Fade": {"FadeStart": -1e999}}', "Fade.FadeStart",
     "number beyond the 64-bit float range (largest about 1.8e308)"),
    ('{"Type": "Tile", // a comment makes the reader relax the text\n "Weight": 1e400}', "Weight",
     "number beyond the 64-bit float range (largest about 1.8e308)"),
])
def test_refused_at_read_naming_file_and_json_path(tmp_path, text, place, reason) -> None:
    s = load_biome_set(write_set(tmp_path, {"Bad": text, "Kid": {"Type": "Tile", "Parent": "Bad"}}))
    own = [m for m in messages(s.errors) if m.startswith("Bad")]
    assert own == [f"Bad | base/Bad.json | {place} | {reason}"]
    assert not s["Bad"].resolved
    assert "'Bad' could not be read" in s["Kid"].errors[0].reason
    for issue in s.issues:  # every message can be printed and written as UTF-8
        issue.message.encode("utf-8")
    with pytest.raises(FormatError) as e:
        export_flattened(s["Bad"], tmp_path / "out.json")
    assert e.value.path.endswith("Bad.json") and e.value.place == place
    assert not (tmp_path / "out.json").exists()


def test_long_integers_within_the_float_range_are_kept_exactly(tmp_path) -> None:
    big = 10 ** 300 + 7
    s = load_biome_set(write_set(tmp_path, {"Wide": {
        "Type": "Tile", "Weight": big, "Zones": [{"Zone": "z", "Order": big, "ConvertedPin": True}]}}))
    assert s.errors == [] and s["Wide"].value["Weight"] == big
    assert s.zones["z"][0].order == big
    assert str(big) in flattened_json(s["Wide"])


def test_valid_non_ascii_text_is_not_a_surrogate(tmp_path) -> None:
    # an escaped surrogate *pair* is one character (U+1F332) and fine; so is text outside the BMP
    text = '{"Type": "Tile", "Zones": [{"Zone": "\\ud83c\\udf32 Wald"}]}'
    s = load_biome_set(write_set(tmp_path, {"Tree": text}))
    assert s.errors == [] and s["Tree"].value["Zones"][0]["Zone"] == "\U0001F332 Wald"
    assert "\U0001F332 Wald" in flattened_json(s["Tree"])
