"""Editor overlays drawn over the scene: brush cursor, refused candidates, marker and line sets,
cell grid, chunk bounds, collision bodies, and a ground grid with metre labels on a terrain that
has not been sculpted yet (a flat plane gives no sense of scale or direction otherwise).

Each part keeps plain numpy data and says when it changed; `OverlayRenderer` turns all of them
into two vertex batches (lines, points) and re-packs only after a change.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from OpenGL import GL

from model.foliage.report import REASON_COLOURS
from rendering.gl_program import ShaderProgram
from rendering.renderer import FrameContext, Renderer

VERTEX_FLOATS = 8  # x y z, r g b a, point size
CIRCLE_SEGMENTS = 96
LIFT = 0.08  # metres above the ground, so draped lines do not sink into it
GRID_REACH_CELLS = 16  # grid lines drawn this many cells either side of the camera target
MAX_BOXES = 4000

# Refusal code → marker colour: the Refusals panel's table, so a bar and its dots agree.
REFUSAL_COLOURS: dict[int, tuple[float, float, float, float]] = {int(r): c for r, c in REASON_COLOURS.items()}
UNKNOWN_REFUSAL = (1.0, 0.0, 1.0, 1.0)
BRUSH_RIM = (1.0, 1.0, 1.0, 1.0)
BRUSH_LEAST_PX = 6.0  # the brush rim is drawn at least this many pixels from its centre
BRUSH_FALLOFF = (1.0, 0.85, 0.25, 1.0)
GRID_COLOUR = (1.0, 1.0, 1.0, 0.45)
CHUNK_COLOUR = (0.35, 1.0, 0.45, 1.0)
BODY_COLOUR = (1.0, 0.3, 0.8, 1.0)
GROUND_MAJOR = (1.0, 1.0, 1.0, 0.42)
GROUND_MINOR = (1.0, 1.0, 1.0, 0.14)
GROUND_LABEL = (1.0, 1.0, 1.0, 0.9)
GROUND_LINES = 8  # about this many labelled lines across the terrain's longer side
LABEL_HEIGHT = 0.2  # label height as a share of the labelled step
PROBE_COLOUR = (1.0, 0.3, 0.8, 1.0)


def _rgba(color) -> np.ndarray:
    c = np.asarray(color, np.float64).ravel()
    if c.size == 3:
        c = np.append(c, 1.0)
    if c.max(initial=0.0) > 1.0:  # 0..255 given
        c = c / 255.0
    return c[:4].astype(np.float32)


def vertices(points: np.ndarray, colors, sizes) -> np.ndarray:
    """Pack (n, 3) points, per-point or shared rgba and size into (n, 8) float32."""
    points = np.asarray(points, np.float32).reshape(-1, 3)
    out = np.empty((len(points), VERTEX_FLOATS), np.float32)
    out[:, :3] = points
    out[:, 3:7] = np.broadcast_to(np.asarray(colors, np.float32).reshape(-1, 4), (len(points), 4))
    out[:, 7] = np.broadcast_to(np.asarray(sizes, np.float32).ravel(), (len(points),))
    return out


def circle_segments(center, radius: float, height_at: Callable | None,
                    n: int = CIRCLE_SEGMENTS) -> np.ndarray:
    """(m, 2, 3) segments of a circle on the ground (draped over `height_at`, else at centre height)."""
    a = np.linspace(0.0, 2.0 * np.pi, n + 1)
    x = center[0] + radius * np.cos(a)
    z = center[2] + radius * np.sin(a)
    y = np.full_like(x, center[1]) if height_at is None else np.asarray(height_at(x, z), np.float64)
    p = np.stack([x, y + LIFT, z], axis=-1)
    seg = np.stack([p[:-1], p[1:]], axis=1)
    return seg[np.all(np.isfinite(seg), axis=(1, 2))]


def box_segments(lo, hi) -> np.ndarray:
    """(12 n, 2, 3) edges of axis-aligned boxes lo/hi (n, 3)."""
    lo = np.asarray(lo, np.float64).reshape(-1, 3)
    hi = np.asarray(hi, np.float64).reshape(-1, 3)
    corners = np.stack([np.where(np.array([i & 1, i & 2, i & 4], bool), hi, lo)
                        for i in range(8)], axis=1)  # (n, 8, 3); bit k of i picks hi on axis k
    edges = [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)]
    return np.concatenate([np.stack([corners[:, a], corners[:, b]], axis=1) for a, b in edges])


def cylinder_segments(base: np.ndarray, radius: np.ndarray, height: np.ndarray, n: int = 12) -> np.ndarray:
    """(k, 2, 3) wire cylinders: rings at the base and top and four uprights, per body."""
    base = np.asarray(base, np.float64).reshape(-1, 3)
    a = np.linspace(0.0, 2.0 * np.pi, n + 1)
    ring = np.stack([np.cos(a), np.zeros_like(a), np.sin(a)], axis=-1)  # (n+1, 3)
    r = np.asarray(radius, np.float64).reshape(-1, 1, 1)
    top = np.asarray(height, np.float64).reshape(-1, 1)
    lower = base[:, None, :] + r * ring[None]
    upper = lower.copy()
    upper[..., 1] += top
    parts = [np.stack([lower[:, :-1], lower[:, 1:]], axis=2), np.stack([upper[:, :-1], upper[:, 1:]], axis=2)]
    k = np.arange(0, n, max(1, n // 4))
    parts.append(np.stack([lower[:, k], upper[:, k]], axis=2))
    return np.concatenate([p.reshape(-1, 2, 3) for p in parts])


# A stroke font for metre labels: segments in a box 1 wide and 2 tall (x right, y up). Hand-made,
# because the overlays draw lines only and labels lie on the ground, in perspective, like the grid.
_SEVEN = {"a": (0, 2, 1, 2), "b": (1, 2, 1, 1), "c": (1, 1, 1, 0), "d": (0, 0, 1, 0), "e": (0, 1, 0, 0),
          "f": (0, 2, 0, 1), "g": (0, 1, 1, 1)}
_DIGITS = {"0": "abcdef", "1": "bc", "2": "abged", "3": "abgcd", "4": "fgbc", "5": "afgcd", "6": "afgedc",
           "7": "abc", "8": "abcdefg", "9": "abcdfg"}
GLYPHS: dict[str, list[tuple[float, float, float, float]]] = {
    **{ch: [_SEVEN[k] for k in keys] for ch, keys in _DIGITS.items()},
    "m": [(0, 0, 0, 1), (0, 1, 1, 1), (0.5, 1, 0.5, 0), (1, 1, 1, 0)],
    "-": [(0.1, 1, 0.8, 1)],
    ".": [(0.4, 0, 0.6, 0)],
    " ": [],
}
GLYPH_ADVANCE = 1.6
NARROW = {" ": 0.9, "-": 1.3, ".": 0.9}  # advances narrower than a digit's


def text_segments(text: str, origin, right, up, height: float) -> np.ndarray:
    """(n, 2, 3) strokes of `text` starting at `origin`, its baseline along `right` and its top
    along `up` (unit vectors), `height` tall."""
    unit = height / 2.0
    right = np.asarray(right, np.float64) * unit
    up = np.asarray(up, np.float64) * unit
    origin = np.asarray(origin, np.float64)
    out = []
    pen = 0.0
    for ch in text:
        base = origin + right * pen
        for x0, y0, x1, y1 in GLYPHS.get(ch, []):
            out.append([base + right * x0 + up * y0, base + right * x1 + up * y1])
        pen += NARROW.get(ch, GLYPH_ADVANCE)
    return np.asarray(out, np.float64).reshape(-1, 2, 3)


def text_width(text: str, height: float) -> float:
    """The drawn width of `text` at `height` (the last glyph without its trailing gap)."""
    if not text:
        return 0.0
    pen = sum(NARROW.get(ch, GLYPH_ADVANCE) for ch in text[:-1]) + 1.0
    return pen * height / 2.0


def label_axes(eye, target) -> tuple[np.ndarray, np.ndarray]:
    """(up, right) of text lying on the ground, unit and horizontal: up along the view, right along
    the camera's right, both in eighths of a turn (steady while orbiting; within 22.5° the text still
    reads left to right). Looking straight down, up is the camera's -z, as its right is +x."""
    d = np.asarray(target, np.float64) - np.asarray(eye, np.float64)
    angle = float(np.arctan2(d[2], d[0])) if np.hypot(d[0], d[2]) > 1e-9 else -np.pi / 2
    angle = round(angle / (np.pi / 4)) * (np.pi / 4)
    up = np.array([np.cos(angle), 0.0, np.sin(angle)])
    return up, np.array([-up[2], 0.0, up[0]])  # forward × world up: the camera's right


