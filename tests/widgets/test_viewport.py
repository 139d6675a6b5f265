"""The viewport renders with real OpenGL (Xvfb + llvmpipe): pixels are read back and checked."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent, QWheelEvent
from PySide6.QtWidgets import QApplication

from model.scene import Scene
from model.terrain import Terrain
from rendering.renderer import Renderer
from tests.conftest import make_small_scene
from tests.gui_helpers import is_sky, render


def test_a_real_opengl_33_core_context(viewport, qtbot) -> None:
    render(viewport, qtbot)
    major, minor = (int(v) for v in viewport.gl_info["version"].split()[0].split(".")[:2])
    assert (major, minor) >= (3, 3)
    assert viewport.context().format().profile().name == "CoreProfile"


def test_empty_viewport_is_sky(viewport, qtbot) -> None:
    img = render(viewport, qtbot)
    assert is_sky(img).all()


def test_layers_colour_the_terrain_west_red_and_east_blue(viewport, qtbot) -> None:
    viewport.set_scene(make_small_scene())
    viewport.camera.yaw, viewport.camera.pitch = 0.0, np.radians(80.0)  # nearly straight down
    viewport.frame_all()
    img = render(viewport, qtbot).astype(int)
    ground = ~is_sky(img)
    assert ground.mean() > 0.3  # frame-all fills a good part of the view
    assert not ground[0].any() and not ground[-1].any()  # and leaves a margin of sky
    h, w, _ = img.shape
    cols = np.arange(w)[None, :].repeat(h, 0)
    left = ground & (cols < w * 0.4)
    right = ground & (cols > w * 0.6)
    red_left = (img[..., 0] - img[..., 2])[left].mean()
    red_right = (img[..., 0] - img[..., 2])[right].mean()
    assert red_left > 60 and red_right < -60


def test_terrain_is_lit_slopes_facing_the_light_are_brighter(viewport, qtbot) -> None:
    # A ridge running along Z: its east face (+X) looks towards the light, its west face away.
    x = np.linspace(-1, 1, 41)
    heights = np.tile(30.0 * (1 - np.abs(x)), (41, 1)).astype(np.float32)
    terrain = Terrain(heights, 1.5, (-30.0, -30.0))
    terrain.add_layer("grey", (160, 160, 160), np.full(heights.shape, 255, np.uint8))
    viewport.set_scene(Scene(terrain))
    viewport.camera.yaw, viewport.camera.pitch = 0.0, np.radians(60.0)  # looking north
    viewport.frame_all()
    img = render(viewport, qtbot).astype(int)
    ground = ~is_sky(img)
    h, w, _ = img.shape
    brightness = img.sum(axis=-1)
    cols = np.arange(w)[None, :].repeat(h, 0)
    # Looking along -Z, +X is on the right of the screen.
    east = brightness[ground & (cols > w * 0.55)].mean()
    west = brightness[ground & (cols < w * 0.45)].mean()
    assert east > west + 60


def test_editing_the_terrain_updates_the_picture(viewport, qtbot) -> None:
    scene = make_small_scene()
    viewport.set_scene(scene)
    viewport.camera.yaw, viewport.camera.pitch = 0.0, np.radians(80.0)
    viewport.frame_all()
    before = render(viewport, qtbot).astype(int)
    t = scene.terrain
    t.layers[0].weights[:] = 0  # no more red anywhere
    t.layers[1].weights[:] = 255
    t.layer_weights_changed.emit(0, slice(0, t.rows), slice(0, t.columns))
    after = render(viewport, qtbot).astype(int)
    ground = ~is_sky(after)
    assert (before[..., 0] - before[..., 2])[ground].max() > 60
    assert (after[..., 0] - after[..., 2])[ground].max() < 0


class Recorder(Renderer):
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[str] = []
        self.fail = fail

    def initialize(self) -> None:
        self.calls.append("initialize")

    def draw(self, frame) -> None:
        self.calls.append("draw")
        assert frame.view_projection.shape == (4, 4) and frame.width > 0
        if self.fail:
            raise RuntimeError("shader exploded")

    def release(self) -> None:
        self.calls.append("release")


def test_renderer_list_is_drawn_in_order_and_a_failing_one_is_dropped(viewport, qtbot) -> None:
    ok, bad = Recorder(), Recorder(fail=True)
    viewport.add_renderer(ok)
    viewport.add_renderer(bad)
    with qtbot.waitSignal(viewport.gl_failed, timeout=5000) as failed:
        render(viewport, qtbot)
    assert "shader exploded" in failed.args[0]
    assert bad not in viewport.renderers and ok in viewport.renderers
    render(viewport, qtbot)
    assert ok.calls[0] == "initialize" and ok.calls.count("draw") >= 2
    viewport.remove_renderer(ok)
    assert ok.calls[-1] == "release"


def drag(widget, button, start, end) -> None:
    """Press, move, release as events sent to the widget (the X cursor stays where it is)."""
    none = Qt.KeyboardModifier.NoModifier
    for kind, pos, buttons in ((QEvent.Type.MouseButtonPress, start, button),
                               (QEvent.Type.MouseMove, end, button),
                               (QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)):
        p = QPointF(*pos)
        event = QMouseEvent(kind, p, widget.mapToGlobal(p), button if kind != QEvent.Type.MouseMove
                            else Qt.MouseButton.NoButton, buttons, none)
        QApplication.sendEvent(widget, event)


def test_navigation_orbit_pan_zoom_and_frame_all_key(viewport, qtbot) -> None:
    viewport.set_scene(make_small_scene())
    cam = viewport.camera
    yaw, distance, target = cam.yaw, cam.distance, cam.target.copy()
    drag(viewport, Qt.MouseButton.RightButton, (100, 100), (140, 100))
    assert cam.yaw != yaw
    drag(viewport, Qt.MouseButton.MiddleButton, (100, 100), (100, 150))
    assert not np.allclose(cam.target, target)
    wheel = QWheelEvent(QPointF(50, 50), QPointF(50, 50), QPoint(0, 0), QPoint(0, 240),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
                        False)
    viewport.wheelEvent(wheel)
    assert cam.distance < distance
    qtbot.keyClick(viewport, Qt.Key.Key_F)
    assert np.allclose(cam.target[[0, 2]], [0.0, 0.0], atol=25.0)


def test_a_shader_that_does_not_compile_raises_with_the_driver_log(viewport, qtbot) -> None:
    from rendering.gl_program import ShaderError, ShaderProgram

    render(viewport, qtbot)
    viewport.makeCurrent()
    try:
        with pytest.raises(ShaderError, match="vertex"):
            ShaderProgram("#version 330 core\nvoid main() { gl_Position = nonsense; }", "")
        good = ShaderProgram("#version 330 core\nvoid main() { gl_Position = vec4(0.0); }",
                             "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(1.0); }")
        assert good.id > 0
        good.set_uniform("u_missing", 1.0)  # an absent uniform is ignored, not an error
        good.delete()
    finally:
        viewport.doneCurrent()


class BrokenAtStart(Recorder):
    def initialize(self) -> None:
        raise RuntimeError("no such extension")


def test_a_renderer_failing_to_initialise_is_reported_and_dropped(viewport, qtbot) -> None:
    render(viewport, qtbot)
    broken = BrokenAtStart()
    with qtbot.waitSignal(viewport.gl_failed, timeout=5000) as failed:
        viewport.add_renderer(broken)
    assert "no such extension" in failed.args[0] and broken not in viewport.renderers
    render(viewport, qtbot)  # and drawing carries on
