"""A form for every key of a `.vxfoliage` type. Edits are not applied here: `edited(new_type, key)`
carries each change so the editor can push an undoable command."""

from __future__ import annotations

import math
from dataclasses import replace

from PySide6.QtCore import QEvent, QTimer, Signal
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from model.foliage.foliage_type import (
    BUILTIN_MESHES,
    STORAGES,
    Extent,
    FoliageType,
    LayerFilter,
    edit_problem,
)
from model.foliage.mesh_files import copy_into_folder
from widgets.form_fields import ask_mesh_file, compact, relative_mesh_path, spin
from widgets.lod_list import LodList
from widgets.variant_list import FILE_ITEM, VariantList

NO_LAYER = "(no layer filter)"


_spin = spin  # the form's spin boxes and combo boxes (shared with its variant and level lists)
_compact = compact


DERIVED_IGNORES = ("Not used by derived (grass) types: they are scattered on the GPU from density, "
                   "layer, scale, yaw and cull alone")


class RangeEdit(QWidget):
    """Two spin boxes, min and max."""

    def __init__(self, low: float, high: float, step: float, suffix: str = "", tip: str = "") -> None:
        super().__init__()
        self.low = _spin(low, high, step, suffix=suffix, tip=f"{tip} (min)")
        self.high = _spin(low, high, step, suffix=suffix, tip=f"{tip} (max)")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(3)
        layout.addWidget(self.low, 1)  # equal halves: every row's "to" lines up
        layout.addWidget(QLabel("to"))
        layout.addWidget(self.high, 1)

    def value(self) -> tuple[float, float]:
        return (self.low.value(), self.high.value())

    def set_value(self, value: tuple[float, float]) -> None:
        self.low.setValue(value[0])
        self.high.setValue(value[1])


class ErrorLabel(QLabel):
    """The form's refusal: red, wrapped, and scrolled into view whenever it says something."""

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self.said.emit(text)

    said = Signal(str)


