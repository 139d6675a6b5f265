"""File ▸ Import ▸ TRN as scene: choose the file, a region and a spacing, then import with progress."""

from __future__ import annotations

import math
from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QMessageBox,
    QWidget,
)

from model.errors import FormatError
from model.scene import Scene
from model.trn import document as trn_document
from model.trn.document import TrnDocument
from model.trn.evaluator import TILE as EVALUATION_TILE
from model.trn.evaluator import Region
from model.trn.to_scene import MAX_STREAM_POLES
from widgets.import_target import ask_scene_path, is_large
from widgets.progress import BatchProgress, Relay, in_background

DEFAULT_POLES = 513  # per side: a whole map at a spacing that imports in seconds
BATCH_POLES = 4_000_000  # from here an import is evaluated on worker processes (their start pays off)


class RegionDialog(QDialog):
    """Region (world metres) and pole spacing of an import, with the resulting grid size."""

    def __init__(self, doc: TrnDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        name = Path(doc.path).name if getattr(doc, "path", None) else "TRN"
        self.setWindowTitle(f"Import {name} as scene")
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
    """Ask for the file and region (unless given) and import with the batch jobs' progress dialog:
    tiles done, their rate and the time left, and Cancel, which stops the workers at once, writes
    nothing and leaves the open scene as it is."""
    from model.batch import BatchCancelled, listening
    from model.trn.to_scene import ImportCancelled, trn_to_scene, write_trn_scene

    if path is None:
        path, _ = QFileDialog.getOpenFileName(parent, "Import TRN as scene", "",
                                              "TRN terrain generators (*.trn);;All files (*)")
        if not path:
            return None
    try:
        doc = in_background(lambda: trn_document.read(path))  # ~1,400 items: half a second
        if region is None:
            dialog = RegionDialog(doc, parent)
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return None
            region = dialog.region()
        # a big region is evaluated on one worker thread per core, as `trn bake` does
        workers = None if region.rows * region.cols >= BATCH_POLES else 1
        starting = ""
        title = f"Importing {Path(path).name}"
        warnings: list[str] = []
        large = is_large(region.rows, region.cols)
        out = None
        if large:  # written tile by tile, then opened paged
            out = ask_scene_path(parent, "Save the Imported Scene As", Path(path).with_suffix(".boscage"))
            if out is None:
                return None
        try:
            with BatchProgress(parent, f"{title}: evaluating", "tiles", starting, at_once=True) as bar:
                # on a helper thread, the whole import (the scene built from the evaluation too): the
                # window stays drawn and Cancel is heard while a tile or the flora takes seconds
                steps = _StreamSteps(bar, title) if large else _EvaluationSteps(bar, title, region)
                relay = Relay(steps, lambda: bar.dialog.wasCanceled())

                def work(report: Relay) -> Scene:
                    from widgets.viewport import prepare_opening

                    with listening(report.alive):  # heard while the workers compute
                        if large:
                            return write_trn_scene(doc, region, out, progress=report, warnings=warnings,
                                                   workers=workers)
                        scene = trn_to_scene(doc, region, progress=report, warnings=warnings, workers=workers)
                    prepare_opening(scene)  # found here, not when the window opens the scene
                    return scene

                scene = relay.run(work)
        except (ImportCancelled, BatchCancelled):
            return None
        _warn(parent, path, warnings)
        return scene
    except (FormatError, ValueError) as e:
        QMessageBox.critical(parent, "Cannot import TRN file", str(e))
        return None


class _Phase:
    """Shows one phase of an import on a `BatchProgress`: its name, and its own tiles' rate."""

    def __init__(self, bar: BatchProgress, title: str) -> None:
        self.bar, self.title, self.what = bar, title, "evaluating"

    def show(self, what: str, done: int, total: int) -> bool:
        if what != self.what:  # a new phase counts its own tiles, rate and time left
            from model.batch import RateMeter

            self.what, self.bar.meter = what, RateMeter()
        self.bar.label = f"{self.title}: {what}"
        return self.bar.step(done, total)


class _StreamSteps(_Phase):
    """`write_trn_scene`'s `progress(done, total, what)`: its two passes over the scene tiles
    (evaluating, then writing the layers) each shown as that many tiles."""

    def __call__(self, done: int, total: int, what: str) -> bool:
        tiles = max(total // 2, 1)
        return self.show(what, done if what == "evaluating" else done - tiles, tiles)


class _EvaluationSteps(_Phase):
    """`trn_to_scene`'s `progress(fraction, what)` as tiles: the evaluation reports 0.8 × done /
    total of the evaluator's tiles (512² poles each, the batch job's too); the scene is then built
    from the evaluation (the bar stays full)."""

    def __init__(self, bar: BatchProgress, title: str, region: Region) -> None:
        super().__init__(bar, title)
        self.tiles = math.ceil(region.rows / EVALUATION_TILE) * math.ceil(region.cols / EVALUATION_TILE)

    def __call__(self, fraction: float, what: str) -> bool:
        if what == "evaluating":
            return self.show(what, min(self.tiles, round(fraction / 0.8 * self.tiles)), self.tiles)
        return self.show("building the scene" if what != "done" else what, self.tiles, self.tiles)


def _warn(parent: QWidget | None, path: str | Path, warnings: list[str]) -> None:
    if warnings:  # e.g. poles whose height is not finite, or a missing fractal family
        listed = "\n".join(f"• {w}" for w in warnings)
        QMessageBox.warning(parent, "TRN imported with warnings",
                            f"{Path(path).name} was imported, but:\n\n{listed}")
