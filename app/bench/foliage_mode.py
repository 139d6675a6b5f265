"""Foliage mode budgets: a stamp's apply plus what the view does with it costs the same on a full
scene as on an empty one, and a stroke's undo record grows with what it touched, not the scene."""

from __future__ import annotations

import time

import numpy as np

from app.bench import BenchCase
from app.bench.foliage import _records, _terrain, _tree
from model.foliage.edits import FoliageStroke
from model.foliage.palette import Palette
from model.foliage.report import reason_lines, stroke_sentence
from model.foliage.scatter import FoliageScatter, Stamp
from model.foliage.volume import FoliageVolume
from model.terrain import Terrain

RADIUS = 20.0


class ViewStandIn:
    """What the viewport does after a stamp, without a GL context: note the chunks the volume
    says changed, then copy each out as its instance buffer upload would."""

    def __init__(self, volume: FoliageVolume) -> None:
        self.volume = volume
        self.dirty: set = set()
        self.uploaded = 0
        volume.changed.connect(self.dirty.update)

    def frame(self) -> None:
        for key in self.dirty:
            chunk = self.volume.chunk(*key)
            if chunk is not None:
                self.uploaded += np.array(chunk.records, np.float32, order="C", copy=True).nbytes
        self.dirty.clear()


def _stamp_and_show(volume: FoliageVolume, terrain: Terrain, view: ViewStandIn,
                    stamp: Stamp) -> FoliageStroke:
    """One stamp as the Paint tool lays it: scatter into the stroke, refresh the view and the panel."""
    stroke = FoliageStroke(volume)
    result = FoliageScatter(terrain, volume).paint(["tree"], stamp)
    stroke.added("tree", result.records("tree"), result.added)
    view.frame()
    reason_lines(result, terrain, volume.palette)
    stroke_sentence(result, terrain, volume.palette)
    return stroke


def _stamp_time(volume, terrain, stamp: Stamp, repeat: int) -> float:
    view = ViewStandIn(volume)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        stroke = _stamp_and_show(volume, terrain, view, stamp)
        best = min(best, time.perf_counter() - t0)
        stroke.undo()  # outside the timer: the next stamp meets the same volume
        view.frame()
    return best


def _volumes(quick: bool) -> tuple[Terrain, FoliageVolume, FoliageVolume]:
    instances = 100_000 if quick else 1_000_000
    terrain = _terrain(401 if quick else 1001)
    palette = Palette([_tree(2_000, RADIUS)])
    full = FoliageVolume(palette)
    full.add("tree", _records(instances))
    return terrain, FoliageVolume(palette), full


def stamp_view_ratio(quick: bool) -> float:
    """Stamp apply + view update + refusal panel among 1,000,000 instances / the same in an empty scene."""
    terrain, empty, full = _volumes(quick)
    stamp = Stamp((13.0, -7.0), RADIUS, 0.5, 1.0, seed=5)
    repeat = 7 if quick else 9
    _stamp_time(empty, terrain, stamp, 1)  # warm up
    full_t = empty_t = float("inf")
    for _ in range(3):  # alternate, so a burst of load on the machine hits both
        full_t = min(full_t, _stamp_time(full, terrain, stamp, repeat))
        empty_t = min(empty_t, _stamp_time(empty, terrain, stamp, repeat))
    return full_t / empty_t


def stroke_bytes_per_instance(volume: FoliageVolume, terrain: Terrain, stamps: int = 12) -> tuple[float, int]:
    """(undo bytes per instance touched, instances touched) of a paint stroke then an erase stroke."""
    scatter = FoliageScatter(terrain, volume)
    paint, erase = FoliageStroke(volume), FoliageStroke(volume)
    for i in range(stamps):
        stamp = Stamp((-60.0 + 10.0 * i, 4.0), RADIUS, 0.5, 1.0, seed=21, index=i)
        result = scatter.paint(["tree"], stamp)
        paint.added("tree", result.records("tree"), result.added)
    for i in range(stamps):
        erase.removed(scatter.erase(["tree"], Stamp((-60.0 + 10.0 * i, 4.0), RADIUS, 0.2, 0.8, 22, i)))
    touched = paint.touched() + erase.touched()
    nbytes = paint.nbytes() + erase.nbytes()
    erase.undo()
    paint.undo()
    return nbytes / max(1, touched), touched


def undo_memory_ratio(quick: bool) -> float:
    """Undo bytes per touched instance of the same strokes in a 1,000,000-instance scene / an empty one."""
    terrain, empty, full = _volumes(quick)
    per_full, touched_full = stroke_bytes_per_instance(full, terrain)
    per_empty, touched_empty = stroke_bytes_per_instance(empty, terrain)
    if touched_full == 0 or touched_empty == 0:
        return float("inf")
    return per_full / per_empty


CASES = [
    BenchCase("foliage_mode.stamp_view_1m_vs_empty", 2.0, stamp_view_ratio,
              description="a stamp's apply + view update + refusal panel, 1,000,000 instances / none"),
    BenchCase("foliage_mode.undo_bytes_per_touched_1m_vs_empty", 1.25, undo_memory_ratio,
              description="a stroke's undo memory per instance it touched, full scene / empty scene"),
]
