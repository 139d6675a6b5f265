"""The stroke sentence: counts per reason with the numbers behind them, from a real scatter."""

from __future__ import annotations

import numpy as np

from model.foliage import FoliageScatter, FoliageType, FoliageVolume, LayerFilter, Palette, Refusal, Stamp
from model.foliage.report import reason_lines, stroke_sentence
from model.terrain import Terrain


def ramp() -> Terrain:
    """Flat for x < 0, a 45° ramp for x > 0."""
    z, x = np.mgrid[0:81, 0:81].astype(np.float64)
    heights = np.where(x > 40, (x - 40) * 2.0, 0.0)
    terrain = Terrain(heights.astype(np.float32), 2.0, (-80.0, -80.0))
    terrain.add_layer("meadow", (0, 200, 0), np.full((81, 81), 255, np.uint8))
    return terrain


def test_sentence_counts_agree_with_the_result_and_name_the_band() -> None:
    terrain = ramp()
    palette = Palette([FoliageType("pine", density=20.0, slope=(0.0, 30.0), altitude=(-1.0, 30.0))])
    volume = FoliageVolume(palette)
    result = FoliageScatter(terrain, volume).paint(["pine"], Stamp((0.0, 0.0), 30.0, 0.3, 1.0, 4, 0))
    counts = result.counts
    assert counts[Refusal.SLOPE] > 0 and result.placed > 0
    text = stroke_sentence(result, terrain, palette)
    assert text.startswith(f"{result.candidates} candidates: ") and text.endswith(f"{result.placed} placed")
    assert f"{counts[Refusal.SLOPE]} too steep (slope 45° > 30°)" in text
    lines = {line.reason: line for line in reason_lines(result, terrain, palette)}
    assert [lines[r].count for r in Refusal] == [counts[r] for r in Refusal]
    xz = lines[Refusal.SLOPE].xz
    assert len(xz) == counts[Refusal.SLOPE] and (xz[:, 0] > 0).all()  # every steep candidate is on the ramp


def test_a_missing_layer_says_so_by_name() -> None:
    terrain = ramp()
    palette = Palette([FoliageType("moss", density=5.0, layer=LayerFilter("wet", 0.5))])
    result = FoliageScatter(terrain, FoliageVolume(palette)).paint(["moss"], Stamp((-40.0, 0.0), 10.0))
    text = stroke_sentence(result, terrain, palette)
    assert f"{result.candidates} layer 'wet' missing (no terrain layer has that name)" in text
    assert text.endswith("Missing layer: 'wet' (needed by moss)")


def test_refusals_on_both_sides_of_a_band_are_counted_per_side() -> None:
    terrain = ramp()  # flat (0°) west of x = 0, 45° east of it
    palette = Palette([FoliageType("fern", density=20.0, slope=(10.0, 30.0))])
    result = FoliageScatter(terrain, FoliageVolume(palette)).paint(["fern"], Stamp((0.0, 0.0), 30.0, 0.0))
    outcome = result.outcomes["fern"]
    refused = outcome.xz[outcome.refusals == Refusal.SLOPE]
    slopes = terrain.slope_at(refused[:, 0], refused[:, 1])
    steeper, flatter = int((slopes > 30).sum()), int((slopes < 10).sum())
    assert steeper > 10 and flatter > 10 and steeper + flatter == len(refused)
    text = stroke_sentence(result, terrain, palette)
    assert (f"{len(refused)} on the wrong slope ({steeper} steeper than 30°, {flatter} flatter than 10°)"
            in text)
    # one side only: the median and the bound it passes
    palette = Palette([FoliageType("reed", density=20.0, altitude=(-5.0, 10.0))])
    result = FoliageScatter(terrain, FoliageVolume(palette)).paint(["reed"], Stamp((40.0, 0.0), 20.0, 0.0))
    outcome = result.outcomes["reed"]
    high = outcome.xz[outcome.refusals == Refusal.ALTITUDE]
    median = float(np.median(terrain.height_at(high[:, 0], high[:, 1])))
    assert f"{len(high)} too high ({median:.0f} m > 10 m)" in stroke_sentence(result, terrain, palette)


