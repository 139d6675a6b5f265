import tomllib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.errors import FormatError
from model.foliage import FoliageType, Palette, foliage_of
from model.foliage.neighbours import pairs_within
from model.foliage.spawn_conditions import Layer, Near, Noise, Not, Slope
from model.foliage.spawn_run import TILE, SpawnError, blue_noise, candidates, region_of_samples, run_spawner
from model.foliage.spawner import spawner_from_toml, spawner_to_toml, spawners_from_toml
from model.foliage.spawner_section import (
    decode_owned,
    encode_owned,
    follow_terrain_edit,
    redo_change,
    run_and_apply,
    spawners_of,
    terrain_follower,
    undo_change,
)
from model.formats.scene_file import load_scene, save_scene
from model.scene import Scene
from model.terrain import Terrain, TerrainLayer

RECIPE = """
[[spawners]]
name = "forest"
seed = 7
area = { layer = "forest_floor", min_weight = 0.3 }
[[spawners.species]]
type = "conifer"
density = 1.2
order = 0
exclusion = 3.0
conditions = [
  { slope = [0, 30] }, { altitude = [-10, 80] },
  { layer = "rock", max_weight = 0.2 },
  { noise = { scale = 60.0, threshold = 0.3, seed = 3 } },
]
[[spawners.species]]
type = "bush"
density = 4.0
order = 1
conditions = [{ near = { type = "conifer", within = 8.0 } }]
[[spawners.species]]
type = "rock"
density = 0.5
order = 2
conditions = [{ any = [{ slope = [20, 90] }, { far = { type = "conifer", beyond = 10.0 } }] },
              { not = { altitude = [60, 1000] } }]
"""


def make_palette() -> Palette:
    palette = Palette()
    for name, mesh, spacing in (("conifer", "conifer", 2.5), ("bush", "bush", 1.0), ("rock", "rock", 0.0),
                                ("broadleaf", "broadleaf", 0.0), ("grass", "grass", 0.0)):
        palette.add(FoliageType(name=name, mesh=f"builtin:{mesh}", spacing=spacing,
                                storage="derived" if name == "grass" else "stored"))
    return palette


def hilly_scene(size: int = 161, spacing: float = 2.0) -> Scene:
    j, i = np.mgrid[0:size, 0:size].astype(np.float64)
    heights = 30 * np.sin(i / 17.0) * np.cos(j / 23.0) + 0.2 * i + 10 * np.sin((i + j) / 7.0)
    floor = np.where(i + j > size * 0.4, 255, 0).astype(np.uint8)
    rock = np.where(heights > 35, 255, 0).astype(np.uint8)
    terrain = Terrain(heights, spacing, (-40.0, -25.0),
                      [TerrainLayer("forest_floor", (60, 90, 40), floor),
                       TerrainLayer("rock", (120, 120, 120), rock)])
    scene = Scene(terrain, "hills")
    foliage_of(scene, make_palette())
    spawners_of(scene).spawners = spawners_from_toml(tomllib.loads(RECIPE)["spawners"])
    return scene


def volume_bytes(scene: Scene) -> dict:
    vol = foliage_of(scene).volume
    return {key: np.sort(vol.records(*key).view(np.dtype((np.void, 28))).ravel()).tobytes()
            for key, _ in vol.chunks()}


def test_recipe_reads_the_issue_form_and_round_trips():
    spawner = spawners_from_toml(tomllib.loads(RECIPE)["spawners"])[0]
    assert spawner.name == "forest" and spawner.seed == 7 and spawner.area.layer == "forest_floor"
    conifer = spawner.species[0]
    assert conifer.conditions[0] == Slope(0, 30)
    assert conifer.conditions[2] == Layer("rock", None, 0.2)
    assert conifer.conditions[3] == Noise(60.0, 0.3, 3)
    assert spawner.species[1].conditions[0] == Near("conifer", 8.0)
    assert isinstance(spawner.species[2].conditions[1], Not)
    assert spawner_from_toml(spawner_to_toml(spawner)) == spawner


