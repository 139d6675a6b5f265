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


AUDITED = """
import os, sys
from pathlib import Path

def refuse_writes(event, args):  # as the fuzz worker's guard: no file opened for writing
    if event == "open" and args and not isinstance(args[0], int):
        mode, flags = args[1], args[2]
        if (mode and any(c in mode for c in "wax+")) or (flags and flags & (os.O_WRONLY | os.O_RDWR)):
            raise PermissionError(f"refused: {args[0]}")

from model.interchange import usd_preflight
sys.addaudithook(refuse_writes)
usd_preflight.check_crate(Path(sys.argv[1]))
print("read")
"""


def test_the_forked_child_opens_no_file_for_writing(tmp_path) -> None:
    # the child once sent its stderr to /dev/null: a process refusing write opens saw every crate
    # refused as too big, so the fuzz run never reached pxr's reading
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, "-c", AUDITED, str(good_crate(tmp_path))], capture_output=True,
                          text=True, cwd=root, env=dict(os.environ, PYTHONPATH=str(root)), timeout=120,
                          check=False)
    assert done.returncode == 0 and done.stdout.strip() == "read", done.stderr[-2000:]


def test_a_layer_with_sublayer_offsets_passes(way, tmp_path) -> None:
    # pxr reads sublayer offsets but has no Python form for them: the read must not refuse the layer
    from pxr import Sdf

    good_crate(tmp_path)
    layer = Sdf.Layer.CreateNew(str(tmp_path / "root.usdc"))
    layer.subLayerPaths.append("good.usdc")
    layer.subLayerOffsets[0] = Sdf.LayerOffset(2.0, 1.0)
    layer.Save()
    usd_preflight.check_crate(tmp_path / "root.usdc")