class FoliageTypeForm(QWidget):
    """Shows one FoliageType; `edited(FoliageType, key)` for every change the user makes."""

    edited = Signal(object, str)  # a setting changed; successive changes of one key may merge
    stepped = Signal(object, str, str)  # one step of its own: new type, key, undo text ("{type}": name)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("foliage_type_form")
        self.ftype: FoliageType | None = None
        self._tips: dict[QWidget, str] = {}  # each row's own tooltip, while a derived type hides it
        self.mesh_folder = None  # where mesh file paths resolve (the scene's folder)
        self._loading = False
        self.name = QLineEdit()
        self.name.setToolTip("Unique within the palette")
        self.mesh = _compact(QComboBox())
        self.mesh.setEditable(True)
        self.mesh.addItems([f"builtin:{m}" for m in BUILTIN_MESHES])
        self.mesh.addItem(FILE_ITEM)  # an OBJ/glTF file of the scene's folder
        self.mesh.setToolTip("A built-in mesh, or an OBJ/glTF path relative to the .vxfoliage")
        self.choose_file = lambda: ask_mesh_file(self, self.mesh_folder)
        self.storage = _compact(QComboBox())
        self.storage.addItems(list(STORAGES))
        self.storage.setToolTip("stored: instances with identity, saved · "
                                "derived: grass from rules, never saved")
        self.density = _spin(0, 1e6, 0.1, 3, " /100 m²", "Instances per 100 m² at full brush strength")
        self.spacing = _spin(0, 1e4, 0.5, 2, " m", "No new instance this close to another")
        self.scale = RangeEdit(1e-4, 1e4, 0.05, "", "Uniform scale")
        self.yaw = RangeEdit(-720, 720, 5, "°", "Random rotation about up")
        self.tilt = RangeEdit(-90, 90, 1, "°", "Random lean (a negative lean leans the other way)")
        self.align = _spin(0, 1, 0.05, 2, "", "0: upright · 1: along the surface normal")
        self.sink = RangeEdit(-1e4, 1e4, 0.05, " m", "Pushed into the ground")
        self.slope = RangeEdit(0, 90, 1, "°", "Allowed surface slope")
        self.altitude_on = QCheckBox("Altitude")  # the row's label: the row fits a 240 px column
        self.altitude_on.setToolTip("Tick to grow only within a height band")
        self.altitude = RangeEdit(-1e5, 1e5, 1, " m", "Allowed height")
        self.layer = _compact(QComboBox())
        self.layer.setEditable(True)
        self.layer.setMinimumContentsLength(5)  # beside the weight, in a 240 px column
        self.layer.setToolTip("Grow only where this terrain layer (found by name) is painted enough")
        self.min_weight = _spin(0, 1, 0.05, 2, "", "Least layer weight (0..1)")
        self.min_weight.setMinimumWidth(48)  # "0.40"
        self.extent_auto = QCheckBox("from the mesh")
        self.extent_auto.setToolTip("Take the size from the mesh (untick to give radius and height "
                                    "yourself); chunk bounds grow by it so edge trees are not culled early")
        self.extent_radius = _spin(0, 1e4, 0.1, 2, " m", "Extent radius (sideways)")
        self.extent_radius.setPrefix("r ")
        self.extent_height = _spin(0, 1e4, 0.5, 2, " m", "Extent height (upward)")
        self.extent_height.setPrefix("h ")
        self.activation = _spin(0, 1e5, 1, 1, " m", "Within this distance of a physics point an instance "
                                "gets a body (0: never)")
        self.cull = RangeEdit(0, 1e6, 10, " m", "Where the meshes fade out (start to end): impostors take "
                              "over across it when on, else nothing is drawn beyond")
        self.variants = VariantList()
        self.hue = RangeEdit(-180, 180, 1, "°", "Hue shift of each instance, drawn from its hash")
        self.value = RangeEdit(-1, 1, 0.05, "", "Brightness change of each instance (-0.2: 20 % darker)")
        self.lods = LodList()
        self.impostor = QCheckBox("cards past cull")
        self.impostor.setToolTip("Beyond the cull distances draw camera-facing cards baked from the mesh, so "
                                 "the forest shows at any distance (off: nothing is drawn past cull)")
        self.impostor_end_on = QCheckBox("end at")
        self.impostor_end_on.setToolTip("End the cards too, at this distance (off: to the horizon)")
        self.impostor_end = _spin(0, 1e7, 100, 0, " m", "Where the impostor cards end (beyond the cull end)")
        self.error = ErrorLabel("")
        self.error.setStyleSheet("color: #c0392b")
        self.error.setWordWrap(True)
        self.copy_in = QPushButton("Copy into the scene's folder")
        self.copy_in.setObjectName("form_copy_mesh")
        self.copy_in.setToolTip("Copy the chosen mesh file (and the files it names) into meshes/ beside "
                                "the scene, and use the copy")
        self.copy_in.hide()
        self._outside: tuple[str, object] | None = None  # the file refused for lying outside, and its use
        self.error_row = QWidget()
        error_layout = QVBoxLayout(self.error_row)
        error_layout.setContentsMargins(0, 0, 0, 0)
        error_layout.addWidget(self.error)
        error_layout.addWidget(self.copy_in)

        form = QFormLayout(self)
        form.setContentsMargins(4, 4, 0, 4)  # the scroll bar beside it is margin enough
        form.setHorizontalSpacing(4)
        form.addRow("Name", self.name)
        form.addRow("Mesh", self.mesh)
        form.addRow("Storage", self.storage)
        form.addRow("Density", self.density)
        form.addRow("Spacing", self.spacing)
        form.addRow("Scale", self.scale)
        form.addRow("Yaw", self.yaw)
        form.addRow("Tilt", self.tilt)
        form.addRow("Align", self.align)
        form.addRow("Sink", self.sink)
        form.addRow("Slope", self.slope)
        form.addRow(self.altitude_on, self.altitude)
        row = QHBoxLayout()
        row.setSpacing(3)
        row.addWidget(self.layer, 1)
        row.addWidget(self.min_weight)
        form.addRow("Layer", row)
        form.addRow("Extent", self.extent_auto)
        row = QHBoxLayout()
        row.setSpacing(3)
        row.addWidget(self.extent_radius, 1)
        row.addWidget(self.extent_height, 1)
        form.addRow("", row)
        form.addRow("Activation", self.activation)
        form.addRow("Hue", self.hue)
        form.addRow("Value", self.value)
        form.addRow("Cull", self.cull)
        row = QHBoxLayout()
        row.addWidget(self.impostor)
        row.addStretch(1)
        form.addRow("Impostor", row)
        row = QHBoxLayout()
        row.addWidget(self.impostor_end_on)
        row.addWidget(self.impostor_end, 1)
        form.addRow("Cards end", row)
        self._boxes: list[QGroupBox] = []
        for title, widget in (("Variants", self.variants), ("Levels of detail", self.lods)):
            box = QGroupBox(title)
            self._boxes.append(box)
            box.setObjectName(f"form_{title.split()[0].lower()}")
            inner = QVBoxLayout(box)
            inner.setContentsMargins(4, 4, 4, 4)
            inner.addWidget(widget)
            form.addRow(box)
        form.addRow(self.error_row)

        self.name.editingFinished.connect(lambda: self._edit("name"))
        self.mesh.activated.connect(lambda *_: self._mesh_activated())
        self.mesh.lineEdit().editingFinished.connect(lambda: self._edit("mesh"))
        self.storage.activated.connect(lambda *_: self._edit("storage"))
        for key in ("density", "spacing", "align", "activation"):
            getattr(self, key).valueChanged.connect(lambda *_, k=key: self._edit(k))
        for key in ("scale", "yaw", "tilt", "sink", "slope", "altitude", "cull", "hue", "value"):
            edit: RangeEdit = getattr(self, key)
            edit.low.valueChanged.connect(lambda *_, k=key: self._edit(k))
            edit.high.valueChanged.connect(lambda *_, k=key: self._edit(k))
        self.altitude_on.toggled.connect(lambda *_: self._edit("altitude"))
        self.layer.activated.connect(lambda *_: self._edit("layer"))
        self.layer.lineEdit().editingFinished.connect(lambda: self._edit("layer"))
        self.min_weight.valueChanged.connect(lambda *_: self._edit("layer"))
        self.extent_auto.toggled.connect(lambda *_: self._edit("extent"))
        self.extent_radius.valueChanged.connect(lambda *_: self._edit("extent"))
        self.extent_height.valueChanged.connect(lambda *_: self._edit("extent"))
        self.impostor.toggled.connect(lambda *_: self._edit("impostor"))
        self.impostor_end_on.toggled.connect(lambda *_: self._edit("impostor_cull"))
        self.impostor_end.valueChanged.connect(lambda *_: self._edit("impostor_cull"))
        self.variants.edited.connect(self._variants_edited)
        self.lods.edited.connect(self._lods_edited)
        self.variants.refused.connect(self.error.setText)
        self.lods.refused.connect(self.error.setText)
        self.variants.outside.connect(self._offer_copy)
        self.lods.outside.connect(self._offer_copy)
        self.error.said.connect(self._on_said)
        self.copy_in.clicked.connect(self.copy_outside_file)
        self.setEnabled(False)

    def set_type(self, ftype: FoliageType | None, layer_names: list[str] = (), mesh_folder=None) -> None:
        """Show `ftype` (None: nothing to edit) without emitting `edited`; mesh file paths resolve
        against `mesh_folder` (the scene's folder; None: the working folder)."""
        self.ftype = ftype
        self.mesh_folder = mesh_folder
        self._loading = True
        try:
            self.setEnabled(ftype is not None)
            self.error.setText("")
            if ftype is None:
                return
            self.name.setText(ftype.name)
            self.mesh.setCurrentText(ftype.mesh)
            self.storage.setCurrentText(ftype.storage)
            self.density.setValue(ftype.density)
            self.spacing.setValue(ftype.spacing)
            for key in ("scale", "yaw", "tilt", "sink", "slope", "cull", "hue", "value"):
                getattr(self, key).set_value(getattr(ftype, key))
            self.align.setValue(ftype.align)
            bounded = all(math.isfinite(v) for v in ftype.altitude)
            self.altitude_on.setChecked(bounded)
            self.altitude.set_value(ftype.altitude if bounded else (0.0, 100.0))
            self.altitude.setEnabled(bounded)
            self.layer.clear()
            names = [NO_LAYER, *layer_names]
            if ftype.layer is not None and ftype.layer.name not in names:
                names.append(ftype.layer.name)  # a missing layer stays visible, so it can be fixed
            self.layer.addItems(names)
            self.layer.setCurrentText(ftype.layer.name if ftype.layer else NO_LAYER)
            self.min_weight.setValue(ftype.layer.min_weight if ftype.layer else 0.5)
            self.min_weight.setEnabled(ftype.layer is not None)
            extent = ftype.resolved_extent(mesh_folder)  # a mesh file's own bounds
            self.extent_auto.setChecked(ftype.extent is None)
            self.extent_radius.setValue(extent.radius)
            self.extent_height.setValue(extent.height)
            self.extent_radius.setEnabled(ftype.extent is not None)
            self.extent_height.setEnabled(ftype.extent is not None)
            self.activation.setValue(ftype.activation_radius)
            self.variants.set_variants(ftype.variants, ftype.mesh, mesh_folder)
            self.lods.set_type(ftype, mesh_folder)
            self._show_far(ftype)
        finally:
            self._loading = False

    # ---- mesh files ---------------------------------------------------------------------------
    def _mesh_activated(self) -> None:
        if self.mesh.currentText() != FILE_ITEM:
            self._edit("mesh")
            return
        if self.ftype is not None:
            self.mesh.setCurrentText(self.ftype.mesh)  # until a file is taken
        path = self.choose_file()
        if not path or self.ftype is None:
            return
        mesh, why = relative_mesh_path(path, self.mesh_folder)
        if why is not None:
            self.error.setText(f"mesh: {why}")
            if self.mesh_folder is not None:
                self._offer_copy(path, self._use_mesh_file)
            return
        self._use_mesh_file(mesh)

    def _use_mesh_file(self, mesh: str) -> None:
        self.mesh.setCurrentText(mesh)
        self._edit("mesh")

    def _offer_copy(self, path: str, use) -> None:
        """The refusal just said names a file outside the scene's folder: offer to copy it in."""
        self._outside = (path, use)
        self.copy_in.show()
        QTimer.singleShot(0, self._reveal_error)

    def _on_said(self, _text: str) -> None:
        self._outside = None  # a new message: an earlier offer no longer applies
        self.copy_in.hide()
        if self.error.text():
            QTimer.singleShot(0, self._reveal_error)

    def _reveal_error(self) -> None:
        """Scroll the form's scroll area to the refusal (it sits below the variant and level lists)."""
        area = self.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        if area is not None and self.error.text():
            QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)  # the row's size as shown
            area.ensureWidgetVisible(self.error_row)

    def copy_outside_file(self) -> None:
        """Copy the refused file into the scene's folder and use the copy where it was chosen."""
        if self._outside is None or self.mesh_folder is None:
            return
        path, use = self._outside
        try:
            mesh = copy_into_folder(path, self.mesh_folder)
        except OSError as e:
            self.error.setText(f"{path}: could not copy it into {self.mesh_folder} "
                               f"({getattr(e, 'strerror', None) or e})")
            return
        self.error.setText("")
        use(mesh)

    def _show_storage(self, ftype: FoliageType) -> None:
        """Derived (grass) types are scattered from density, layer, scale, yaw and cull alone: the
        other rows are greyed for them and say so, rather than taking edits that change nothing."""
        derived = not ftype.stored
        always = [self.spacing, self.tilt, self.align, self.sink, self.slope, self.altitude_on,
                  self.extent_auto, self.activation, self.hue, self.value, self.impostor, *self._boxes]
        sometimes = [self.altitude, self.extent_radius, self.extent_height, self.impostor_end_on,
                     self.impostor_end]
        for widget in always + sometimes:
            if widget not in self._tips:
                self._tips[widget] = widget.toolTip()
            widget.setToolTip(DERIVED_IGNORES if derived else self._tips[widget])
            if derived:
                widget.setEnabled(False)
        if not derived:
            for widget in always:
                widget.setEnabled(True)

    def value_of(self, key: str):
        """The form's current value for one `.vxfoliage` key, as FoliageType holds it."""
        if key == "name":
            return self.name.text().strip()
        if key == "mesh":
            return self.mesh.currentText().strip()
        if key == "storage":
            return self.storage.currentText()
        if key in ("density", "spacing", "align"):
            return getattr(self, key).value()
        if key == "activation":
            return self.activation.value()
        if key == "impostor":
            return self.impostor.isChecked()
        if key == "impostor_cull":
            return self.impostor_end.value() if self.impostor_end_on.isChecked() else None
        if key == "altitude":
            return self.altitude.value() if self.altitude_on.isChecked() else (-math.inf, math.inf)
        if key == "layer":
            name = self.layer.currentText().strip()
            return None if name in ("", NO_LAYER) else LayerFilter(name, self.min_weight.value())
        if key == "extent":
            if self.extent_auto.isChecked():
                return None
            return Extent(self.extent_radius.value(), self.extent_height.value())
        return getattr(self, key).value()

    def _edit(self, key: str) -> None:
        if self._loading or self.ftype is None:
            return
        field = "activation_radius" if key == "activation" else key
        value = self.value_of(key)
        if isinstance(value, tuple) and value[0] > value[1]:
            self.error.setText(f"{field}: min {value[0]:g} is greater than max {value[1]:g}")
            return
        if key == "name" and not value:
            self.error.setText("name: a type needs a name")
            return
        if key == "mesh" and not (value.startswith("builtin:") and value[8:] in BUILTIN_MESHES
                                  or value.lower().endswith((".obj", ".gltf", ".glb"))):
            self.error.setText(f"mesh: {value!r} is neither a built-in mesh nor an OBJ/glTF file")
            return
        end = self.ftype.impostor_cull
        if key == "cull" and self.ftype.impostor and end is not None and value[1] >= end:
            self.error.setText(f"cull: the end {value[1]:g} m must come before the cards' end ({end:g} m); "
                               "move Cards end first")
            return
        if key == "impostor_cull" and value is not None and value <= self.ftype.cull[1]:
            self.error.setText(f"impostor_cull: the cards must end beyond the cull end "
                               f"({self.ftype.cull[1]:g} m), got {value:g} m")
            return
        self.error.setText("")
        if getattr(self.ftype, field) == value:
            self._show_far(self.ftype)
            return
        new = replace(self.ftype, **{field: value})
        problem = edit_problem(new, self.ftype, self.mesh_folder)
        if problem is not None:
            self.error.setText(problem)
            return
        self.altitude.setEnabled(self.altitude_on.isChecked())
        self.min_weight.setEnabled(new.layer is not None)
        self.extent_radius.setEnabled(new.extent is not None)
        self.extent_height.setEnabled(new.extent is not None)
        self._show_far(new)
        self.ftype = new
        self._show_lists(new)
        if key == "impostor":
            self.stepped.emit(new, field, f"{'Impostors for' if value else 'No impostors for'} '{{type}}'")
        else:
            self.edited.emit(new, field)

    def _show_far(self, ftype: FoliageType) -> None:
        """The impostor rows as `ftype` has them (no signals: only while loading or after an edit)."""
        loading, self._loading = self._loading, True
        try:
            self.impostor.setChecked(ftype.impostor)
            self.impostor_end_on.setChecked(ftype.impostor_cull is not None)
            self.impostor_end_on.setEnabled(ftype.impostor)
            if ftype.impostor_cull is not None:
                self.impostor_end.setValue(ftype.impostor_cull)
            elif not self.impostor_end_on.isChecked():
                self.impostor_end.setValue(max(3000.0, ftype.cull[1] * 10))  # what ticking "end at" offers
            self.impostor_end.setEnabled(ftype.impostor and ftype.impostor_cull is not None)
            self.mesh.setEnabled(not ftype.variants)
            self.mesh.setToolTip("The variants below are drawn: this mesh is drawn when the list is empty"
                                 if ftype.variants else
                                 "A built-in mesh, or an OBJ/glTF path relative to the scene's folder")
            self._show_storage(ftype)
        finally:
            self._loading = loading

    def _show_lists(self, ftype: FoliageType) -> None:
        """The variant and level lists as the edit just asked for (the model's answer reloads them)."""
        loading, self._loading = self._loading, True
        try:
            self.variants.set_variants(ftype.variants, ftype.mesh, self.mesh_folder)
            self.lods.set_type(ftype, self.mesh_folder)
        finally:
            self._loading = loading

    def _commit(self, new: FoliageType, key: str, text: str, merge: bool) -> None:
        """Check `new` and hand it on: one step of its own, or one that may merge with the last."""
        if self.ftype is None or self._loading:
            return
        problem = edit_problem(new, self.ftype, self.mesh_folder)
        if problem is not None:
            self.error.setText(problem)
            return
        self.error.setText("")
        if new == self.ftype:
            return
        self.ftype = new
        self._show_far(new)
        self._show_lists(new)
        if merge:
            self.edited.emit(new, key)
        else:
            self.stepped.emit(new, key, text)

    def _variants_edited(self, variants, key: str, text: str, merge: bool) -> None:
        if self.ftype is None:
            return
        for i, v in enumerate(variants):
            if not v.weight > 0:
                self.error.setText(f"variant {i + 1} weight: must be greater than 0, got {v.weight:g} "
                                   "(a variant of weight 0 is never drawn: remove it instead)")
                return
        if len(variants) == 1:  # one variant is just the type's mesh
            new = replace(self.ftype, variants=(), mesh=variants[0].mesh)
        else:
            new = replace(self.ftype, variants=tuple(variants), mesh=variants[0].mesh if variants
                          else self.ftype.mesh)
        self._commit(new, key, text, merge)

    def _lods_edited(self, lods, key: str, text: str, merge: bool) -> None:
        if self.ftype is not None:
            self._commit(replace(self.ftype, lods=lods), key, text, merge)