@pytest.mark.parametrize("bad, place", [
    ({"name": "a", "colour": 1}, "spawners[0].colour"),
    ({"name": "a", "species": [{"type": "conifer", "conditions": [{"wet": 1}]}]},
     "spawners[0].species[0].conditions[0]"),
    ({"name": "a", "species": [{"type": "conifer", "conditions": [{"slope": [40, 10]}]}]},
     "spawners[0].species[0].conditions[0].slope"),
    ({"name": "a", "species": [{"type": "conifer", "density": float("nan")}]},
     "spawners[0].species[0].density"),
    ({"name": "a", "area": {"layer": "x", "polygon": [[0, 0]]}}, "spawners[0].area"),
    ({"name": ""}, "spawners[0].name"),
    ({"name": "a", "species": [{"type": "conifer", "density": 10 ** 400}]}, "spawners[0].species[0].density"),
    ({"name": "a", "species": [{"type": "conifer", "conditions": [{"slope": [0, 10 ** 400]}]}]},
     "spawners[0].species[0].conditions[0].slope[1]"),
])
def test_bad_recipes_name_the_place(bad, place):
    with pytest.raises(FormatError) as e:
        spawners_from_toml([bad], "scene.boscage")
    assert e.value.place == place


def test_deep_nesting_is_refused_not_recursed():
    c = {"slope": [0, 10]}
    for _ in range(2000):
        c = {"not": c}
    with pytest.raises(FormatError, match="nest deeper"):
        spawners_from_toml([{"name": "a", "species": [{"type": "conifer", "conditions": [c]}]}])


def test_duplicate_names_are_refused():
    with pytest.raises(FormatError, match="duplicate spawner name"):
        spawners_from_toml([{"name": "a"}, {"name": "a"}])


def run(scene, region=None):
    spawner = spawners_of(scene).spawners[0]
    return run_and_apply(scene, spawner, region)


def test_same_spawner_same_bytes_every_run():
    a, b = hilly_scene(), hilly_scene()
    ra, _ = run(a)
    rb, _ = run(b)
    assert ra.placed > 100
    assert volume_bytes(a) == volume_bytes(b)
    other = hilly_scene()
    reseeded = {**spawner_to_toml(spawners_of(other).spawners[0]), "seed": 8}
    spawners_of(other).spawners[0] = spawner_from_toml(reseeded)
    run(other)
    assert volume_bytes(other) != volume_bytes(a)


def test_accounting_sums_to_the_candidates_and_names_conditions():
    result, _ = run(hilly_scene())
    for outcome in result.species:
        assert sum(n for _, n in outcome.counts()) + outcome.placed == outcome.candidates
        assert outcome.candidates > 0
    labels = [label for label, _ in result.species[0].counts()]
    assert "condition 4 `noise 60 m ≥ 0.3`" in labels and "outside the area" in labels
    assert "excluded by conifer" in [label for label, _ in result.species[1].counts()]
    assert result.species[0].sentence().startswith("conifer: ")


def test_exclusion_near_far_and_spacing_hold_for_every_instance():
    scene = hilly_scene()
    result, _ = run(scene)
    conifer, bush, rock = (s.records[:, (0, 2)].astype(np.float64) for s in result.species)
    assert len(conifer) and len(bush) and len(rock)
    d = np.linalg.norm(bush[:, None, :] - conifer[None, :, :], axis=-1)
    assert (d.min(axis=1) >= 3.0).all()  # outside the conifers' exclusion
    assert (d.min(axis=1) < 8.0).all()  # and near one
    terrain = scene.terrain
    far = np.linalg.norm(rock[:, None, :] - conifer[None, :, :], axis=-1).min(axis=1) >= 10.0
    steep = terrain.slope_at(rock[:, 0], rock[:, 1]) >= 20
    assert (far | steep).all()
    assert (terrain.height_at(rock[:, 0], rock[:, 1]) < 60).all()
    for pts, name in ((conifer, "conifer"), (bush, "bush")):
        spacing = make_palette()[name].spacing
        if spacing > 0:
            qi, pi = pairs_within(pts, pts, spacing)
            assert (qi == pi).all()


def test_blue_noise_keeps_no_two_within_spacing():
    rng = np.random.default_rng(5)
    pts = rng.uniform(0, 50, (3000, 2))
    keep = blue_noise(pts, rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32), 2.0)
    qi, pi = pairs_within(pts[keep], pts[keep], 2.0)
    assert (qi == pi).all()
    assert keep.sum() > 200


