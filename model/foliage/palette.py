"""Palette: the ordered set of foliage types a scene paints with, names unique."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from model.atomic import atomic_write_text
from model.errors import FormatError, read_toml_file
from model.events import Event
from model.foliage.foliage_type import (
    SUFFIX,
    FoliageType,
    foliage_type_from_dict,
    foliage_type_to_dict,
    load_foliage_type,
    toml_lines,
)

MAX_TYPES = 4096


class Palette:
    """Ordered foliage types keyed by unique name; `changed` fires after every edit."""

    def __init__(self, types: Iterable[FoliageType] = ()) -> None:
        self._types: dict[str, FoliageType] = {}
        self.changed = Event()
        for t in types:
            self._insert(t)

    def _insert(self, ftype: FoliageType) -> None:
        if ftype.name in self._types:
            raise ValueError(f"the palette already has a type named {ftype.name!r}")
        self._types[ftype.name] = ftype

    # ---- reading ----------------------------------------------------------------------------
    def __iter__(self) -> Iterator[FoliageType]:
        return iter(self._types.values())

    def __len__(self) -> int:
        return len(self._types)

    def __contains__(self, name: object) -> bool:
        return name in self._types

    def __getitem__(self, name: str) -> FoliageType:
        return self._types[name]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Palette) and list(self) == list(other)

    def get(self, name: str) -> FoliageType | None:
        return self._types.get(name)

    def names(self) -> list[str]:
        return list(self._types)

    def index_of(self, name: str) -> int:
        return self.names().index(name)

    def stored_names(self) -> list[str]:
        return [t.name for t in self if t.stored]

    # ---- editing ----------------------------------------------------------------------------
    def add(self, ftype: FoliageType) -> None:
        self._insert(ftype)
        self.changed.emit()

    def replace(self, ftype: FoliageType) -> FoliageType:
        """Swap in a new definition for the type of the same name; returns the old one."""
        old = self._types[ftype.name]
        self._types[ftype.name] = ftype
        self.changed.emit()
        return old

    def remove(self, name: str) -> FoliageType:
        ftype = self._types.pop(name)
        self.changed.emit()
        return ftype


def changed_types(seen: dict[str, FoliageType], palette: Palette | None) -> tuple[set[str], dict]:
    """The names whose definition differs between `seen` (name → type, as last looked at) and
    `palette` (added, removed or edited), and the palette's types now: a view that follows a
    palette redoes only those types."""
    now = {t.name: t for t in palette} if palette is not None else {}
    return {n for n in seen.keys() | now.keys() if seen.get(n) != now.get(n)}, now


# ---- persistence ---------------------------------------------------------------------------
def palette_from_list(items: object, path: str | Path | None = None, where: str = "types") -> Palette:
    """A palette from a TOML array of type tables; duplicate names are an error."""
    if not isinstance(items, list) or len(items) > MAX_TYPES:
        raise FormatError(path, where, f"expected a list of at most {MAX_TYPES} foliage types")
    palette = Palette()
    for i, item in enumerate(items):
        ftype = foliage_type_from_dict(item, path, f"{where}[{i}]")
        if ftype.name in palette:
            raise FormatError(path, f"{where}[{i}].name", f"duplicate foliage type name {ftype.name!r}")
        palette._insert(ftype)
    return palette


def palette_to_list(palette: Palette) -> list[dict]:
    return [foliage_type_to_dict(t) for t in palette]


def load_palette_file(path: str | Path) -> Palette:
    """A `.palette.toml`: `[[types]]` tables in order."""
    path = Path(path)
    doc = read_toml_file(path)
    for key in doc:
        if key != "types":
            raise FormatError(path, key, f"unknown key '{key}'")
    return palette_from_list(doc.get("types", []), path)


def dumps_palette(palette: Palette) -> str:
    """A `.palette.toml`: one `[[types]]` table per type, a line per key (inline arrays/tables)."""
    return "\n".join("[[types]]\n" + "\n".join(toml_lines(t)) + "\n" for t in palette)


def save_palette_file(palette: Palette, path: str | Path) -> None:
    atomic_write_text(path, dumps_palette(palette))


def load_palette_folder(folder: str | Path) -> Palette:
    """Every `.vxfoliage` in `folder`, in file-name order."""
    palette = Palette()
    for file in sorted(Path(folder).glob(f"*{SUFFIX}")):
        ftype = load_foliage_type(file)
        if ftype.name in palette:
            raise FormatError(file, "name", f"duplicate foliage type name {ftype.name!r}")
        palette._insert(ftype)
    return palette


BUILTIN_FOLDER = Path(__file__).resolve().parents[2] / "resources" / "foliage"
BUILTIN_ORDER = ("conifer", "broadleaf", "bush", "rock", "grass")


def builtin_palette() -> Palette:
    """The sample types shipped in `resources/foliage/`: trees first, derived grass last."""
    loaded = load_palette_folder(BUILTIN_FOLDER)
    rank = {name: i for i, name in enumerate(BUILTIN_ORDER)}
    return Palette(sorted(loaded, key=lambda t: (rank.get(t.name, len(rank)), t.name)))
