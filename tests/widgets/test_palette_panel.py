"""The Palette panel: thumbnails rendered from the meshes, counts, active types, requests."""

from __future__ import annotations

import numpy as np
import pytest

from model.foliage import FoliageType, builtin_palette
from model.foliage.foliage_type import Lod, Variant
from rendering.meshes import builtin_mesh
from widgets.palette_panel import PalettePanel, render_mesh, thumbnail

BACKGROUND = (206, 220, 232)


def rgb(pixmap) -> np.ndarray:
    image = pixmap.toImage().convertToFormat(pixmap.toImage().Format.Format_RGB888)
    w, h = image.width(), image.height()
    data = np.frombuffer(image.constBits(), np.uint8, image.bytesPerLine() * h)
    return data.reshape(h, image.bytesPerLine())[:, : w * 3].reshape(h, w, 3).copy()


@pytest.mark.parametrize("name", ["conifer", "broadleaf", "bush", "rock", "grass"])
def test_thumbnails_are_rendered_from_the_mesh(qtbot, name) -> None:
    mesh = builtin_mesh(name)
    img = rgb(render_mesh(mesh.vertices, 64, mesh.materials))
    drawn = np.any(img != BACKGROUND, axis=-1)
    assert 0.05 < drawn.mean() < 0.9  # the mesh fills a fair share of the square, not all of it
    ys, xs = np.nonzero(drawn)
    assert abs((xs.min() + xs.max()) / 2 - 32) <= 4  # fitted and centred
    colours = img[drawn].astype(float)
    mesh_colours = mesh.surface_colours() * 255
    # Shaded mesh colours (edges blend with the background): mostly no brighter than the mesh's brightest.
    assert np.mean(colours.max(axis=1) <= mesh_colours.max() + 2) > 0.7


def test_conifer_and_rock_thumbnails_differ_in_shape_and_colour(qtbot) -> None:
    tree = builtin_mesh("conifer")
    conifer = rgb(render_mesh(tree.vertices, 48, tree.materials))
    rock = rgb(render_mesh(builtin_mesh("rock").vertices, 48))
    c, r = np.any(conifer != BACKGROUND, -1), np.any(rock != BACKGROUND, -1)
    assert (c != r).mean() > 0.1
    assert conifer[c][:, 1].mean() > conifer[c][:, 0].mean()  # needles are green
    assert abs(rock[r][:, 1].mean() - rock[r][:, 0].mean()) < 12  # stone is grey


def test_panel_lists_types_with_counts_and_reports_the_active_ones(qtbot) -> None:
    panel = PalettePanel()
    qtbot.addWidget(panel)
    types = list(builtin_palette())
    panel.set_types(types, {"conifer": 1234, "rock": 1}, ["rock"], ["grass", "rock"])
    assert panel.item_texts() == ["conifer · 1,234 instances", "broadleaf · 0 instances",
                                  "bush · 0 instances", "rock · 1 instance", "grass · derived"]
    assert panel.active_names() == ["rock"]
    assert all(not panel.list.item(i).icon().isNull() for i in range(panel.list.count()))
    seen = []
    panel.active_changed.connect(seen.append)
    panel.select(["conifer", "bush"])
    assert seen[-1] == ["conifer", "bush"] and panel.current_name() == "conifer"
    assert panel.form.name.text() == "conifer" and panel.form.slope.value() == types[0].slope
    requests = []
    panel.duplicate_requested.connect(lambda n: requests.append(("dup", n)))
    panel.remove_requested.connect(lambda n: requests.append(("rm", n)))
    panel.buttons["duplicate"].click()
    panel.buttons["remove"].click()
    assert requests == [("dup", "conifer"), ("rm", "conifer")]
    panel.set_counts({"conifer": 2})
    assert panel.item_texts()[0] == "conifer · 2 instances"


