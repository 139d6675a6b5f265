"""The Inspector's values stay on screen in a narrow dock, whatever the length of the names."""

from __future__ import annotations

import numpy as np
import pytest

from model.foliage import FoliageType, foliage_of
from tests.gui_helpers import pixels


def ink(image: np.ndarray, rect, background: np.ndarray) -> int:
    """Pixels inside `rect` that differ clearly from the row's background: drawn text."""
    patch = image[rect.top():rect.bottom() + 1, rect.left():rect.right() + 1].astype(int)
    return int((np.abs(patch - background).sum(axis=-1) > 150).sum())


@pytest.mark.parametrize("width", [200, 260, 420])
def test_size_and_spacing_values_show_in_a_narrow_dock(main_window, qtbot, width) -> None:
    scene = main_window.document.scene
    foliage_of(scene).palette.add(FoliageType("imported_flora_family_radial_far_grass_tall_dry_01"))
    scene.terrain.add_layer("terrain_shader_family_meadow_lush_grass_with_flowers",
                            (90, 160, 60), np.zeros(scene.terrain.heights.shape, np.uint8))
    main_window.resize(1200, 800)
    main_window.show()
    dock = main_window.docks["inspector"]
    dock.setFloating(True)
    dock.resize(width, 520)
    dock.show()
    qtbot.waitExposed(dock)
    inspector = main_window.inspector
    inspector.refresh()
    qtbot.wait(20)
    tree = inspector.tree
    image = pixels(tree.viewport().grab().toImage())
    fm = tree.fontMetrics()
    for name in ("Size", "Spacing"):
        item = tree.findItems(name, inspector_flags(), 0)[0]
        rect = tree.visualRect(tree.indexFromItem(item, 1))
        visible = rect.intersected(tree.viewport().rect())
        assert visible.width() >= fm.horizontalAdvance(item.text(1)), (name, item.text(1), visible, width)
        background = image[rect.center().y(), tree.viewport().width() - 2].astype(int)
        assert ink(image, visible, background) > 20, name  # its text is drawn there
    # the long names are elided, not the values; a name's tooltip holds it in full
    names = tree.header().sectionSize(0)
    assert names < tree.viewport().width() * 0.75
    long_item = tree.findItems("imported_flora_family_radial_far_grass_tall_dry_01", inspector_flags(), 0)[0]
    assert long_item.toolTip(0) == long_item.text(0)


def inspector_flags():
    from PySide6.QtCore import Qt

    return Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive
