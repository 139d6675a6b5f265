"""Collision view: place a probe (or follow the camera) and see which instances have bodies.

Shows how many instances have a body per type and the last update's difference (added, removed);
instances beyond their type's activation radius of every probe have none, and the panel says so.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from model.foliage.collision import FoliageCollision
from model.foliage.volume import FoliageAddress


class CollisionPanel(QWidget):
    """A probe position, an Update button, and what `FoliageCollision.update` answered."""

    probe_moved = Signal(object)  # (x, y, z) of the probe
    camera_requested = Signal()  # the editor answers with `set_probe(camera target)`
    place_requested = Signal(bool)  # the next click in the viewport places the probe
    updated = Signal(object, object)  # added, removed addresses

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("collision_panel")
        self.collision: FoliageCollision | None = None
        self.x = QDoubleSpinBox(self)
        self.y = QDoubleSpinBox(self)
        self.z = QDoubleSpinBox(self)
        for box, axis in ((self.x, "x"), (self.y, "y"), (self.z, "z")):
            box.setRange(-1e6, 1e6)
            box.setDecimals(1)
            box.setSuffix(" m")
            box.setKeyboardTracking(False)
            box.setToolTip(f"Probe {axis}: a physics-relevant point (a player, a projectile)")
        self.place = QPushButton("Place by click", self)
        self.place.setCheckable(True)
        self.place.setToolTip("Click the ground in the viewport to put the probe there")
        self.place.toggled.connect(self.place_requested)
        self.use_camera = QPushButton("Probe at camera", self)
        self.use_camera.setToolTip("Put the probe at the point the camera looks at, and update")
        self.update_button = QPushButton("Update", self)
        self.update_button.setToolTip("Give bodies to instances near the probe; show what changed")
        self.summary = QLabel("No update yet.", self)
        self.summary.setObjectName("collision_summary")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 2, self)
        self.table.setHorizontalHeaderLabels(["Type", "Bodies"])
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().hide()
        probe = QHBoxLayout()
        for box in (self.x, self.y, self.z):
            probe.addWidget(box)
        form = QFormLayout()
        form.addRow("Probe", probe)
        buttons = QHBoxLayout()
        buttons.addWidget(self.place)
        buttons.addWidget(self.use_camera)
        buttons.addWidget(self.update_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(buttons)
        layout.addWidget(self.summary)
        layout.addWidget(self.table)
        self.use_camera.clicked.connect(self.camera_requested)
        self.update_button.clicked.connect(self.update_bodies)
        self.last: tuple[list[FoliageAddress], list[FoliageAddress]] = ([], [])

    def set_volume(self, volume) -> None:
        if self.collision is not None:
            self.collision.volume.changed.disconnect(self._on_chunks_changed)
        self.collision = FoliageCollision(volume) if volume is not None else None
        if volume is not None:
            volume.changed.connect(self._on_chunks_changed)
        self.last = ([], [])
        self.summary.setText("No update yet.")
        self.table.setRowCount(0)

    def probe(self) -> tuple[float, float, float]:
        return (self.x.value(), self.y.value(), self.z.value())

    def set_probe(self, point, update: bool = True) -> None:
        for box, v in zip((self.x, self.y, self.z), point, strict=True):
            box.setValue(float(v))
        self.probe_moved.emit(self.probe())
        if update:
            self.update_bodies()

    def _on_chunks_changed(self, keys) -> None:
        # Only bodies whose address now names another instance are gone (an erased one and those
        # that shifted down after it); an append keeps every body, so the next update reports
        # just the instances that really changed.
        if self.collision is None or not self.collision.active:
            return
        self.collision.forget_changed(keys)

    def forget(self, addresses) -> None:
        """After instances were removed: their addresses may now hold other instances."""
        if self.collision is not None:
            self.collision.forget(addresses)

    def forget_removed(self, removed) -> list:
        """After `volume.remove` returned `removed`: forget the removed and shifted bodies."""
        return self.collision.forget_removed(removed) if self.collision is not None else []

    def update_bodies(self) -> None:
        if self.collision is None:
            return
        added, removed = self.collision.update([self.probe()])
        self.last = (added, removed)
        active = self.collision.active
        per_type: dict[str, int] = {}
        for address in active:
            per_type[address.type] = per_type.get(address.type, 0) + 1
        total = len(self.collision.volume)
        self.summary.setText(
            f"{len(active)} of {total} instances have a body (+{len(added)} −{len(removed)} since the last "
            f"update). The other {total - len(active)} are farther than their type's activation radius "
            f"from the probe: nothing collides with them.")
        palette = self.collision.volume.palette
        names = [t.name for t in palette if t.stored]
        self.table.setRowCount(len(names))
        for row, name in enumerate(names):
            radius = palette[name].activation_radius
            self.table.setItem(row, 0, QTableWidgetItem(name))
            text = str(per_type.get(name, 0)) if radius > 0 else "never (activation radius 0)"
            self.table.setItem(row, 1, QTableWidgetItem(text))
        self.updated.emit(added, removed)
