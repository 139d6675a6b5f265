"""The 3-D viewport: an OpenGL widget that draws a list of renderers through an orbit camera.

Navigation: right drag (or Alt + left drag) orbits, middle drag (or Shift + right drag) pans,
the wheel zooms, F frames everything, Shift+F focuses the selection; holding the right button
with W/A/S/D (Q/E down/up) flies and the drag then looks around. Left button without Alt is
left to editing tools.
"""

from __future__ import annotations

import math
import time
import weakref
from itertools import chain

import numpy as np
from OpenGL import GL
from PySide6.QtCore import QElapsedTimer, QEvent, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QMouseEvent, QWheelEvent
from PySide6.QtOpenGLWidgets import QOpenGLWidget
from PySide6.QtWidgets import QLabel

from model.foliage.volume import FoliageAddress
from model.ray import ray_heightfield, rays_heightfield
from model.scene import Scene
from rendering.camera import OrbitCamera
from rendering.foliage_density import FoliageDensity
from rendering.foliage_renderer import FoliageRenderer
from rendering.frame_stats import FrameStats
from rendering.grass_renderer import GrassRenderer
from rendering.overlays import OverlayRenderer, Overlays
from rendering.picking import pick_instance
from rendering.renderer import FrameContext, Renderer
from rendering.terrain_renderer import TerrainRenderer
from rendering.terrain_textures import TerrainTextures

SKY_COLOUR = (0.62, 0.71, 0.80, 1.0)
LIGHT_DIRECTION = np.array([0.45, 0.75, 0.35])
LIGHT_DIRECTION = (LIGHT_DIRECTION / np.linalg.norm(LIGHT_DIRECTION)).astype(np.float32)
ORBIT_RADIANS_PER_PIXEL = 0.008
WIND_TICK_MS = 33
WIND_STILL_TIME = 2.0  # seconds into the sway a still (screenshot) wind is shown at
FLY_KEYS = {Qt.Key.Key_W: (1, 0, 0), Qt.Key.Key_S: (-1, 0, 0), Qt.Key.Key_A: (0, -1, 0),
            Qt.Key.Key_D: (0, 1, 0), Qt.Key.Key_E: (0, 0, 1), Qt.Key.Key_Q: (0, 0, -1)}
FLY_TICK_MS = 16
# The opening view over stored foliage: eye height above the ground, look-down angle, orbit distance.
OPENING_HEIGHT = 28.0
OPENING_SIGHT = 1500.0  # metres: a sight line this long is open enough (a 16 km world's ran for kilometres)
OPENING_PITCH_DEGREES = 16.0
OPENING_DISTANCE = 120.0


