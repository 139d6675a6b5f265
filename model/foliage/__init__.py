"""Foliage: types and palettes, the instance volume, scatter, the binary store and collision.

Importing this package hooks the foliage section into scene save and open.
"""

from model.foliage.collision import FoliageCollision
from model.foliage.foliage_type import (
    Extent,
    FoliageType,
    LayerFilter,
    load_foliage_type,
    save_foliage_type,
)
from model.foliage.palette import Palette, builtin_palette
from model.foliage.scatter import FoliageScatter, Refusal, Stamp, StrokeResult
from model.foliage.section import SceneFoliage, foliage_of, register
from model.foliage.store import load_store, save_store
from model.foliage.volume import FoliageAddress, FoliageVolume, Removed

register()

__all__ = [
    "Extent", "FoliageAddress", "FoliageCollision", "FoliageScatter", "FoliageType", "FoliageVolume",
    "LayerFilter", "Palette", "Refusal", "Removed", "SceneFoliage", "Stamp", "StrokeResult",
    "builtin_palette", "foliage_of", "load_foliage_type", "load_store", "save_foliage_type", "save_store",
]

from model.foliage import spawner_section  # noqa: E402  (needs the package above)

spawner_section.register()
