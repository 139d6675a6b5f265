"""An 8193² terrain at 2 m (16 km): opening is paged, a stroke's save writes only its tile."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MEASURE = (
    "import json, sys\n"
    f"sys.path.insert(0, {str(ROOT)!r})\n"
    "from pathlib import Path\n"
    "from app.bench.scene_tiles import measure_paged_open\n"
    "print(json.dumps(measure_paged_open(Path(sys.argv[1]))))\n"
)


@pytest.mark.slow
def test_a_16_km_scene_opens_paged_and_a_stroke_saves_under_2_percent(tmp_path: Path) -> None:
    from app.bench.scene_tiles import big_scene
    from model.formats.scene_file import save_scene

    path = tmp_path / "world.boscage"
    save_scene(big_scene(8193), path)
    run = subprocess.run([sys.executable, "-c", MEASURE, str(path)], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    figures = json.loads(run.stdout)
    print(json.dumps(figures, indent=1))
    assert figures["samples"] == 8193
    assert figures["written_share"] <= 0.02
    # opening keeps no tile: its memory is the manifest and the tile lists, not the side files
    assert figures["open_peak_mb"] < 0.05 * figures["side_file_mb"]
    assert figures["stroke_peak_mb"] < 0.1 * figures["side_file_mb"]
    # a caller wanting the whole heights array gets it at about its own size (256 MiB), no more
    heights_mb = 8193 * 8193 * 4 / 2 ** 20
    assert figures["assembled_peak_mb"] <= 1.1 * heights_mb


@pytest.mark.slow
def test_a_16_km_scene_opens_in_the_editor_and_draws_its_first_frame_within_budget() -> None:
    """`boscage --screenshot` of 8193² at 2 m in a child process: at most 5 s from start to PNG
    (best of three), and a peak resident memory (the child's ru_maxrss) at most 1.5 times the side
    files' bytes over an empty scene's screenshot (the Qt, OpenGL and Python baseline)."""
    from app.bench.scene_tiles import measure_screenshot

    figures = measure_screenshot(8193, runs=3)
    print(json.dumps(figures, indent=1))
    assert figures["samples"] == 8193 and figures["side_file_mb"] > 380  # 256 MiB heights, 2 layers
    assert figures["first_frame_s"] <= 5.0
    assert figures["peak_mb"] <= 1.5 * figures["side_file_mb"] + figures["baseline_mb"]


@pytest.mark.slow
def test_a_16_km_scene_with_300_000_stored_instances_opens_within_the_memory_budget() -> None:
    """The same screenshot of a 16 km world with 300,000 stored instances (225,000 chunks): peak
    resident memory at most 1.5 times the side files (tiles and foliage) over an empty scene's.
    Its first frame is measured too (`scene_tiles.screenshot_16km_foliage_first_frame_s`, budget
    5 s, met: 3.4-4.1 s on a quiet 2-core machine); held here only below the 40-51 s it took while the
    far cover looped over every chunk into a working grid (a test asserts no tight wall time)."""
    from app.bench.scene_tiles import measure_screenshot

    figures = measure_screenshot(8193, runs=2, foliage=300_000)
    print(json.dumps(figures, indent=1))
    assert figures["instances"] == 300_000 and figures["side_file_mb"] > 388  # 384 MiB of tiles
    assert figures["peak_mb"] <= 1.5 * figures["side_file_mb"] + figures["baseline_mb"]
    assert figures["first_frame_s"] <= 30.0