def test_form_edits_carry_every_key(qtbot) -> None:
    panel = PalettePanel()
    qtbot.addWidget(panel)
    panel.set_types([FoliageType("fern")], {}, ["fern"], ["moss"])
    edits = []
    panel.type_edited.connect(lambda old, new, key: edits.append((old, key, new)))
    form = panel.form
    form.density.setValue(4.0)
    form.spacing.setValue(2.5)
    form.scale.high.setValue(2.0)
    form.yaw.low.setValue(10.0)
    form.tilt.high.setValue(7.0)
    form.align.setValue(0.5)
    form.sink.high.setValue(0.3)
    form.slope.high.setValue(35.0)
    form.altitude_on.setChecked(True)
    form.layer.setCurrentText("moss")
    form.layer.activated.emit(1)
    form.min_weight.setValue(0.7)
    form.extent_auto.setChecked(False)
    form.extent_radius.setValue(3.0)
    form.activation.setValue(12.0)
    form.cull.high.setValue(300.0)
    form.storage.setCurrentText("derived")
    form.storage.activated.emit(1)
    form.mesh.setCurrentText("builtin:rock")
    form.mesh.activated.emit(3)
    keys = [k for _, k, _ in edits]
    for key in ("density", "spacing", "scale", "yaw", "tilt", "align", "sink", "slope", "altitude", "layer",
                "extent", "activation_radius", "cull", "storage", "mesh"):
        assert key in keys, key
    last = edits[-1][2]
    assert (last.density, last.spacing, last.scale, last.yaw[0], last.tilt, last.align) == (
        4.0, 2.5, (1.0, 2.0), 10.0, (0.0, 7.0), 0.5)
    assert last.layer.name == "moss" and last.layer.min_weight == 0.7 and last.extent.radius == 3.0
    assert last.activation_radius == 12.0 and last.cull == (150.0, 300.0) and last.storage == "derived"
    assert last.mesh == "builtin:rock" and last.altitude == (0.0, 100.0)
    count = len(edits)
    form.slope.low.setValue(50.0)  # min above max: refused and said
    assert "min 50 is greater than max 35" in form.error.text() and len(edits) == count


def test_a_file_mesh_gets_a_placeholder_thumbnail(qtbot) -> None:
    icon = thumbnail(FoliageType("statue", mesh="meshes/statue.obj"))
    assert not icon.isNull()


def test_a_type_filtering_on_a_missing_layer_is_flagged(qtbot) -> None:
    panel = PalettePanel()
    qtbot.addWidget(panel)
    types = [FoliageType("fern", layer=None), FoliageType("moss", layer=builtin_palette()["bush"].layer)]
    moss_layer = types[1].layer.name
    panel.set_types(types, {}, [], ["rock", "sand"])
    assert panel.missing_layer(types[0]) is None and panel.missing_layer(types[1]) == moss_layer
    assert f"layer '{moss_layer}'" in panel.list.item(1).toolTip() and "⚠" not in panel.list.item(0).toolTip()
    flagged = rgb(panel.list.item(1).icon().pixmap(48, 48))
    plain = rgb(thumbnail(types[1]).pixmap(48, 48))
    assert (flagged != plain).any(axis=-1)[30:, 30:].mean() > 0.1  # a badge in the bottom-right corner
    assert (flagged == plain).all(axis=-1)[:24, :24].all()  # the rest of the thumbnail untouched
    panel.set_types(types, {}, [], ["rock", moss_layer])  # the layer appears (added or renamed)
    assert panel.missing_layer(types[1]) is None and "⚠" not in panel.list.item(1).toolTip()


def write_rock(folder, name: str) -> None:
    """The built-in rock written out as a mesh file by trimesh (OBJ or glTF by suffix)."""
    import trimesh

    v = builtin_mesh("rock").vertices[:, :3].astype(np.float64)
    (folder / "meshes").mkdir(exist_ok=True)
    trimesh.Trimesh(v, np.arange(len(v)).reshape(-1, 3), process=False).export(folder / "meshes" / name)


@pytest.mark.parametrize("name", ["stone.obj", "stone.glb"])
def test_a_file_mesh_thumbnail_is_rendered_from_the_file(qtbot, tmp_path, name) -> None:
    from rendering.meshes import mesh_for
    from widgets.palette_panel import _silhouette

    write_rock(tmp_path, name)
    ftype = FoliageType("stone", mesh=f"meshes/{name}")
    img = rgb(thumbnail(ftype, 48, tmp_path).pixmap(48, 48))
    expected = rgb(render_mesh(mesh_for(ftype.mesh, tmp_path).vertices, 48))
    np.testing.assert_array_equal(img, expected)
    drawn = np.any(img != BACKGROUND, axis=-1)
    assert 0.05 < drawn.mean() < 0.9
    assert (img != rgb(_silhouette(ftype.mesh, 48))).any(axis=-1).mean() > 0.05  # not the placeholder
    # the panel renders it against the scene's folder, with no warning in the tooltip
    panel = PalettePanel()
    qtbot.addWidget(panel)
    panel.set_types([ftype], {}, [], [], tmp_path)
    np.testing.assert_array_equal(rgb(panel.list.item(0).icon().pixmap(48, 48)), expected)
    assert "cannot be read" not in panel.list.item(0).toolTip()