def test_a_reason_shared_by_several_types_gives_each_types_own_numbers() -> None:
    terrain = ramp()  # one layer, "meadow", painted everywhere
    palette = Palette([FoliageType("moss", density=10.0, layer=LayerFilter("wet", 0.5)),
                       FoliageType("fern", density=10.0, layer=LayerFilter("meadow", 1.0))])
    terrain.layer("meadow").weights[:, :40] = 100  # west part weakly painted: fern refused there
    result = FoliageScatter(terrain, FoliageVolume(palette)).paint(["moss", "fern"],
                                                                    Stamp((-10.0, 0.0), 25.0, 0.0))
    moss = int((result.outcomes["moss"].refusals == Refusal.LAYER).sum())
    fern = int((result.outcomes["fern"].refusals == Refusal.LAYER).sum())
    assert moss > 0 and fern > 0
    text = stroke_sentence(result, terrain, palette)
    assert (f"{moss + fern} not on the layer (moss: {moss} layer 'wet' missing (no terrain layer has that "
            f"name); fern: {fern} off layer 'meadow' (weight < 1))") in text


def test_model_summary_names_the_slope_side_like_the_panel() -> None:
    terrain = ramp()  # flat (0°) west of x = 0, 45° east of it
    scatter = FoliageScatter(terrain, FoliageVolume(Palette([
        FoliageType("pine", density=20.0, slope=(0.0, 30.0)),
        FoliageType("fern", density=20.0, slope=(10.0, 30.0)),
        FoliageType("moss", density=20.0, slope=(10.0, 30.0))])))
    steep = scatter.paint(["pine"], Stamp((40.0, 0.0), 20.0, 0.0, 1.0, 3, 0), apply=False)
    n = steep.counts[Refusal.SLOPE]
    assert n > 0 and f"{n} too steep" in steep.summary() and "wrong slope" not in steep.summary()
    flat = scatter.paint(["moss"], Stamp((-40.0, 0.0), 20.0, 0.0, 1.0, 3, 0), apply=False)
    n = flat.counts[Refusal.SLOPE]
    assert n == flat.candidates > 0 and flat.summary() == f"{n} candidates: {n} too flat, 0 placed"
    both = scatter.paint(["fern"], Stamp((0.0, 0.0), 30.0, 0.0, 1.0, 3, 0), apply=False)
    o = both.outcomes["fern"]
    refused = o.xz[o.refusals == Refusal.SLOPE]
    slopes = terrain.slope_at(refused[:, 0], refused[:, 1])
    steeper, flatter = int((slopes > 30).sum()), int((slopes < 10).sum())
    assert steeper > 0 and flatter > 0
    text = both.summary()
    assert f"{len(refused)} on the wrong slope ({steeper} too steep, {flatter} too flat)" in text
    # the order and counts of the reasons are those of `counts`, slope side or not
    reasons = [r for r, c in both.counts.items() if c]
    assert text.split(": ", 1)[1].count(", ") >= len(reasons)
    assert text.index("wrong slope") < text.index(" placed")
    # a merged stroke (two stamps) keeps the sides; one stamp on each side of the band counts both
    merged = scatter.paint(["moss"], Stamp((-40.0, 0.0), 20.0, 0.0, 1.0, 3, 0), apply=False)
    merged.merge(scatter.paint(["moss"], Stamp((40.0, 0.0), 20.0, 0.0, 1.0, 3, 1), apply=False))
    s, f = merged.slope_sides()
    assert s > 0 and f > 0 and s + f == merged.counts[Refusal.SLOPE]
    assert f"({s} too steep, {f} too flat)" in merged.summary()
    # a single placement says its side too
    one = scatter.single("pine", 60.0, 0.0)
    assert one.summary() == "1 candidate: 1 too steep, 0 placed"


def test_tally_sentences_count_each_instance_once_and_use_the_right_number() -> None:
    from model.foliage.report import BrushTally, plural, tally_sentence

    assert plural(1, "candidate") == "1 candidate" and plural(1200, "instance") == "1,200 instances"
    tally = BrushTally("erase", ("pine",))
    spot = np.array([[1.0, 2.0], [3.0, 4.0]])
    for _ in range(3):  # three stamps over the same two oaks
        tally.saw("oak", spot)
    assert tally_sentence(tally) == "Erased 0 pine: none under the brush (oak 2 left alone)"
    tally.saw("pine", [[5.0, 5.0]])
    tally.took("pine", [[5.0, 5.0]])
    tally.saw("pine", [[5.0, 5.0], [6.0, 6.0]])  # seen again by a later stamp before it went
    assert tally_sentence(tally) == ("Erased 1 pine (1 more under the brush spared by its strength and "
                                     "falloff; oak 2 left alone)")
    every = BrushTally("erase", None)
    every.took("pine", [[0.0, 0.0]])
    every.took("oak", [[1.0, 0.0], [2.0, 0.0]])
    assert tally_sentence(every) == "Erased 3 instances (pine 1, oak 2)"