class Viewport(QOpenGLWidget):
    """Draws `renderers` in order each frame, then the overlays. `frame_rendered` after every paint.

    Public interface for tools (x, y are widget pixels, origin top-left):

    - `pick_terrain(x, y) -> np.ndarray (3,) | None`: the world point on the terrain's surface
      under the pixel (exact ray ↔ bilinear heightfield, `model.ray`).
    - `pick_instance(x, y) -> FoliageAddress | None`: the nearest stored foliage instance under
      the pixel, not hidden by the terrain.
    - `world_to_screen(points (n, 3)) -> (n, 2)`: widget pixels; NaN for points behind the eye.
    - `ray_at(x, y) -> (origin (3,), unit direction (3,))`.
    - `overlays`: `brush_cursor.show(center, radius, falloff)` / `.hide()`;
      `refusals.set(positions (n, 3), reasons (n,) Refusal codes, highlight=None | Refusal)` /
      `.clear()`; `points.set(key, positions, rgba, size_px)` / `.remove(key)`;
      `lines.set(key, segments (n, 2, 3), rgba)` / `.remove(key)`; toggles via
      `overlays.set_toggle("show_grid" | "show_chunk_bounds" | "show_collision" | "show_refusals", on)`
      and `overlays.set_probe(point)` (the View menu drives them, see `install_view_actions`).
    - `focus_on(points)`: frame a set of world points (Shift+F frames the "selection" point set).
    - `stats` (`FrameStats` of the last frame), `show_stats(on)` for the corner read-out.
    - `foliage_renderer`, `grass_renderer`: follow the scene's foliage section.
    - `show_selection({chunk key: indices})`: stored instances drawn tinted as selected.
    - `show_foliage_cover(on)`: the ground tinted by far (culled) stored foliage, on by default.
    - `set_wind(strength, animate)`: the stored foliage sways (0: still, the default); animated
      at about 30 frames a second, or held at `WIND_STILL_TIME` (screenshots).
    """

    frame_rendered = Signal()
    gl_failed = Signal(str)
    warning = Signal(str)  # something drawn without what the scene asks (e.g. an unreadable texture)
    textures_progress = Signal(int, int)  # layer texture maps in, of how many (0, 0: none to load)
    mesh_failed = Signal(str)  # a foliage mesh could not be read: its type is drawn as a placeholder

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._opening: tuple[np.ndarray, float] | None = None
        self.camera = OrbitCamera()
        self.renderers: list[Renderer] = []
        self.terrain_renderer: TerrainRenderer | None = None
        self.foliage_renderer: FoliageRenderer | None = None
        self.grass_renderer: GrassRenderer | None = None
        self.scene: Scene | None = None
        self.foliage_cover = True  # the far foliage tint on the ground (View ▸ Overlays)
        self.terrain_cache = True  # far textured ground from its baked base colour (a debug switch)
        self.overlays = Overlays(self.update)
        self.overlays.chunk_boxes = self._chunk_boxes
        self.overlays.volume_source = self._volume
        self._overlay_renderer = OverlayRenderer(self.overlays, self.devicePixelRatioF)
        self.stats = FrameStats()
        self._stats_label = QLabel(self)
        self._stats_label.setObjectName("frame_stats")
        self._stats_label.setStyleSheet("QLabel { color: white; background: rgba(0, 0, 0, 140);"
                                        " padding: 4px; font-family: monospace; }")
        self._stats_label.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._stats_label.move(6, 6)
        self._stats_label.hide()
        self._fly_keys: set[int] = set()
        self._fly_timer = QTimer(self)
        self._fly_timer.setInterval(FLY_TICK_MS)
        self._fly_timer.timeout.connect(self._fly_step)
        self._fly_clock = QElapsedTimer()
        self.wind = 0.0
        self.wind_time = WIND_STILL_TIME
        self._wind_timer = QTimer(self)
        self._wind_timer.setInterval(WIND_TICK_MS)
        self._wind_timer.timeout.connect(self._wind_step)
        self._wind_clock = QElapsedTimer()
        self.frames_rendered = 0
        self.gl_info: dict[str, str] = {}
        self._initialized = False
        # The first frame (shaders, every upload) takes seconds: the widget's first paint shows the
        # sky and this message at once, and the renderers start in the paint after it.
        self._placeholder = True
        self._held = False  # `hold`: only the sky and the message until `release`
        self._late_init: list[Renderer] = []
        self._waiting = QLabel("Preparing the first frame…", self)
        self._waiting.setObjectName("viewport_waiting")
        self._waiting.setStyleSheet("QLabel { color: white; background: rgba(0, 0, 0, 110);"
                                    " padding: 8px 14px; border-radius: 4px; }")
        self._waiting.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._waiting.adjustSize()
        self._pending_release: list[Renderer] = []
        self._drag_mode: str | None = None
        self._auto_frame = False  # re-frame on resize until the user moves the camera
        self._last_pos = QPoint()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMinimumSize(200, 150)
        self.setToolTip("Right drag: orbit · Middle drag: pan · Wheel: zoom · Right button + W A S D: fly"
                        " · F: frame all · Shift+F: focus selection")

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
        """Show `scene`'s terrain and foliage (replacing the previous ones) and, by default, point the
        camera at it (`frame_opening`)."""
        for attr in ("terrain_renderer", "foliage_renderer", "grass_renderer"):
            old = getattr(self, attr)
            if old is not None:
                self.remove_renderer(old)
                setattr(self, attr, None)
        if self.scene is not None:
            self.scene.terrain.holes_changed.disconnect(self._on_holes_changed)
        self.scene = scene
        if scene is not None:  # the terrain renderer re-reads the mask at the next frame: ask for one
            scene.terrain.holes_changed.connect(self._on_holes_changed)
        self._opening = None  # (eye, yaw), found once per scene: a resize before any move reuses it
        self.overlays.terrain = scene.terrain if scene is not None else None
        if scene is not None:
            textures = TerrainTextures(scene.terrain, scene.textures_folder, self._warn_later, self.update,
                                       self._progress_later)
            self.terrain_renderer = TerrainRenderer(scene.terrain, FoliageDensity(scene), textures=textures)
            self.terrain_renderer.show_density = self.foliage_cover
            self.terrain_renderer.base_cache.enabled = self.terrain_cache
            self.add_renderer(self.terrain_renderer, 0)
            self._add_foliage_renderers(scene)
            sx, sz = scene.terrain.size
            self.camera.scene_extent = float(math.hypot(sx, sz))
        self.overlays._changed()
        if frame:
            self.frame_opening()
            self._auto_frame = True

    def _on_holes_changed(self, *_) -> None:
        self.update()

    def _add_foliage_renderers(self, scene: Scene) -> None:
        """Stored foliage and derived grass, right after the terrain."""
        self.foliage_renderer = FoliageRenderer(scene, on_error=self._report_mesh_later,
                                                request_update=self.update)
        self.foliage_renderer.defer_bakes = True  # the first frame without far cards, then one atlas a frame
        self.add_renderer(self.foliage_renderer, 1)
        self.grass_renderer = GrassRenderer(scene, request_update=self.update)
        self.add_renderer(self.grass_renderer, 2)

    def show_foliage_cover(self, on: bool) -> None:
        """Tint the ground by the stored foliage's cover where its instances are culled (on by default)."""
        self.foliage_cover = bool(on)
        if self.terrain_renderer is not None:
            self.terrain_renderer.show_density = self.foliage_cover
        self.update()

    def use_terrain_cache(self, on: bool) -> None:
        """Draw far textured ground from its baked base colour (on by default); off blends every
        layer's maps per pixel everywhere, to compare the two."""
        self.terrain_cache = bool(on)
        if self.terrain_renderer is not None:
            self.terrain_renderer.base_cache.enabled = self.terrain_cache
        self.update()

    def set_wind(self, strength: float, animate: bool = True) -> None:
        """Sway the stored foliage with this strength (0: still); `animate` runs the clock, else the
        sway is held at one moment (a deterministic screenshot)."""
        self.wind = max(0.0, float(strength))
        if self.wind > 0 and animate:
            if not self._wind_timer.isActive():
                self._wind_clock.start()
                self._wind_timer.start()
        else:
            self._wind_timer.stop()
            self.wind_time = WIND_STILL_TIME
        self.update()

    def _wind_step(self) -> None:
        if self.isVisible():
            self.wind_time = WIND_STILL_TIME + self._wind_clock.elapsed() / 1000.0
            self.update()

    def show_selection(self, selection: dict) -> None:
        """Draw these stored instances ({chunk key: record indices}) tinted as selected."""
        if self.foliage_renderer is not None:
            self.foliage_renderer.set_selection(selection)

    def _report_mesh_later(self, message: str) -> None:
        """A mesh that cannot be read is drawn as a placeholder: said once the paint is over, and
        not as a drawing failure (nothing is switched off)."""
        QTimer.singleShot(0, lambda: self.mesh_failed.emit(message))

    def _report_later(self, message: str) -> None:
        """Report a problem found while painting once the paint is over (no dialog inside paintGL)."""
        QTimer.singleShot(0, lambda: self.gl_failed.emit(message))

    def _warn_later(self, message: str) -> None:
        """A problem the scene can live with (a texture that cannot be read): `warning` after the paint."""
        QTimer.singleShot(0, lambda: self.warning.emit(message))

    def _progress_later(self, done: int, total: int) -> None:
        """The layer textures' progress, after the paint (the status bar shows it)."""
        QTimer.singleShot(0, lambda: self.textures_progress.emit(done, total))

    def textures_pending(self) -> bool:
        """Whether the terrain's layer textures are still loading (they arrive over a few frames),
        tiles in view still wait for their base colour to bake, or far cards for their atlas."""
        fr = self.foliage_renderer
        if fr is not None and fr.bakes_waiting:
            return True
        r = self.terrain_renderer
        return r is not None and r.textures is not None and (r.textures.pending or r.base_cache.pending)

    def _volume(self):
        """The open scene's foliage volume, or None (looked up each time: it can be replaced)."""
        if self.scene is None:
            return None
        section = self.scene.sections.get("foliage")
        return getattr(section, "volume", None)

    def _chunk_boxes(self) -> np.ndarray:
        v = self._volume()
        if v is None or not len(v.keys()):
            return np.empty((0, 2, 3))
        return np.stack([v.bounds(*k) for k in v.keys()])

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

    def frame_opening(self) -> None:
        """The view a scene opens with: everything, or, where it has stored foliage, from just above
        one of its densest cells looking the most open way across the terrain, so trees and grass
        are near enough to be drawn (from a frame-all distance they would be past their fade)."""
        volume = self._volume()
        if self.scene is None or volume is None or not len(volume.keys()):
            self.frame_all()
            return
        if self._opening is None:
            self._opening = scene_opening(self.scene)
        eye, yaw = self._opening
        cam = self.camera
        cam.yaw = yaw
        cam.pitch = math.radians(OPENING_PITCH_DEGREES)
        cam.distance = OPENING_DISTANCE
        cam.max_distance = max(cam.max_distance, cam.scene_extent * 10.0)
        cam.target = eye + cam.forward() * cam.distance
        self._auto_frame = False
        self.update()

    def look_from(self, eye, target) -> None:
        """Stand the camera at `eye` looking at `target` (world metres); the user's view from then on."""
        self.camera.look_from(eye, target)
        self._auto_frame = False
        self.update()

    def focus_on(self, points, min_size: float = 4.0) -> bool:
        """Frame world points (e.g. the selection), keeping the view direction; False if none."""
        p = np.asarray(points, np.float64).reshape(-1, 3)
        p = p[np.all(np.isfinite(p), axis=1)]
        if not len(p):
            return False
        lo, hi = p.min(axis=0), p.max(axis=0)
        pad = np.maximum((min_size - (hi - lo)) / 2.0, 0.0)
        self.camera.frame(lo - pad, hi + pad, self._aspect())
        self._auto_frame = False
        self.update()
        return True

    def focus_selection(self) -> bool:
        """Frame the "selection" marker set if there is one, else the brush cursor."""
        sel = self.overlays.points.get("selection")
        if sel is not None and len(sel):
            return self.focus_on(sel)
        cursor = self.overlays.brush_cursor
        if cursor.visible:
            r = max(cursor.radius, 1.0)
            return self.focus_on(np.array([cursor.center - r, cursor.center + r]))
        return False

    # ---- picking ----------------------------------------------------------------------
    def ray_at(self, x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
        """World-space ray (origin on the near plane, unit direction) through widget pixel (x, y)."""
        w, h = max(1, self.width()), max(1, self.height())
        return self.camera.ray(2.0 * x / w - 1.0, 1.0 - 2.0 * y / h, w / h)

    def pick_terrain(self, x: float, y: float) -> np.ndarray | None:
        """The terrain point (x, y, z) under widget pixel (x, y), or None if the ray misses."""
        if self.scene is None:
            return None
        origin, direction = self.ray_at(x, y)
        return ray_heightfield(self.scene.terrain, origin, direction)

    def pick_instance(self, x: float, y: float, types=None) -> FoliageAddress | None:
        """The nearest stored foliage instance under widget pixel (x, y), not behind the terrain."""
        volume = self._volume()
        if volume is None or not len(volume.keys()):
            return None
        origin, direction = self.ray_at(x, y)
        ground = ray_heightfield(self.scene.terrain, origin, direction)
        max_t = math.inf if ground is None else float(np.linalg.norm(ground - origin)) + 0.05
        hit = pick_instance(volume, origin, direction, max_t, types)
        return None if hit is None else hit[0]

    def world_to_screen(self, points) -> np.ndarray:
        """(n, 2) widget pixel positions of world points (n, 3); NaN rows for points behind the eye."""
        p = np.asarray(points, np.float64).reshape(-1, 3)
        vp = self.camera.view_projection(self._aspect()).astype(np.float64)
        clip = p @ vp[:, :3].T + vp[:, 3]
        w = clip[:, 3:4]
        with np.errstate(divide="ignore", invalid="ignore"):
            ndc = clip[:, :2] / w
        out = np.empty((len(p), 2))
        out[:, 0] = (ndc[:, 0] + 1.0) * 0.5 * self.width()
        out[:, 1] = (1.0 - ndc[:, 1]) * 0.5 * self.height()
        out[w[:, 0] <= 1e-9] = np.nan
        return out

    # ---- frame stats ------------------------------------------------------------------
    def show_stats(self, on: bool) -> None:
        """The corner read-out: frame time, instances drawn, chunks drawn / culled."""
        self._stats_label.setVisible(bool(on))
        self._update_stats_label()
        self.update()

    def stats_visible(self) -> bool:
        return not self._stats_label.isHidden()

    def _update_stats_label(self) -> None:
        if not self._stats_label.isHidden():
            self._stats_label.setText(self.stats.text())
            self._stats_label.adjustSize()

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
        self._late_init = [*self.renderers, self._overlay_renderer]
        if not self._placeholder:
            self._start_renderers()
        self._initialized = True

    def _start_renderers(self) -> None:
        """Compile and set up the renderers that were there before the first frame."""
        late, self._late_init = self._late_init, []
        for renderer in late:
            if renderer is self._overlay_renderer:
                try:
                    renderer.initialize()
                except Exception as e:
                    self.gl_failed.emit(f"OverlayRenderer: {e}")
            elif renderer in self.renderers:
                self._initialize(renderer)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._centre_message()

    def _centre_message(self) -> None:
        self._waiting.move(max(0, (self.width() - self._waiting.width()) // 2),
                           max(0, (self.height() - self._waiting.height()) // 2))

    def hold(self, message: str) -> None:
        """Draw only the sky and `message` (while a scene is being opened) until `release`."""
        self._held = True
        self._waiting.setText(message)
        self._waiting.adjustSize()
        self._centre_message()
        self._waiting.show()
        self.update()

    def release(self) -> None:
        """Draw the scene again; the message stays until its first frame."""
        self._held, self._placeholder = False, True
        self._waiting.setText("Preparing the first frame…")
        self._waiting.adjustSize()
        self._centre_message()
        self.update()

    def grabFramebuffer(self):  # noqa: N802 - Qt's name
        self._placeholder = self._held = False  # a grab wants the scene, however early
        fr = self.foliage_renderer
        if fr is None:
            return super().grabFramebuffer()
        fr.defer_bakes = False  # and every far card: the atlases a frame would leave for later
        try:
            return super().grabFramebuffer()
        finally:
            fr.defer_bakes = True

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
            self.frame_opening()
            self._auto_frame = True

    def _context_going(self) -> None:
        self.makeCurrent()
        for renderer in self.renderers:
            renderer.release()
        self._overlay_renderer.release()
        self.doneCurrent()
        self._initialized = False

    def frame_context(self) -> FrameContext:
        ratio = self.devicePixelRatioF()
        aspect = self._aspect()
        view = self.camera.view_matrix()
        proj = self.camera.projection_matrix(aspect)
        return FrameContext(self.camera, view, proj, self.camera.view_projection(aspect),
                            int(self.width() * ratio), int(self.height() * ratio), LIGHT_DIRECTION,
                            FrameStats(), ratio)

    def paintGL(self) -> None:
        started = time.perf_counter()
        GL.glClearColor(*SKY_COLOUR)
        GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)
        if self._held:
            return
        if self._placeholder:  # the sky and the message now; the scene from the next paint
            self._placeholder = False
            QTimer.singleShot(0, self.update)
            return
        if self._late_init:
            self._start_renderers()
        GL.glEnable(GL.GL_DEPTH_TEST)
        frame = self.frame_context()
        if self.foliage_renderer is not None:
            self.foliage_renderer.wind, self.foliage_renderer.wind_time = self.wind, self.wind_time
        for renderer in list(self.renderers):
            try:
                renderer.draw(frame)
            except Exception as e:  # one broken renderer must not take the window down
                self.renderers.remove(renderer)
                self.gl_failed.emit(f"{type(renderer).__name__}: {e}")
        if self._overlay_renderer.program is not None:
            try:
                self._overlay_renderer.draw(frame)
            except Exception as e:
                self._overlay_renderer.release()
                self.gl_failed.emit(f"OverlayRenderer: {e}")
        frame.stats.frame_ms = (time.perf_counter() - started) * 1000.0
        self.stats = frame.stats
        self._update_stats_label()
        self.frames_rendered += 1
        if self._waiting.isVisible():
            self._waiting.hide()
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
        if self._drag_mode == "orbit" and self._fly_keys:  # flying: the drag looks around
            self.camera.look(-delta.x() * ORBIT_RADIANS_PER_PIXEL, delta.y() * ORBIT_RADIANS_PER_PIXEL)
        elif self._drag_mode == "orbit":
            self.camera.orbit(-delta.x() * ORBIT_RADIANS_PER_PIXEL, delta.y() * ORBIT_RADIANS_PER_PIXEL)
        else:
            self.camera.pan(delta.x(), delta.y(), self.height())
        self.update()
        event.accept()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._drag_mode is not None:
            self._drag_mode = None
            self._stop_flying()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        steps = event.angleDelta().y() / 120.0
        if steps:
            pos = event.position()
            self.zoom_at(pos.x(), pos.y(), steps)
        event.accept()

    def zoom_at(self, x: float, y: float, steps: float) -> None:
        """Zoom by wheel `steps` keeping the ground under pixel (x, y) where it is on screen."""
        cam = self.camera
        anchor = self.pick_terrain(x, y)
        before = cam.distance
        cam.zoom(steps)
        if anchor is not None and before > 0:
            # scaling eye and target about the anchor, view direction unchanged, keeps its pixel
            cam.target = anchor + (cam.target - anchor) * (cam.distance / before)
        self._auto_frame = False
        self.update()

    def event(self, event: QEvent) -> bool:
        # While flying, W/A/S/D/Q/E belong to the camera, not to the tool shortcuts that share them.
        if (event.type() == QEvent.Type.ShortcutOverride and self._drag_mode == "orbit"
                and Qt.Key(event.key()) in FLY_KEYS and not event.modifiers()):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = Qt.Key(event.key())
        if key == Qt.Key.Key_F and not event.modifiers():
            self.frame_all()
            event.accept()
            return
        if key == Qt.Key.Key_F and event.modifiers() == Qt.KeyboardModifier.ShiftModifier:
            self.focus_selection()
            event.accept()
            return
        if key in FLY_KEYS and self._drag_mode == "orbit":  # right button held: fly
            if not event.isAutoRepeat():
                self._fly_keys.add(key)
                if not self._fly_timer.isActive():
                    self._fly_clock.start()
                    self._fly_timer.start()
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        key = Qt.Key(event.key())
        if key in FLY_KEYS and not event.isAutoRepeat() and key in self._fly_keys:
            self._fly_keys.discard(key)
            if not self._fly_keys:
                self._fly_timer.stop()
            event.accept()
            return
        super().keyReleaseEvent(event)

    def fly_speed(self) -> float:
        """Metres per second: a walk near the ground, faster high up or far from the target."""
        height = 0.0
        if self.scene is not None:
            eye = self.camera.eye()
            g = float(self.scene.terrain.height_at(eye[0], eye[2]))
            height = eye[1] - g if math.isfinite(g) else 0.0
        return max(5.0, 0.5 * max(height, self.camera.distance))

    def _fly_step(self) -> None:
        dt = min(self._fly_clock.restart() / 1000.0, 0.1)  # smooth even if a frame was slow
        move = np.sum([FLY_KEYS[k] for k in self._fly_keys], axis=0) if self._fly_keys else np.zeros(3)
        step = self.fly_speed() * dt
        self.camera.fly(move[0] * step, move[1] * step, move[2] * step)
        self._auto_frame = False
        self.update()

    def _stop_flying(self) -> None:
        self._fly_keys.clear()
        self._fly_timer.stop()

    def orbit_by_degrees(self, yaw: float, pitch: float) -> None:
        """Scripted orbit (menus, tests)."""
        self.camera.orbit(math.radians(yaw), math.radians(pitch))
        self._auto_frame = False
        self.update()


_OPENINGS: list[tuple[weakref.ref, tuple, tuple[np.ndarray, float]]] = []  # the last few scenes


def scene_opening(scene) -> tuple[np.ndarray, float]:
    """`opening_viewpoint` of a scene with stored foliage, found once: an import computes it on its
    helper thread (~1,000 sight lines: a second on a big terrain), so the window does not stall
    when the scene opens."""
    volume = scene.sections["foliage"].volume
    key = (id(volume), id(scene.terrain), len(volume.keys()))  # the same foliage on the same ground
    for ref, known, found in _OPENINGS:
        if ref() is scene and known == key:
            return found
    found = opening_viewpoint(scene.terrain, volume)
    _OPENINGS[:] = [e for e in _OPENINGS[-3:] if e[0]() is not None and e[0]() is not scene]
    _OPENINGS.append((weakref.ref(scene), key, found))
    return found


def prepare_opening(scene) -> None:
    """Find a new scene's opening view now (on the helper thread that built it), if it has one."""
    foliage = scene.sections.get("foliage")
    if foliage is not None and len(foliage.volume.keys()):
        scene_opening(scene)


def opening_viewpoint(terrain, volume, candidates: int = 16, yaws: int = 8) -> tuple[np.ndarray, float]:
    """Eye point and yaw over stored foliage with the most open view: of the densest cells, and
    of eight headings from each, the one whose sight lines run furthest before meeting the ground
    (a hillside close in front, or the terrain's edge, scores low)."""
    counts = volume.cell_counts()
    # the densest cells first, then by cell: a numpy sort (a key call per cell costs 0.1 s at 16 km)
    grid = np.fromiter(chain.from_iterable(counts), np.int64, 2 * len(counts)).reshape(-1, 2)
    n = np.fromiter(counts.values(), np.int64, len(counts))
    cells = [tuple(c) for c in grid[np.lexsort((grid[:, 1], grid[:, 0], -n))[:candidates]].tolist()]
    # sight lines per heading: to the sides, and radians below the horizon
    sight = [(side, down) for side in (-0.3, 0.0, 0.3) for down in (0.03, 0.08, 0.16)]
    best = (-1.0, np.zeros(3), 0.0)
    for cell in cells:
        x0, z0, x1, z1 = volume.cell_box(cell)
        x, z = (x0 + x1) / 2.0, (z0 + z1) / 2.0
        ground = float(terrain.height_at(x, z))
        if not math.isfinite(ground):
            continue
        eye = np.array([x, ground + OPENING_HEIGHT, z])
        dirs = []
        for k in range(yaws):
            yaw = 2.0 * math.pi * k / yaws
            for side, down in sight:
                a = yaw + side
                flat = math.cos(down)
                dirs.append(np.array([-math.sin(a) * flat, -math.sin(down), -math.cos(a) * flat]))
        hits = rays_heightfield(terrain, [eye] * len(dirs), dirs, max_t=OPENING_SIGHT, block=32)
        for k in range(yaws):
            score = 0.0
            for j in range(k * len(sight), (k + 1) * len(sight)):
                hit, d = hits[j], dirs[j]
                if hit is not None:
                    score += float(np.linalg.norm(hit - eye))
                elif terrain.contains(*(eye + d * OPENING_SIGHT)[[0, 2]]):
                    score += OPENING_SIGHT  # still over the ground that far: open
                # else it left the terrain first: the edge scores nothing
            if score > best[0]:
                best = (score, eye, 2.0 * math.pi * k / yaws)
    return best[1], best[2]


# ---- the View menu ---------------------------------------------------------------------------
OVERLAY_ACTIONS = [
    # key, text, overlays toggle (or None: frame stats), default, tooltip
    ("cell_grid", "Cell &Grid", "show_grid", False, "Show the foliage cell grid draped on the terrain"),
    ("chunk_bounds", "Chunk &Bounds", "show_chunk_bounds", False,
     "Show the bounding box of every foliage chunk (what frustum culling tests)"),
    ("collision_bodies", "&Collision Bodies", "show_collision", False,
     "Show the collision bodies stored foliage gets around a probe point (the camera target)"),
    ("refused_candidates", "&Refused Candidates", "show_refusals", True,
     "Show the last stroke's refused candidates, coloured by reason"),
    ("frame_stats", "Frame &Stats", None, False,
     "Show frame time, instances drawn and chunks drawn / culled in the viewport corner"),
]


def install_view_actions(main_window) -> dict[str, QAction]:
    """Add the viewport's overlay toggles and Focus Selection to the main window's View menu."""
    viewport: Viewport = main_window.viewport
    view_menu = None
    for action in main_window.menuBar().actions():
        if action.menu() is not None and action.text().replace("&", "") == "View":
            view_menu = action.menu()
    if view_menu is None:
        view_menu = main_window.menuBar().addMenu("&View")
    anchor = main_window.actions_by_key.get("frame_all")
    actions = view_menu.actions()
    at = actions.index(anchor) + 1 if anchor in actions else len(actions)
    before = actions[at] if at < len(actions) else None
    added: dict[str, QAction] = {}

    focus = QAction("Focus &Selection", main_window)
    focus.setObjectName("action_focus_selection")
    focus.setShortcut(QKeySequence("Shift+F"))
    focus.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
    focus.setToolTip("Point the camera at the selection")
    focus.setStatusTip("Point the camera at the selection")
    focus.triggered.connect(lambda checked=False: viewport.focus_selection())
    viewport.addAction(focus)
    added["focus_selection"] = focus

    overlay_menu = view_menu.__class__("&Overlays", view_menu)
    overlay_menu.setObjectName("menu_overlays")
    overlay_menu.setToolTipsVisible(True)
    for key, text, toggle, default, tip in OVERLAY_ACTIONS:
        action = QAction(text, main_window)
        action.setObjectName(f"action_show_{key}")
        action.setCheckable(True)
        action.setChecked(default)
        action.setToolTip(tip)
        action.setStatusTip(tip)
        if toggle is None:
            action.toggled.connect(viewport.show_stats)
        else:
            action.toggled.connect(lambda on, t=toggle: viewport.overlays.set_toggle(t, on))
        overlay_menu.addAction(action)
        added[key] = action
    if before is not None:
        view_menu.insertAction(before, focus)
        view_menu.insertMenu(before, overlay_menu)
    else:
        view_menu.addAction(focus)
        view_menu.addMenu(overlay_menu)
    cover = QAction("Far Foliage &Cover", main_window)
    cover.setObjectName("action_show_foliage_cover")
    cover.setCheckable(True)
    cover.setChecked(viewport.foliage_cover)
    tip = "Tint the ground with the stored foliage's colour where its instances are past their cull distance"
    cover.setToolTip(tip)
    cover.setStatusTip(tip)
    cover.toggled.connect(viewport.show_foliage_cover)
    overlay_menu.addAction(cover)
    added["foliage_cover"] = cover
    for key, action in added.items():
        main_window.actions_by_key[key] = action
    by_toggle = {toggle: added[key] for key, _, toggle, _, _ in OVERLAY_ACTIONS if toggle is not None}

    def follow(name: str, on: bool) -> None:  # a tool switched an overlay: keep the checkmark true
        action = by_toggle.get(name)
        if action is not None and action.isChecked() != on:
            action.setChecked(on)

    viewport.overlays.toggle_listeners.append(follow)
    main_window.overlay_menu = overlay_menu
    return added


def _gl_string(name: int) -> str:
    value = GL.glGetString(name)
    return value.decode(errors="replace") if isinstance(value, bytes) else str(value)
