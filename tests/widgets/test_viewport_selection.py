"""Selected stored instances are drawn tinted and rimmed, not only marked by dots; a selection change
re-sends only the masks of the chunks whose selection changed (issue 15, point 11)."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageType, foliage_of
from tests.gui_helpers import render
from tests.widgets.test_viewport_foliage import flat_scene, records, top_down


def _scene_with_bushes():
    scene = flat_scene()
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("bush", mesh="builtin:bush", cull=(500.0, 600.0)))
    west = np.array([[-20.0, 0.0], [-12.0, 8.0]])  # cell x -1
    east = np.array([[12.0, 0.0], [20.0, 8.0]])  # cell x 0
    foliage.volume.add("bush", records(np.concatenate([west, east]), 3.0))
    return scene, foliage.volume


def _box_pixels(viewport, x: float, z: float, r: float = 2.0) -> tuple[slice, slice]:
    p = viewport.world_to_screen(np.array([[x - r, 2.0, z - r], [x + r, 2.0, z + r]]))
    (x0, y0), (x1, y1) = p.min(axis=0), p.max(axis=0)
    return slice(int(y0), int(y1) + 1), slice(int(x0), int(x1) + 1)


def _amber(img: np.ndarray, box) -> float:
    """Mean red-minus-blue over the box: the selection's amber raises it."""
    patch = img[box].reshape(-1, 3).astype(float)
    return float((patch[:, 0] - patch[:, 2]).mean())


def test_a_selected_instance_is_tinted_and_the_others_stay_as_they_were(viewport, qtbot) -> None:
    scene, volume = _scene_with_bushes()
    top_down(viewport, scene, 70.0)
    before = render(viewport, qtbot).astype(int)
    keys = sorted(volume.keys())
    assert len(keys) == 2
    west_key = next(k for k in keys if k[0][0] < 0)
    rec = volume.chunk(*west_key).records
    first = int(np.argmin(rec[:, 0]))  # the bush at x = -20
    viewport.show_selection({west_key: np.array([first])})
    after = render(viewport, qtbot).astype(int)
    selected = _box_pixels(viewport, -20.0, 0.0)
    others = [_box_pixels(viewport, -12.0, 8.0), _box_pixels(viewport, 12.0, 0.0),
              _box_pixels(viewport, 20.0, 8.0)]
    assert _amber(after, selected) > _amber(before, selected) + 40  # clearly amber now
    for box in others:
        assert np.array_equal(after[box], before[box])  # untouched, pixel for pixel
    changed = np.abs(after - before).sum(axis=-1) > 30
    ys, xs = np.nonzero(changed)
    assert len(xs) > 50
    sel_rows, sel_cols = selected
    assert ((ys >= sel_rows.start - 6) & (ys < sel_rows.stop + 6)
            & (xs >= sel_cols.start - 6) & (xs < sel_cols.stop + 6)).all()
    fr = viewport.foliage_renderer
    assert dict(fr.selection_uploads) == {west_key: 1}  # one mask, for the one chunk
    viewport.show_selection({west_key: np.array([first])})  # the same selection again: nothing sent
    render(viewport, qtbot)
    assert dict(fr.selection_uploads) == {west_key: 1}
    viewport.show_selection({})
    cleared = render(viewport, qtbot).astype(int)
    assert np.array_equal(cleared, before)
    assert dict(fr.selection_uploads) == {west_key: 1}  # clearing turns the mask off, sends nothing


def test_the_editors_selection_reaches_the_instances(main_window, qtbot) -> None:
    main_window.resize(1600, 1000)
    main_window.show()
    qtbot.waitExposed(main_window)
    scene, volume = _scene_with_bushes()
    main_window.open_scene(scene)
    viewport = main_window.viewport
    cam = viewport.camera
    cam.target, cam.yaw, cam.pitch, cam.distance = np.array([0.0, 0.0, 0.0]), 0.0, np.radians(89.0), 70.0
    viewport.orbit_by_degrees(0.0, 0.0)  # a scripted camera move: no re-framing on resize
    before = render(viewport, qtbot).astype(int)
    east_key = next(k for k in volume.keys() if k[0][0] >= 0)
    toolset = main_window.foliage_editor.toolset
    toolset.set_selection({east_key: np.arange(len(volume.chunk(*east_key)))})
    after = render(viewport, qtbot).astype(int)
    ratio = viewport.devicePixelRatioF()
    for x, z in ((12.0, 0.0), (20.0, 8.0)):
        rows, cols = _box_pixels(viewport, x, z)
        box = (slice(int(rows.start * ratio), int(rows.stop * ratio)),
               slice(int(cols.start * ratio), int(cols.stop * ratio)))
        assert _amber(after, box) > _amber(before, box) + 40
    toolset.set_selection({})
    assert np.array_equal(render(viewport, qtbot).astype(int), before)
