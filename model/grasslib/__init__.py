"""Grass pattern library: strict reader and writer, class-name table, terrain picker, derived grass."""

from model.grasslib.classes import CLASS_NAMES, RULE_CLASS_ID, class_id, class_name, describe_class
from model.grasslib.derived import MAPPING_NOTE, DerivedGrass, derive_group, vxfoliage_text
from model.grasslib.library import GrassLibrary, Group
from model.grasslib.picker import PickRaster, PickResult, group_of, pick, pick_raster, weight_of
from model.grasslib.reader import parse_library, read_library
from model.grasslib.writer import library_bytes, write_library

__all__ = [
    "CLASS_NAMES", "RULE_CLASS_ID", "class_id", "class_name", "describe_class", "MAPPING_NOTE",
    "DerivedGrass", "derive_group", "vxfoliage_text", "GrassLibrary", "Group", "PickRaster",
    "PickResult", "group_of", "pick", "pick_raster", "weight_of", "parse_library", "read_library",
    "library_bytes", "write_library",
]
