"""Reading text input: every failure is one FormatError naming the file and the place."""

from __future__ import annotations

import pytest

from model.errors import FormatError, parse_toml, read_text_file, read_toml_file, refuse_link_outside


def test_text_files_read_and_each_failure_names_file_and_place(tmp_path) -> None:
    good = tmp_path / "a.toml"
    good.write_text("name = 'é'\n", encoding="utf-8")
    assert read_text_file(good) == "name = 'é'\n"
    with pytest.raises(FormatError, match="missing.toml: file not found"):
        read_text_file(tmp_path / "missing.toml")
    bad = tmp_path / "b.toml"
    bad.write_bytes(b"ok = 1\n\xff\xfe")
    with pytest.raises(FormatError) as caught:
        read_text_file(bad)
    assert caught.value.place == 7 and "invalid UTF-8" in str(caught.value)
    with pytest.raises(FormatError, match="Is a directory"):
        read_text_file(tmp_path)  # the OS's reason, with the path, never a traceback


@pytest.mark.parametrize("text, place", [
    ("a = " + "[" * 1000 + "]" * 1000, "line 1, column 69"),
    ("a = 1\nb = " + "{c = " * 1000 + "1" + "}" * 1000, "line 2, column 325"),  # 4 + 64 × len("{c = ") + 1
    ("[t]\n" + "x" + ".y" * 1000 + " = 1", "t.x.y.y."),
    ("[" + ".".join(["t"] * 1000) + "]\nv = 1", "t.t.t."),
])
def test_toml_nested_a_thousand_levels_is_one_format_error_with_its_place(text, place) -> None:
    with pytest.raises(FormatError) as caught:
        parse_toml(text, "deep.toml")
    assert caught.value.path == "deep.toml" and "nested deeper than 64 levels" in caught.value.reason
    assert caught.value.place.startswith(place)


def test_brackets_in_strings_and_comments_are_not_nesting() -> None:
    text = ('s = "' + "[" * 100 + '"\n' + "l = '" + "{" * 100 + "'\n# " + "[" * 100 + "\n"
            + 'm = """\n' + "[" * 100 + '\n"""\n' + "a = " + "[" * 60 + "]" * 60 + "\n")
    doc = parse_toml(text, "ok.toml")
    assert doc["s"] == "[" * 100 and doc["m"] == "[" * 100 + "\n"
    with pytest.raises(FormatError) as caught:  # the place still counts the lines of strings
        parse_toml(text + "b = " + "[" * 70 + "]" * 70 + "\n", "ok.toml")
    assert caught.value.place == "line 8, column 69"


def test_bad_toml_names_line_and_column_and_a_toml_file_reads_through_one_call(tmp_path) -> None:
    with pytest.raises(FormatError) as caught:
        parse_toml("a = 1\nb = = 2\n", "x.toml")
    assert caught.value.place == "line 2, column 5" and caught.value.reason.startswith("bad TOML")
    good = tmp_path / "g.toml"
    good.write_text("[t]\nv = [1, 2]\n")
    assert read_toml_file(good) == {"t": {"v": [1, 2]}}
    with pytest.raises(FormatError, match="file not found"):
        read_toml_file(tmp_path / "none.toml")


def test_a_link_out_of_the_folder_is_refused_and_one_inside_is_not(tmp_path) -> None:
    folder = tmp_path / "scene"
    (folder / "store").mkdir(parents=True)
    (folder / "store" / "obj").write_bytes(b"x")
    (tmp_path / "secret").write_bytes(b"y")
    inside, outside, loop = folder / "in.bin", folder / "out.bin", folder / "loop.bin"
    inside.symlink_to(folder / "store" / "obj")
    outside.symlink_to(tmp_path / "secret")
    loop.symlink_to(loop)
    refuse_link_outside(folder, inside, "side file", "scene")
    with pytest.raises(FormatError, match="side file links outside the scene's folder") as caught:
        refuse_link_outside(folder, outside, "side file", "scene")
    assert caught.value.path == str(outside)
    with pytest.raises(FormatError, match="cannot be followed"):
        refuse_link_outside(folder, loop, "side file", "scene")


def test_errors_survive_the_trip_to_a_worker_process_and_back():
    import copy  # deepcopy rebuilds from __reduce__, as a worker's transport does

    from model.errors import FormatError, WriteError

    e = copy.deepcopy(FormatError("a.trn", 12, "bad chunk"))
    assert (e.path, e.place, e.reason, str(e)) == ("a.trn", 12, "bad chunk", "a.trn @ offset 12: bad chunk")
    w = WriteError("out/x.png", "no space left on device", 28,
                   "no space left on device while writing out/x.png")
    back = copy.deepcopy(w)
    assert str(back) == str(w) and back.errno == 28 and isinstance(back, OSError)