def test_a_region_rerun_is_bit_identical_to_the_full_run_there():
    scene = hilly_scene()
    spawner = spawners_of(scene).spawners[0]
    stored = lambda types, box: np.empty((0, 2))  # noqa: E731
    full = run_spawner(spawner, scene.terrain, foliage_of(scene).palette, stored)
    region = (40.0, 30.0, 110.0, 95.0)
    local = run_spawner(spawner, scene.terrain, foliage_of(scene).palette, stored, region)
    box = local.box
    assert box[0] < region[0] and box[3] > region[3]  # the margin a change can reach is included
    for f, loc in zip(full.species, local.species, strict=True):
        x, z = f.records[:, 0], f.records[:, 2]
        inside = (x >= box[0]) & (x <= box[2]) & (z >= box[1]) & (z <= box[3])
        assert inside.any()
        assert f.records[inside].tobytes() == loc.records.tobytes()


def test_sculpt_then_local_rerun_keeps_everything_else_and_undo_is_exact():
    scene = hilly_scene()
    run(scene)
    vol = foliage_of(scene).volume
    before = volume_bytes(scene)
    outside_before = {k: vol.records(*k).tobytes() for k, _ in vol.chunks()}
    t = scene.terrain
    heights_before = t.heights.copy()
    t.heights[40:55, 60:75] += 25.0  # a hill under the spawner
    box = region_of_samples(t, slice(40, 55), slice(60, 75))
    result, change = run(scene, box)
    assert change.changed
    for key, data in outside_before.items():  # chunks away from the hill keep their bytes
        cell_box = (key[0][0] * vol.cell_size, key[0][1] * vol.cell_size)
        far = (cell_box[0] > box[2] + 40 or cell_box[0] + vol.cell_size < box[0] - 40
               or cell_box[1] > box[3] + 40 or cell_box[1] + vol.cell_size < box[1] - 40)
        if far:
            assert vol.records(*key).tobytes() == data
    fresh = hilly_scene()
    fresh.terrain.heights[:] = t.heights
    run(fresh)
    assert volume_bytes(fresh) == volume_bytes(scene)  # local re-run == full run on the new ground
    undo_change(scene, change)
    t.heights[:] = heights_before
    assert volume_bytes(scene) == before


def test_rerun_after_an_unrelated_edit_changes_nothing_and_painted_foliage_stays():
    scene = hilly_scene()
    run(scene)
    vol = foliage_of(scene).volume
    painted = np.array([[200.0, 5.0, 250.0, 0, 0, 0, 1]], np.float32)
    vol.add("broadleaf", painted)
    before = volume_bytes(scene)
    _, change = run(scene)
    assert not change.changed
    assert volume_bytes(scene) == before


def test_missing_type_and_derived_type_are_refused():
    scene = hilly_scene()
    spawner = spawner_from_toml({"name": "x", "species": [{"type": "baobab"}]})
    with pytest.raises(SpawnError, match="baobab"):
        run_and_apply(scene, spawner)
    spawner = spawner_from_toml({"name": "x", "species": [{"type": "grass"}]})
    with pytest.raises(SpawnError, match="derived"):
        run_and_apply(scene, spawner)


def test_candidates_are_fixed_to_world_tiles():
    spawner = spawner_from_toml({"name": "x", "species": [{"type": "conifer", "density": 2.0}]})
    _, a = candidates(spawner, 0, spawner.species[0], (0.0, 0.0, 2 * TILE, 2 * TILE))
    _, b = candidates(spawner, 0, spawner.species[0], (TILE, TILE, 2 * TILE, 2 * TILE))
    in_b = (a[:, 0] >= TILE) & (a[:, 1] >= TILE)
    assert np.array_equal(np.sort(a[in_b], axis=0), np.sort(b, axis=0))


def test_spawners_and_ownership_survive_save_and_open(tmp_path):
    scene = hilly_scene()
    run(scene)
    path = tmp_path / "hills.boscage"
    save_scene(scene, path)
    assert "[[spawners]]" in path.read_text()
    again = load_scene(path)
    section = spawners_of(again)
    assert section.spawners == spawners_of(scene).spawners
    assert section.owned_count("forest") == len(foliage_of(scene).volume)
    _, change = run(again)
    assert not change.changed  # it still knows which instances are its own
    save_scene(again, tmp_path / "twice.boscage")
    names = sorted(p.name.split(".")[1] for p in tmp_path.glob("twice.*.bin"))
    assert "spawned" in names