@dataclass
class GroundLabels:
    """The ground grid's labels: each text and the corner its strokes start from, all turned alike."""

    step: float
    y: float
    height: float
    right: np.ndarray
    up: np.ndarray
    items: list[tuple[str, np.ndarray]]


def nice_step(extent: float, lines: int = GROUND_LINES) -> float:
    """1, 2 or 5 × a power of ten, giving about `lines` steps across `extent`."""
    raw = max(extent / max(lines, 1), 1e-6)
    power = 10.0 ** np.floor(np.log10(raw))
    return float(next(m * power for m in (1.0, 2.0, 5.0, 10.0) if m * power >= raw))


def metres(value: float, step: float) -> str:
    value = 0.0 if abs(value) < step * 1e-6 else value
    return f"{value:.0f} m" if step >= 1.0 else f"{value:g} m"


class _Part:
    """Something that notifies the overlays when it changes."""

    def __init__(self, changed: Callable[[], None]) -> None:
        self._changed = changed

    def changed(self) -> None:
        self._changed()


class BrushCursor(_Part):
    """The brush outline draped on the terrain: rim at `radius`, inner ring where falloff begins."""

    def __init__(self, changed: Callable[[], None]) -> None:
        super().__init__(changed)
        self.center: np.ndarray | None = None
        self.radius = 0.0
        self.falloff = 0.0

    @property
    def visible(self) -> bool:
        return self.center is not None

    def show(self, center, radius: float, falloff: float = 0.5) -> None:
        """`center` (x, y, z) world point (usually `pick_terrain`), radius in metres, falloff 0..1."""
        self.center = np.asarray(center, np.float64).reshape(3).copy()
        self.radius = float(radius)
        self.falloff = min(max(float(falloff), 0.0), 1.0)
        self.changed()

    def hide(self) -> None:
        if self.center is not None:
            self.center = None
            self.changed()

    def segments(self, height_at: Callable | None, least: float = 0.0) -> list[tuple[np.ndarray, tuple]]:
        """Rim, falloff ring and centre cross; drawn at least `least` metres across (a brush seen
        from far away would be under a pixel), the rings keeping their proportion."""
        if self.center is None or not self.radius > 0:
            return []
        radius = max(self.radius, least)
        out = [(circle_segments(self.center, radius, height_at), BRUSH_RIM)]
        inner = radius * (1.0 - self.falloff)
        if 0 < inner < radius:
            out.append((circle_segments(self.center, inner, height_at), BRUSH_FALLOFF))
        c = self.center + np.array([0.0, LIFT, 0.0])
        tick = max(radius * 0.06, 0.05)
        cross = np.array([[c - [tick, 0, 0], c + [tick, 0, 0]], [c - [0, 0, tick], c + [0, 0, tick]]])
        out.append((cross, BRUSH_RIM))
        return out


