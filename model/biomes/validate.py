"""Every check of the biome spec. Each problem becomes an `Issue` naming the file and JSON path.

Value checks run on the resolved asset and name the file that set the offending field; unknown
keys are warnings reported once, on the file that wrote them.
"""

from __future__ import annotations

import math

from model.biomes.asset import BiomeAsset
from model.biomes.colors import parse_map_color
from model.biomes.issues import ERROR, WARNING, Issue
from model.biomes.paths import JsonPath, format_path
from model.biomes.reader import AssetFile, json_kind
from model.biomes.schema import (
    FADE_NUMBERS,
    OBJECT_KEYS,
    THRESHOLD_KEYS,
    THRESHOLD_TYPES,
    TOP_LEVEL_KEYS,
    WATER_KEYS,
    ZONE_KEYS,
)
from model.biomes.zone_order import ZoneRow, is_order


def is_number(value: object) -> bool:
    # an int is never passed to isfinite: one past the float range would raise OverflowError
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, int) and not isinstance(value, bool)


def is_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _show(value: object) -> str:
    text = "null" if value is None else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class _Checker:
    """Collects issues for one asset; the file named is the one that set the path."""

    def __init__(self, asset: BiomeAsset) -> None:
        self.asset = asset

    def source(self, *paths: JsonPath) -> AssetFile:
        """Of the files that set `paths`, the one applied last (the one to edit)."""
        found = [s for s in (self.asset.origin(p) for p in paths) if s is not None]
        if not found:
            return self.asset.own_file
        if len(found) == 1:
            return found[0]
        # the nearest link of the chain (this asset is applied last), then its latest overlay
        keys = {s.key for s in found}
        node = self.asset
        for _ in range(self.asset.chain_length):
            if node is None or node.key in keys:
                break
            node = node.link
        near = [s for s in found if node is not None and s.key == node.key] or found
        return max(near, key=lambda s: s.folder)

    def issue(self, severity: str, path: JsonPath, reason: str, *also: JsonPath) -> None:
        src = self.source(path, *also)
        self.asset.issues.append(Issue(severity, self.asset.key, src.name, format_path(path), reason))

    def error(self, path: JsonPath, reason: str, *also: JsonPath) -> None:
        self.issue(ERROR, path, reason, *also)

    def get(self, path: JsonPath) -> object:
        return self.asset.get(path)

    # ---- shapes ----------------------------------------------------------------------
    def object_or_null(self, path: JsonPath) -> dict | None:
        value = self.get(path)
        if value is None or isinstance(value, dict):
            return value
        self.error(path, f"{format_path(path)} must be an object or null, got {json_kind(value)}")
        return None

    def array_or_null(self, path: JsonPath) -> list | None:
        value = self.get(path)
        if value is None or isinstance(value, list):
            return value
        self.error(path, f"{format_path(path)} must be an array or null, got {json_kind(value)}")
        return None

    def string_or_null(self, path: JsonPath) -> None:
        value = self.get(path)
        if value is not None and not isinstance(value, str):
            self.error(path, f"{format_path(path)} must be a string, got {_show(value)}")

    def noise_ref(self, path: JsonPath) -> None:
        value = self.get(path)
        if value is not None and not isinstance(value, str | dict):
            self.error(path, f"{format_path(path)} must name a noise asset (a string or an object), "
                             f"got {_show(value)}")

    def numbers(self, path: JsonPath, integer: bool = False) -> int:
        """Check an array of numbers (or null); return its length."""
        items = self.array_or_null(path)
        if items is None:
            return 0
        want, test = ("an integer", is_integer) if integer else ("a number", is_number)
        for i, item in enumerate(items):
            if not test(item):
                self.error(path + (i,), f"{format_path(path + (i,))} must be {want}, got {_show(item)}")
        return len(items)


def validate_asset(asset: BiomeAsset) -> None:
    """Unknown-key warnings for each file, then every value check on the resolved asset."""
    if asset.type is not None:
        for f in asset.files:
            _unknown_keys(asset, f)
    if asset.value is None:
        return
    c = _Checker(asset)
    v = asset.value
    for key in ("Parent", "SeedName"):
        c.string_or_null((key,))
    color = v.get("MapColor")
    if color is not None and parse_map_color(color) is None:
        c.error(("MapColor",), f"MapColor must be a hex colour (#RRGGBB, 0xRRGGBB or RRGGBB), "
                               f"got {_show(color)}")
    c.noise_ref(("HeightmapNoise",))
    _zones(c)
    _threshold(c, ("TerrainHeightThreshold",))
    _objects(c)
    _water(c)
    _tags(c)
    if asset.type == "Tile":
        _tile(c)
    else:
        _custom(c)


