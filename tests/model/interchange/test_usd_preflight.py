"""The crate pre-read: a damaged count is one FormatError from a capped child, whether the child is a
fork (a process with one thread) or a fresh interpreter (one with others, as the editor is)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pxr")

from model.errors import FormatError  # noqa: E402
from model.interchange import usd_preflight  # noqa: E402

REGRESSIONS = Path(__file__).resolve().parents[1] / "fuzz" / "regressions" / "usdc"
BOMB = REGRESSIONS / "crate_count_allocates_gigabytes" / "files" / "s.usdc"


def good_crate(folder: Path) -> Path:
    from pxr import Sdf

    layer = Sdf.Layer.CreateNew(str(folder / "good.usdc"))
    prim = Sdf.CreatePrimInLayer(layer, "/World/points")
    prim.specifier = Sdf.SpecifierDef
    attr = Sdf.AttributeSpec(prim, "widths", Sdf.ValueTypeNames.FloatArray)
    attr.default = [1.0, 2.0, 3.0]
    layer.Save()
    return folder / "good.usdc"


@pytest.fixture(params=["fork", "fresh"])
def way(request, monkeypatch):
    """Each way of starting the child, and a proof that the other way is not taken."""
    def refuse(*_a, **_k):
        raise AssertionError("the other way was taken")

    if request.param == "fork":
        monkeypatch.setattr(usd_preflight, "_fresh_interpreter", False)
        monkeypatch.setattr(usd_preflight, "_spawned", refuse)
    else:
        monkeypatch.setattr(usd_preflight, "_fresh_interpreter", True)
        monkeypatch.setattr(usd_preflight, "_forked", refuse)
    return request.param


def test_a_damaged_count_is_one_error_naming_the_file(way) -> None:
    with pytest.raises(FormatError) as caught:
        usd_preflight.check_crate(BOMB)
    assert str(BOMB) in str(caught.value) and "MiB" in str(caught.value)


def test_a_good_crate_passes(way, tmp_path) -> None:
    usd_preflight.check_crate(good_crate(tmp_path))


def test_a_refused_layer_gives_pxrs_reason(way, tmp_path) -> None:
    bad = tmp_path / "bad.usdc"
    bad.write_bytes(usd_preflight.CRATE_MAGIC + b"\0" * 40)
    with pytest.raises(FormatError, match="not a readable USD file"):
        usd_preflight.check_crate(bad)


def test_an_exported_forest_passes(way, tmp_path) -> None:
    """The exporter's own crate (every plug-in its read needs loaded under the cap)."""
    from tests.model.fuzz.corpora_usd import usdc_seeds

    for seed in usdc_seeds():
        folder = tmp_path / seed.name
        folder.mkdir()
        for name, data in seed.files.items():
            (folder / name).write_bytes(data if isinstance(data, bytes) else bytes(data))
        usd_preflight.check_crate(folder / seed.main)