class RefusalMarkers(_Part):
    """The last stroke's refused candidates, coloured by `Refusal` code; `highlight` one reason."""

    def __init__(self, changed: Callable[[], None]) -> None:
        super().__init__(changed)
        self.positions = np.empty((0, 3), np.float32)
        self.reasons = np.empty(0, np.int32)
        self.highlight: int | None = None
        self.size_px = 6.0

    def set(self, positions, reasons, highlight=None) -> None:
        p = np.asarray(positions, np.float32).reshape(-1, 3)
        r = np.asarray(reasons, np.int32).ravel()
        if len(p) != len(r):
            raise ValueError(f"{len(p)} positions but {len(r)} reasons")
        self.positions, self.reasons = p.copy(), r.copy()
        self.highlight = None if highlight is None else int(highlight)
        self.changed()

    def clear(self) -> None:
        self.set(np.empty((0, 3)), np.empty(0))

    def __len__(self) -> int:
        return len(self.reasons)

    def vertices(self) -> np.ndarray:
        if not len(self.reasons):
            return np.empty((0, VERTEX_FLOATS), np.float32)
        top = max(REFUSAL_COLOURS)
        colors = np.array([REFUSAL_COLOURS.get(r, UNKNOWN_REFUSAL) for r in range(top + 1)], np.float32)
        idx = np.where((self.reasons >= 0) & (self.reasons <= top), self.reasons, 0)
        c = colors[idx]
        c[(self.reasons < 1) | (self.reasons > top)] = UNKNOWN_REFUSAL
        sizes = np.full(len(self.reasons), self.size_px, np.float32)
        if self.highlight is not None:
            other = self.reasons != self.highlight
            c[other, :3] = c[other, :3] * 0.35 + 0.2  # the rest fade back
            sizes[~other] = self.size_px * 1.6
        lifted = self.positions + np.array([0.0, LIFT * 2, 0.0], np.float32)
        return vertices(lifted, c, sizes)