def test_an_unreadable_mesh_file_falls_back_to_the_placeholder_and_says_why(qtbot, tmp_path) -> None:
    from widgets.palette_panel import _silhouette

    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "broken.obj").write_bytes(b"\x00\x01garbage\xff" * 20)
    types = [FoliageType("broken", mesh="meshes/broken.obj"), FoliageType("gone", mesh="meshes/gone.obj")]
    panel = PalettePanel()
    qtbot.addWidget(panel)
    panel.set_types(types, {}, [], [], tmp_path)
    placeholder = rgb(_silhouette("meshes/broken.obj", 48))
    for i, file in enumerate(["broken.obj", "gone.obj"]):
        item = panel.list.item(i)
        np.testing.assert_array_equal(rgb(item.icon().pixmap(48, 48)), placeholder)
        assert "⚠ the mesh file cannot be read" in item.toolTip() and file in item.toolTip()
        assert "placeholder" in item.toolTip()
    # once the file is there, the next refresh renders it
    write_rock(tmp_path, "gone.obj")
    panel.set_types(types, {}, [], [], tmp_path)
    assert (rgb(panel.list.item(1).icon().pixmap(48, 48)) != placeholder).any(axis=-1).mean() > 0.05
    assert "cannot be read" not in panel.list.item(1).toolTip()


def test_a_big_file_mesh_renders_without_draining_none(qtbot, tmp_path) -> None:
    import sys

    import trimesh

    from rendering.meshes import load_mesh_file
    from widgets.palette_panel import THUMB_TRIANGLES

    trimesh.creation.icosphere(5).export(tmp_path / "ball.obj")  # 20,480 triangles
    vertices = load_mesh_file(tmp_path / "ball.obj").vertices
    assert len(vertices) // 3 > THUMB_TRIANGLES
    before = sys.getrefcount(None)
    for _ in range(3):
        img = rgb(render_mesh(vertices, 48))
    # PySide6 6.12.0 dropped a reference to None on every QPainter call, which aborts the process
    # once a big mesh has been painted a few times; the binding is pinned below it.
    assert sys.getrefcount(None) >= before - 200
    drawn = np.any(img != BACKGROUND, axis=-1)
    assert 0.3 < drawn.mean() < 0.9 and drawn[24, 24]  # a round ball, filled in the middle


def test_the_form_reaches_every_key_of_the_file(qtbot) -> None:
    """Every `.vxfoliage` key has an editor: driving each one changes that key (and the new
    variant, level and impostor editors ask without applying, like the rest)."""
    from dataclasses import fields

    from model.foliage.foliage_type import _KEYS

    panel = PalettePanel()
    qtbot.addWidget(panel)
    panel.set_types([FoliageType("fern")], {}, ["fern"], ["moss"])
    changed: set[str] = set()
    last = [FoliageType("fern")]

    def seen(new) -> None:
        changed.update(f.name for f in fields(new) if getattr(new, f.name) != getattr(last[0], f.name))
        last[0] = new

    panel.type_edited.connect(lambda old, new, key: seen(new))
    panel.type_stepped.connect(lambda old, new, key, text: seen(new))
    form = panel.form
    form.name.setText("fern 2")
    form.name.editingFinished.emit()
    form.density.setValue(4.0)
    form.spacing.setValue(2.5)
    for key in ("scale", "yaw", "tilt", "sink", "slope", "cull"):
        edit = getattr(form, key)
        edit.high.setValue(edit.high.value() - 0.5 if key in ("yaw", "slope") else edit.high.value() + 0.5)
    form.align.setValue(0.5)
    form.altitude_on.setChecked(True)
    form.layer.setCurrentText("moss")
    form.layer.activated.emit(1)
    form.extent_auto.setChecked(False)
    form.activation.setValue(12.0)
    form.storage.setCurrentText("derived")
    form.storage.activated.emit(1)
    form.mesh.setCurrentText("builtin:rock")
    form.mesh.activated.emit(3)
    form.hue.high.setValue(8.0)
    form.value.low.setValue(-0.1)
    form.impostor_end_on.setChecked(True)
    form.impostor.setChecked(False)
    next(a for a in form.variants.add.menu().actions() if a.text() == "builtin:bush").trigger()
    assert form.variants.share_texts() == ["50 %", "50 %"]
    assert last[0].variants == (Variant("builtin:rock"), Variant("builtin:bush"))
    form.lods.table.setCurrentCell(0, 0)
    form.lods.distance.setValue(30.0)
    assert last[0].lods[0] == Lod(30.0)
    assert changed == set(_KEYS)


