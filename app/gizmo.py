"""The selection gizmo: handles in the viewport that move, rotate (about up) and scale the selection.

A drag is shown live (the instances move as the mouse does) and lands as one
`TransformInstancesCommand`; a drag that ends where it started leaves no step. `apply` does the
same from a script (tests, menus).
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QObject, Signal

from app.foliage_commands import TransformInstancesCommand
from model.foliage.edits import add_by_type, selection_records, transform_records
from model.foliage.volume import Removed, Selection

MODES = ("move", "rotate", "scale")
HANDLE_PIXELS = 9.0  # how close the cursor must come to a handle to grab it
HANDLE_FRACTION = 0.12  # handle length as a share of the camera distance
RING_SEGMENTS = 48

COLOURS = {"x": (0.95, 0.25, 0.2, 1.0), "z": (0.25, 0.45, 1.0, 1.0), "free": (1.0, 0.9, 0.2, 1.0),
           "ring": (1.0, 0.8, 0.2, 1.0), "uniform": (0.3, 0.95, 0.4, 1.0)}


class Gizmo(QObject):
    """Handles around the selection's centre; `mode` is move, rotate or scale."""

    changed = Signal()  # handles moved, appeared or went
    mode_changed = Signal(str)

    def __init__(self, toolset, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.toolset = toolset
        self.mode = "move"
        self.visible = False
        self.busy = False
        self._handle = ""
        self._removed: Removed | None = None
        self._base: np.ndarray | None = None
        self._added: Selection = {}
        self._records: np.ndarray | None = None
        self._pivot = (0.0, 0.0, 0.0)
        self._start: tuple[float, float] | None = None
        self._start_screen = (0.0, 0.0)
        self._params = ((0.0, 0.0), 0.0, 1.0)
        self.renderer = None
        toolset.selection_changed.connect(self.changed)

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"gizmo mode must be one of {MODES}")
        if mode != self.mode:
            self.mode = mode
            self.mode_changed.emit(mode)
            self.changed.emit()

    def set_visible(self, visible: bool) -> None:
        self.visible = visible
        self.changed.emit()

    # ---- geometry -------------------------------------------------------------------
    def pivot(self) -> tuple[float, float, float] | None:
        """Centre of the selection's positions, or None without a selection."""
        rec = selection_records(self.toolset.volume, self.toolset.selection)
        if not len(rec):
            return None
        c = rec[:, :3].astype(np.float64).mean(axis=0)
        return (float(c[0]), float(c[1]), float(c[2]))

    def _length(self, pivot) -> float:
        eye = np.asarray(self.toolset.host.viewport.camera.eye(), np.float64)
        return max(1.0, float(np.linalg.norm(eye - np.asarray(pivot))) * HANDLE_FRACTION)

    def handles(self) -> dict[str, np.ndarray]:
        """Handle name → (n, 2, 3) world segments for the current mode; empty without a selection."""
        if not self.visible:
            return {}
        pivot = self._live_pivot() if self.busy else self.pivot()
        if pivot is None:
            return {}
        p = np.asarray(pivot, np.float64)
        length = self._length(p)
        if self.mode == "move":
            box = _square(p, length * 0.15)
            return {"x": _arrow(p, np.array([1.0, 0.0, 0.0]), length),
                    "z": _arrow(p, np.array([0.0, 0.0, 1.0]), length), "free": box}
        if self.mode == "rotate":
            a = np.linspace(0, 2 * np.pi, RING_SEGMENTS + 1)
            ring = p + np.stack([np.cos(a), np.zeros_like(a), np.sin(a)], axis=-1) * length
            return {"ring": np.stack([ring[:-1], ring[1:]], axis=1)}
        top = p + (0, length, 0)
        return {"uniform": np.concatenate([np.array([[p, top]]), _square(top, length * 0.1),
                                           _square(top + (0, length * 0.2, 0), length * 0.1),
                                           _cube_edges(top, length * 0.1)])}

    def live_records(self) -> np.ndarray | None:
        """The selection's records as the drag shows them (None outside a drag)."""
        return self._records if self.busy else None

    def _live_pivot(self):
        if self._records is None or not len(self._records):
            return None
        c = self._records[:, :3].astype(np.float64).mean(axis=0)
        return (float(c[0]), float(c[1]), float(c[2]))

    def hit(self, x: float, y: float) -> str | None:
        """The handle within HANDLE_PIXELS of a viewport pixel, if any."""
        best, best_d = None, HANDLE_PIXELS
        for name, segments in self.handles().items():
            a = self.toolset.host.to_screen(segments[:, 0])
            b = self.toolset.host.to_screen(segments[:, 1])
            d = _segment_distance(np.array([x, y]), a, b)
            if len(d) and np.nanmin(d) < best_d:
                best, best_d = name, float(np.nanmin(d))
        return best

    # ---- dragging -------------------------------------------------------------------
    def begin(self, handle: str, x: float | None = None, y: float | None = None) -> bool:
        """Start a transform of the selection; the instances are lifted out and shown as they move."""
        volume = self.toolset.volume
        pivot = self.pivot()
        if pivot is None or self.busy:
            return False
        self.busy = True
        self._handle = handle
        self._pivot = pivot
        self._removed = volume.remove(self.toolset.selection)
        self._base = self._removed.records()
        self._records = self._base
        self._added = add_by_type(volume, self._removed, self._base)
        self._params = ((0.0, 0.0), 0.0, 1.0)
        self._start_screen = (x or 0.0, y or 0.0)
        self._start = self._plane_point(x, y) if x is not None else None
        return True

    def _plane_point(self, x: float, y: float) -> tuple[float, float] | None:
        """Where the ray through a pixel meets the horizontal plane through the pivot."""
        origin, direction = self.toolset.host.ray(x, y)
        o, d = np.asarray(origin, np.float64), np.asarray(direction, np.float64)
        if abs(d[1]) < 1e-9:
            return None
        t = (self._pivot[1] - o[1]) / d[1]
        if t <= 0:
            return None
        return (float(o[0] + t * d[0]), float(o[2] + t * d[2]))

    def drag(self, x: float, y: float) -> None:
        """Follow the cursor with the grabbed handle."""
        if not self.busy or self._start is None:
            return
        point = self._plane_point(x, y)
        if point is None:
            return
        px, pz = self._pivot[0], self._pivot[2]
        dx, dz = point[0] - self._start[0], point[1] - self._start[1]
        if self._handle == "x":
            self.update((dx, 0.0))
        elif self._handle == "z":
            self.update((0.0, dz))
        elif self._handle == "free":
            self.update((dx, dz))
        elif self._handle == "ring":
            a0 = math.atan2(-(self._start[1] - pz), self._start[0] - px)
            a1 = math.atan2(-(point[1] - pz), point[0] - px)
            self.update(angle=a1 - a0)
        else:  # uniform scale: screen distance from the pivot, relative to the grab
            centre = self.toolset.host.to_screen([self._pivot])[0]
            d0 = math.hypot(self._start_screen[0] - centre[0], self._start_screen[1] - centre[1])
            d1 = math.hypot(x - centre[0], y - centre[1])
            self.update(factor=max(0.05, d1 / d0) if d0 > 1 else 1.0)

    def update(self, offset: tuple[float, float] = (0.0, 0.0), angle: float = 0.0,
               factor: float = 1.0) -> None:
        """Show the selection transformed by these amounts (relative to where the drag began)."""
        if not self.busy:
            return
        volume = self.toolset.volume
        self._params = ((float(offset[0]), float(offset[1])), float(angle), float(factor))
        self._records = transform_records(self._base, (self._pivot[0], self._pivot[2]), offset, angle,
                                          factor, self.toolset.terrain)
        volume.remove(self._added)
        self._added = add_by_type(volume, self._removed, self._records)
        self.changed.emit()

    def end(self) -> bool:
        """Finish the drag: one undo step, or none when nothing changed. True if a step was pushed."""
        if not self.busy:
            return False
        volume = self.toolset.volume
        self.busy = False
        identity = self._params == ((0.0, 0.0), 0.0, 1.0) or np.array_equal(self._records, self._base)
        if identity:
            volume.remove(self._added)
            volume.restore(self._removed)
            selection = {k: idx for k, (idx, _) in self._removed.parts.items()}
            pushed = False
        else:
            n = len(self._base)
            text = {"x": "Move", "z": "Move", "free": "Move", "ring": "Rotate", "uniform": "Scale"}.get(
                self._handle, self._handle.capitalize())
            command = TransformInstancesCommand(volume, self._removed, self._records, self._added,
                                                f"{text} {n} instance{'s' if n != 1 else ''}",
                                                self.toolset.set_selection)
            self.toolset.push(command)
            selection = self._added
            pushed = True
        self._removed = self._base = self._records = None
        self._added = {}
        self.toolset.set_selection(selection)
        self.changed.emit()
        return pushed

    def apply(self, offset: tuple[float, float] = (0.0, 0.0), angle: float = 0.0,
              factor: float = 1.0) -> bool:
        """Transform the selection in one step, as a finished drag would."""
        handle = "ring" if angle else "uniform" if factor != 1.0 else "free"
        if not self.begin(handle):
            return False
        self.update(offset, angle, factor)
        return self.end()


