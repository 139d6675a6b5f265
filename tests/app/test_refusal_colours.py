"""One colour per refusal reason: the Refusals panel's bar and the viewport's markers agree."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, Refusal
from model.foliage.report import REASON_COLOURS
from model.foliage.scatter import StrokeResult, TypeOutcome
from tests.gui_helpers import pixels, render


def bar_colour(bar) -> np.ndarray:
    """The filled part's colour: the bar is grabbed and read just inside its left end."""
    image = pixels(bar.grab().toImage())
    return image[image.shape[0] // 2, 3].astype(int)


def test_each_reason_has_one_colour_in_the_panel_and_the_viewport(shown, qtbot) -> None:
    window = shown
    editor, viewport, terrain = window.foliage_editor, window.viewport, window.document.scene.terrain
    editor._palette.add(FoliageType("pine"))
    reasons = list(Refusal)
    # one refused candidate per reason, spread over the hill, and one placed
    xz = np.array([[-24.0 + 9.6 * i, -6.0 + 4.0 * (i % 2)] for i in range(len(reasons) + 1)])
    codes = np.array([int(r) for r in reasons] + [0], np.int8)
    outcome = TypeOutcome("pine", xz, codes, np.zeros((1, 7), np.float32))
    editor._on_stroke(StrokeResult({"pine": outcome}))
    image = render(viewport, qtbot).astype(int)
    y = terrain.height_at(xz[:, 0], xz[:, 1])
    screen = viewport.world_to_screen(np.column_stack([xz[:, 0], y, xz[:, 1]])).round().astype(int)
    seen = {}
    for i, reason in enumerate(reasons):
        sx, sy = screen[i]
        marker = image[sy, sx]
        bar = bar_colour(editor.refusal_panel.bars[reason])
        expected = np.round(np.array(REASON_COLOURS[reason][:3]) * 255)
        assert np.abs(marker - expected).max() <= 3, (reason.name, marker, expected)
        assert np.abs(bar - expected).max() <= 3, (reason.name, bar, expected)
        seen[reason] = marker
    # and the reasons stay apart from each other
    names = list(seen)
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            assert np.abs(seen[names[a]] - seen[names[b]]).sum() > 90, (names[a].name, names[b].name)
