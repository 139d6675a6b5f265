"""The Refusals panel: a bar per reason, one plain sentence, the missing layer named, clicks."""

from __future__ import annotations

import numpy as np
import pytest

from model.foliage import FoliageType, LayerFilter, Refusal
from model.foliage.palette import Palette
from model.foliage.scatter import StrokeResult, TypeOutcome
from tests.conftest import make_small_scene
from widgets.refusal_panel import RefusalPanel


def outcome(name: str, xz, refusals, missing=None) -> TypeOutcome:
    refusals = np.asarray(refusals, np.int8)
    placed = int(np.sum(refusals == 0))
    return TypeOutcome(name, np.asarray(xz, np.float64), refusals, np.zeros((placed, 7), np.float32), missing)


@pytest.fixture
def panel(qtbot):
    p = RefusalPanel()
    qtbot.addWidget(p)
    return p


def test_the_sentence_and_bars_count_every_reason(panel) -> None:
    terrain = make_small_scene().terrain
    palette = Palette([FoliageType("pine", slope=(0.0, 5.0), spacing=3.0)])
    # 40 candidates on the hill's flank (x = 12): steep for a 5° band; 4 too close; 5 placed.
    xz = np.column_stack([np.full(40, 12.0), np.linspace(-2.0, 2.0, 40)])
    refusals = [int(Refusal.SLOPE)] * 31 + [int(Refusal.SPACING)] * 4 + [0] * 5
    result = StrokeResult({"pine": outcome("pine", xz, refusals)})
    panel.set_result(result, terrain, palette)
    slope = float(np.median(terrain.slope_at(xz[:31, 0], xz[:31, 1])))
    assert panel.text() == (f"40 candidates: 31 too steep (slope {slope:.0f}° > 5°), "
                            "4 too close (spacing 3 m), 5 placed")
    assert panel.bars[Refusal.SLOPE].value() == 31 and panel.bars[Refusal.SLOPE].maximum() == 40
    assert panel.bars[Refusal.SPACING].value() == 4 and panel.bars[None].value() == 5
    assert panel.bars[Refusal.LAYER].value() == 0 and not panel.buttons[Refusal.LAYER].isEnabled()
    assert not panel.missing.isVisibleTo(panel)


def test_clicking_a_reason_selects_it_and_gives_its_positions(panel) -> None:
    terrain = make_small_scene().terrain
    xz = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    refusals = [int(Refusal.ALTITUDE), 0, int(Refusal.BRUSH), int(Refusal.ALTITUDE)]
    palette = Palette([FoliageType("pine", altitude=(-5.0, 1.0))])
    panel.set_result(StrokeResult({"pine": outcome("pine", xz, refusals)}), terrain, palette)
    assert "2 too high (" in panel.text() and "m > 1 m)" in panel.text()
    clicked = []
    panel.reason_clicked.connect(clicked.append)
    panel.buttons[Refusal.ALTITUDE].click()
    assert clicked[-1] == Refusal.ALTITUDE and panel.highlighted == Refusal.ALTITUDE
    np.testing.assert_array_equal(panel.positions(Refusal.ALTITUDE), xz[[0, 3]])
    panel.buttons[Refusal.BRUSH].click()
    assert clicked[-1] == Refusal.BRUSH and not panel.buttons[Refusal.ALTITUDE].isChecked()
    panel.buttons[Refusal.BRUSH].click()
    assert clicked[-1] is None


def test_a_missing_layer_is_named(panel) -> None:
    terrain = make_small_scene().terrain
    palette = Palette([FoliageType("moss", layer=LayerFilter("mossy_ground", 0.5))])
    xz = np.zeros((6, 2))
    result = StrokeResult({"moss": outcome("moss", xz, [int(Refusal.LAYER)] * 6, "mossy_ground")})
    panel.set_result(result, terrain, palette)
    assert panel.missing.isVisibleTo(panel) and "'mossy_ground'" in panel.missing.text()
    assert panel.text().startswith("6 candidates: 6 layer 'mossy_ground' missing")
    assert "Missing layer: 'mossy_ground' (needed by moss)" in panel.text()


def test_an_erase_stroke_says_how_many_went(panel) -> None:
    panel.set_result(None, make_small_scene().terrain, None, erased=12)
    assert panel.text() == "Erased 12 instances"
