"""The Palette dock: the scene's foliage types with thumbnails and instance counts, the active
(multi-selected) types, add/new/duplicate/remove, and the settings form of the current type.

The panel only asks: requests are signals, so every change becomes an undoable command elsewhere.
"""

from __future__ import annotations

import os
import time
from functools import lru_cache
from pathlib import Path

import numpy as np
from PySide6.QtCore import QItemSelectionModel, QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QIcon, QImage, QPainter, QPixmap, QPolygonF, QTransform
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from model.errors import FormatError
from model.foliage.foliage_type import FoliageType
from widgets.error_dialog import file_message, user_message
from widgets.foliage_type_form import FoliageTypeForm
from widgets.form_fields import DeleteKey

THUMB = 48
RENDER_SLICE_S = 0.05  # held thumbnails rendered per pass of the event loop, at most this long (about two)
NAME_ROLE = Qt.ItemDataRole.UserRole


@lru_cache(maxsize=64)
def _silhouette(mesh: str, size: int) -> QPixmap:
    """A drawn silhouette of a built-in mesh (a file mesh gets a generic box)."""
    pm = QPixmap(size, size)
    pm.fill(QColor(206, 220, 232))
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setPen(Qt.PenStyle.NoPen)
    s = size / 48.0
    kind = mesh.removeprefix("builtin:") if mesh.startswith("builtin:") else "file"
    trunk, leaf = QColor(110, 78, 48), QColor(52, 112, 58)
    p.setBrush(QColor(120, 150, 80))
    p.drawRect(0, int(40 * s), size, size)  # ground
    if kind == "conifer":
        p.setBrush(trunk)
        p.drawRect(int(22 * s), int(34 * s), int(4 * s), int(8 * s))
        p.setBrush(QColor(34, 86, 52))
        for top, half, base in ((4, 9, 20), (12, 12, 28), (20, 15, 36)):
            p.drawPolygon(QPolygonF([QPointF(24 * s, top * s), QPointF((24 - half) * s, base * s),
                                     QPointF((24 + half) * s, base * s)]))
    elif kind == "broadleaf":
        p.setBrush(trunk)
        p.drawRect(int(21 * s), int(24 * s), int(6 * s), int(18 * s))
        p.setBrush(leaf)
        p.drawEllipse(QPointF(24 * s, 18 * s), 15 * s, 12 * s)
    elif kind == "bush":
        p.setBrush(QColor(70, 120, 60))
        p.drawEllipse(QPointF(18 * s, 36 * s), 10 * s, 8 * s)
        p.drawEllipse(QPointF(30 * s, 35 * s), 11 * s, 9 * s)
    elif kind == "rock":
        p.setBrush(QColor(128, 124, 118))
        p.drawPolygon(QPolygonF([QPointF(10 * s, 42 * s), QPointF(14 * s, 28 * s), QPointF(26 * s, 22 * s),
                                 QPointF(38 * s, 30 * s), QPointF(40 * s, 42 * s)]))
    elif kind == "grass":
        p.setPen(QColor(70, 140, 50))
        for i in range(9):
            x = (8 + 4 * i) * s
            p.drawLine(QPointF(x, 42 * s), QPointF(x + (i % 3 - 1) * 3 * s, (26 + (i * 7) % 10) * s))
    else:
        p.setBrush(QColor(150, 150, 170))
        p.drawRect(int(14 * s), int(20 * s), int(20 * s), int(20 * s))
    p.end()
    return pm


LIGHT = np.array([0.45, 0.75, 0.35]) / np.linalg.norm([0.45, 0.75, 0.35])
THUMB_YAW, THUMB_PITCH = np.radians(30.0), np.radians(-18.0)
THUMB_TRIANGLES = 8_000  # a bigger file mesh is drawn by its largest triangles (the rest are sub-pixel)


