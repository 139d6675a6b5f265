"""The biome browser as a tool window, and Tile biomes imported as terrain paint layers (undoable)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtGui import QUndoCommand

from app.extensions import Importer, ToolWindow
from model.biomes import BiomeAsset, add_biome_layers, load_biome_set
from model.scene import Scene
from model.terrain import Terrain


class AddBiomeLayersCommand(QUndoCommand):
    """Add an empty paint layer per Tile biome; undo removes exactly the layers it added."""

    def __init__(self, terrain: Terrain, assets: Iterable[BiomeAsset]) -> None:
        super().__init__("Add biome layers")
        self.terrain = terrain
        self.assets = list(assets)
        self.added: list[str] = []

    def redo(self) -> None:
        self.added = add_biome_layers(self.terrain, self.assets)
        self.setText(f"Add {len(self.added)} biome layer(s)")
        self.setObsolete(not self.added)  # nothing new: the stack drops the step

    def undo(self) -> None:
        if not self.added:
            return
        names = set(self.added)
        self.terrain.layers[:] = [layer for layer in self.terrain.layers if layer.name not in names]
        self.terrain.layers_changed.emit()


def add_layers_to_document(main_window: Any, assets: Iterable[BiomeAsset]) -> list[str]:
    """Add Tile biome layers to the open scene as one undo step; the names added."""
    document = main_window.document
    command = AddBiomeLayersCommand(document.scene.terrain, assets)
    document.undo_stack.push(command)  # runs redo()
    return list(command.added)


def create_browser(main_window: Any):
    from widgets.biome_browser import BiomeBrowser

    browser = BiomeBrowser(main_window)
    if getattr(main_window, "document", None) is not None:
        browser.set_layer_target(lambda assets: add_layers_to_document(main_window, assets))
    return browser


def import_biome_layers(main_window: Any, folders: Sequence[str | Path] | None = None) -> Scene | None:
    """Tile biomes of a folder as layers: onto the open scene (returns None), else in a new flat scene."""
    if folders is None:
        from PySide6.QtWidgets import QFileDialog

        folder = QFileDialog.getExistingDirectory(main_window, "Tile biomes as terrain layers")
        if not folder:
            return None
        folders = [folder]
    biomes = load_biome_set(folders)
    if getattr(main_window, "document", None) is not None:
        add_layers_to_document(main_window, biomes.of_type("Tile"))
        return None
    from app.document import new_scene

    scene = new_scene()
    add_biome_layers(scene.terrain, biomes.of_type("Tile"))
    scene.name = Path(folders[0]).name or "Biomes"
    return scene


WINDOWS = [
    ToolWindow(
        key="biomes",
        title="Biome Browser",
        create=create_browser,
        shortcut="Ctrl+Shift+B",
        tooltip="Inspect WorldGen biome assets: overlays, Parent inheritance with the origin of every "
                "field, validation, height profile, Tile weights, zone order and tags",
    )
]

IMPORTERS = [
    Importer(
        key="biome_layers",
        title="Tile biomes as terrain layers…",
        run=import_biome_layers,
        tooltip="Add an empty paint layer per Tile biome of a folder, coloured by MapColor, to the open "
                "scene (one undo step)",
    )
]
