"""Engine interchange in the editor: File ▸ Export ▸ glTF… / USD… / CSV… and File ▸ Import ▸ Foliage…"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.extensions import Exporter, Importer

SUFFIXES = {"gltf": (".glb", ".gltf"), "usd": (".usdc", ".usda", ".usdz"), "csv": (".csv", ".json")}
FILTERS = {"gltf": "glTF 2.0 (*.glb *.gltf)", "usd": "USD (*.usdc *.usda *.usdz)",
           "csv": "Instances as CSV or JSON (*.csv *.json)"}
IMPORT_FILTER = "Foliage instances (*.glb *.gltf *.usda *.usdc *.usdz *.csv *.json)"
FOLDER_KEY = "export/folder"


def _settings(main_window: Any):
    settings = getattr(main_window, "settings", None)
    return getattr(settings, "qsettings", None)


def _start(main_window: Any, name: str) -> str:
    q = _settings(main_window)
    folder = q.value(FOLDER_KEY, "") if q is not None else ""
    if not folder or not Path(str(folder)).is_dir():
        folder = str(main_window.start_folder()) if hasattr(main_window, "start_folder") else ""
    return str(Path(str(folder)) / name) if folder else name


def _progress(bar):
    def report(done: int, total: int) -> bool:
        bar.step(done / total if total else 1.0)
        return not bar.cancelled()
    return report


def _scene_bounds(scene) -> tuple[float, float, float, float]:
    t = scene.terrain
    x0, z0 = t.origin
    x1, z1 = x0 + (t.columns - 1) * t.spacing, z0 + (t.rows - 1) * t.spacing
    return float(x0), float(z0), float(x1), float(z1)


def export_dialog(main_window: Any, kind: str):
    """Ask for the file and the options, then export the open scene with progress and Cancel.
    Returns the ExportReport, or None when cancelled or failed (the error was shown)."""
    from PySide6.QtWidgets import QDialog, QFileDialog

    from widgets.export_dialog import ExportOptionsDialog

    scene = main_window.document.scene
    stem = scene.path.stem if scene.path is not None else scene.name
    chosen, _ = QFileDialog.getSaveFileName(main_window, f"Export {FILTERS[kind].split(' (')[0]}",
                                            _start(main_window, stem + SUFFIXES[kind][0]), FILTERS[kind])
    if not chosen:
        return None
    path = Path(chosen)
    if path.suffix.lower() not in SUFFIXES[kind]:
        path = path.with_name(path.name + SUFFIXES[kind][0])
    volume = getattr(scene.sections.get("foliage"), "volume", None)
    counts = volume.counts() if volume is not None else {}
    dialog = ExportOptionsDialog(kind, path, counts, _scene_bounds(scene), _settings(main_window),
                                 main_window)
    main_window.export_options_dialog = dialog  # for scripts and tests
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    try:
        options = dialog.options()
    except ValueError as e:
        main_window.show_error("Could not export", str(e))
        return None
    dialog.remember()
    q = _settings(main_window)
    if q is not None:
        q.setValue(FOLDER_KEY, str(path.parent))
    return export_with_progress(main_window, path, options)


def export_with_progress(main_window: Any, path: Path, options):
    from model.errors import FormatError
    from model.interchange import Cancelled, export_scene
    from widgets.progress import ModalProgress

    scene = main_window.document.scene
    title = "Could not export"
    try:
        with ModalProgress(main_window, f"Exporting {path.name}…") as bar:
            main_window.export_progress = bar
            report = export_scene(scene, path, options, _progress(bar))
    except Cancelled:
        main_window.statusBar().showMessage(f"Export cancelled: {path} was not written", 10000)
        return None
    except FormatError as e:
        main_window.show_error(title, str(e))
        return None
    except ValueError as e:
        main_window.show_error(title, f"{path.name}: {e}")
        return None
    except OSError as e:
        main_window.show_error(title, f"{path}: {e.strerror or e}")
        return None
    except ImportError as e:
        main_window.show_error(title, f"{path.name}: this export needs the Python package that provides "
                               f"'{e.name}' (usd-core for USD); reinstall Boscage with its dependencies")
        return None
    kinds = len(report.types)
    parts = f"{report.instances:,} instances of {kinds} type{'s' if kinds != 1 else ''}"
    if report.terrain_vertices:
        parts += f" and {report.terrain_vertices:,} terrain vertices"
    message = f"Exported {parts} to {path} ({report.bytes / 1e6:.1f} MB)"
    if report.warnings:  # a layer texture that could not be read: baked in the layer's colour
        message += f"; {report.warnings[0]}" + (f" (and {len(report.warnings) - 1} more)"
                                                if len(report.warnings) > 1 else "")
    main_window.statusBar().showMessage(message, 10000)
    return report


def import_foliage_dialog(main_window: Any) -> None:
    """File ▸ Import ▸ Foliage: read instances from a file into the open scene as one undo step."""
    from PySide6.QtWidgets import QFileDialog

    from app.interchange_commands import ImportFoliageCommand
    from model.errors import FormatError
    from model.interchange import Cancelled, read_foliage
    from model.interchange.merge import add_to_scene
    from widgets.progress import ModalProgress

    chosen, _ = QFileDialog.getOpenFileName(main_window, "Import Foliage", _start(main_window, ""),
                                            IMPORT_FILTER)
    if not chosen:
        return None
    path = Path(chosen)
    try:
        with ModalProgress(main_window, f"Reading {path.name}…") as bar:
            imported = read_foliage(path, _progress(bar))
    except Cancelled:
        main_window.statusBar().showMessage("Import cancelled: the scene is unchanged", 8000)
        return None
    except FormatError as e:
        main_window.show_error("Could not import foliage", str(e))
        return None
    except ImportError as e:
        main_window.show_error("Could not import foliage", f"{path.name}: reading it needs the Python "
                               f"package that provides '{e.name}' (usd-core for USD)")
        return None
    if imported.count == 0:
        main_window.show_error("Could not import foliage", f"{path}: holds no foliage instances")
        return None
    scene = main_window.document.scene
    try:
        result = add_to_scene(scene, imported)
    except (OSError, FormatError) as e:  # a new type's mesh file could not be written beside the scene
        main_window.show_error("Could not import foliage", getattr(e, "message", None) or f"{e}")
        return None
    if not result.total and not result.new_types:
        main_window.show_error("Could not import foliage", f"{path}: nothing could be added ("
                               + "; ".join(result.warnings[:3]) + ")")
        return None
    main_window.document.undo_stack.push(ImportFoliageCommand(scene, result, f"Import foliage {path.name}"))
    main_window.last_import = result
    text = f"Imported {result.total:,} instances from {path.name}"
    if result.new_types:
        text += f"; new types: {', '.join(t.name for t in result.new_types)}"
    if result.warnings:
        text += f" ({len(result.warnings)} warning{'s' if len(result.warnings) != 1 else ''}: " \
                f"{result.warnings[0]})"
    main_window.statusBar().showMessage(text, 15000)
    return None


EXPORTERS = [
    Exporter("gltf", "&glTF…", lambda w: export_dialog(w, "gltf"), shortcut="Ctrl+E",
             tooltip="Terrain and foliage as glTF 2.0 (.glb / .gltf) with GPU instancing, for Godot, "
                     "Unity, Unreal and Blender"),
    Exporter("usd", "&USD…", lambda w: export_dialog(w, "usd"),
             tooltip="Terrain and foliage as USD (.usdc / .usda / .usdz) point instancers, for Omniverse, "
                     "Houdini, Blender, Unreal and Unity"),
    Exporter("csv", "&CSV…", lambda w: export_dialog(w, "csv"),
             tooltip="One row per instance (type, position, rotation, scale) for engine-side import scripts"),
]

IMPORTERS = [
    Importer("foliage", "&Foliage…", import_foliage_dialog, into_open_scene=True, shortcut="Ctrl+I",
             tooltip="Add foliage instances from glTF, USD, CSV or JSON to the open scene (one undo step)"),
]
