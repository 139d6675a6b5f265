"""Read and write a zone's layer files: `{layer}.{zoneId:04d}.bin` raw or `.bin.gz`, in one folder."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np

from model.atomic import atomic_write
from model.errors import FormatError
from model.zones import gzip_codec
from model.zones.layers import (
    _FILE_RE,
    LAYER_NAMES,
    LAYERS,
    MAX_SIDE,
    layer_filename,
    parse_layer_filename,
    parse_size,
)
from model.zones.zone import Zone

Size = int | tuple[int, int] | str | None


def layer_folder(folder: str | Path) -> Path:
    """The folder holding the layer files: `folder` itself, or its `layers/` subfolder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FormatError(folder, None, "zone folder not found" if not folder.exists() else "not a folder")
    sub = folder / "layers"
    if sub.is_dir() and not any(_FILE_RE.match(p.name) for p in folder.iterdir()):
        return sub
    return folder


def zone_layers(folder: str | Path) -> dict[int, set[str]]:
    """Zone id → the layers it has a correctly named file for, in `folder`."""
    found: dict[int, set[str]] = {}
    for p in layer_folder(folder).iterdir():
        try:
            layer, zone_id, _ = parse_layer_filename(p.name)
        except FormatError:
            continue
        found.setdefault(zone_id, set()).add(layer)
    return dict(sorted(found.items()))


def zone_ids(folder: str | Path, needs: tuple[str, ...] = ()) -> list[int]:
    """Zone ids that have at least one correctly named layer file in `folder` (and a file for each
    layer in `needs`)."""
    return [i for i, layers in zone_layers(folder).items() if set(needs) <= layers]


def no_zone_with(folder: str | Path, needs: tuple[str, ...]) -> FormatError:
    """The error for a folder where no zone has every layer in `needs`: says what each zone has."""
    found = zone_layers(folder)
    if not found:
        return FormatError(folder, None, "no zone layer files ({layer}.{zoneId:04d}.bin[.gz]) here")
    have = "; ".join(f"zone {i} has {', '.join(sorted(layers))}" for i, layers in list(found.items())[:5])
    return FormatError(folder, None, f"no zone here has a layer file for {' and '.join(needs)} "
                                     f"({', '.join(n + '.{zoneId:04d}.bin[.gz]' for n in needs)}): {have}")


def layer_paths(folder: Path, zone_id: int) -> dict[str, Path]:
    """The file of each layer present for `zone_id`; refuses a layer stored both raw and gzipped."""
    found: dict[str, Path] = {}
    for name in LAYER_NAMES:
        raw = folder / layer_filename(name, zone_id)
        gz = folder / layer_filename(name, zone_id, gz=True)
        present = [p for p in (raw, gz) if p.is_file()]
        if len(present) == 2:
            raise FormatError(gz, None, f"both {raw.name} and {gz.name} exist; keep one")
        if present:
            _check_inside(folder, present[0])
            found[name] = present[0]
    return found


def _check_inside(folder: Path, path: Path) -> None:
    # A layer file that is a link out of the folder is refused: reads never leave the opened folder.
    if not path.resolve().is_relative_to(folder.resolve()):
        raise FormatError(path, None, "layer file links outside the zone folder")


def _unknown_zone(folder: Path, zone_id: int) -> FormatError:
    ids = zone_ids(folder)
    near = sorted(p.name for p in folder.iterdir()
                  if f".{zone_id:04d}." in p.name.lower() or p.name.lower().startswith(LAYER_NAMES))
    reason = f"unknown zone id {zone_id}: no {{layer}}.{zone_id:04d}.bin[.gz] files"
    if ids:
        reason += f"; zones here: {', '.join(str(i) for i in ids[:20])}"
    misnamed = [n for n in near if not _FILE_RE.match(n)]
    if misnamed:
        reason += (f"; misnamed files: {', '.join(misnamed[:5])} (expected lower-case "
                   f"{{layer}}.{{zoneId:04d}}.bin[.gz], layer one of {', '.join(LAYER_NAMES)})")
    return FormatError(folder, None, reason)


def _stored_bytes(path: Path) -> int:
    """Size of the layer's content: file size, or what a gzip trailer announces."""
    if path.name.endswith(".gz"):
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            if f.tell() < 18:
                return 0
            f.seek(-4, os.SEEK_END)
            return int.from_bytes(f.read(4), "little")
    return path.stat().st_size


def infer_size(path: Path, layer: str) -> tuple[int, int]:
    """(width, height) of a square zone from one layer file's content size."""
    kind = LAYERS[layer]
    n = _stored_bytes(path)
    if n == 0 or n % kind.tile_bytes:
        raise FormatError(path, None, f"holds {n} bytes: not a whole number of {kind.tile_bytes}-byte "
                          f"{layer} tiles; give the zone size (W or WxH)")
    tiles = n // kind.tile_bytes
    side = math.isqrt(tiles)
    if side * side != tiles:
        raise FormatError(path, None, f"holds {n} bytes = {tiles} tiles, which is not a square zone "
                          f"(nearest {side}x{side} needs {side * side * kind.tile_bytes} bytes); "
                          "give the zone size (W or WxH)")
    if side > MAX_SIDE:
        raise FormatError(path, None, f"a {side}x{side} zone is larger than the {MAX_SIDE} limit")
    return side, side


def _normal_size(size: Size) -> tuple[int, int] | None:
    if size is None:
        return None
    if isinstance(size, str):
        return parse_size(size)
    if isinstance(size, int):
        size = (size, size)
    w, h = (int(v) for v in size)
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE):
        raise ValueError(f"zone size must be 1..{MAX_SIDE} per side, got {w}x{h}")
    return w, h