def test_ownership_file_refuses_damage():
    data = encode_owned({"forest": {"conifer": np.array([1, 5, 9], np.uint64)}},
                        {"forest": {"bush": np.array([7], np.uint64)}})
    owned, removed = decode_owned(data)
    assert owned["forest"]["conifer"].tolist() == [1, 5, 9] and removed["forest"]["bush"].tolist() == [7]
    for cut in range(len(data)):
        with pytest.raises(FormatError):
            decode_owned(data[:cut])
    lie = bytearray(data)
    lie[-12] ^= 0xFF
    with pytest.raises(FormatError):
        decode_owned(bytes(lie))


def test_hand_deleted_and_moved_instances_survive_reruns(tmp_path):
    scene = hilly_scene()
    run(scene)
    vol = foliage_of(scene).volume
    key = next(k for k, c in vol.chunks("conifer") if len(c) >= 2)
    deleted = vol.records(*key)[0].copy()
    moved_from = vol.records(*key)[1].copy()
    vol.remove({key: np.array([0, 1])})
    moved = moved_from.copy()
    moved[0] += 0.75
    vol.add("conifer", moved[None, :])
    _, change = run(scene)
    # the conifers stay gone; only later species may answer their absence
    assert not any(k[1] == "conifer" for k in change.added) and not len(change.removed)
    records = np.concatenate([vol.records(*k) for k, _ in vol.chunks("conifer")])
    as_rows = {r.tobytes() for r in records}
    assert deleted.tobytes() not in as_rows and moved_from.tobytes() not in as_rows
    assert moved.tobytes() in as_rows
    path = tmp_path / "edited.boscage"
    save_scene(scene, path)
    again = load_scene(path)
    _, change = run(again)
    assert not change.changed  # the overrides were saved with the scene
    assert len(spawners_of(again).removed["forest"]["conifer"]) == 2


def test_undo_and_redo_of_a_run_restore_the_same_bytes():
    scene = hilly_scene()
    run(scene)
    before = volume_bytes(scene)
    scene.terrain.heights[60:80, 30:50] -= 12.0
    box = region_of_samples(scene.terrain, slice(60, 80), slice(30, 50))
    _, change = run(scene, box)
    after = volume_bytes(scene)
    assert after != before
    owned_after = {t: k.copy() for t, k in spawners_of(scene).owned["forest"].items()}
    undo_change(scene, change)
    assert volume_bytes(scene) == before
    redo_change(scene, change)
    assert volume_bytes(scene) == after
    assert all(np.array_equal(owned_after[t], k) for t, k in spawners_of(scene).owned["forest"].items())


def test_a_sculpt_stroke_reruns_spawners_in_the_same_step():
    from model.sculpt import Patch, TerrainStroke

    scene = hilly_scene()
    run(scene)
    before = volume_bytes(scene)
    t = scene.terrain
    vol = foliage_of(scene).volume
    rows, cols = slice(70, 90), slice(70, 90)
    stroke = TerrainStroke(t, None, vol, follow=terrain_follower(scene))
    stroke.apply(Patch(rows, cols, t.heights[rows, cols].copy(), t.heights[rows, cols] + 30.0))
    stroke.finish()
    assert stroke.followed is not None
    after = volume_bytes(scene)
    fresh = hilly_scene()
    fresh.terrain.heights[:] = t.heights
    run(fresh)
    # the same instances as a full run on the new ground (re-grounded heights may differ in the last bit)
    def positions(s):
        v = foliage_of(s).volume
        return {key: np.sort(v.records(*key)[:, (0, 2)], axis=0).tobytes() for key, _ in v.chunks()}
    assert positions(fresh) == positions(scene)
    assert volume_bytes(fresh) == volume_bytes(scene)
    stroke.undo()
    assert volume_bytes(scene) == before
    stroke.redo()
    assert volume_bytes(scene) == after


def test_painting_a_layer_no_spawner_reads_changes_nothing():
    scene = hilly_scene()
    scene.terrain.add_layer("sand", (200, 190, 120))
    run(scene)
    assert follow_terrain_edit(scene, "sand", slice(0, 50), slice(0, 50)) is None
    t = scene.terrain
    vol = foliage_of(scene).volume
    x, _, z = vol.records(*next(k for k, _ in vol.chunks("conifer")))[0, :3]
    c, r = int((x - t.origin[0]) / t.spacing), int((z - t.origin[1]) / t.spacing)
    rows, cols = slice(max(r - 5, 0), r + 5), slice(max(c - 5, 0), c + 5)
    t.layer("rock").weights[rows, cols] = 255  # conifers grow only where rock is below 0.2
    edits = follow_terrain_edit(scene, "rock", rows, cols)
    assert edits is not None and any(len(change.removed) for change in edits.changes)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), exclusion=st.floats(0.5, 6.0), within=st.floats(2.0, 12.0),
       beyond=st.floats(1.0, 10.0), density=st.floats(0.5, 6.0))