def _zones(c: _Checker) -> None:
    zones = c.array_or_null(("Zones",))
    for i, member in enumerate(zones or []):
        at = ("Zones", i)
        if not isinstance(member, dict):
            c.error(at, f"{format_path(at)} must be an object, got {json_kind(member)}")
            continue
        zone = member.get("Zone")
        if zone is None:
            c.error(at + ("Zone",), "Zone is required: the key of a zone asset")
        elif not isinstance(zone, str):
            c.error(at + ("Zone",), f"Zone must be a string, got {_show(zone)}")
        elif not any(not ch.isspace() for ch in zone):
            c.error(at + ("Zone",), f"Zone must contain a non-space character, got {zone!r}")
        pinned = member.get("ConvertedPin", False)
        if not isinstance(pinned, bool):
            c.error(at + ("ConvertedPin",), f"ConvertedPin must be true or false, got {_show(pinned)}")
        if "Order" in member:
            if not is_order(member["Order"]):
                c.error(at + ("Order",),
                        f"Order must be a non-negative integer, got {_show(member['Order'])}")
        elif pinned is True:
            c.error(at + ("Order",), "Order is required when ConvertedPin is true")


def _threshold(c: _Checker, path: JsonPath) -> None:
    t = c.object_or_null(path)
    if t is None:
        return
    kind = t.get("Type")
    if kind not in THRESHOLD_TYPES:
        reason = ('Type is required ("Basic" or "Noise")' if kind is None
                  else f'Type must be "Basic" or "Noise", got {_show(kind)}')
        c.error(path + ("Type",), reason)
        return
    first, second = ("Positions", "Values") if kind == "Basic" else ("Keys", "Thresholds")
    if kind == "Basic":
        n = c.numbers(path + (first,), integer=True)
        m = c.numbers(path + (second,))
    else:
        c.noise_ref(path + ("Noise",))
        n = c.numbers(path + (first,))
        entries = c.array_or_null(path + (second,)) or []
        m = len(entries)
        for i, entry in enumerate(entries):
            at = path + (second, i)
            if not isinstance(entry, dict):
                c.error(at, f"{format_path(at)} must be an object, got {json_kind(entry)}")
            elif "Type" in entry:
                _threshold(c, at)
    if n != m:
        c.error(path + (second,), f"{first} has {n} entries but {second} has {m}; they must match",
                path + (first,))


def _objects(c: _Checker) -> None:
    if c.object_or_null(("Interpolation",)) is not None:
        radius = c.get(("Interpolation", "DefaultRadius"))
        if radius is not None and not is_integer(radius):
            c.error(("Interpolation", "DefaultRadius"),
                    f"Interpolation.DefaultRadius must be an integer, got {_show(radius)}")
        c.array_or_null(("Interpolation", "Biomes"))
    if c.object_or_null(("Layers",)) is not None:
        c.string_or_null(("Layers", "Default"))
        c.string_or_null(("Layers", "Environment"))
    for name in ("Tint", "Environment"):
        if c.object_or_null((name,)) is not None:
            c.array_or_null((name, "Entries"))
    fade = c.object_or_null(("Fade",))
    for key in FADE_NUMBERS:
        if fade is not None and key in fade and not is_number(fade[key]):
            c.error(("Fade", key), f"Fade.{key} must be a number, got {_show(fade[key])}")


def _water(c: _Checker) -> None:
    seen: dict[int, int] = {}
    for i, entry in enumerate(c.array_or_null(("Water",)) or []):
        at = ("Water", i)
        if not isinstance(entry, dict):
            c.error(at, f"{format_path(at)} must be an object, got {json_kind(entry)}")
            continue
        index = entry.get("SeedIndex")
        if index is not None:
            if not is_integer(index):
                c.error(at + ("SeedIndex",), f"SeedIndex must be an integer, got {_show(index)}")
            elif index < 0:
                c.error(at + ("SeedIndex",), f"SeedIndex must be non-negative, got {index}")
            elif index in seen:
                c.error(at + ("SeedIndex",), f"SeedIndex {index} repeats Water[{seen[index]}].SeedIndex;"
                                             " each must be unique within the biome")
            else:
                seen[index] = i
        direct = entry.get("DirectEntry", False)
        if not isinstance(direct, bool):
            c.error(at + ("DirectEntry",), f"DirectEntry must be true or false, got {_show(direct)}")
        for key in ("Block", "Fluid"):
            c.string_or_null(at + (key,))
        for key in ("MinNoise", "MaxNoise"):
            c.noise_ref(at + (key,))


def _tags(c: _Checker) -> None:
    for key, values in (c.object_or_null(("Tags",)) or {}).items():
        if not (isinstance(values, list) and all(isinstance(s, str) for s in values)):
            c.error(("Tags", key), f"tag {key!r} must map to an array of strings, got {_show(values)}")


def _tile(c: _Checker) -> None:
    v = c.asset.value
    if "Weight" in v and not (is_number(v["Weight"]) and v["Weight"] > 0):
        c.error(("Weight",), f"Weight must be a number greater than 0, got {_show(v['Weight'])}")
    if "SizeModifier" in v and not is_number(v["SizeModifier"]):
        c.error(("SizeModifier",), f"SizeModifier must be a number, got {_show(v['SizeModifier'])}")


