"""Terrain ▸ Stamp: a brush tool that places a heightmap stamp on a click and repeats it along a drag.

Stamps go into the selected edit layer when it is a stamp layer, otherwise into a new stamp layer
on top (made by the drag's first stamp, in the same undo step). The stamp's radius is the brush's;
its shape, rotation, height, blend mode and spacing are the tool's settings. A stamp adds to the
layer's deltas what `model.terrain_shapes.stamp_deltas` computes over the heights beneath the layer
plus the layer's own deltas, so stamps of one layer build on each other (max/min modes included).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from app.terrain_commands import CommandId, TerrainStrokeCommand
from app.terrain_tools import StrokeTool
from app.tools import stamp_points
from model.edit_layers import EditLayer, EditStack, stack_of
from model.errors import FormatError
from model.sculpt import HEIGHTS, Patch, TerrainStroke
from model.terrain_shapes import Stamp, stamp_deltas, stamp_image, stamp_window

STAMP_SIDE = 129  # samples a side of a built-in stamp
STAMP_FOLDER_KEY = "terrain/stamp_folder"
STAMP_SUFFIXES = (".png", ".r32", ".npy", ".exr", ".tif", ".tiff")  # R16/RAW need a size: not listed


def _radial(side: int = STAMP_SIDE) -> np.ndarray:
    """Distance from the centre, 1 at the middle of each edge (sqrt only: the same bits everywhere)."""
    t = np.linspace(-1.0, 1.0, side)
    return np.sqrt(t[None, :] ** 2 + t[:, None] ** 2)


def _smoothstep(e0: float, e1: float, x: np.ndarray) -> np.ndarray:
    f = np.clip((x - e0) / (e1 - e0), 0.0, 1.0)
    return f * f * (3.0 - 2.0 * f)


def builtin_stamps() -> dict[str, np.ndarray]:
    """The stamps every scene has, as 0..1 images: polynomials of the distance from the centre."""
    r = _radial()
    hill = np.clip(1.0 - r * r, 0.0, 1.0) ** 2
    cone = np.clip(1.0 - r, 0.0, 1.0)
    mesa = 1.0 - _smoothstep(0.55, 0.95, r)
    rim = 1.0 - np.abs(r - 0.6) / 0.4
    crater = np.clip(np.where(r < 0.6, 0.35 + 0.65 * (r / 0.6) ** 2, rim), 0.0, 1.0)
    return {"Hill": hill, "Cone": cone, "Mesa": mesa, "Crater": crater}


def library_files(folder: str | Path | None) -> list[Path]:
    """Heightmaps in the stamp library folder (not its subfolders), sorted by name."""
    if not folder:
        return []
    try:
        return sorted(p for p in Path(folder).iterdir() if p.is_file() and p.suffix.lower() in STAMP_SUFFIXES)
    except OSError:
        return []


class StampStroke:
    """One drag of the Stamp tool: its layer (made by the first stamp when new) and the sculpt stroke
    that writes the stamps into that layer's deltas; one undo step."""

    def __init__(self, stack: EditStack, terrain, layer: EditLayer | None, new_layer: EditLayer | None,
                 volume=None, follow=None) -> None:
        self.stack, self.terrain = stack, terrain
        self.layer = layer if layer is not None else new_layer
        self.created = new_layer is not None
        self.selected_before = stack.selected
        self.index: int | None = None
        self.volume, self.follow = volume, follow
        self.stroke: TerrainStroke | None = None
        self.target = HEIGHTS

    @property
    def touched(self):
        return self.stroke.touched if self.stroke is not None else None

    def _select(self) -> None:
        self.stack.selected = self.layer.name

    def apply(self, patch: Patch) -> bool:
        if self.stroke is None:
            self._select()
            if self.created:
                self.index = self.stack.insert(self.layer)
            self.stroke = TerrainStroke(self.terrain, HEIGHTS, self.volume, follow=self.follow)
        return self.stroke.apply(patch)

    def finish(self) -> None:
        if self.stroke is not None:
            self.stroke.finish()

    def undo(self) -> None:
        if self.stroke is not None:
            self.stroke.undo()
        if self.created:
            self.index, _ = self.stack.remove(self.layer.name)
            self.stack.selected = self.selected_before if self.stack.get(self.selected_before or "") else None

    def redo(self) -> None:
        if self.created:
            self._select()
            self.stack.insert(self.layer, self.index)
        if self.stroke is not None:
            self.stroke.redo()


class StampStrokeCommand(TerrainStrokeCommand):
    """One stamp of a Stamp drag; the drag's stamps merge into its first command (a merge id of its
    own, so a Stamp drag never merges into a sculpt stroke)."""

    def id(self) -> int:
        return int(CommandId.STAMP_STROKE)


