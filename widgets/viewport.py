"""The 3-D viewport: an OpenGL widget that draws a list of renderers through an orbit camera.

Navigation: right drag (or Alt + left drag) orbits, middle drag (or Shift + right drag) pans,
the wheel zooms, F frames everything. Left button without Alt is left to editing tools.
"""

from __future__ import annotations

import math

import numpy as np
from OpenGL import GL
from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QKeyEvent, QMouseEvent, QWheelEvent
from PySide6.QtOpenGLWidgets import QOpenGLWidget

from model.scene import Scene
from rendering.camera import OrbitCamera
from rendering.renderer import FrameContext, Renderer
from rendering.terrain_renderer import TerrainRenderer

SKY_COLOUR = (0.62, 0.71, 0.80, 1.0)
LIGHT_DIRECTION = np.array([0.45, 0.75, 0.35])
LIGHT_DIRECTION = (LIGHT_DIRECTION / np.linalg.norm(LIGHT_DIRECTION)).astype(np.float32)
ORBIT_RADIANS_PER_PIXEL = 0.008


class Viewport(QOpenGLWidget):
    """Draws `renderers` in order each frame. `frame_rendered` is emitted after every paint."""

    frame_rendered = Signal()
    gl_failed = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.camera = OrbitCamera()
        self.renderers: list[Renderer] = []
        self.terrain_renderer: TerrainRenderer | None = None
        self.frames_rendered = 0
        self.gl_info: dict[str, str] = {}
        self._initialized = False
        self._pending_release: list[Renderer] = []
        self._drag_mode: str | None = None
        self._auto_frame = False  # re-frame on resize until the user moves the camera
        self._last_pos = QPoint()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(200, 150)
        self.setToolTip("Right drag: orbit · Middle drag: pan · Wheel: zoom · F: frame all")

    # ---- renderers --------------------------------------------------------------------
    def add_renderer(self, renderer: Renderer, index: int | None = None) -> None:
        """Draw `renderer` every frame (after the others, or at `index`)."""
        if index is None:
            self.renderers.append(renderer)
        else:
            self.renderers.insert(index, renderer)
        if self._initialized:
            self.makeCurrent()
            self._initialize(renderer)
            self.doneCurrent()
        self.update()

    def remove_renderer(self, renderer: Renderer) -> None:
        if renderer in self.renderers:
            self.renderers.remove(renderer)
            self._release(renderer)
            self.update()

    def _release(self, renderer: Renderer) -> None:
        if self._initialized and self.context() is not None:
            self.makeCurrent()
            renderer.release()
            self.doneCurrent()
        else:
            renderer.release()

    def set_scene(self, scene: Scene | None, frame: bool = True) -> None:
        """Show `scene`'s terrain (replacing the previous one) and, by default, frame it."""
        if self.terrain_renderer is not None:
            self.remove_renderer(self.terrain_renderer)
            self.terrain_renderer = None
        if scene is not None:
            self.terrain_renderer = TerrainRenderer(scene.terrain)
            self.add_renderer(self.terrain_renderer, 0)
        if frame:
            self.frame_all()
            self._auto_frame = True

    def frame_all(self) -> None:
        """Point the camera so every renderer's bounds are in view."""
        boxes = [b for b in (r.bounds() for r in self.renderers) if b is not None]
        if not boxes:
            return
        lo = np.min([b[0] for b in boxes], axis=0)
        hi = np.max([b[1] for b in boxes], axis=0)
        self.camera.frame(lo, hi, self._aspect())
        self._auto_frame = False
        self.update()

    # ---- GL ---------------------------------------------------------------------------
    def _aspect(self) -> float:
        return max(1, self.width()) / max(1, self.height())

    def initializeGL(self) -> None:
        self.gl_info = {
            "version": _gl_string(GL.GL_VERSION),
            "renderer": _gl_string(GL.GL_RENDERER),
            "glsl": _gl_string(GL.GL_SHADING_LANGUAGE_VERSION),
        }
        ctx = self.context()
        ctx.aboutToBeDestroyed.connect(self._context_going)
        GL.glEnable(GL.GL_DEPTH_TEST)
        for renderer in list(self.renderers):
            self._initialize(renderer)
        self._initialized = True

    def _initialize(self, renderer: Renderer) -> bool:
        try:
            renderer.initialize()
        except Exception as e:  # e.g. a shader the driver refuses: report it, draw the rest
            if renderer in self.renderers:
                self.renderers.remove(renderer)
            self.gl_failed.emit(f"{type(renderer).__name__}: {e}")
            return False
        return True

    def resizeGL(self, width: int, height: int) -> None:
        if self._auto_frame:
            self.frame_all()
            self._auto_frame = True

    def _context_going(self) -> None:
        self.makeCurrent()
        for renderer in self.renderers:
            renderer.release()
        self.doneCurrent()
        self._initialized = False

    def frame_context(self) -> FrameContext:
        ratio = self.devicePixelRatioF()
        aspect = self._aspect()
        view = self.camera.view_matrix()
        proj = self.camera.projection_matrix(aspect)
        return FrameContext(self.camera, view, proj, self.camera.view_projection(aspect),
                            int(self.width() * ratio), int(self.height() * ratio), LIGHT_DIRECTION)

    def paintGL(self) -> None:
        GL.glClearColor(*SKY_COLOUR)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)
        GL.glEnable(GL.GL_DEPTH_TEST)
        frame = self.frame_context()
        for renderer in list(self.renderers):
            try:
                renderer.draw(frame)
            except Exception as e:  # one broken renderer must not take the window down
                self.renderers.remove(renderer)
                self.gl_failed.emit(f"{type(renderer).__name__}: {e}")
        self.frames_rendered += 1
        self.frame_rendered.emit()

    # ---- navigation -------------------------------------------------------------------
    def mousePressEvent(self, event: QMouseEvent) -> None:
        button, mods = event.button(), event.modifiers()
        alt = bool(mods & Qt.KeyboardModifier.AltModifier)
        shift = bool(mods & Qt.KeyboardModifier.ShiftModifier)
        if button == Qt.MouseButton.MiddleButton or (button == Qt.MouseButton.RightButton and shift):
            self._drag_mode = "pan"
        elif button == Qt.MouseButton.RightButton or (button == Qt.MouseButton.LeftButton and alt):
            self._drag_mode = "orbit"
        else:
            super().mousePressEvent(event)
            return
        self._last_pos = event.position().toPoint()
        self._auto_frame = False
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag_mode is None:
            super().mouseMoveEvent(event)
            return
        pos = event.position().toPoint()
        delta = pos - self._last_pos
        self._last_pos = pos
        if self._drag_mode == "orbit":
            self.camera.orbit(-delta.x() * ORBIT_RADIANS_PER_PIXEL, delta.y() * ORBIT_RADIANS_PER_PIXEL)
        else:
            self.camera.pan(delta.x(), delta.y(), self.height())
        self.update()
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._drag_mode is not None:
            self._drag_mode = None
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.camera.zoom(steps)
            self._auto_frame = False
            self.update()
        event.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_F and not event.modifiers():
            self.frame_all()
            event.accept()
            return
        super().keyPressEvent(event)

    def orbit_by_degrees(self, yaw: float, pitch: float) -> None:
        """Scripted orbit (menus, tests)."""
        self.camera.orbit(math.radians(yaw), math.radians(pitch))
        self._auto_frame = False
        self.update()


def _gl_string(name: int) -> str:
    value = GL.glGetString(name)
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)
