"""Terrace and stamps: deltas over the heights beneath, in portable arithmetic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from model.terrain_shapes import Stamp, stamp_deltas, stamp_image, terrace_deltas, terraced

SHAPE = (60, 80)


def ramp() -> np.ndarray:
    return np.add.outer(np.arange(SHAPE[0]) * 0.5, np.arange(SHAPE[1]) * 0.25).astype(np.float32)


def applied(h: np.ndarray, grid) -> np.ndarray:
    return (h.astype(np.float64) + grid.read(slice(0, SHAPE[0]), slice(0, SHAPE[1]), 0)).astype(np.float32)


def test_hard_terraces_are_whole_steps_and_zero_sharpness_changes_nothing() -> None:
    h = ramp()
    hard = applied(h, terrace_deltas(lambda r, c: h[r, c], SHAPE, 2.5, 1.0))
    assert np.allclose(hard / 2.5, np.round(hard / 2.5), atol=1e-5)
    assert np.all(hard <= h + 1e-4) and np.max(h - hard) > 2.0
    none = terrace_deltas(lambda r, c: h[r, c], SHAPE, 2.5, 0.0)
    assert not none.held_tiles()


def test_terrace_rises_over_the_unflat_share_of_each_step() -> None:
    t = np.array([0.0, 0.5, 0.7, 0.85, 1.0, 1.7])
    assert np.allclose(terraced(t, 1.0, 0.7), [0.0, 0.0, 0.0, 0.5, 1.0, 1.0])


def test_terrace_in_a_region_under_a_mask() -> None:
    h = ramp()
    area = (slice(10, 30), slice(5, 50))
    weights = np.zeros(SHAPE, np.uint8)
    weights[:, :20] = 255
    out = applied(h, terrace_deltas(lambda r, c: h[r, c], SHAPE, 2.0, 1.0, area, lambda r, c: weights[r, c]))
    changed = out != h
    assert changed[10:30, 5:20].any() and not changed[:, 20:].any() and not changed[:10].any()


def write_stamp(tmp_path: Path) -> Path:
    image = np.zeros((21, 41), np.float32)
    image[10, 30] = 1.0  # a single peak to the east of the centre
    path = tmp_path / "peak.npy"
    np.save(path, image)
    return path


def test_a_stamp_is_placed_turned_and_scaled(tmp_path: Path) -> None:
    image = stamp_image(write_stamp(tmp_path))
    assert image.max() == 1.0 and image.min() == 0.0
    h = np.zeros(SHAPE, np.float32)
    flat = lambda r, c: h[r, c]  # noqa: E731
    # 41 samples across 2 x 20 m: the peak 10 m east of the centre
    east = applied(h, stamp_deltas(flat, SHAPE, 1.0, (0.0, 0.0), image, Stamp(40.0, 30.0, 20.0, height=7.0)))
    assert east.max() == pytest.approx(7.0) and np.unravel_index(east.argmax(), SHAPE) == (30, 50)
    turned = applied(h, stamp_deltas(flat, SHAPE, 1.0, (0.0, 0.0), image,
                                     Stamp(40.0, 30.0, 20.0, rotation=90.0, height=7.0)))
    assert np.unravel_index(turned.argmax(), SHAPE) in ((40, 40), (20, 40))
    assert turned.max() == pytest.approx(7.0, abs=1e-3)


def test_stamp_modes(tmp_path: Path) -> None:
    image = stamp_image(write_stamp(tmp_path))
    h = ramp()
    beneath = lambda r, c: h[r, c]  # noqa: E731
    at = dict(x=40.0, z=30.0, radius=20.0, height=7.0)
    centre = float(h[30, 40])
    replaced = applied(h, stamp_deltas(beneath, SHAPE, 1.0, (0.0, 0.0), image, Stamp(**at, mode="replace")))
    assert replaced[30, 40] == pytest.approx(centre) and replaced[30, 50] == pytest.approx(centre + 7.0)
    assert replaced[0, 0] == h[0, 0]  # outside the stamp
    high = applied(h, stamp_deltas(beneath, SHAPE, 1.0, (0.0, 0.0), image, Stamp(**at, mode="max")))
    assert np.all(high >= h) and high[30, 50] == pytest.approx(centre + 7.0)
    low = applied(h, stamp_deltas(beneath, SHAPE, 1.0, (0.0, 0.0), image, Stamp(**at, mode="min")))
    assert np.all(low <= h) and low[30, 58] == pytest.approx(centre)
    with pytest.raises(ValueError, match="mode"):
        stamp_deltas(beneath, SHAPE, 1.0, (0.0, 0.0), image, Stamp(**at, mode="blend"))