class StampTool(StrokeTool):
    tool_key, title, shortcut = "stamp", "Stamp", "K"
    tooltip = ("Place a heightmap stamp where you click; a drag repeats it (radius: the brush's; shape, "
               "rotation, height and mode in Terrain Tools) — K")

    def __init__(self, toolbox) -> None:
        super().__init__(toolbox)
        self.builtins = builtin_stamps()
        self.source = "Hill"  # a built-in's name or a heightmap file's path
        self.rotation = 0.0
        self.height = 10.0
        self.mode = "add"
        self.spacing = 1.0  # radii between the stamps of a drag
        self._image: tuple[str, np.ndarray] | None = None

    # ---- settings -----------------------------------------------------------------------
    def image(self) -> np.ndarray:
        """The stamp's 0..1 image (a file read once per choice); raises FormatError for a bad file."""
        if self.source in self.builtins:
            return self.builtins[self.source]
        if self._image is None or self._image[0] != self.source:
            self._image = (self.source, stamp_image(self.source))
        return self._image[1]

    def set_source(self, source: str) -> bool:
        """Choose a built-in stamp or a heightmap file; False (and a message) for one that cannot be read."""
        if source not in self.builtins:
            try:
                self._image = (source, stamp_image(source))
            except (FormatError, OSError, ValueError) as e:
                self.toolbox.report(f"Cannot use {source} as a stamp: {e}")
                return False
        self.source = source
        return True

    def source_label(self) -> str:
        return self.source if self.source in self.builtins else Path(self.source).name

    def stamp_at(self, x: float, z: float) -> Stamp:
        return Stamp(x, z, self.toolbox.brush.radius, self.rotation, self.height, self.mode)

    # ---- the drag ---------------------------------------------------------------------
    def stroke_text(self) -> str:
        return f"Stamp {self.source_label()}"

    def press(self, pos, modifiers) -> None:
        stack = stack_of(self.toolbox.terrain, create=True)
        selected = stack.get(stack.selected) if stack.selected is not None else None
        if selected is not None and selected.kind == "stamp" and not selected.shows:
            self.toolbox.report(f"Edit layer '{selected.name}' is hidden: show it (or pick another) "
                                "to stamp into it.")
            return
        try:
            self.image()
        except (FormatError, OSError, ValueError) as e:
            self.toolbox.report(f"Cannot read the stamp {self.source_label()}: {e}")
            return
        super().press(pos, modifiers)

    def _hidden_edit_layer(self) -> str | None:
        return None  # a hidden stamp layer is refused in `press`; any other selection gets a new layer

    def new_stroke(self, target):
        stack = stack_of(self.toolbox.terrain, create=True)
        selected = stack.get(stack.selected) if stack.selected is not None else None
        layer = new = None
        if selected is not None and selected.kind == "stamp":
            layer = selected
        else:
            n = 1
            while stack.get(f"Stamp {n}") is not None:
                n += 1
            new = stack.new_layer(f"Stamp {n}", "stamp", {
                "file": self.source_label(), "radius": self.toolbox.brush.radius, "rotation": self.rotation,
                "height": self.height, "mode": self.mode})
        return StampStroke(stack, self.toolbox.terrain, layer, new, self.toolbox.foliage_volume(),
                           self.toolbox.stroke_follower())

    def move(self, pos, modifiers) -> None:
        self.toolbox.show_brush(pos, False)
        if self.stroke is None or pos is None:
            return
        if self._last is None:
            self._stamp(*pos)
            return
        for x, z in stamp_points(self._last, pos, self.toolbox.brush.radius * self.spacing):
            self._stamp(x, z)

    def make_patch(self, terrain, brush, x, z):
        stroke: StampStroke = self.stroke
        stamp = self.stamp_at(x, z)
        shape = (terrain.rows, terrain.columns)
        window = stamp_window(shape, terrain.spacing, terrain.origin, stamp)
        if window is None:
            return None
        stack, layer = stroke.stack, stroke.layer
        inside = stack.get(layer.name) is layer

        def beneath(rows: slice, cols: slice) -> np.ndarray:
            # the ground beneath the layer plus what the layer holds already: stamps build on each other
            if inside:
                below = stack.composite(rows, cols, stack.index(layer.name))
            else:  # a new layer goes on top: beneath it is everything
                below = terrain.read_heights(rows, cols)
            return (below.astype(np.float64) + layer.read(rows, cols)).astype(np.float32)

        added = stamp_deltas(beneath, shape, terrain.spacing, terrain.origin, self.image(), stamp)
        rows, cols = window
        values = layer.read(rows, cols).astype(np.float64) + added.read(rows, cols, 0)
        # old None: the values are written into the layer's deltas as they are
        return Patch(rows, cols, None, values.astype(np.float32))

    def _stamp(self, x: float, z: float) -> None:
        self._last = (x, z)
        if not (math.isfinite(x) and math.isfinite(z)):
            return
        patch = self.make_patch(self.toolbox.terrain, self.toolbox.brush, x, z)
        if patch is None:
            return
        self.toolbox.undo_stack().push(StampStrokeCommand(self.stroke, patch, self.stroke_text()))

