"""Biome browser: a WorldGen biome set with overlays, inheritance, provenance and validation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QIcon, QKeySequence, QPixmap, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMessageBox,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from model.biomes import BiomeAsset, BiomeSet, export_flattened, load_biome_set
from model.errors import FormatError
from widgets.biome_panels import (
    ERROR_COLOR,
    WARNING_COLOR,
    FieldsTree,
    IssuesTree,
    ProfilePlot,
    WeightsChart,
    ZoneOrderTable,
    bold,
    short_name,
)
from widgets.error_dialog import user_message

GROUPS = (("Tile", "Tile biomes"), ("Custom", "Custom biomes"), (None, "Unresolved type"))
KEY_ROLE = Qt.ItemDataRole.UserRole


def swatch(color: tuple[int, int, int]) -> QIcon:
    pixmap = QPixmap(14, 14)
    pixmap.fill(QColor(*color))
    return QIcon(pixmap)


class BiomeBrowser(QWidget):
    """Open a biome folder (and overlay folders) and inspect every asset; nothing here edits them."""

    setChanged = Signal(object)  # BiomeSet or None
    assetSelected = Signal(object)  # BiomeAsset or None

    def __init__(self, main_window: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("biome_browser")
        self.main_window = main_window
        self.biomes: BiomeSet | None = None
        self.folders: list[Path] = []
        self.current: BiomeAsset | None = None
        self.last_error: str | None = None
        self._layer_target: Callable[[list[BiomeAsset]], list[str]] | None = None
        self.list_items: dict[str, QTreeWidgetItem] = {}

        self.open_button = self._button("Open folder…", self.open_dialog,
                                        "Open a folder of biome *.json assets (Ctrl+O)")
        self.overlay_button = self._button("Add overlay…", self.add_overlay_dialog,
                                           "Add a folder whose same-key files overlay the ones loaded")
        self.reload_button = self._button("Reload", self.reload, "Read the folders again (F5)")
        self.export_button = self._button("Export resolved…", self.export_dialog,
                                          "Write the selected biome, flattened (no Parent), as JSON (Ctrl+E)")
        self.layers_button = self._button("Add Tile biomes as layers", self.add_layers,
                                          "Add an empty terrain paint layer per Tile biome, in its map "
                                          "colour, so foliage types can filter on biome names")
        for key, slot in ((QKeySequence.StandardKey.Open, self.open_dialog),
                          (QKeySequence(Qt.Key.Key_F5), self.reload),
                          (QKeySequence("Ctrl+E"), self.export_dialog)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        top = QHBoxLayout()
        for b in (self.open_button, self.overlay_button, self.reload_button, self.export_button,
                  self.layers_button):
            top.addWidget(b)
        top.addStretch(1)
        self.summary = QLabel("No biome folder open.", objectName="biome_summary", wordWrap=True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.asset_list = QTreeWidget(objectName="biome_list")
        self.asset_list.setHeaderLabels(["Biome", "Issues"])
        self.asset_list.setToolTip("Biomes grouped by Type, with their map colour and error count")
        self.asset_list.currentItemChanged.connect(self._on_current_item)
        self.chain_label = QLabel("", objectName="biome_chain", wordWrap=True)
        self.chain_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.fields = FieldsTree()
        self.chain = QListWidget(objectName="biome_inheritance")
        self.chain.setToolTip("This biome, its parent, grandparent…, with the files of each (base first)")
        self.issues = IssuesTree()
        self.profile = ProfilePlot()
        self.weights = WeightsChart()
        self.zones = ZoneOrderTable()
        self.tags = QListWidget(objectName="biome_tags")
        self.tags.setToolTip("Tags expanded: plain tags, keys, values, then key=value")
        self.tabs = QTabWidget(objectName="biome_tabs")
        for widget, title, tip in (
            (self.fields, "Resolved", "The resolved asset with the file behind every field"),
            (self.chain, "Inheritance", "The Parent chain and the overlay files of each link"),
            (self.issues, "Issues", "Errors and warnings, each naming file and JSON path"),
            (self.profile, "Height profile", "TerrainHeightThreshold plotted: Positions → Values"),
            (self.weights, "Tile weights", "Tile weights in map colours"),
            (self.zones, "Zone order", "Per-zone order table of converted memberships; conflicts in red"),
            (self.tags, "Tags", "The expanded tags"),
        ):
            self.tabs.setTabToolTip(self.tabs.addTab(widget, title), tip)
        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.chain_label)
        right_layout.addWidget(self.tabs, 1)
        split = QSplitter()
        split.addWidget(self.asset_list)
        split.addWidget(right)
        split.setStretchFactor(1, 3)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self._update_buttons()

    def _button(self, text: str, slot: Callable, tip: str) -> QPushButton:
        button = QPushButton(text)
        button.setToolTip(tip)
        button.clicked.connect(slot)
        return button

    # ---- loading ------------------------------------------------------------------------
    def open_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Open biome folder")
        if folder:
            self.load_folders([folder])

    def add_overlay_dialog(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add overlay folder")
        if folder:
            self.load_folders([*self.folders, folder])

    def reload(self) -> None:
        if self.folders:
            self.load_folders(self.folders, keep_selection=True)

    def load_folders(self, folders: Sequence[str | Path], keep_selection: bool = False) -> bool:
        """Load a set; a missing folder is reported and what was open stays open."""
        selected = self.current.key if self.current and keep_selection else None
        try:
            biomes = load_biome_set(folders)
        except FormatError as e:
            self.show_error("Cannot open biome folder", str(e))
            return False
        self.folders = [Path(f) for f in folders]
        self.set_biomes(biomes, selected)
        return True

    def set_biomes(self, biomes: BiomeSet | None, select: str | None = None) -> None:
        self.biomes = biomes
        self.last_error = None
        self._fill_list()
        self.zones.show_set(biomes)
        self.summary.setText(self._summary_text())
        self.setChanged.emit(biomes)
        first = next((k for k, a in biomes.assets.items() if a.resolved), None) if biomes else None
        self.select_asset(select if biomes and select in biomes else first)

    def _summary_text(self) -> str:
        b = self.biomes
        if b is None:
            return "No biome folder open."
        folders = " + ".join(str(f) for f in self.folders) or "(in memory)"
        resolved = sum(a.resolved for a in b.assets.values())
        return (f"{folders}: {len(b.assets)} biomes ({len(b.of_type('Tile'))} Tile, "
                f"{len(b.of_type('Custom'))} Custom), {resolved} resolved — "
                f"{counted(len(b.errors), 'error')}, {counted(len(b.warnings), 'warning')}")

    def _fill_list(self) -> None:
        self.asset_list.blockSignals(True)
        self.asset_list.clear()
        self.list_items = {}
        for kind, title in GROUPS:
            members = [a for a in (self.biomes.assets.values() if self.biomes else []) if a.type == kind]
            if not members:
                continue
            group = QTreeWidgetItem(self.asset_list, [f"{title} ({len(members)})", ""])
            group.setFlags(Qt.ItemFlag.ItemIsEnabled)
            bold(group)
            for asset in members:
                item = QTreeWidgetItem(group, [asset.key, badge_text(asset)])
                item.setData(0, KEY_ROLE, asset.key)
                item.setIcon(0, swatch(asset.color))
                if asset.errors:
                    item.setForeground(1, QBrush(ERROR_COLOR))
                elif asset.warnings:
                    item.setForeground(1, QBrush(WARNING_COLOR))
                item.setToolTip(0, asset.chain_text())
                item.setToolTip(1, "\n".join(i.message for i in asset.issues))
                self.list_items[asset.key] = item
        self.asset_list.expandAll()
        self.asset_list.resizeColumnToContents(0)
        self.asset_list.blockSignals(False)

    # ---- selection ----------------------------------------------------------------------
    def select_asset(self, key: str | None) -> None:
        item = self.list_items.get(key) if key else None
        if item is not None and self.asset_list.currentItem() is not item:
            self.asset_list.setCurrentItem(item)  # → _on_current_item
        else:
            self._show(self.biomes.assets.get(key) if self.biomes and key else None)

    def _on_current_item(self, item: QTreeWidgetItem | None, _previous=None) -> None:
        key = item.data(0, KEY_ROLE) if item else None
        if key is not None and self.biomes is not None:
            self._show(self.biomes.assets.get(key))

    def _show(self, asset: BiomeAsset | None) -> None:
        self.current = asset
        self.fields.show_asset(asset)
        self.issues.show_asset(asset)
        self.profile.show_asset(asset)
        self.weights.show_set(self.biomes, asset.key if asset else None)
        self.chain.clear()
        self.tags.clear()
        if asset is not None:
            for key in asset.chain or [asset.key]:
                link = self.biomes.assets[key]
                files = ", ".join(short_name(f.path) for f in link.files)
                self.chain.addItem(f"{key}   ({files})")
            self.tags.addItems(asset.tags)
            state = ("not resolved" if not asset.resolved else
                     f"{counted(len(asset.errors), 'error')}, {counted(len(asset.warnings), 'warning')}")
            self.chain_label.setText(f"<b>{asset.key}</b> [{asset.type or '?'}] — "
                                     f"{asset.chain_text()} — {state}")
        else:
            self.chain_label.setText("")
        self._update_buttons()
        self.assetSelected.emit(asset)

    # ---- actions ------------------------------------------------------------------------
    def set_layer_target(self, target: Callable[[list[BiomeAsset]], list[str]] | None) -> None:
        """Who adds Tile biomes as terrain layers (the editor wires this); None disables the button."""
        self._layer_target = target
        self._update_buttons()

    def _update_buttons(self) -> None:
        has_set = self.biomes is not None
        self.overlay_button.setEnabled(has_set)
        self.reload_button.setEnabled(has_set)
        self.export_button.setEnabled(self.current is not None and self.current.resolved)
        tiles = has_set and any(a.resolved for a in self.biomes.of_type("Tile"))
        self.layers_button.setEnabled(bool(tiles and self._layer_target is not None))

    def add_layers(self) -> list[str]:
        if self.biomes is None or self._layer_target is None:
            return []
        added = self._layer_target(self.biomes.of_type("Tile"))
        self.summary.setText(self._summary_text() + f"\nAdded {len(added)} terrain layer(s)"
                             + (f": {', '.join(added)}" if added else " (every Tile biome has one)"))
        return added

    def export_dialog(self) -> None:
        if self.current is None or not self.current.resolved:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export resolved biome", f"{self.current.key}.json",
                                              "Biome assets (*.json)")
        if path:
            self.export_current(path)

    def export_current(self, path: str | Path) -> bool:
        try:
            export_flattened(self.current, path)
        except (FormatError, OSError) as e:
            self.show_error("Cannot export biome", user_message(e))
            return False
        return True

    def show_error(self, title: str, message: str) -> None:
        """Say what is wrong without blocking; the open set stays as it was."""
        self.last_error = message
        box = QMessageBox(QMessageBox.Icon.Critical, title, message, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("biome_error")
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()


def counted(n: int, noun: str) -> str:
    """'1 error', '3 errors'."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def badge_text(asset: BiomeAsset) -> str:
    parts = []
    if asset.errors:
        parts.append(f"⚠ {len(asset.errors)}")
    if asset.warnings:
        parts.append(f"{len(asset.warnings)} warn")
    return "  ".join(parts)
