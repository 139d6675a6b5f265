"""Reading text input: every failure is one FormatError naming the file and the place."""

from __future__ import annotations

import pytest

from model.errors import FormatError, read_text_file


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