def render_mesh(vertices: np.ndarray, size: int = THUMB, materials: tuple = ()) -> QPixmap:
    """Offscreen render of a flat-shaded mesh (rows of position, normal, colour, u, v, material): a
    three-quarter view, fitted to the square, triangles painted back to front with the viewport's
    light; a triangle whose material (in `materials`) has a colour texture is painted with it, its
    cut-out texels left out."""
    v = np.asarray(vertices, np.float64)
    cy, sy, cp, sp = np.cos(THUMB_YAW), np.sin(THUMB_YAW), np.cos(THUMB_PITCH), np.sin(THUMB_PITCH)
    yaw = np.array([[cy, 0, sy], [0, 1, 0], [-sy, 0, cy]])
    pitch = np.array([[1, 0, 0], [0, cp, -sp], [0, sp, cp]])
    rot = pitch @ yaw
    p = v[:, :3] @ rot.T
    lo, hi = p.min(axis=0), p.max(axis=0)
    scale = 0.86 * size / max(hi[0] - lo[0], hi[1] - lo[1], 1e-6)
    cx, cyy = (lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2
    sx = size / 2 + (p[:, 0] - cx) * scale
    syy = size / 2 - (p[:, 1] - cyy) * scale
    shade = 0.35 + 0.65 * np.clip(v[:, 3:6] @ LIGHT, 0.0, 1.0)
    colour = np.clip(v[:, 6:9] * shade[:, None], 0.0, 1.0) * 255
    tri = len(v) // 3
    depth = p[:, 2].reshape(tri, 3).mean(axis=1)
    order = np.argsort(depth)  # far to near (the view looks down -z after the rotation)
    if tri > THUMB_TRIANGLES:
        corners = np.stack([sx, syy], axis=-1).reshape(tri, 3, 2)
        e1, e2 = corners[:, 1] - corners[:, 0], corners[:, 2] - corners[:, 0]
        area = np.abs(e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
        keep = np.zeros(tri, bool)
        keep[np.argpartition(-area, THUMB_TRIANGLES)[:THUMB_TRIANGLES]] = True
        order = order[keep[order]]
    pm = QPixmap(size, size)
    pm.fill(QColor(206, 220, 232))
    painter = QPainter(pm)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    brushes = _TextureBrushes(v, materials, shade)
    for t in order:
        i = 3 * t
        corners = QPolygonF([QPointF(sx[i + k], syy[i + k]) for k in range(3)])
        brush = brushes.brush(t, sx[i:i + 3], syy[i:i + 3])
        if brush is None:
            r, g, b = colour[i]
            brush = QBrush(QColor(int(r), int(g), int(b)))
        painter.setBrush(brush)
        painter.drawPolygon(corners)
    painter.end()
    return pm


class _TextureBrushes:
    """Brushes that paint a triangle with its material's texture, tinted by its colour and light
    (a few light levels per material, made once), mapped by the affine map from texels to the
    triangle's corners on screen."""

    LEVELS = 6

    def __init__(self, v: np.ndarray, materials: tuple, shade: np.ndarray) -> None:
        self.v, self.materials, self.shade = v, materials, shade
        self.images: dict[tuple[int, int], tuple[QImage, int, int]] = {}

    def brush(self, t: int, xs: np.ndarray, ys: np.ndarray) -> QBrush | None:
        v = self.v
        if v.shape[1] < 12:
            return None
        m = int(v[3 * t, 11])
        material = self.materials[m] if 0 <= m < len(self.materials) else None
        if material is None or material.base_texture is None:
            return None
        light = float(np.clip(self.shade[3 * t], 0.0, 1.0))
        level = min(int(light * self.LEVELS), self.LEVELS - 1)
        image, w, h = self._image(m, level, material, v[3 * t, 6:9])
        uv = v[3 * t:3 * t + 3, 9:11].astype(np.float64)
        a, b, c, d, e, f = material.uv_transform
        px = np.stack([(a * uv[:, 0] + b * uv[:, 1] + c) * w, (d * uv[:, 0] + e * uv[:, 1] + f) * h], axis=1)
        src = np.column_stack([px, np.ones(3)])
        if abs(np.linalg.det(src)) < 1e-9:
            return None
        m_ = np.linalg.solve(src, np.column_stack([xs, ys]))
        brush = QBrush(image)
        brush.setTransform(QTransform(m_[0, 0], m_[0, 1], m_[1, 0], m_[1, 1], m_[2, 0], m_[2, 1]))
        return brush

    def _image(self, m: int, level: int, material, tint) -> tuple[QImage, int, int]:
        key = (m, level)
        if key not in self.images:
            px = material.base_texture.pixels
            light = (level + 0.5) / self.LEVELS
            rgb = px[..., :3].astype(np.float64) * np.asarray(tint, np.float64) * light
            out = np.empty(px.shape, np.uint8)
            out[..., :3] = np.clip(rgb, 0, 255).astype(np.uint8)
            if material.alpha_mode == "MASK":  # shown or cut, as the viewport draws it
                out[..., 3] = np.where(px[..., 3] >= material.alpha_cutoff * 255, 255, 0)
            else:
                out[..., 3] = px[..., 3] if material.alpha_mode == "BLEND" else 255
            h, w = out.shape[:2]
            image = QImage(out.tobytes(), w, h, 4 * w, QImage.Format.Format_RGBA8888).copy()
            self.images[key] = (image, w, h)
        return self.images[key]


@lru_cache(maxsize=64)
def _rendered(mesh: str, size: int) -> QPixmap | None:
    """A built-in mesh rendered offscreen; None for a mesh file (see `_rendered_file`)."""
    try:
        from rendering.meshes import builtin_mesh
    except ImportError:
        return None
    if not mesh.startswith("builtin:"):
        return None
    try:
        found = builtin_mesh(mesh.removeprefix("builtin:"))
        return render_mesh(found.vertices, size, found.materials)
    except KeyError:
        return None


def _file_stamp(mesh: str, folder) -> tuple[str, int | None]:
    """Where a mesh file path resolves and its modification time (None when it is not there), so an
    edited or newly copied file is rendered afresh."""
    base = Path(folder) if folder is not None else Path.cwd()
    target = os.path.normpath(base / mesh)
    try:
        return target, os.stat(target).st_mtime_ns
    except OSError:
        return target, None


@lru_cache(maxsize=64)
def _rendered_file(mesh: str, folder: str | None, stamp: tuple[str, int | None],
                   size: int) -> tuple[QPixmap | None, str | None]:
    """A mesh file read (through trimesh) and rendered like the built-in ones; (None, why) when
    it cannot be read."""
    try:
        from rendering.meshes import mesh_for
    except ImportError:
        return None, "mesh files cannot be read here"
    try:
        found = mesh_for(mesh, folder)
        return render_mesh(found.vertices, size, found.materials), None
    except FormatError as e:
        return None, str(e)
    except (OSError, ValueError) as e:
        return None, file_message(e, stamp[0]) if isinstance(e, OSError) else f"{stamp[0]}: {user_message(e)}"


def thumbnail_pixmap(ftype: FoliageType, size: int = THUMB, folder=None) -> tuple[QPixmap, str | None]:
    """The type's thumbnail and, when its mesh file cannot be read, why (a placeholder is drawn)."""
    if ftype.mesh.startswith("builtin:"):
        pm = _rendered(ftype.mesh, size)
        return (pm if pm is not None else _silhouette(ftype.mesh, size)), None
    folder = str(folder) if folder is not None else None
    pm, error = _rendered_file(ftype.mesh, folder, _file_stamp(ftype.mesh, folder), size)
    return (pm if pm is not None else _silhouette(ftype.mesh, size)), error


def _warning_badge(base: QPixmap) -> QPixmap:
    """The thumbnail with a warning badge: the type's layer filter names a missing layer."""
    pm = QPixmap(base)
    size = pm.width()
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    r = size * 0.36
    tri = QPolygonF([QPointF(size - r, size - 1), QPointF(size - 1, size - 1),
                     QPointF(size - r / 2, size - r)])
    p.setPen(QColor(120, 60, 0))
    p.setBrush(QColor(245, 180, 20))
    p.drawPolygon(tri)
    p.setPen(QColor(40, 20, 0))
    font = p.font()
    font.setBold(True)
    font.setPixelSize(max(int(r * 0.7), 7))
    p.setFont(font)
    p.drawText(QRectF(size - r, size - r * 0.85, r, r * 0.85), Qt.AlignmentFlag.AlignCenter, "!")
    p.end()
    return pm


def thumbnail(ftype: FoliageType, size: int = THUMB, folder=None) -> QIcon:
    """The type's thumbnail, rendered offscreen from its mesh (built-in, or a file relative to
    `folder`); a drawn placeholder when the file cannot be read."""
    return QIcon(thumbnail_pixmap(ftype, size, folder)[0])


class PalettePanel(QWidget):
    """Types list (multi-select = active types), buttons, and the current type's form."""

    active_changed = Signal(list)  # names of the selected (active) types
    add_file_requested = Signal()
    new_requested = Signal()
    duplicate_requested = Signal(str)
    remove_requested = Signal(str)
    type_edited = Signal(str, object, str)  # old name, new FoliageType, key
    type_stepped = Signal(str, object, str, str)  # old name, new FoliageType, key, undo text: never merges

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("palette_panel")
        self.list = QListWidget(self)
        self.list.setObjectName("palette_list")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.list.setIconSize(QSize(THUMB, THUMB))
        self.list.setMinimumHeight(THUMB + 8)
        self.list.setToolTip("Foliage types: select one or more to paint with (Ctrl/Shift for several); "
                             "Delete removes the current one")
        # Delete here means the type under the cursor, not the foliage selected in the viewport
        self._delete_key = DeleteKey(self.list, lambda: self._with_current(self.remove_requested.emit))
        self.form = FoliageTypeForm()
        buttons = QHBoxLayout()
        self.buttons = {}
        buttons.setSpacing(2)
        # tool buttons, and New / from file under one Add menu: four push buttons need 340 px, more
        # than the palette column may have (240)
        for key, text, tip in (("add", "Add", "Add a type: a new one with default settings, or "
                                "types read from .vxfoliage files"),
                               ("duplicate", "Duplicate", "A copy of the current type"),
                               ("remove", "Remove", "Remove the current type (and its instances; undoable)")):
            button = QToolButton(self)
            button.setText(text)
            button.setObjectName(f"palette_{key}")
            button.setToolTip(tip)
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            buttons.addWidget(button)
            self.buttons[key] = button
        self.buttons["add"].setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        add_menu = QMenu(self.buttons["add"])
        self.add_actions = {
            "new": add_menu.addAction("New Type"),
            "file": add_menu.addAction("From .vxfoliage Files…"),
        }
        self.add_actions["new"].triggered.connect(lambda: self.new_requested.emit())
        self.add_actions["file"].triggered.connect(lambda: self.add_file_requested.emit())
        self.add_actions["new"].setToolTip("A new type with default settings")
        self.add_actions["file"].setToolTip("Add types from .vxfoliage files")
        self.buttons["add"].setMenu(add_menu)
        self.buttons["duplicate"].clicked.connect(lambda: self._with_current(self.duplicate_requested.emit))
        self.buttons["remove"].clicked.connect(lambda: self._with_current(self.remove_requested.emit))
        # said above the form while types filter on layers the terrain lacks (a heightmap import has
        # none): otherwise their strokes place nothing with no word why (not above the list: the
        # list keeps its height for the types)
        self.layer_note = QLabel(self)
        self.layer_note.setObjectName("palette_layer_note")
        self.layer_note.setWordWrap(True)
        self.layer_note.setStyleSheet("color: #b9770e")
        self.layer_note.hide()
        top = QWidget(self)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.list)
        top_layout.addLayout(buttons)
        # With no current type (none yet, or the one shown was removed or its addition undone) the
        # form gives way to a hint: greyed fields naming a type that is gone would mislead.
        self.no_type = QLabel("Pick a type in the list above to edit its settings, or add one "
                              "(Add ▸ New Type).", self)
        self.no_type.setObjectName("palette_no_type")
        self.no_type.setWordWrap(True)
        self.no_type.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.no_type.setContentsMargins(6, 6, 6, 6)
        page = QWidget(self)
        page_layout = QVBoxLayout(page)
        page_layout.setContentsMargins(0, 0, 0, 0)
        page_layout.addWidget(self.layer_note)
        page_layout.addWidget(self.no_type)
        page_layout.addWidget(self.form)
        page_layout.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidget(page)
        scroll.setWidgetResizable(True)
        split = QSplitter(Qt.Orientation.Vertical, self)
        split.addWidget(top)
        split.addWidget(scroll)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(split)
        self.types: list[FoliageType] = []
        self.counts: dict[str, int] = {}
        self.layer_names: list[str] = []
        self.mesh_folder = None  # where mesh file paths resolve (the scene's folder)
        self._thumbnails_held = False  # `hold_thumbnails`: drawn placeholders for now
        self._unrendered: list[str] = []  # types whose item shows a placeholder, rendered one a tick
        self._render_timer = QTimer(self)
        self._render_timer.setInterval(0)
        self._render_timer.timeout.connect(self._render_next)
        self.list.itemSelectionChanged.connect(self._on_selection)
        self.list.currentItemChanged.connect(lambda *_: self._show_current())
        self.form.edited.connect(self._on_form_edit)
        self.form.stepped.connect(self._on_form_step)

    # ---- showing ------------------------------------------------------------------------
    def set_types(self, types: list[FoliageType], counts: dict[str, int], active: list[str],
                  layer_names: list[str] = (), mesh_folder=None) -> None:
        """Show the palette, keeping `active` selected, without emitting `active_changed`.

        Mesh file paths resolve against `mesh_folder` (the scene's folder; None: the working folder)."""
        self.types, self.counts, self.layer_names = list(types), dict(counts), list(layer_names)
        self.mesh_folder = mesh_folder
        current = self.current_name()
        if current not in [t.name for t in self.types]:
            current = next((n for n in active if n in [t.name for t in self.types]), None)
        self.list.blockSignals(True)
        self.list.clear()
        self._unrendered = []
        for ftype in self.types:
            item = QListWidgetItem(self._label(ftype))
            item.setData(NAME_ROLE, ftype.name)
            self._decorate(item, ftype, rendered=not self._thumbnails_held)
            if self._thumbnails_held:
                self._unrendered.append(ftype.name)
            self.list.addItem(item)
            if ftype.name in active:
                item.setSelected(True)
            if ftype.name == current:
                self.list.setCurrentItem(item, QItemSelectionModel.SelectionFlag.NoUpdate)
        self.list.blockSignals(False)
        self._show_layer_note()
        self._show_current()

    def _decorate(self, item: QListWidgetItem, ftype: FoliageType, rendered: bool = True) -> None:
        """The item's thumbnail (rendered from the mesh, or for now its drawn placeholder) and tooltip."""
        missing = self.missing_layer(ftype)
        if rendered:
            pm, unreadable = thumbnail_pixmap(ftype, THUMB, self.mesh_folder)
        else:
            pm, unreadable = _silhouette(ftype.mesh, THUMB), None
        item.setIcon(QIcon(pm if missing is None else _warning_badge(pm)))
        tip = f"{ftype.name}: {ftype.mesh}, {ftype.storage}, density {ftype.density:g}/100 m²"
        if unreadable is not None:
            tip += f"\n⚠ the mesh file cannot be read ({unreadable}): a placeholder is drawn"
        if missing is not None:
            tip += (f"\n⚠ filters on terrain layer '{missing}', which this terrain does not have: "
                    "it places nothing until a layer of that name exists or the filter changes")
        item.setToolTip(tip)

    def hold_thumbnails(self) -> None:
        """Show drawn placeholders instead of rendering the meshes until `release_thumbnails` (the
        editor's start: the viewport's first frame comes first)."""
        self._thumbnails_held = True

    def release_thumbnails(self) -> None:
        """Render the placeholders' thumbnails, a slice of time per pass of the event loop (the window
        stays live)."""
        self._thumbnails_held = False
        if self._unrendered:
            self._render_timer.start()

    def thumbnails_pending(self) -> bool:
        """Whether some items still show a placeholder for a thumbnail not rendered yet."""
        return bool(self._unrendered)

    def _render_next(self) -> None:
        if self._thumbnails_held or not self._unrendered:
            self._render_timer.stop()
            return
        started = time.perf_counter()
        while self._unrendered and time.perf_counter() - started < RENDER_SLICE_S:
            name = self._unrendered.pop(0)
            ftype = next((t for t in self.types if t.name == name), None)
            item = next((self.list.item(i) for i in range(self.list.count())
                         if self.list.item(i).data(NAME_ROLE) == name), None)
            if ftype is not None and item is not None:
                self._decorate(item, ftype)
        if not self._unrendered:
            self._render_timer.stop()

    def _show_layer_note(self) -> None:
        stranded = [t.name for t in self.types if t.stored and self.missing_layer(t) is not None]
        layers = sorted({self.missing_layer(t) for t in self.types if self.missing_layer(t) is not None})
        if not layers:
            self.layer_note.hide()
            return
        names = ", ".join(f"'{n}'" for n in layers)
        who = (f"{len(stranded)} type{'s' if len(stranded) != 1 else ''}" if stranded else "Derived types")
        self.layer_note.setText(f"⚠ {who} filter on terrain layer{'s' if len(layers) != 1 else ''} {names}, "
                                "which this terrain does not have: they place nothing until such a layer is "
                                "added and painted (Layers) or their Layer filter is cleared.")
        self.layer_note.setToolTip("Types: " + ", ".join(t.name for t in self.types if self.missing_layer(t)))
        self.layer_note.show()

    def missing_layer(self, ftype: FoliageType) -> str | None:
        """The layer `ftype` filters on when the terrain has no layer of that name."""
        if ftype.layer is None or ftype.layer.name in self.layer_names:
            return None
        return ftype.layer.name

    def _label(self, ftype: FoliageType) -> str:
        n = self.counts.get(ftype.name, 0)
        tag = " · derived" if ftype.derived else f" · {n:,} instance{'s' if n != 1 else ''}"
        return f"{ftype.name}{tag}"

    def set_counts(self, counts: dict[str, int]) -> None:
        self.counts = dict(counts)
        for i in range(self.list.count()):
            item = self.list.item(i)
            ftype = next((t for t in self.types if t.name == item.data(NAME_ROLE)), None)
            if ftype is not None:
                item.setText(self._label(ftype))

    def item_texts(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def names(self) -> list[str]:
        return [self.list.item(i).data(NAME_ROLE) for i in range(self.list.count())]

    def current_name(self) -> str | None:
        item = self.list.currentItem()
        return item.data(NAME_ROLE) if item is not None else None

    def active_names(self) -> list[str]:
        return [self.list.item(i).data(NAME_ROLE) for i in range(self.list.count())
                if self.list.item(i).isSelected()]

    def select(self, names: list[str], current: str | None = None) -> None:
        """Make `names` the active types (emits `active_changed`)."""
        for i in range(self.list.count()):
            item = self.list.item(i)
            item.setSelected(item.data(NAME_ROLE) in names)
            if item.data(NAME_ROLE) == (current or (names[0] if names else None)):
                self.list.setCurrentItem(item, QItemSelectionModel.SelectionFlag.NoUpdate)
        self._show_current()

    # ---- events -------------------------------------------------------------------------
    def _with_current(self, emit) -> None:
        name = self.current_name()
        if name is not None:
            emit(name)

    def _on_selection(self) -> None:
        self.active_changed.emit(self.active_names())

    def _show_current(self) -> None:
        name = self.current_name()
        ftype = next((t for t in self.types if t.name == name), None)
        self.form.set_type(ftype, self.layer_names, self.mesh_folder)
        self.form.setVisible(ftype is not None)
        self.no_type.setVisible(ftype is None)
        self.buttons["duplicate"].setEnabled(ftype is not None)
        self.buttons["remove"].setEnabled(ftype is not None)

    def _on_form_edit(self, new: FoliageType, key: str) -> None:
        name = self.current_name()
        if name is not None:
            self.type_edited.emit(name, new, key)

    def _on_form_step(self, new: FoliageType, key: str, text: str) -> None:
        name = self.current_name()
        if name is not None:
            self.type_stepped.emit(name, new, key, text)