def test_every_placed_instance_keeps_every_rule(seed, exclusion, within, beyond, density):
    scene = hilly_scene(81)
    spawner = spawner_from_toml({"name": "p", "seed": seed, "species": [
        {"type": "conifer", "density": 1.5, "exclusion": exclusion},
        {"type": "bush", "density": density, "order": 1,
         "conditions": [{"near": {"type": "conifer", "within": within}}]},
        {"type": "rock", "density": density, "order": 2,
         "conditions": [{"far": {"type": "bush", "beyond": beyond}}]},
    ]})
    result, _ = run_and_apply(scene, spawner)
    conifer, bush, rock = (s.records[:, (0, 2)].astype(np.float64) for s in result.species)
    for outcome in result.species:
        assert sum(n for _, n in outcome.counts()) + outcome.placed == outcome.candidates
    if len(bush):
        d = np.linalg.norm(bush[:, None] - conifer[None], axis=-1).min(axis=1)
        assert (d >= exclusion).all() and (d < within).all()
    if len(rock) and len(bush):
        assert (np.linalg.norm(rock[:, None] - bush[None], axis=-1).min(axis=1) >= beyond).all()
    if len(rock) and len(conifer):
        assert (np.linalg.norm(rock[:, None] - conifer[None], axis=-1).min(axis=1) >= exclusion).all()


@pytest.mark.parametrize("edited", [0, 1, 2])
def test_an_edit_reruns_only_the_species_from_the_edited_one_on_to_the_same_bytes(edited, monkeypatch):
    from dataclasses import replace

    from model.foliage import spawn_run

    scene, fresh = hilly_scene(), hilly_scene()
    first, _ = run_and_apply(scene, spawners_of(scene).spawners[0])
    old = spawners_of(scene).spawners[0]
    species = list(old.species)
    species[edited] = replace(species[edited], density=species[edited].density * 1.5)
    new = replace(old, species=tuple(species))
    ran = []
    real = spawn_run._run_species
    monkeypatch.setattr(spawn_run, "_run_species", lambda *a: ran.append(a[1]) or real(*a))
    again, _ = run_and_apply(scene, new, earlier=first)
    assert ran == list(range(edited, 3))  # the species grown before the edited one are reused
    ran.clear()
    spawners_of(fresh).spawners[0] = new
    whole, _ = run_and_apply(fresh, new)  # from nothing: every species
    assert ran == [0, 1, 2]
    assert volume_bytes(scene) == volume_bytes(fresh)
    for a, b in zip(again.species, whole.species, strict=True):
        assert a.xz.tobytes() == b.xz.tobytes() and a.refusals.tobytes() == b.refusals.tobytes()
    reseeded = replace(new, seed=new.seed + 1)  # a new seed decides every species again
    ran.clear()
    run_and_apply(scene, reseeded, earlier=again)
    assert ran == [0, 1, 2]


def test_a_cancel_is_heard_between_the_rules_of_a_species_and_changes_nothing():
    from model.foliage.spawn_run import SpawnCancelled
    from model.foliage.spawner_section import run_only

    scene = hilly_scene()
    spawner = spawners_of(scene).spawners[0]
    heard: list[tuple[int, int]] = []

    def listen(done: int, total: int) -> bool:
        heard.append((done, total))
        return True

    whole = run_only(scene, spawner, None, listen)
    first_species = [h for h in heard if h[0] == 0]
    assert len(first_species) > 5 and heard[-1][0] == 2  # asked within each species, not only before it
    before = volume_bytes(scene)

    heard_again: list[int] = []

    def counting(done: int, total: int) -> bool:
        heard_again.append(done)
        return len(heard_again) < 3  # the third question: inside the first species

    with pytest.raises(SpawnCancelled):
        run_only(scene, spawner, None, counting)
    assert heard_again == [0, 0, 0] and volume_bytes(scene) == before
    assert run_only(scene, spawner, None, listen).species[0].records.tobytes() == \
        whole.species[0].records.tobytes()
