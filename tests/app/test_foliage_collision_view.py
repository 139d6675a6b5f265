"""The collision view keeps bodies an edit did not invalidate: an append costs nothing, an erase
forgets the erased and shifted bodies only, and the shifted instance gets its body back."""

from __future__ import annotations

import numpy as np

from model.foliage.foliage_type import FoliageType
from model.foliage.palette import Palette
from model.foliage.volume import FoliageAddress, FoliageVolume
from widgets.collision_panel import CollisionPanel


def rec(*xz) -> np.ndarray:
    return np.array([[x, 0.0, z, 0, 0, 0, 1] for x, z in xz], np.float32)


def A(i: int, cell=(0, 0)) -> FoliageAddress:
    return FoliageAddress(cell, "tree", i)


def panel_on(qtbot) -> tuple[CollisionPanel, FoliageVolume]:
    volume = FoliageVolume(Palette([FoliageType("tree", activation_radius=10.0)]), 32.0)
    volume.add("tree", rec((1, 1), (5, 1), (25, 1), (3, 2)))
    panel = CollisionPanel()
    qtbot.addWidget(panel)
    panel.set_volume(volume)
    panel.set_probe((0.0, 0.0, 0.0))
    assert panel.last == ([A(0), A(1), A(3)], [])
    return panel, volume


def test_an_append_to_a_chunk_with_bodies_reports_only_the_new_instances(qtbot) -> None:
    panel, volume = panel_on(qtbot)
    volume.add("tree", rec((2, 6), (28, 28), (4, 4)))  # two within 10 m of the probe, one beyond
    assert panel.collision.active == {A(0), A(1), A(3)}  # nothing the append touched is forgotten
    panel.update_bodies()
    assert panel.last == ([A(4), A(6)], [])
    assert panel.summary.text().startswith("5 of 7 instances have a body (+2 −0")


def test_an_erase_gives_the_shifted_instance_its_body(qtbot) -> None:
    panel, volume = panel_on(qtbot)
    volume.remove([A(1)])  # (25, 1) moves to 1, (3, 2) to 2
    assert panel.collision.active == {A(0)}  # the erased body and those after it are forgotten
    panel.update_bodies()
    assert panel.last == ([A(2)], [])
    assert panel.collision.active == {A(0), A(2)}
    np.testing.assert_array_equal(volume.records((0, 0), "tree")[2], rec((3, 2))[0])