def _arrow(base: np.ndarray, axis: np.ndarray, length: float) -> np.ndarray:
    """(n, 2, 3) segments of an arrow from `base` along a horizontal unit `axis`: the shaft and a
    four-sided head (seen as an arrow from above and from the side)."""
    tip = base + axis * length
    neck = base + axis * length * 0.8
    side = np.array([-axis[2], 0.0, axis[0]]) * length * 0.07
    up = np.array([0.0, length * 0.07, 0.0])
    barbs = [neck + side, neck - side, neck + up, neck - up]
    ring = [[barbs[0], barbs[2]], [barbs[2], barbs[1]], [barbs[1], barbs[3]], [barbs[3], barbs[0]]]
    return np.array([[base, tip], *[[tip, b] for b in barbs], *ring])


def _cube_edges(bottom: np.ndarray, half: float) -> np.ndarray:
    """The four upright edges of a cube of half-size `half` standing on `bottom` (with `_square`s)."""
    c = np.asarray(bottom, np.float64)
    corners = c + np.array([[-half, 0, -half], [half, 0, -half], [half, 0, half], [-half, 0, half]])
    return np.stack([corners, corners + (0, 2 * half, 0)], axis=1)


def _square(centre: np.ndarray, half: float) -> np.ndarray:
    c = np.asarray(centre, np.float64)
    corners = c + np.array([[-half, 0, -half], [half, 0, -half], [half, 0, half], [-half, 0, half]])
    return np.stack([corners, np.roll(corners, -1, axis=0)], axis=1)


def _segment_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pixel distance from `p` to each screen segment a→b (NaN where behind the camera)."""
    ab = b - a
    denom = np.einsum("ij,ij->i", ab, ab)
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.clip(np.einsum("ij,ij->i", p - a, ab) / np.where(denom > 0, denom, 1.0), 0.0, 1.0)
    q = a + t[:, None] * ab
    return np.hypot(q[:, 0] - p[0], q[:, 1] - p[1])