class LayerSizeError(FormatError):
    """A layer file whose content is not the size its zone needs (`size` None: larger than `expected`,
    by how much is not known without inflating it all)."""

    def __init__(self, path: Path, layer: str, size: int | None, expected: int, reason: str) -> None:
        super().__init__(path, None, reason)
        self.layer, self.size, self.expected = layer, size, expected


def read_layer(path: str | Path, layer: str, width: int, height: int
               ) -> tuple[np.ndarray, gzip_codec.GzipSource | None]:
    """One layer as a (height, width) array; a file whose length does not match raises LayerSizeError."""
    path = Path(path)
    kind = LAYERS[layer]
    expected = width * height * kind.tile_bytes
    what = f"{width}x{height} tiles x {kind.tile_bytes} bytes"
    if path.name.endswith(".gz"):
        # Deflate never grows data by more than a few bytes per 64 KiB block: a compressed file much
        # larger than its content could be is refused before it is read into memory.
        stored, limit = path.stat().st_size, expected + expected // 64 + (1 << 20)
        if stored > limit:
            raise LayerSizeError(path, layer, None, expected,
                                 f"{stored} compressed bytes (its trailer says {_stored_bytes(path)}) "
                                 f"cannot hold {expected} bytes ({what}); expected at most {limit}")
        blob = path.read_bytes()
        try:
            # Inflating stops one byte past `expected`: a lying trailer or a bomb allocates nothing more.
            content = gzip_codec.decompress(path, blob, expected)
        except gzip_codec.TooLong as e:
            raise LayerSizeError(path, layer, None, expected, f"{e.reason} ({what})") from None
        if len(content) != expected:
            raise LayerSizeError(path, layer, len(content), expected,
                                 f"decompresses to {len(content)} bytes, expected {expected} ({what})")
        array = np.frombuffer(content, kind.dtype).reshape(height, width)  # owns its bytearray
        return array, gzip_codec.read_source(path, blob, content)
    actual = path.stat().st_size
    if actual != expected:
        raise LayerSizeError(path, layer, actual, expected,
                             f"holds {actual} bytes, expected {expected} ({what})")
    return np.fromfile(path, kind.dtype).reshape(height, width), None


def read_zone(folder: str | Path, zone_id: int, size: Size = None,
              layers: tuple[str, ...] | None = None,
              plant_names: dict[int, str] | None = None,
              require: tuple[str, ...] = ()) -> Zone:
    """Every layer file of `zone_id` in `folder` (or only `layers`). Without `size` the zone must be
    square and its size comes from the altitude file (or the first layer present).

    A layer file whose size does not fit the zone is left out, with a warning in `zone.warnings`
    (real data ships such files), unless it is in `layers` or `require`, which must all be read."""
    if isinstance(zone_id, bool) or not isinstance(zone_id, int) or zone_id < 0:
        raise FormatError(folder, None, f"zone id must be a non-negative integer, got {zone_id!r}")
    where = layer_folder(folder)
    paths = layer_paths(where, zone_id)
    if not paths:
        raise _unknown_zone(where, zone_id)
    needed = tuple(require) + tuple(layers or ())
    unknown = [n for n in needed if n not in LAYERS]
    if unknown:
        raise ValueError(f"unknown zone layers {unknown}")
    missing = [n for n in needed if n not in paths]
    if missing:
        raise missing_layers_error(where, zone_id, missing, sorted(paths))
    if layers is not None:
        paths = {n: paths[n] for n in layers}
    wh = _normal_size(size)
    if wh is None:
        first = "altitude" if "altitude" in paths else next(iter(paths))
        wh = infer_size(paths[first], first)
    width, height = wh
    zone = Zone(zone_id, width, height, folder=where)
    if plant_names is not None:
        zone.plant_names = dict(plant_names)
    left_out: list[LayerSizeError] = []
    for name, path in paths.items():
        try:
            array, source = read_layer(path, name, width, height)
        except LayerSizeError as e:
            if name in needed:
                raise
            left_out.append(e)
            continue
        zone.layers[name] = array
        if source is not None:
            zone.sources[name] = source
    if not zone.layers:
        raise left_out[0]
    zone.warnings = [f"{e.message}; layer left out" for e in left_out]
    return zone


def missing_layers_error(folder: Path | None, zone_id: int, missing: list[str],
                         present: list[str]) -> FormatError:
    """'zone 3 has no altitude layer (altitude.0003.bin[.gz]); it has plants, control'."""
    files = ", ".join(layer_filename(n, zone_id) + "[.gz]" for n in missing)
    names = " or ".join(missing)
    has = f"; it has {', '.join(present)}" if present else ""
    return FormatError(folder, None, f"zone {zone_id} has no {names} layer ({files}){has}")


def layer_bytes(array: np.ndarray, layer: str) -> memoryview:
    """The file content of one layer: little-endian, row-major, no header."""
    data = np.ascontiguousarray(array, LAYERS[layer].dtype)
    return memoryview(data).cast("B")


def write_zone(zone: Zone, folder: str | Path, gz: bool | None = None) -> list[Path]:
    """Write every layer atomically. `gz` None keeps how each layer was read (new layers raw);
    True or False stores all gzipped or all raw. A layer's file in the other encoding is removed."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, array in zone.layers.items():
        source = zone.sources.get(name)
        as_gz = source is not None if gz is None else gz
        path = folder / layer_filename(name, zone.zone_id, gz=as_gz)
        content = layer_bytes(array, name)
        if as_gz:
            atomic_write(path, gzip_codec.encode(content, source))
        else:
            atomic_write(path, lambda f, c=content: f.write(c))
        other = folder / layer_filename(name, zone.zone_id, gz=not as_gz)
        if other.is_file():
            other.unlink()
        written.append(path)
    return written
