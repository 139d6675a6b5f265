"""The modal progress helper long model work reports through."""

from __future__ import annotations

from widgets.progress import ModalProgress


def test_steps_move_the_bar_and_cancel_is_reported(qtbot) -> None:
    with ModalProgress(None, "Working…", steps=10, minimum_duration_ms=0) as progress:
        progress.step(0.55)
        assert progress.dialog.value() == 6
        progress.step(7.0)  # out-of-range fractions are clamped, never wrap
        assert progress.dialog.value() in (10, -1)  # at the maximum Qt may reset the bar
        assert not progress.cancelled()
        progress.dialog.cancel()
        assert progress.cancelled()
    assert not progress.dialog.isVisible()