class PointSets(_Part):
    """Named marker sets: `set(key, positions, color, size_px)`, `remove(key)`."""

    def __init__(self, changed: Callable[[], None]) -> None:
        super().__init__(changed)
        self.sets: dict[str, tuple[np.ndarray, np.ndarray, float]] = {}

    def set(self, key: str, positions, color=(1.0, 1.0, 0.2, 1.0), size_px: float = 8.0) -> None:
        positions = np.asarray(positions, np.float32).reshape(-1, 3).copy()
        self.sets[key] = (positions, _rgba(color), float(size_px))
        self.changed()

    def remove(self, key: str) -> None:
        if self.sets.pop(key, None) is not None:
            self.changed()

    def get(self, key: str) -> np.ndarray | None:
        s = self.sets.get(key)
        return None if s is None else s[0]

    def vertices(self) -> np.ndarray:
        parts = [vertices(p, c, s) for p, c, s in self.sets.values() if len(p)]
        return np.concatenate(parts) if parts else np.empty((0, VERTEX_FLOATS), np.float32)


class LineSets(_Part):
    """Named segment sets: `set(key, segments (n, 2, 3), color)`, `remove(key)`."""

    def __init__(self, changed: Callable[[], None]) -> None:
        super().__init__(changed)
        self.sets: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def set(self, key: str, segments, color=(1.0, 1.0, 1.0, 1.0)) -> None:
        self.sets[key] = (np.asarray(segments, np.float32).reshape(-1, 2, 3).copy(), _rgba(color))
        self.changed()

    def remove(self, key: str) -> None:
        if self.sets.pop(key, None) is not None:
            self.changed()

    def vertices(self) -> np.ndarray:
        parts = [vertices(s.reshape(-1, 3), c, 1.0) for s, c in self.sets.values() if len(s)]
        return np.concatenate(parts) if parts else np.empty((0, VERTEX_FLOATS), np.float32)


