"""A zone written as a scene tile by tile: the bytes `save_scene(zone_to_scene(…))` writes, a
cancel that leaves nothing, and memory that follows a band rather than the zone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from model.formats import tiles
from model.formats.scene_file import load_scene, save_scene
from model.zones.sample import sample_zone
from model.zones.scene_import import ImportCancelled, write_zone_scene, zone_to_scene
from tests.model.test_scene_file import files_of


@pytest.fixture(autouse=True)
def small_tiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tiles, "TILE", 16)


@pytest.fixture(scope="module")
def zone():
    return sample_zone(12, 40, height=37, seed=9)


def _rules(zone) -> dict:
    """Rules deciding the other way round for every second type, naming each."""
    kinds = sorted({int(v) for v in np.unique(zone.plants["type"]) if v})
    return {k: SimpleNamespace(blocks=(n % 2 == 0), name=f"species {k}") for n, k in enumerate(kinds)}


@pytest.mark.parametrize("case", ["plain", "rules", "no_plants", "no_blocks"])
def test_streamed_zone_scene_is_byte_identical(zone, tmp_path: Path, case: str) -> None:
    rules = None
    if case == "rules":
        rules = _rules(zone)
    if case in ("no_plants", "no_blocks"):
        zone = sample_zone(5, 33, height=20, seed=2)
        del zone.layers["plants" if case == "no_plants" else "blocks"]
    save_scene(zone_to_scene(zone, 1.5, rules=rules), tmp_path / "a" / "z.boscage")
    heard: list[int] = []
    scene = write_zone_scene(zone, tmp_path / "b" / "z.boscage", 1.5, rules=rules,
                             progress=lambda d, t, w: heard.append(d))
    assert files_of(tmp_path / "b") == files_of(tmp_path / "a")
    assert scene.terrain.paged_heights is not None and heard == list(range(len(heard)))
    assert load_scene(tmp_path / "b" / "z.boscage").terrain.rows == zone.height


def test_a_cancelled_zone_import_leaves_nothing(zone, tmp_path: Path) -> None:
    with pytest.raises(ImportCancelled):
        write_zone_scene(zone, tmp_path / "z.boscage", progress=lambda d, t, w: d < 3)
    assert files_of(tmp_path) == {}


CHILD = """
import json, sys
from pathlib import Path
from types import SimpleNamespace
from model.zones import read_zone
from model.zones.scene_import import write_zone_scene

def hwm():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
zone = read_zone(sys.argv[1], 7)
base = hwm()
write_zone_scene(zone, sys.argv[2])
print(json.dumps({"growth_mb": hwm() - base}))
"""


def test_a_big_zone_is_written_in_bands(tmp_path: Path) -> None:
    from model.zones import Zone, write_zone

    size = 4096  # heights alone would be 64 MiB, each ground layer 16 MiB more
    zone = Zone.blank(7, size, size, layers=("altitude", "plants"))
    zone.layers["altitude"][:] = (np.arange(size, dtype=np.uint32) * 7 % 60000).astype("<u2")
    zone.layers["plants"]["groundType"][:, : size // 2] = 2
    write_zone(zone, tmp_path / "zone", gz=False)
    del zone
    done = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "zone"), str(tmp_path / "z.boscage")],
                          capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parents[3])
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    print(figures)
    assert figures["growth_mb"] < 40, figures
    assert [la.name for la in load_scene(tmp_path / "z.boscage").terrain.layers] == ["Darkrocks", "LowlandB"]
