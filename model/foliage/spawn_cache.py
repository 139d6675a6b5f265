"""A whole spawner run remembered with what it read, so a re-run with nothing changed is skipped.

A run reads its recipe, the palette, the terrain (heights, layers, holes, spacing, origin) and
the stored foliage that is not its own; applying it leaves the spawner's owned and hand-removed
keys. When all of those are as they were after the last whole run was applied, running again
would place the same records and change nothing: the remembered result stands.

Edits are seen through the model's own change events (counted per terrain and volume, as the
viewport hears them) and, for grids held in memory, a CRC-32 of their bytes as well (an edit
that wrote an array without announcing it); paged grids are only written through announced
edits. Nothing here is saved: a freshly opened scene runs its spawners in full.
"""

from __future__ import annotations

import weakref
import zlib
from dataclasses import dataclass

import numpy as np

from model.foliage.palette import Palette
from model.foliage.spawn_run import SpawnResult
from model.foliage.spawner import Spawner
from model.foliage.volume import FoliageVolume
from model.terrain import Terrain

_counters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def revision(owner: Terrain | FoliageVolume) -> int:
    """How many changes `owner` has announced since it was first asked about (a new count starts
    at 0: a result remembered before cannot match an owner first asked about now)."""
    counter = _counters.get(owner)
    if counter is None:
        counter = _counters[owner] = [0]

        def bump(*_args, counter=counter) -> None:
            counter[0] += 1

        events = ([owner.changed] if isinstance(owner, FoliageVolume) else
                  [owner.heights_changed, owner.layer_weights_changed, owner.layers_changed,
                   owner.holes_changed])
        for event in events:
            event.connect(bump)
    return counter[0]


def _content(grid: object) -> object:
    """A grid in memory: the CRC-32 of its bytes; a paged one: itself (edited only with events)."""
    if isinstance(grid, np.ndarray) and grid.flags.c_contiguous:
        return (grid.shape, grid.dtype.str, zlib.crc32(grid))
    return id(grid)


@dataclass(frozen=True)
class Inputs:
    """What a whole run of one spawner read, compared with ==."""

    spawner: Spawner
    types: tuple
    terrain_revision: int
    terrain_form: tuple
    terrain_content: tuple


def inputs_of(spawner: Spawner, terrain: Terrain, palette: Palette) -> Inputs:
    grids = [terrain.heights_grid(), terrain.holes, *(layer.grid() for layer in terrain.layers)]
    form = (terrain.rows, terrain.columns, float(terrain.spacing), tuple(terrain.origin), id(terrain.edits),
            tuple((id(la), la.name, la.weight_blend, la.material) for la in terrain.layers))
    return Inputs(spawner, tuple(palette), revision(terrain), form, tuple(_content(g) for g in grids))


@dataclass
class Remembered:
    """A whole run applied, and the state applying it left."""

    inputs: Inputs
    result: SpawnResult
    terrain: weakref.ref
    volume: weakref.ref
    volume_revision: int
    owned: object  # the section's owned and hand-removed key sets, as objects: any change replaces them
    removed: object


def still_current(entry: Remembered | None, inputs: Inputs, terrain: Terrain, volume: FoliageVolume,
                  owned: object, removed: object) -> bool:
    """Whether `entry` was applied to this terrain and volume, nothing announced or written since,
    and its run read these inputs."""
    return (entry is not None and entry.terrain() is terrain and entry.volume() is volume
            and entry.volume_revision == revision(volume) and entry.owned is owned
            and entry.removed is removed and entry.inputs == inputs)