def _custom(c: _Checker) -> None:
    path = ("CustomBiomeGenerator",)
    gen = c.object_or_null(path)
    if gen is None:
        return
    c.noise_ref(path + ("Noise",))
    priority = gen.get("Priority")
    if priority is not None and not is_integer(priority):
        c.error(path + ("Priority",), f"Priority must be an integer, got {_show(priority)}")
    masks = c.array_or_null(path + ("BiomeMask",))
    for i, name in enumerate(masks or []):
        if not isinstance(name, str):
            c.error(path + ("BiomeMask", i), f"BiomeMask entries must be biome names, got {_show(name)}")
    if "Threshold" in gen and gen["Threshold"] is not None:
        _custom_threshold(c, path + ("Threshold",), gen["Threshold"])


def threshold_ranges(value: object) -> list[tuple[float, float]] | None:
    """A Custom Threshold as ranges: a number n is [n, n]; None when the shape is wrong."""
    if is_number(value):
        return [(value, value)]
    if isinstance(value, list) and len(value) == 2 and all(is_number(x) for x in value):
        return [(value[0], value[1])]
    if isinstance(value, list) and all(isinstance(r, list) and len(r) == 2
                                       and all(is_number(x) for x in r) for r in value):
        return [(r[0], r[1]) for r in value]
    return None


def _custom_threshold(c: _Checker, path: JsonPath, value: object) -> None:
    ranges = threshold_ranges(value)
    if ranges is None:
        c.error(path, "Threshold must be a number, a [min, max] range or a list of ranges, "
                      f"got {_show(value)}")
        return
    for lo, hi in ranges:
        if lo > hi:
            c.issue(WARNING, path, f"range [{lo}, {hi}] has its minimum above its maximum; "
                                   "it matches nothing")


def _unknown_keys(asset: BiomeAsset, f: AssetFile) -> None:
    def warn(path: JsonPath, key: str, where: str, known=()) -> None:
        # keys are case-sensitive; a near miss in case is named so the fix is obvious
        hint = next((f"; did you mean {k!r}?" for k in known if k.lower() == str(key).lower()), "")
        asset.issues.append(Issue(WARNING, asset.key, f.name, format_path(path + (key,)),
                                  f"unknown key {key!r} in {where}; kept but not used{hint}"))

    doc = f.doc or {}
    for key in doc:
        if key not in TOP_LEVEL_KEYS[asset.type]:
            warn((), key, f"a {asset.type} biome", TOP_LEVEL_KEYS[asset.type])
    for name, known in OBJECT_KEYS.items():
        if isinstance(doc.get(name), dict) and name in TOP_LEVEL_KEYS[asset.type]:
            for key in doc[name]:
                if key not in known:
                    warn((name,), key, name, known)
    for name, known in (("Zones", ZONE_KEYS), ("Water", WATER_KEYS)):
        for i, entry in enumerate(doc.get(name) or [] if isinstance(doc.get(name), list) else []):
            for key in entry if isinstance(entry, dict) else ():
                if key not in known:
                    warn((name, i), key, f"{name}[{i}]", known)
    t = doc.get("TerrainHeightThreshold")
    if isinstance(t, dict):
        known = THRESHOLD_KEYS.get(t.get("Type"), THRESHOLD_KEYS["Basic"] | THRESHOLD_KEYS["Noise"])
        every = THRESHOLD_KEYS["Basic"] | THRESHOLD_KEYS["Noise"]
        for key in t:
            # null on the other variant's field is how a child drops what it would inherit
            if key not in known and not (t[key] is None and key in every):
                warn(("TerrainHeightThreshold",), key, "TerrainHeightThreshold", known)


def validate_set(assets: dict[str, BiomeAsset], zones: dict[str, list[ZoneRow]]) -> None:
    """Checks across assets: BiomeMask names Tile biomes; converted zone orders do not collide."""
    for asset in assets.values():
        if asset.type != "Custom" or asset.value is None:
            continue
        masks = asset.get(("CustomBiomeGenerator", "BiomeMask"))
        c = _Checker(asset)
        for i, name in enumerate(masks if isinstance(masks, list) else []):
            if not isinstance(name, str):
                continue
            target = assets.get(name)
            path = ("CustomBiomeGenerator", "BiomeMask", i)
            if target is None:
                c.error(path, f"BiomeMask names {name!r}, which is not a biome in this set")
            elif target.type != "Tile":
                c.error(path, f"BiomeMask names {name!r}, which is a {target.type or 'broken'} "
                              "biome, not a Tile biome")
    for zone, rows in zones.items():
        clashing = [r for r in rows if r.conflict]
        for row in clashing:
            others = ", ".join(f"{o.asset} Zones[{o.index}]" for o in clashing
                               if o.order == row.order and o is not row)
            _Checker(assets[row.asset]).error(
                ("Zones", row.index, "Order"),
                f"zone {zone!r}: converted Order {row.order} is also used by {others}")
