"""USD import reads nothing outside the input's folder: every layer a sublayer, reference, payload
or value clip names is checked before the stage is composed."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from model.errors import FormatError
from model.interchange import read_foliage

OUTSIDE = '#usda 1.0\ndef Xform "X" {}\n'


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "outside.usda").write_text(OUTSIDE)
    inner = tmp_path / "in"
    inner.mkdir()
    (inner / "ok.usda").write_text('#usda 1.0\ndef Xform "Y" {}\n')
    return inner


@pytest.mark.parametrize("text, where", [
    ('#usda 1.0\n(\n subLayers = [@../outside.usda@]\n)\n', "sublayers/references/payloads"),
    ('#usda 1.0\ndef Xform "A" (references = @{outside}@) {{}}\n', "sublayers/references/payloads"),
    ('#usda 1.0\ndef Xform "A" (payload = @../outside.usda@) {}\n', "sublayers/references/payloads"),
    ('#usda 1.0\ndef Xform "A" (clips = { dictionary default = { asset[] assetPaths = '
     '[@../outside.usda@] } }) {}\n', "/A clips default"),
])
def test_an_asset_path_out_of_the_folder_is_refused(folder: Path, text: str, where: str) -> None:
    path = folder / "in.usda"
    path.write_text(text.format(outside=folder.parent / "outside.usda") if "{outside}" in text else text)
    with pytest.raises(FormatError) as e:
        read_foliage(path)
    assert e.value.path == str(path) and e.value.place == where
    assert "leaves the input's folder" in e.value.reason


def test_a_layer_that_pulls_one_out_is_refused_too(folder: Path) -> None:
    (folder / "middle.usda").write_text('#usda 1.0\n(\n subLayers = [@../outside.usda@]\n)\n')
    path = folder / "in.usda"
    path.write_text('#usda 1.0\n(\n subLayers = [@middle.usda@, @ok.usda@]\n)\n')
    with pytest.raises(FormatError) as e:
        read_foliage(path)
    assert e.value.path == str(folder / "middle.usda")


def test_links_out_and_fifos_are_refused_without_opening_them(folder: Path) -> None:
    (folder / "link.usda").symlink_to(folder.parent / "outside.usda")
    os.mkfifo(folder / "pipe.usda")
    for name, words in (("link.usda", "leaves the input's folder"), ("pipe.usda", "is not a file")):
        path = folder / f"via_{name}"
        path.write_text(f'#usda 1.0\n(\n subLayers = [@{name}@]\n)\n')
        errors: list = []

        def read(p=path, out=errors) -> None:
            try:
                read_foliage(p)
            except FormatError as e:
                out.append(e)

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(20)
        assert not reader.is_alive(), f"{name}: the reader hangs"
        assert errors and words in str(errors[0]), errors


def test_layers_inside_the_folder_compose_as_before(folder: Path) -> None:
    path = folder / "in.usda"
    path.write_text('#usda 1.0\n(\n subLayers = [@ok.usda@, @./ok.usda@]\n)\n')
    assert read_foliage(path).count == 0
