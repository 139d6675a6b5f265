"""FoliageType: what one `.vxfoliage` (TOML) file holds, with strict reading and writing."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

import tomli_w

from model.atomic import atomic_write_text
from model.errors import FormatError, parse_toml, read_text_file

BUILTIN_MESHES = ("conifer", "broadleaf", "bush", "rock", "grass")
# Extent (radius, height) of each built-in mesh at scale 1, metres.
BUILTIN_EXTENTS = {
    "conifer": (2.5, 14.0),
    "broadleaf": (4.5, 11.0),
    "bush": (1.2, 1.4),
    "rock": (1.5, 1.2),
    "grass": (0.25, 0.5),
}
MESH_FILE_SUFFIXES = (".obj", ".gltf", ".glb")
STORAGES = ("stored", "derived")
SUFFIX = ".vxfoliage"
NAME_FILTER = "Foliage types (*.vxfoliage)"


@dataclass(frozen=True)
class LayerFilter:
    """Grow only where the terrain layer called `name` is painted at least `min_weight` (0..1)."""

    name: str
    min_weight: float = 0.5


@dataclass(frozen=True)
class Extent:
    """The mesh's size at scale 1: `radius` sideways, `height` upward (metres)."""

    radius: float
    height: float


@dataclass(frozen=True)
class Variant:
    """One mesh of a type with several: instances pick it with probability weight / Σ weights."""

    mesh: str
    weight: float = 1.0


@dataclass(frozen=True)
class Lod:
    """A coarser level from `distance` metres on: a named mesh, or (mesh None) the generated one."""

    distance: float
    mesh: str | None = None


@dataclass(frozen=True)
class FoliageType:
    """One kind of foliage: mesh, density, randomness ranges and placement filters."""

    name: str
    mesh: str = "builtin:conifer"
    storage: str = "stored"
    density: float = 1.0
    spacing: float = 0.0
    scale: tuple[float, float] = (1.0, 1.0)
    yaw: tuple[float, float] = (0.0, 360.0)
    tilt: tuple[float, float] = (0.0, 0.0)
    align: float = 0.0
    sink: tuple[float, float] = (0.0, 0.0)
    slope: tuple[float, float] = (0.0, 90.0)
    altitude: tuple[float, float] = (-math.inf, math.inf)
    layer: LayerFilter | None = None
    extent: Extent | None = None  # None: from the mesh
    activation_radius: float = 0.0
    cull: tuple[float, float] = (150.0, 200.0)
    variants: tuple[Variant, ...] = ()  # empty: every instance draws `mesh`
    hue: tuple[float, float] = (0.0, 0.0)  # degrees of hue shift per instance
    value: tuple[float, float] = (0.0, 0.0)  # brightness change per instance (-0.2: 20 % darker)
    lods: tuple[Lod, ...] | None = None  # None: built-in meshes get their generated levels
    impostor: bool = True  # beyond `cull` drawn as billboards instead of not at all
    impostor_cull: float | None = None  # where impostors end too; None: the horizon

    @property
    def meshes(self) -> tuple[str, ...]:
        """The variant meshes, or the one mesh."""
        return tuple(v.mesh for v in self.variants) if self.variants else (self.mesh,)

    @property
    def weights(self) -> tuple[float, ...]:
        return tuple(v.weight for v in self.variants) if self.variants else (1.0,)

    @property
    def derived(self) -> bool:
        """Derived types (grass) are scattered from rules: never stored, never collide."""
        return self.storage == "derived"

    @property
    def stored(self) -> bool:
        return self.storage == "stored"

    def resolved_extent(self, folder: str | Path | None = None) -> Extent:
        """The explicit extent, else the mesh's: a built-in one's, or the bounds of the mesh file
        (relative to `folder`, the scene's or the type file's); one metre each way when the file
        cannot be read."""
        if self.extent is not None:
            return self.extent
        found = [self._mesh_extent(m, folder) for m in self.meshes]  # the largest variant bounds all
        return Extent(max(e.radius for e in found), max(e.height for e in found))

    @staticmethod
    def _mesh_extent(mesh: str, folder) -> Extent:
        if mesh.startswith("builtin:"):
            r, h = BUILTIN_EXTENTS[mesh.removeprefix("builtin:")]
            return Extent(r, h)
        from model.foliage.mesh_extent import mesh_extent

        found = mesh_extent(mesh, folder)
        return Extent(*found) if found is not None else Extent(1.0, 1.0)

    def renamed(self, name: str) -> FoliageType:
        return replace(self, name=name)

    def rebased(self, source: str | Path, target: str | Path) -> FoliageType | None:
        """This type with its mesh file path made relative to folder `target` instead of folder
        `source` (a `.vxfoliage` taken into a scene's palette); itself for a built-in mesh; None
        when the mesh file lies outside `target` (a path may not leave the folder it is read in)."""
        def moved(mesh: str | None) -> str | None:
            if mesh is None or mesh.startswith("builtin:"):
                return mesh
            path = (Path(source) / mesh.replace("\\", "/")).resolve()
            try:
                return path.relative_to(Path(target).resolve()).as_posix()
            except ValueError:
                raise LookupError(mesh) from None

        files = [m for m in (self.mesh, *(v.mesh for v in self.variants),
                             *(lv.mesh for lv in self.lods or ())) if m and not m.startswith("builtin:")]
        if not files:
            return self
        try:  # variant and level meshes move with the type's own
            return replace(self, mesh=moved(self.mesh),
                           variants=tuple(replace(v, mesh=moved(v.mesh)) for v in self.variants),
                           lods=None if self.lods is None else tuple(
                               replace(lv, mesh=moved(lv.mesh)) for lv in self.lods))
        except LookupError:
            return None