class Overlays:
    """Everything drawn over the scene; the viewport owns one as `viewport.overlays`.

    `brush_cursor`, `refusals`, `points`, `lines` are filled by tools; the toggles
    (`show_grid`, `show_chunk_bounds`, `show_collision`, `show_refusals`) by the View menu.
    `terrain` and `volume_source()` (the foliage volume or None) let draped and per-chunk
    overlays follow the open scene; `chunk_boxes()` gives the foliage chunks' bounds.
    """

    def __init__(self, request_update: Callable[[], None] = lambda: None) -> None:
        self.request_update = request_update
        self.version = 0
        self.brush_cursor = BrushCursor(self._changed)
        self.refusals = RefusalMarkers(self._changed)
        self.points = PointSets(self._changed)
        self.lines = LineSets(self._changed)
        self.show_grid = False
        self.show_chunk_bounds = False
        self.show_collision = False
        self.show_refusals = True
        self.show_ground_grid = True  # drawn only while the terrain is flat (never sculpted)
        self.probe: np.ndarray | None = None  # collision probe point; None: the camera target
        self._terrain = None
        self._flat: bool | None = None  # cached: is the terrain one level plane?
        self.volume_source: Callable[[], object] = lambda: None  # the open scene's foliage volume
        self.chunk_boxes: Callable[[], np.ndarray] = lambda: np.empty((0, 2, 3))
        self.grid_center: np.ndarray | None = None  # the camera target while drawn; None: the centre
        self.toggle_listeners: list[Callable[[str, bool], None]] = []  # e.g. the View menu's checkmarks

    @property
    def volume(self):
        return self.volume_source()

    @property
    def terrain(self):
        return self._terrain

    @terrain.setter
    def terrain(self, terrain) -> None:
        """The open terrain; a sculpt stroke tells the overlays, so the ground grid goes at once."""
        if self._terrain is not None:
            self._terrain.heights_changed.disconnect(self._heights_changed)
        self._terrain = terrain
        self._flat = None
        if terrain is not None:
            terrain.heights_changed.connect(self._heights_changed)
        self._changed()

    def _heights_changed(self, *_) -> None:
        was = self._flat
        self._flat = None
        if was is not False or self.flat:  # only a change of flatness alters what is drawn
            self._changed()

    @property
    def flat(self) -> bool:
        """The terrain is one level plane: nothing sculpted yet."""
        if self._flat is None:
            t = self._terrain
            if t is None:
                self._flat = False
            else:  # from the tiles' ranges where paged: no whole-grid scan
                lo, hi = t.height_range()
                self._flat = bool(lo == hi)
        return self._flat

    @property
    def ground_grid_visible(self) -> bool:
        return self.show_ground_grid and self.flat

    def _changed(self) -> None:
        self.version += 1
        self.request_update()

    def set_toggle(self, name: str, on: bool) -> None:
        """One of 'show_grid', 'show_chunk_bounds', 'show_collision', 'show_refusals'."""
        if not hasattr(self, name) or not name.startswith("show_"):
            raise AttributeError(name)
        if getattr(self, name) != bool(on):
            setattr(self, name, bool(on))
            self._changed()
            for listener in list(self.toggle_listeners):
                listener(name, bool(on))

    def set_probe(self, point) -> None:
        self.probe = None if point is None else np.asarray(point, np.float64).reshape(3).copy()
        self._changed()

    # ---- geometry ----------------------------------------------------------------------------
    def _height_at(self):
        t = self.terrain
        return None if t is None else t.height_at

    def _on_ground(self, point) -> np.ndarray | None:
        """`point` dropped onto the terrain (the camera target may hang in the air)."""
        if point is None:
            return None
        p = np.asarray(point, np.float64).reshape(3).copy()
        if self.terrain is not None:
            g = float(self.terrain.height_at(p[0], p[2]))
            if np.isfinite(g):
                p[1] = g
        return p

    def grid_segments(self) -> np.ndarray:
        """Foliage cell boundaries draped on the terrain, around `grid_center`."""
        t = self.terrain
        if t is None:
            return np.empty((0, 2, 3))
        cell = self.volume.cell_size if self.volume is not None else 32.0
        x0, z0, x1, z1 = t.bounds()
        c = self.grid_center if self.grid_center is not None else np.array([(x0 + x1) / 2, 0, (z0 + z1) / 2])
        half = GRID_REACH_CELLS * cell
        gx0, gx1 = max(x0, c[0] - half), min(x1, c[0] + half)
        gz0, gz1 = max(z0, c[2] - half), min(z1, c[2] + half)
        if gx0 >= gx1 or gz0 >= gz1:
            return np.empty((0, 2, 3))
        step = max(t.spacing, cell / 16.0)  # draped finely enough, without a segment per sample
        out = []
        xs = np.arange(np.ceil(gx0 / cell), np.floor(gx1 / cell) + 1) * cell
        zs = np.arange(np.ceil(gz0 / cell), np.floor(gz1 / cell) + 1) * cell
        along_z = np.append(np.arange(gz0, gz1, step), gz1)
        along_x = np.append(np.arange(gx0, gx1, step), gx1)
        for x in xs:
            p = np.stack([np.full_like(along_z, x), t.height_at(np.full_like(along_z, x), along_z) + LIFT,
                          along_z], axis=-1)
            out.append(np.stack([p[:-1], p[1:]], axis=1))
        for z in zs:
            p = np.stack([along_x, t.height_at(along_x, np.full_like(along_x, z)) + LIFT,
                          np.full_like(along_x, z)], axis=-1)
            out.append(np.stack([p[:-1], p[1:]], axis=1))
        if not out:
            return np.empty((0, 2, 3))
        seg = np.concatenate(out)
        return seg[np.all(np.isfinite(seg), axis=(1, 2))]

    def ground_grid(self, eye=None, target=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(major, minor, label) segments of the flat terrain's metre grid. Labels stand along the
        two edges nearest `eye`, turned to read left to right from a camera at `eye` looking at
        `target`."""
        empty = np.empty((0, 2, 3))
        labels = self.ground_labels(eye, target)
        if labels is None:
            return empty, empty, empty
        t = self._terrain
        x0, z0, x1, z1 = t.bounds()
        y = labels.y
        step = labels.step

        def lines(every: float, skip: int = 0) -> np.ndarray:
            """Grid lines every `every` metres; `skip`: leave out each skip-th (the major lines)."""
            ix = np.arange(np.ceil(x0 / every), np.floor(x1 / every) + 1)
            iz = np.arange(np.ceil(z0 / every), np.floor(z1 / every) + 1)
            if skip:
                ix, iz = ix[ix % skip != 0], iz[iz % skip != 0]
            seg = [[[x, y, z0], [x, y, z1]] for x in ix * every]
            seg += [[[x0, y, z], [x1, y, z]] for z in iz * every]
            return np.asarray(seg, np.float64).reshape(-1, 2, 3)

        major, minor = lines(step), lines(step / 5.0, skip=5)
        parts = [text_segments(text, start, labels.right, labels.up, labels.height)
                 for text, start in labels.items]
        return major, minor, (np.concatenate(parts) if parts else empty)

    def ground_labels(self, eye=None, target=None) -> GroundLabels | None:
        """Where the ground grid's metre labels go and which way they face; None without a grid."""
        t = self._terrain
        if t is None or not self.flat:
            return None
        x0, z0, x1, z1 = t.bounds()
        y = float(t.read_heights(slice(0, 1), slice(0, 1))[0, 0]) + LIFT * 2
        step = nice_step(max(x1 - x0, z1 - z0))
        cx, cz = (x0 + x1) / 2.0, (z0 + z1) / 2.0
        eye = np.array([cx, y + 1.0, z1 + 1.0]) if eye is None else np.asarray(eye, np.float64)
        target = np.array([cx, y, cz]) if target is None else np.asarray(target, np.float64)
        # the text's top points along the view, its baseline along the camera's right: it reads left to
        # right wherever the camera looks from and at (from the terrain's centre it read mirrored or
        # upside down once the camera looked at another part of the ground)
        up, right = label_axes(eye, target)
        height = step * LABEL_HEIGHT
        near_z, near_x = (z0 if eye[2] < cz else z1), (x0 if eye[0] < cx else x1)
        in_z, in_x = step * 0.3 * np.sign(cz - near_z), step * 0.3 * np.sign(cx - near_x)

        def start(text: str, centre) -> np.ndarray:
            return np.asarray(centre) - right * text_width(text, height) / 2 - up * height / 2

        xs = np.arange(np.ceil(x0 / step), np.floor(x1 / step) + 1) * step
        zs = np.arange(np.ceil(z0 / step), np.floor(z1 / step) + 1) * step
        clear = step * 0.75  # no label where the two rows of labels meet, at the near corner
        xs, zs = xs[np.abs(xs - near_x) > clear], zs[np.abs(zs - near_z) > clear]
        items = [(metres(x, step), (x, y, near_z + in_z)) for x in xs]
        items += [(metres(z, step), (near_x + in_x, y, z)) for z in zs]
        return GroundLabels(step, y, height, right, up,
                            [(text, start(text, centre)) for text, centre in items])

    def ground_grid_key(self, eye, target) -> tuple:
        """What the ground grid's drawing depends on besides the terrain: the labels' turn (in
        eighths) and which edges are near."""
        t = self._terrain
        x0, z0, x1, z1 = t.bounds() if t is not None else (0.0, 0.0, 0.0, 0.0)
        up, _ = label_axes(np.asarray(eye, np.float64), np.asarray(target, np.float64))
        turn = round(float(np.arctan2(up[2], up[0])) / (np.pi / 4))
        return turn, bool(eye[0] < (x0 + x1) / 2.0), bool(eye[2] < (z0 + z1) / 2.0)

    def collision_segments(self, probe: np.ndarray) -> np.ndarray:
        """Wire cylinders around every stored instance that has a body near `probe`."""
        v = self.volume
        if v is None:
            return np.empty((0, 2, 3))
        from model.foliage.collision import FoliageCollision

        wanted = sorted(FoliageCollision(v).wanted([probe]))[:MAX_BOXES]
        if not wanted:
            return np.empty((0, 2, 3))
        rec = v.at(wanted).astype(np.float64)
        # `at` returns grouped by chunk in sorted order, as `wanted` is sorted the same way
        names = [a.type for a in wanted]
        ext = np.array([v.extent_of(n) for n in names], np.float64).reshape(-1, 2)
        s = np.abs(rec[:, 6])
        return cylinder_segments(rec[:, :3], np.maximum(ext[:, 0] * s, 0.2), np.maximum(ext[:, 1] * s, 0.2))

    def build(self, camera_target: np.ndarray | None = None, eye: np.ndarray | None = None,
              brush_least: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(depth-tested line vertices, on-top line vertices, on-top point vertices); the brush
        drawn at least `brush_least` metres in radius."""
        tested: list[np.ndarray] = []
        on_top: list[np.ndarray] = []
        points: list[np.ndarray] = []
        if self.ground_grid_visible:
            major, minor, label = self.ground_grid(eye, camera_target)
            tested.append(vertices(minor.reshape(-1, 3), GROUND_MINOR, 1.0))
            tested.append(vertices(major.reshape(-1, 3), GROUND_MAJOR, 1.0))
            tested.append(vertices(label.reshape(-1, 3), GROUND_LABEL, 1.0))
        if self.show_grid:
            tested.append(vertices(self.grid_segments().reshape(-1, 3), GRID_COLOUR, 1.0))
        if self.show_chunk_bounds:
            boxes = np.asarray(self.chunk_boxes(), np.float64).reshape(-1, 2, 3)[:MAX_BOXES]
            if len(boxes):
                edges = box_segments(boxes[:, 0], boxes[:, 1]).reshape(-1, 3)
                tested.append(vertices(edges, CHUNK_COLOUR, 1.0))
        if self.show_collision:
            probe = self.probe if self.probe is not None else self._on_ground(camera_target)
            if probe is not None:
                tested.append(vertices(self.collision_segments(probe).reshape(-1, 3), BODY_COLOUR, 1.0))
                points.append(vertices(np.asarray(probe).reshape(1, 3), PROBE_COLOUR, 10.0))
        for seg, colour in self.brush_cursor.segments(self._height_at(), brush_least):
            on_top.append(vertices(seg.reshape(-1, 3), colour, 1.0))
        on_top.append(self.lines.vertices())
        if self.show_refusals:
            points.append(self.refusals.vertices())
        points.append(self.points.vertices())

        def cat(parts: list[np.ndarray]) -> np.ndarray:
            parts = [p for p in parts if len(p)]
            return np.concatenate(parts) if parts else np.empty((0, VERTEX_FLOATS), np.float32)

        return cat(tested), cat(on_top), cat(points)


_VERTEX = """#version 330 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_color;
layout(location = 2) in float a_size;
uniform mat4 u_view_projection;
uniform float u_pixel_ratio;
out vec4 v_color;
void main() {
    v_color = a_color;
    gl_Position = u_view_projection * vec4(a_position, 1.0);
    gl_PointSize = a_size * u_pixel_ratio;
}
"""
_FRAGMENT = """#version 330 core
in vec4 v_color;
uniform int u_points;
out vec4 frag_color;
void main() {
    if (u_points == 1) {
        vec2 c = gl_PointCoord * 2.0 - 1.0;
        float r = dot(c, c);
        if (r > 1.0) discard;
        // a dark rim keeps light markers readable on light ground
        frag_color = r > 0.55 ? vec4(v_color.rgb * 0.25, v_color.a) : v_color;
        return;
    }
    frag_color = v_color;
}
"""


class OverlayRenderer(Renderer):
    """Draws an `Overlays`: re-packs its vertices only when something changed."""

    def __init__(self, overlays: Overlays, pixel_ratio: Callable[[], float] = lambda: 1.0) -> None:
        self.overlays = overlays
        self.pixel_ratio = pixel_ratio
        self.program: ShaderProgram | None = None
        self._vao = self._vbo = 0
        self._built_version = -1
        self._built_target: tuple | None = None
        self._counts = (0, 0, 0)

    def initialize(self) -> None:
        self.program = ShaderProgram(_VERTEX, _FRAGMENT, "overlay")
        self._vao = GL.glGenVertexArrays(1)
        self._vbo = GL.glGenBuffers(1)
        GL.glBindVertexArray(self._vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._vbo)
        stride = VERTEX_FLOATS * 4
        for loc, size, offset in ((0, 3, 0), (1, 4, 12), (2, 1, 28)):
            GL.glEnableVertexAttribArray(loc)
            GL.glVertexAttribPointer(loc, size, GL.GL_FLOAT, GL.GL_FALSE, stride, ctypes.c_void_p(offset))
        GL.glBindVertexArray(0)
        self._built_version = -1

    def _brush_least(self, frame: FrameContext) -> float:
        """The radius (metres) the brush cursor needs to be BRUSH_LEAST_PX pixels across its radius
        where it stands, when its own radius is less; 0 otherwise."""
        brush = self.overlays.brush_cursor
        if not brush.visible:
            return 0.0
        distance = float(np.linalg.norm(frame.camera.eye() - brush.center))
        per_pixel = 2.0 * distance * math.tan(math.radians(frame.camera.fov_y) / 2.0) / max(1, frame.height)
        least = BRUSH_LEAST_PX * per_pixel
        return least if least > brush.radius else 0.0

    def _upload(self, frame: FrameContext) -> None:
        o = self.overlays
        # the collision probe and the grid follow the camera target: rebuild when it moves
        follow = (o.show_collision and o.probe is None) or o.show_grid
        target = tuple(np.round(frame.camera.target, 2)) if follow else None
        if o.ground_grid_visible:  # its labels turn to the camera in eighths of a turn
            target = (target, o.ground_grid_key(frame.camera.eye(), frame.camera.target))
        least = self._brush_least(frame)
        if least:  # the far brush's drawn size follows the camera's distance
            target = (target, float(f"{least:.2g}"))
        if self._built_version == o.version and self._built_target == target:
            return
        if o.show_grid:
            o.grid_center = np.asarray(frame.camera.target, np.float64)
        tested, on_top, points = o.build(frame.camera.target, frame.camera.eye(), least)
        data = np.concatenate([tested, on_top, points]) if (len(tested) + len(on_top) + len(points)) else \
            np.zeros((1, VERTEX_FLOATS), np.float32)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, self._vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, data.nbytes, np.ascontiguousarray(data), GL.GL_DYNAMIC_DRAW)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        self._counts = (len(tested), len(on_top), len(points))
        self._built_version, self._built_target = o.version, target

    def draw(self, frame: FrameContext) -> None:
        if self.program is None:
            self.initialize()
        self._upload(frame)
        n_tested, n_top, n_points = self._counts
        if not (n_tested or n_top or n_points):
            return
        p = self.program
        p.use()
        p.set_uniform("u_view_projection", frame.view_projection)
        p.set_uniform("u_pixel_ratio", float(self.pixel_ratio()))
        GL.glBindVertexArray(self._vao)
        GL.glEnable(GL.GL_BLEND)
        # colour blends; the framebuffer's alpha stays opaque, or the window composites the view
        # with holes where translucent lines were drawn (magenta or black in a window grab)
        GL.glBlendFuncSeparate(GL.GL_SRC_ALPHA, GL.GL_ONE_MINUS_SRC_ALPHA, GL.GL_ZERO, GL.GL_ONE)
        GL.glEnable(GL.GL_PROGRAM_POINT_SIZE)
        p.set_uniform("u_points", 0)
        if n_tested:
            GL.glDrawArrays(GL.GL_LINES, 0, n_tested)
        GL.glDisable(GL.GL_DEPTH_TEST)  # the cursor, gizmo lines and markers are never hidden
        if n_top:
            GL.glDrawArrays(GL.GL_LINES, n_tested, n_top)
        if n_points:
            p.set_uniform("u_points", 1)
            GL.glDrawArrays(GL.GL_POINTS, n_tested + n_top, n_points)
        GL.glEnable(GL.GL_DEPTH_TEST)
        GL.glDisable(GL.GL_BLEND)
        GL.glBindVertexArray(0)

    def release(self) -> None:
        if self.program is not None:
            self.program.delete()
            self.program = None
        if self._vao:
            GL.glDeleteVertexArrays(1, [self._vao])
            GL.glDeleteBuffers(1, [self._vbo])
            self._vao = self._vbo = 0
