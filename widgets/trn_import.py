"""File ▸ Import ▸ TRN as scene: choose the file, a region and a spacing, then import with progress."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QMessageBox,
    QProgressDialog,
    QWidget,
)

from model.errors import FormatError
from model.scene import Scene
from model.trn import document as trn_document
from model.trn.document import TrnDocument
from model.trn.evaluator import Region
from model.trn.to_scene import MAX_STREAM_POLES
from widgets.import_target import TileProgress, ask_scene_path, is_large

DEFAULT_POLES = 513  # per side: a whole map at a spacing that imports in seconds
BATCH_POLES = 4_000_000  # from here an import is evaluated on worker processes (their start pays off)


class RegionDialog(QDialog):
    """Region (world metres) and pole spacing of an import, with the resulting grid size."""

    def __init__(self, doc: TrnDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import TRN as scene")
        half = doc.map_width / 2.0
        form = QFormLayout(self)
        self.fields: dict[str, QDoubleSpinBox] = {}
        for key, value, side in [("x0", -half, "West"), ("z0", -half, "South"),
                                 ("x1", half, "East"), ("z1", half, "North")]:
            box = QDoubleSpinBox(decimals=1, minimum=-half * 4 - 1, maximum=half * 4 + 1, value=value)
            box.setSuffix(" m")
            box.setToolTip(f"{side} edge of the region in world metres (the map spans ±{half:g} m)")
            box.valueChanged.connect(self._update)
            self.fields[key] = box
            form.addRow(f"{side} edge ({key})", box)
        spacing = max(doc.map_width / (DEFAULT_POLES - 1), doc.pole_spacing)
        self.spacing = QDoubleSpinBox(decimals=3, minimum=0.01, maximum=10000.0, value=spacing, suffix=" m")
        self.spacing.setToolTip(f"Metres between poles (the file's own: {doc.pole_spacing:g} m)")
        self.spacing.valueChanged.connect(self._update)
        form.addRow("Spacing", self.spacing)
        self.size_label = QLabel()
        form.addRow("Grid", self.size_label)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form.addRow(self.buttons)
        self._update()

    def region(self) -> Region:
        f = {k: b.value() for k, b in self.fields.items()}
        return Region.from_bounds(f["x0"], f["z0"], f["x1"], f["z1"], self.spacing.value())

    def _update(self) -> None:
        r = self.region()
        poles = r.rows * r.cols
        ok = poles <= MAX_STREAM_POLES and r.rows >= 2 and r.cols >= 2
        note = "" if ok else " — too many or too few"
        if ok and is_large(r.rows, r.cols):
            note = " — written to a scene file first, then opened from it"
        self.size_label.setText(f"{r.cols} × {r.rows} poles" + note)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)


def import_trn_scene(parent: QWidget | None, path: str | Path | None = None,
                     region: Region | None = None) -> Scene | None:
    """Ask for the file and region (unless given) and import with a cancellable progress dialog."""
    from model.trn.to_scene import ImportCancelled, trn_to_scene, write_trn_scene

    if path is None:
        path, _ = QFileDialog.getOpenFileName(parent, "Import TRN as scene", "",
                                              "TRN terrain generators (*.trn);;All files (*)")
        if not path:
            return None
    try:
        doc = trn_document.read(path)
        if region is None:
            dialog = RegionDialog(doc, parent)
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return None
            region = dialog.region()
        # a big region is evaluated on one worker process per core, as `trn bake` does
        workers = None if region.rows * region.cols >= BATCH_POLES else 1
        warnings: list[str] = []
        if is_large(region.rows, region.cols):  # written tile by tile, then opened paged
            out = ask_scene_path(parent, "Save the Imported Scene As", Path(path).with_suffix(".boscage"))
            if out is None:
                return None
            try:
                with TileProgress(parent, f"Importing {Path(path).name}") as tiles:
                    scene = write_trn_scene(doc, region, out, progress=tiles, warnings=warnings,
                                            workers=workers)
            except ImportCancelled:
                return None
            _warn(parent, path, warnings)
            return scene
        progress_dialog = QProgressDialog("Importing TRN…", "Cancel", 0, 100, parent)
        progress_dialog.setWindowModality(Qt.WindowModality.WindowModal)
        progress_dialog.setMinimumDuration(300)

        def progress(fraction: float, what: str) -> bool:
            progress_dialog.setLabelText(f"Importing {Path(path).name}: {what}")
            progress_dialog.setValue(int(fraction * 100))
            QApplication.processEvents()
            return not progress_dialog.wasCanceled()

        try:
            scene = trn_to_scene(doc, region, progress=progress, warnings=warnings, workers=workers)
        except ImportCancelled:
            return None
        finally:
            progress_dialog.close()
        _warn(parent, path, warnings)
        return scene
    except (FormatError, ValueError) as e:
        QMessageBox.critical(parent, "Cannot import TRN file", str(e))
        return None


def _warn(parent: QWidget | None, path: str | Path, warnings: list[str]) -> None:
    if warnings:  # e.g. poles whose height is not finite, or a missing fractal family
        listed = "\n".join(f"• {w}" for w in warnings)
        QMessageBox.warning(parent, "TRN imported with warnings",
                            f"{Path(path).name} was imported, but:\n\n{listed}")
