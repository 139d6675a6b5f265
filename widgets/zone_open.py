"""Dialogs that open a zone folder: pick the zone id, ask its size when it is not square, import it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMessageBox, QProgressDialog, QWidget

from model.errors import FormatError
from model.scene import Scene
from model.zones import Zone, no_zone_with, read_zone, zone_ids
from widgets.import_target import TileProgress, ask_scene_path, is_large


def ask_zone(parent: QWidget | None, folder: str | Path, needs: tuple[str, ...] = ()) -> Zone | None:
    """The zone in `folder` (asking which when there are several); None if the user cancels. Only
    zones with a file for every layer in `needs` are offered. Bad files raise FormatError."""
    ids = zone_ids(folder, needs)
    if not ids:
        raise no_zone_with(folder, needs)
    zone_id = ids[0]
    if len(ids) > 1:
        choices = [str(i) for i in ids]
        text, ok = QInputDialog.getItem(parent, "Open zone", "Zone id:", choices, 0, False)
        if not ok:
            return None
        zone_id = int(text)
    try:
        return read_zone(folder, zone_id, require=needs)
    except FormatError as e:
        if "give the zone size" not in e.reason:
            raise
        text, ok = QInputDialog.getText(parent, "Zone size", f"{e.reason}\n\nZone size (W or WxH):")
        if not ok:
            return None
        return read_zone(folder, zone_id, size=text, require=needs)


def warn_left_out(parent: QWidget | None, zone: Zone) -> None:
    """Say which layer files were left out (and why) before going on with the rest of the zone."""
    if zone.warnings:
        QMessageBox.warning(parent, f"Zone {zone.zone_id}: layers left out",
                            "\n\n".join(zone.warnings) + "\n\nThe rest of the zone is used.")


def import_zone_scene(parent: QWidget | None, folder: str | Path | None = None,
                      tile_size: float | None = None) -> Scene | None:
    """File ▸ Import ▸ Zone as scene: folder, zone, tile size, then the scene (with progress and cancel)."""
    from model.zones.scene_import import ImportCancelled, write_zone_scene, zone_to_scene

    if folder is None:
        folder = QFileDialog.getExistingDirectory(parent, "Import zone folder as scene")
        if not folder:
            return None
    try:
        zone = ask_zone(parent, folder, needs=("altitude",))  # a scene needs its terrain
        if zone is None:
            return None
        warn_left_out(parent, zone)
        if tile_size is None:
            tile_size, ok = QInputDialog.getDouble(parent, "Import zone", "Tile size (metres):", 1.0,
                                                   0.01, 100.0, 3)
            if not ok:
                return None
        if is_large(zone.height, zone.width):  # written tile by tile, then opened paged
            out = ask_scene_path(parent, "Save the Imported Scene As",
                                 Path(folder) / f"zone {zone.zone_id:04d}.boscage")
            if out is None:
                return None
            try:
                with TileProgress(parent, f"Importing zone {zone.zone_id}") as tiles:
                    return write_zone_scene(zone, out, tile_size=tile_size, progress=tiles)
            except ImportCancelled:
                return None
        dialog = QProgressDialog("Importing zone…", "Cancel", 0, 100, parent)
        dialog.setWindowModality(Qt.WindowModal)
        dialog.setMinimumDuration(300)

        def progress(fraction: float, what: str) -> bool:
            dialog.setLabelText(f"Importing zone {zone.zone_id}: {what}")
            dialog.setValue(int(fraction * 100))
            QApplication.processEvents()
            return not dialog.wasCanceled()

        try:
            return zone_to_scene(zone, tile_size=tile_size, progress=progress)
        except ImportCancelled:
            return None
        finally:
            dialog.close()
    except (FormatError, ValueError) as e:
        QMessageBox.critical(parent, "Cannot import zone", str(e))
        return None