def test_rows_a_derived_type_does_not_use_are_greyed_and_say_why(qtbot) -> None:
    from widgets.foliage_type_form import DERIVED_IGNORES

    palette = builtin_palette()
    panel = PalettePanel()
    qtbot.addWidget(panel)
    panel.set_types(list(palette), {}, ["conifer"], ["grass"])
    form = panel.form
    ignored = (form.spacing, form.slope, form.altitude_on, form.tilt, form.hue, form.impostor)
    tips = [w.toolTip() for w in ignored]
    assert all(w.isEnabled() for w in ignored) and DERIVED_IGNORES not in tips
    panel.select(["grass"])
    assert form.ftype.name == "grass"
    assert not any(w.isEnabled() for w in ignored)
    assert all(w.toolTip() == DERIVED_IGNORES for w in ignored)
    assert all(w.isEnabled() for w in (form.density, form.scale, form.yaw, form.layer, form.cull))
    panel.select(["conifer"])
    assert all(w.isEnabled() for w in ignored) and [w.toolTip() for w in ignored] == tips
    form.storage.setCurrentText("derived")  # made derived in the form: greyed at once
    form.storage.activated.emit(1)
    assert not form.slope.isEnabled() and form.slope.toolTip() == DERIVED_IGNORES


def test_a_textured_card_thumbnail_shows_its_texture_and_not_its_cut_texels(qtbot, tmp_path) -> None:
    from tests.gltf_cards import card_glb
    from widgets.palette_panel import thumbnail_pixmap

    card_glb(tmp_path / "card.glb")
    pm, unreadable = thumbnail_pixmap(FoliageType("card", mesh="card.glb"), 64, tmp_path)
    img = rgb(pm).astype(int)
    assert unreadable is None
    red = (img[..., 0] > img[..., 1] + 50) & (img[..., 0] > img[..., 2] + 50)
    blue = (img[..., 2] > img[..., 0] + 60) & (img[..., 2] > img[..., 1] + 60)
    green = (img[..., 1] > img[..., 0] + 50) & (img[..., 1] > img[..., 2] + 50)
    assert red.sum() > 30 and blue.sum() > 30 and green.sum() == 0


def test_held_thumbnails_are_placeholders_until_released_then_rendered_in_the_loop(qtbot, tmp_path) -> None:
    from widgets.palette_panel import _silhouette

    write_rock(tmp_path, "rock.obj")
    types = [FoliageType("spruce", mesh="builtin:conifer"), FoliageType("rock", mesh="meshes/rock.obj"),
             FoliageType("gone", mesh="gone.obj")]
    panel = PalettePanel()
    qtbot.addWidget(panel)
    panel.hold_thumbnails()
    panel.set_types(types, {}, [], [], tmp_path)
    assert panel.thumbnails_pending()
    for i, t in enumerate(types):
        item = panel.list.item(i)
        np.testing.assert_array_equal(rgb(item.icon().pixmap(48, 48)), rgb(_silhouette(t.mesh, 48)))
        assert "cannot be read" not in item.toolTip()  # not read yet: nothing to say
    panel.set_types(types, {}, [], [], tmp_path)  # a refresh while held: still placeholders
    qtbot.wait(20)
    assert panel.thumbnails_pending()
    panel.release_thumbnails()
    assert panel.thumbnails_pending()  # rendered by the event loop, not in the call
    qtbot.waitUntil(lambda: not panel.thumbnails_pending(), timeout=60000)
    for i, t in enumerate(types):
        item = panel.list.item(i)
        np.testing.assert_array_equal(rgb(item.icon().pixmap(48, 48)),
                                      rgb(thumbnail(t, 48, tmp_path).pixmap(48, 48)))
    assert (rgb(panel.list.item(0).icon().pixmap(48, 48)) != rgb(_silhouette("builtin:conifer", 48))).any()
    tips = [panel.list.item(i).toolTip() for i in range(3)]
    assert "cannot be read" in tips[2] and "cannot be read" not in tips[1]