# ---- reading -------------------------------------------------------------------------------
_KEYS = ("name", "mesh", "storage", "density", "spacing", "scale", "yaw", "tilt", "align", "sink",
         "slope", "altitude", "layer", "extent", "activation_radius", "cull", "variants", "hue",
         "value", "lods", "impostor", "impostor_cull")
MAX_VARIANTS = 8  # the shader's threshold array
MAX_LODS = 3  # coarser levels after the mesh itself


MAX_TYPE_NAME_BYTES = 255


def type_name_problem(name: object) -> str | None:
    """Why `name` cannot name a foliage type, or None: the one rule for scenes and every import
    (empty or blank, over 255 bytes of UTF-8, or not Unicode text: a lone surrogate)."""
    if not isinstance(name, str) or not name.strip():
        return f"expected a non-empty name of at most {MAX_TYPE_NAME_BYTES} bytes, got {name!r}"
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError as e:
        return (f"type name {name[:40]!r} holds a lone surrogate (U+{ord(name[e.start]):04X}): "
                "not Unicode text")
    if size > MAX_TYPE_NAME_BYTES:
        return f"expected a non-empty name of at most {MAX_TYPE_NAME_BYTES} bytes, got {size} bytes"
    return None


def _number(path, key: str, value, low: float = -math.inf, high: float = math.inf,
            finite: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise FormatError(path, key, f"expected a number, got {value!r}")
    try:
        value = float(value)
    except OverflowError:  # an integer of hundreds of digits
        raise FormatError(path, key, f"number beyond the 64-bit float range: {str(value)[:24]}…") from None
    if math.isnan(value) or (finite and math.isinf(value)):
        raise FormatError(path, key, f"expected a finite number, got {value!r}")
    if not low <= value <= high:
        raise FormatError(path, key, f"must be between {low:g} and {high:g}, got {value:g}")
    return value


def _range(path, key: str, value, low: float = -math.inf, high: float = math.inf,
           finite: bool = True) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise FormatError(path, key, f"expected [min, max], got {value!r}")
    a = _number(path, f"{key}[0]", value[0], low, high, finite)
    b = _number(path, f"{key}[1]", value[1], low, high, finite)
    if a > b:
        raise FormatError(path, key, f"min {a:g} is greater than max {b:g}")
    return (a, b)


def _table(path, key: str, value, keys: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise FormatError(path, key, f"expected a table, got {value!r}")
    for k in value:
        if k not in keys:
            raise FormatError(path, f"{key}.{k}", f"unknown key '{k}' (known: {', '.join(keys)})")
    return value


def _mesh(path, key: str, value) -> str:
    if not isinstance(value, str) or not value:
        raise FormatError(path, key, f"expected a mesh name, got {value!r}")
    if value.startswith("builtin:"):
        if value.removeprefix("builtin:") not in BUILTIN_MESHES:
            known = ", ".join(f"builtin:{m}" for m in BUILTIN_MESHES)
            raise FormatError(path, key, f"unknown built-in mesh {value!r} (known: {known})")
        return value
    p = PurePosixPath(value.replace("\\", "/"))
    if p.is_absolute() or ".." in p.parts or ":" in value:
        raise FormatError(path, key, f"mesh path {value!r} must stay inside the type's folder")
    if p.suffix.lower() not in MESH_FILE_SUFFIXES:
        raise FormatError(path, key, f"mesh file {value!r} must be OBJ or glTF")
    return value


def foliage_type_from_dict(doc: dict, path: str | Path | None = None, where: str = "") -> FoliageType:
    """Build a FoliageType from a parsed TOML table; errors name `path` and the key."""
    def k(key: str) -> str:
        return f"{where}.{key}" if where else key

    if not isinstance(doc, dict):
        raise FormatError(path, where or None, "expected a table")
    for key in doc:
        if key not in _KEYS:
            raise FormatError(path, k(key), f"unknown key '{key}' (known: {', '.join(_KEYS)})")
    if "name" not in doc:
        raise FormatError(path, k("name"), "missing key 'name'")
    name = doc["name"]
    problem = type_name_problem(name)
    if problem is not None:
        raise FormatError(path, k("name"), problem)
    fields: dict = {"name": name}
    if "mesh" in doc:
        fields["mesh"] = _mesh(path, k("mesh"), doc["mesh"])
    if "storage" in doc:
        if doc["storage"] not in STORAGES:
            raise FormatError(path, k("storage"), f"expected 'stored' or 'derived', got {doc['storage']!r}")
        fields["storage"] = doc["storage"]
    if "density" in doc:
        fields["density"] = _number(path, k("density"), doc["density"], 0.0, 1e6)
    if "spacing" in doc:
        fields["spacing"] = _number(path, k("spacing"), doc["spacing"], 0.0, 1e4)
    if "scale" in doc:
        fields["scale"] = _range(path, k("scale"), doc["scale"], 1e-4, 1e4)
    if "yaw" in doc:
        fields["yaw"] = _range(path, k("yaw"), doc["yaw"], -720.0, 720.0)
    if "tilt" in doc:
        # a negative lean is a lean the other way: [-5, 5] is as valid as [0, 5]
        fields["tilt"] = _range(path, k("tilt"), doc["tilt"], -90.0, 90.0)
    if "align" in doc:
        fields["align"] = _number(path, k("align"), doc["align"], 0.0, 1.0)
    if "sink" in doc:
        fields["sink"] = _range(path, k("sink"), doc["sink"], -1e4, 1e4)
    if "slope" in doc:
        fields["slope"] = _range(path, k("slope"), doc["slope"], 0.0, 90.0)
    if "altitude" in doc:
        fields["altitude"] = _range(path, k("altitude"), doc["altitude"], finite=False)
    if "layer" in doc:
        if not isinstance(doc["layer"], dict):
            raise FormatError(path, k("layer"), "expected a table like { name = \"grass\", "
                              f"min_weight = 0.5 }}, got {doc['layer']!r}")
        t = _table(path, k("layer"), doc["layer"], ("name", "min_weight"))
        lname = t.get("name")
        if not isinstance(lname, str) or not lname:
            raise FormatError(path, k("layer.name"), f"expected a layer name, got {lname!r}")
        weight = _number(path, k("layer.min_weight"), t.get("min_weight", 0.5), 0.0, 1.0)
        fields["layer"] = LayerFilter(lname, weight)
    if "extent" in doc:
        t = _table(path, k("extent"), doc["extent"], ("radius", "height"))
        for sub in ("radius", "height"):
            if sub not in t:
                raise FormatError(path, k(f"extent.{sub}"), f"missing key '{sub}'")
        fields["extent"] = Extent(_number(path, k("extent.radius"), t["radius"], 0.0, 1e4),
                                  _number(path, k("extent.height"), t["height"], 0.0, 1e4))
    if "activation_radius" in doc:
        fields["activation_radius"] = _number(path, k("activation_radius"), doc["activation_radius"],
                                              0.0, 1e5)
    if "cull" in doc:
        fields["cull"] = _range(path, k("cull"), doc["cull"], 0.0, 1e6)
    if "variants" in doc:
        fields["variants"] = _variants(path, k("variants"), doc["variants"])
    if "hue" in doc:
        fields["hue"] = _range(path, k("hue"), doc["hue"], -180.0, 180.0)
    if "value" in doc:
        fields["value"] = _range(path, k("value"), doc["value"], -1.0, 1.0)
    if "lods" in doc:
        fields["lods"] = _lods(path, k("lods"), doc["lods"])
    if "impostor" in doc:
        if not isinstance(doc["impostor"], bool):
            raise FormatError(path, k("impostor"), f"expected true or false, got {doc['impostor']!r}")
        fields["impostor"] = doc["impostor"]
    if "impostor_cull" in doc:
        fields["impostor_cull"] = _number(path, k("impostor_cull"), doc["impostor_cull"], 0.0, 1e7)
    return FoliageType(**fields)


def _variants(path, key: str, value) -> tuple[Variant, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_VARIANTS:
        raise FormatError(path, key, f"expected a list of 1 to {MAX_VARIANTS} tables like "
                          f"{{ mesh = \"builtin:conifer\", weight = 2 }}, got {value!r}")
    out = []
    for i, item in enumerate(value):
        t = _table(path, f"{key}[{i}]", item, ("mesh", "weight"))
        if "mesh" not in t:
            raise FormatError(path, f"{key}[{i}].mesh", "missing key 'mesh'")
        out.append(Variant(_mesh(path, f"{key}[{i}].mesh", t["mesh"]),
                           _number(path, f"{key}[{i}].weight", t.get("weight", 1.0), 1e-6, 1e6)))
    return tuple(out)


def _lods(path, key: str, value) -> tuple[Lod, ...]:
    if not isinstance(value, list) or len(value) > MAX_LODS:
        raise FormatError(path, key, f"expected a list of at most {MAX_LODS} tables like "
                          f"{{ distance = 60, mesh = \"tree_lod1.obj\" }}, got {value!r}")
    out: list[Lod] = []
    for i, item in enumerate(value):
        t = _table(path, f"{key}[{i}]", item, ("distance", "mesh"))
        if "distance" not in t:
            raise FormatError(path, f"{key}[{i}].distance", "missing key 'distance'")
        d = _number(path, f"{key}[{i}].distance", t["distance"], 0.0, 1e6)
        if out and d <= out[-1].distance:
            raise FormatError(path, f"{key}[{i}].distance",
                              f"{d:g} must be greater than the level before ({out[-1].distance:g})")
        mesh = _mesh(path, f"{key}[{i}].mesh", t["mesh"]) if "mesh" in t else None
        out.append(Lod(d, mesh))
    return tuple(out)


def foliage_type_to_dict(ftype: FoliageType) -> dict:
    """The TOML table for `ftype`; keys at their default are left out so diffs stay small."""
    default = FoliageType(name=ftype.name)
    doc: dict = {"name": ftype.name}
    for key in _KEYS[1:]:
        value = getattr(ftype, key)
        if value == getattr(default, key):
            continue
        if key == "variants":
            value = [{"mesh": v.mesh, "weight": float(v.weight)} for v in value]
        elif key == "lods":
            value = [{"distance": float(v.distance), **({"mesh": v.mesh} if v.mesh else {})}
                     for v in value]
        elif isinstance(value, (bool, str)):
            pass
        elif isinstance(value, LayerFilter):
            value = {"name": value.name, "min_weight": float(value.min_weight)}
        elif isinstance(value, Extent):
            value = {"radius": float(value.radius), "height": float(value.height)}
        elif isinstance(value, tuple):
            value = [float(v) for v in value]
        doc[key] = value
    return doc


def parse_foliage_type(text: str, path: str | Path | None = None) -> FoliageType:
    return foliage_type_from_dict(parse_toml(text, path), path)


def load_foliage_type(path: str | Path) -> FoliageType:
    """Read one `.vxfoliage` file."""
    path = Path(path)
    return parse_foliage_type(read_text_file(path), path)


def _toml_value(value) -> str:
    """One value in the inline style an author writes: `[1.0, 2.0]`, `{ name = "x", ... }`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return tomli_w.dumps({"v": value})[4:].rstrip("\n")  # tomli_w's string escaping
    if isinstance(value, (int, float)):
        v = float(value)
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {_toml_value(v)}" for key, v in value.items()) + " }"
    raise TypeError(f"no TOML form for {value!r}")


def toml_lines(ftype: FoliageType) -> list[str]:
    """`key = value` lines of a type, one per key that differs from its default, in spec order."""
    return [f"{key} = {_toml_value(v)}" for key, v in foliage_type_to_dict(ftype).items()]


def dumps_foliage_type(ftype: FoliageType) -> str:
    """The `.vxfoliage` text: one line per key, arrays and tables inline so a diff shows one line."""
    return "\n".join(toml_lines(ftype)) + "\n"


def save_foliage_type(ftype: FoliageType, path: str | Path) -> None:
    """Write one `.vxfoliage` file atomically."""
    atomic_write_text(path, dumps_foliage_type(ftype))


# ---- checking an edit -----------------------------------------------------------------------
def mesh_places(ftype: FoliageType) -> list[tuple[str, str]]:
    """(key, mesh) of every mesh a type names: its own, each variant's, each level's."""
    out = [("mesh", ftype.mesh)]
    out += [(f"variants[{i}].mesh", v.mesh) for i, v in enumerate(ftype.variants)]
    out += [(f"lods[{i}].mesh", lv.mesh) for i, lv in enumerate(ftype.lods or ()) if lv.mesh]
    return out


def edit_problem(new: FoliageType, old: FoliageType | None = None,
                 folder: str | Path | None = None) -> str | None:
    """Why `new` cannot be taken as an edit of `old`: the first key a save and read-back would
    refuse and why, or a mesh file it newly names that is not in `folder` (the scene's; None: the
    working folder) or that cannot be drawn. None when it can. A mesh file `old` already named is
    not checked again, so a type whose file is missing can still have its other settings edited."""
    try:
        foliage_type_from_dict(foliage_type_to_dict(new))
    except FormatError as e:
        return f"{e.place}: {e.reason}"
    known = {m for _, m in mesh_places(old)} if old is not None else set()
    base = Path(folder) if folder is not None else Path.cwd()
    for key, mesh in mesh_places(new):
        if mesh.startswith("builtin:") or mesh in known:
            continue
        if not (base / mesh.replace("\\", "/")).is_file():
            return f"{key}: mesh file {mesh!r} not found in {base}"
        from model.foliage.mesh_check import mesh_file_problem  # trimesh: only for a new file

        problem = mesh_file_problem(mesh, base)
        if problem is not None:
            return f"{key}: {problem}"
    return None
