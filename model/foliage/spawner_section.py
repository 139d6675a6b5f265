"""A scene's spawners: recipes in the manifest (`[[spawners]]`), and which instances each owns.

Spawned instances are ordinary records in the scene's volume (drawn, collided and exported like
painted ones); a spawner owns those whose (type, x, z) it placed, identified by the float32 bits
of x and z. Re-running a spawner replaces exactly the instances it owns, so painted foliage is
never touched. An owned instance that is gone when the spawner runs again was deleted or moved
by hand: its key is remembered as an override, so re-runs do not put it back (a moved one stays
where it was put, as painted foliage).

Both sets are saved in a checksummed side file named by the CRC-32 of its content, the one it ends
in (`<stem>.spawned.<crc>.bin`; the manifest's `crc32` is the same value):
magic `BSPN`, u32 version 1, u32 groups; per group u8 kind (0 owned, 1 removed by hand), u16 +
UTF-8 spawner name, u16 + UTF-8 type name, u32 count, count × u64 keys ascending; then a u32
CRC-32 of everything before it.
"""

from __future__ import annotations

import re
import struct
import weakref
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from model.errors import FormatError, check_available
from model.foliage.section import foliage_of
from model.foliage.spawn_cache import Inputs, Remembered, inputs_of, revision, still_current
from model.foliage.spawn_run import Box, SpawnResult, run_spawner
from model.foliage.spawner import Spawner, spawner_to_toml, spawners_from_toml
from model.foliage.volume import FoliageVolume, Removed, Selection
from model.formats import scene_file
from model.scene import Scene

KEY = "spawners"
OWNED_KEY = "spawned"
KIND = "spawned"
MAGIC = b"BSPN"
VERSION = 1
MAX_NAME = 4096
MAX_OWNED_BYTES = 1 << 31  # 268 million keys: far past any scene's instances

Owned = dict[str, np.ndarray]  # type name → ascending unique uint64 position keys


def position_keys(records: np.ndarray) -> np.ndarray:
    """uint64 per record: the float32 bits of x (high word) and z (low word)."""
    r = np.ascontiguousarray(np.asarray(records, np.float32).reshape(-1, 7))
    xb = r[:, 0].copy().view(np.uint32).astype(np.uint64)
    zb = r[:, 2].copy().view(np.uint32).astype(np.uint64)
    return (xb << np.uint64(32)) | zb


@dataclass
class SceneSpawners:
    spawners: list[Spawner] = field(default_factory=list)
    owned: dict[str, Owned] = field(default_factory=dict)  # spawner name → what it placed
    removed: dict[str, Owned] = field(default_factory=dict)  # spawner name → taken out by hand
    # spawner name → its last whole run applied, and the one run since (`spawn_cache`; not saved)
    last_run: dict[str, Remembered] = field(default_factory=dict, repr=False, compare=False)
    pending: dict[str, tuple[Inputs, SpawnResult]] = field(default_factory=dict, repr=False, compare=False)

    def get(self, name: str) -> Spawner | None:
        return next((s for s in self.spawners if s.name == name), None)

    def owned_count(self, name: str) -> int:
        return sum(len(k) for k in self.owned.get(name, {}).values())


def spawners_of(scene: Scene) -> SceneSpawners:
    section = scene.sections.get(KEY)
    if section is None:
        section = scene.sections[KEY] = SceneSpawners()
    return section  # type: ignore[return-value]


# ---- running against a volume ---------------------------------------------------------------
def stored_positions(volume: FoliageVolume, exclude: dict[str, Owned]):
    """`stored(types, box)` for `run_spawner`: stored positions minus the given owners' instances."""

    def stored(types: list[str] | None, box: Box) -> np.ndarray:
        names = types if types is not None else volume.type_names()
        by_type: dict[str, list[np.ndarray]] = {}
        for key, idx in volume.query_box((box[0], box[1]), (box[2], box[3]), names).items():
            ftype = volume.palette.get(key[1])
            if ftype is not None and ftype.derived:
                continue
            by_type.setdefault(key[1], []).append(volume.records(*key)[idx])
        parts = []
        for type_name, chunks in by_type.items():  # one key lookup per type, not per chunk
            rec = np.concatenate(chunks)
            parts.append(rec[~owned_mask(rec, type_name, exclude.values())][:, (0, 2)].astype(np.float64))
        return np.concatenate(parts) if parts else np.empty((0, 2))

    return stored


def owned_mask(records: np.ndarray, type_name: str, owners) -> np.ndarray:
    """Which of a type's records some spawner in `owners` (their `Owned` keys) placed."""
    mine = np.zeros(len(records), bool)
    found = None
    for owned in owners:
        keys = owned.get(type_name)
        if keys is not None and len(keys):
            found = position_keys(records) if found is None else found
            mine |= member(found, keys)
    return mine


@dataclass
class SpawnChange:
    """What applying a run changed: records taken out, records and addresses added, and the
    spawner's owned and hand-removed keys before and after."""

    spawner: str
    removed: Removed
    added: Selection
    added_records: dict[str, np.ndarray]
    owned_before: Owned
    owned_after: Owned
    overrides_before: Owned
    overrides_after: Owned

    @property
    def changed(self) -> bool:
        return bool(len(self.removed) or any(len(v) for v in self.added.values()))

    @property
    def changes_scene(self) -> bool:
        """Whether a save would write anything new: instances, or the owned or hand-removed keys."""
        return self.changed or not (_same_keys(self.owned_before, self.owned_after)
                                    and _same_keys(self.overrides_before, self.overrides_after))


def _same_keys(a: Owned, b: Owned) -> bool:
    a = {t: k for t, k in a.items() if len(k)}
    b = {t: k for t, k in b.items() if len(k)}
    return a.keys() == b.keys() and all(np.array_equal(a[t], b[t]) for t in a)


@dataclass
class _Held:
    """A type's owned instances present in the volume: (chunk, indices) parts in order, their
    records concatenated and their position keys."""

    parts: list[tuple[tuple, np.ndarray]]
    records: np.ndarray
    keys: np.ndarray


def _owned_in_box(volume: FoliageVolume, owned: Owned, box: Box | None) -> dict[str, _Held]:
    out: dict[str, _Held] = {}
    for type_name, keys in owned.items():
        if not len(keys):
            continue
        if box is None:  # whole chunks: no index arrays to make or apply
            sel = [(key, None, chunk.records) for key, chunk in volume.chunks(type_name)]
        else:
            found_in = volume.query_box((box[0], box[1]), (box[2], box[3]), [type_name])
            sel = [(key, idx, volume.records(*key)[idx]) for key, idx in found_in.items()]
        if not sel:
            continue
        # every chunk's records looked up at once (per chunk, the lookups cost more than the search)
        records = np.concatenate([r for _, _, r in sel])
        found = position_keys(records)
        hit = member(found, keys)
        parts, start = [], 0
        for key, idx, r in sel:
            here = hit[start:start + len(r)]
            start += len(r)
            if here.any():
                parts.append((key, np.flatnonzero(here) if idx is None else np.asarray(idx)[here]))
        if parts:
            out[type_name] = _Held(parts, records[hit], found[hit])
    return out


def apply_result(scene: Scene, result: SpawnResult, whole: bool) -> SpawnChange:
    """Make the volume hold `result` in its box: only records that differ are removed or added.

    Owned keys in the box that the volume no longer holds were deleted or moved by hand: they
    become overrides, and the result's records at those keys are left out."""
    section = spawners_of(scene)
    volume = foliage_of(scene).volume
    last = section.last_run.get(result.spawner)
    owned, hand_removed = section.owned.get(result.spawner), section.removed.get(result.spawner)
    if whole and last is not None and last.result is result and last.volume() is volume \
            and last.volume_revision == revision(volume) and last.owned is owned \
            and last.removed is hand_removed:  # `run_only` found nothing changed: neither does this
        return SpawnChange(result.spawner, Removed(), {}, {}, owned or {}, owned or {},
                           hand_removed or {}, hand_removed or {})
    change = _apply(scene, section, volume, result, whole)
    pending = section.pending.pop(result.spawner, None)
    section.last_run.pop(result.spawner, None)
    if whole and pending is not None and pending[1] is result:
        section.last_run[result.spawner] = Remembered(
            pending[0], result, weakref.ref(scene.terrain), weakref.ref(volume), revision(volume),
            section.owned.get(result.spawner), section.removed.get(result.spawner))
    return change


def _apply(scene: Scene, section: SceneSpawners, volume: FoliageVolume, result: SpawnResult,
           whole: bool) -> SpawnChange:
    box = None if whole else result.box
    owned_before = {t: k.copy() for t, k in section.owned.get(result.spawner, {}).items()}
    overrides_before = {t: k.copy() for t, k in section.removed.get(result.spawner, {}).items()}
    present = _owned_in_box(volume, owned_before, box)
    overrides = {t: k.copy() for t, k in overrides_before.items()}
    for type_name, keys in owned_before.items():
        in_box = keys if box is None else keys[keys_in_box(keys, box)]
        held = present[type_name].keys if type_name in present else np.empty(0, np.uint64)
        vanished = in_box[~member(in_box, np.sort(held))]  # owned keys are ascending and unique
        if len(vanished):
            overrides[type_name] = np.union1d(overrides.get(type_name, np.empty(0, np.uint64)), vanished)
    new_by_type = {}
    for type_name, records in result.records_by_type().items():
        gone = overrides.get(type_name)
        if gone is not None and len(gone):
            records = records[~np.isin(position_keys(records), gone)]
        new_by_type[type_name] = records
    drop: Selection = {}
    add: dict[str, np.ndarray] = {}
    for type_name in sorted(set(new_by_type) | set(present)):
        new = new_by_type.get(type_name, np.empty((0, 7), np.float32))
        # one comparison per type over all its chunks (per chunk, a re-run of a large spawner
        # sorted all of its records once for every chunk)
        held = present.get(type_name) or _Held([], np.empty((0, 7), np.float32), np.empty(0, np.uint64))
        keep, fresh = _same_rows(held.records, new, held.keys)
        start = 0
        for key, idx in held.parts:
            here = keep[start:start + len(idx)]
            start += len(idx)
            if (~here).any():
                drop[key] = idx[~here]
        if fresh.any():
            arriving = new[fresh]
            # in position-key order: a run in one piece and one in tiles store the same bytes
            add[type_name] = arriving[np.argsort(position_keys(arriving), kind="stable")]
    removed = volume.remove(drop)
    added: Selection = {}
    for type_name, records in add.items():
        added.update(volume.add(type_name, records))
    owned_after: Owned = {}
    for type_name in set(owned_before) | set(new_by_type):
        keys = owned_before.get(type_name, np.empty(0, np.uint64))
        outside = keys[~keys_in_box(keys, box)] if box is not None else np.empty(0, np.uint64)
        mine = position_keys(new_by_type.get(type_name, np.empty((0, 7), np.float32)))
        keys = np.unique(np.concatenate([outside, mine]).astype(np.uint64))
        if len(keys):
            owned_after[type_name] = keys
    section.owned[result.spawner] = owned_after
    section.removed[result.spawner] = overrides
    return SpawnChange(result.spawner, removed, added, add, owned_before, owned_after,
                       overrides_before, overrides)


def member(keys: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Which of `keys` are in `sorted_keys` (ascending, as owned keys are kept): a binary search
    per key, never a sort of the whole set."""
    if len(sorted_keys) == 0:
        return np.zeros(len(keys), bool)
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return sorted_keys[at] == keys


def keys_in_box(keys: np.ndarray, box: Box) -> np.ndarray:
    """Which position keys (see `position_keys`) lie inside a box, edges included."""
    keys = np.asarray(keys, np.uint64)
    x = (keys >> np.uint64(32)).astype(np.uint32).view(np.float32)
    z = (keys & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)
    return (x >= box[0]) & (x <= box[2]) & (z >= box[1]) & (z <= box[3])


def undo_change(scene: Scene, change: SpawnChange) -> None:
    """Exact inverse of `apply_result` (nothing else may have changed those chunks since)."""
    volume = foliage_of(scene).volume
    volume.remove(change.added)
    volume.restore(change.removed)
    section = spawners_of(scene)
    section.owned[change.spawner] = change.owned_before
    section.removed[change.spawner] = change.overrides_before


def redo_change(scene: Scene, change: SpawnChange) -> None:
    """Apply an undone change again: the same records leave and arrive at the same addresses."""
    volume = foliage_of(scene).volume
    volume.remove({key: idx for key, (idx, _) in change.removed.parts.items()})
    for type_name, records in change.added_records.items():
        volume.add(type_name, records)
    section = spawners_of(scene)
    section.owned[change.spawner] = change.owned_after
    section.removed[change.spawner] = change.overrides_after


def run_and_apply(scene: Scene, spawner: Spawner, region: Box | None = None,
                  progress=None, earlier: SpawnResult | None = None) -> tuple[SpawnResult, SpawnChange]:
    """Run one spawner of the scene (wholly, or over `region`) and make the volume hold the result;
    a cancelled run (SpawnCancelled) changes nothing. `earlier`: see `run_spawner`."""
    result = run_only(scene, spawner, region, progress, earlier)
    return result, apply_result(scene, result, whole=region is None)


def run_only(scene: Scene, spawner: Spawner, region: Box | None = None,
             progress=None, earlier: SpawnResult | None = None) -> SpawnResult:
    """What `run_and_apply` would place, the scene unchanged (a helper thread may run it while
    nothing edits the scene)."""
    section = spawners_of(scene)
    foliage = foliage_of(scene)
    inputs = inputs_of(spawner, scene.terrain, foliage.palette) if region is None else None
    if inputs is not None:  # a whole run: the last one stands when nothing it read has changed since
        last = section.last_run.get(spawner.name)
        if still_current(last, inputs, scene.terrain, foliage.volume, section.owned.get(spawner.name),
                         section.removed.get(spawner.name)):
            return last.result
    stored = stored_positions(foliage.volume, {spawner.name: section.owned.get(spawner.name, {})})
    result = run_spawner(spawner, scene.terrain, foliage.palette, stored, region, progress, earlier=earlier)
    if inputs is not None:
        section.pending[spawner.name] = (inputs, result)
    return result


@dataclass
class Detached:
    """A spawner's ownership taken away (its instances stay, as painted foliage)."""

    spawner: str
    owned: Owned
    removed: Owned


def bake_to_painted(scene: Scene, name: str) -> Detached:
    """Detach a spawner's instances: they stay where they are and count as painted from now on."""
    section = spawners_of(scene)
    detached = Detached(name, section.owned.pop(name, {}), section.removed.pop(name, {}))
    return detached


def move_ownership(section: SceneSpawners, old: str, new: str) -> None:
    """A renamed spawner keeps what it owns (and what was taken out by hand)."""
    for sets in (section.owned, section.removed):
        if old in sets:
            sets[new] = sets.pop(old)


def undo_bake(scene: Scene, detached: Detached) -> None:
    section = spawners_of(scene)
    if detached.owned:
        section.owned[detached.spawner] = detached.owned
    if detached.removed:
        section.removed[detached.spawner] = detached.removed


def layers_read(spawner: Spawner, palette) -> set[str]:
    """Terrain layers a spawner's result depends on: its area, its conditions, its types' filters."""
    from model.foliage.spawn_conditions import AnyOf, Layer, Not

    names = {spawner.area.layer} if spawner.area.layer else set()

    def visit(c) -> None:
        if isinstance(c, Layer):
            names.add(c.name)
        elif isinstance(c, AnyOf):
            for item in c.items:
                visit(item)
        elif isinstance(c, Not):
            visit(c.item)

    for species in spawner.species:
        for c in species.conditions:
            visit(c)
        ftype = palette.get(species.type)
        if ftype is not None and ftype.layer is not None:
            names.add(ftype.layer.name)
    return names


@dataclass
class SpawnEdits:
    """Re-runs that followed one edit, undone and redone together (in reverse order on undo)."""

    scene: Scene
    changes: list[SpawnChange]

    def undo(self) -> None:
        for change in reversed(self.changes):
            undo_change(self.scene, change)

    def redo(self) -> None:
        for change in self.changes:
            redo_change(self.scene, change)


def follow_terrain_edit(scene: Scene, target: str | list[str] | None, rows: slice,
                        cols: slice) -> SpawnEdits | None:
    """Re-run the spawners a change of heights (`target` None) or of layers' weights (one name or
    a list) in that window can change, over that ground only; None when nothing changed."""
    from model.foliage.spawn_run import dependency_margins, region_of_samples

    section = scene.sections.get(KEY)
    if section is None or not section.spawners:
        return None
    palette = foliage_of(scene).palette
    box = region_of_samples(scene.terrain, rows, cols)
    changes: list[SpawnChange] = []
    reach = 0.0  # a later spawner may read an earlier one's instances: its region grows by their margin
    for spawner in section.spawners:
        names = None if target is None else {target} if isinstance(target, str) else set(target)
        if names is not None and not names & layers_read(spawner, palette) and not changes:
            continue
        region = (box[0] - reach, box[1] - reach, box[2] + reach, box[3] + reach)
        try:
            _, change = run_and_apply(scene, spawner, region)
        except ValueError:  # a spawner that cannot run (a type gone from the palette) is left as it is
            continue
        if change.changed:
            changes.append(change)
        reach += 2.0 * max(dependency_margins(spawner, palette).values(), default=0.0)
    return SpawnEdits(scene, changes) if changes else None


def terrain_follower(scene: Scene):
    """The `follow` hook a terrain stroke of this scene takes, or None when it has no spawners."""
    section = scene.sections.get(KEY)
    if section is None or not section.spawners:
        return None
    return lambda target, rows, cols: follow_terrain_edit(scene, target, rows, cols)


def _same_rows(held: np.ndarray, new: np.ndarray,
               held_keys: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(which held records are among `new`, which new records are not among the kept held ones),
    byte for byte: matched by position key, then every byte compared (a sort of whole rows only
    where two records share a key)."""
    hk = position_keys(held) if held_keys is None else held_keys
    nk = position_keys(new)
    order = np.argsort(nk, kind="stable")
    sk = nk[order]
    hs = np.sort(hk)
    if (len(sk) > 1 and not (sk[1:] > sk[:-1]).all()) or (len(hs) > 1 and not (hs[1:] > hs[:-1]).all()):
        held_rows, new_rows = _row_bytes(held), _row_bytes(new)
        keep = np.isin(held_rows, new_rows)
        return keep, ~np.isin(new_rows, held_rows[keep])
    fresh = np.ones(len(new), bool)
    if len(new) == 0 or len(held) == 0:
        return np.zeros(len(held), bool), fresh
    at = np.minimum(np.searchsorted(sk, hk), len(sk) - 1)
    j = order[at]
    a = np.ascontiguousarray(held, np.float32).reshape(-1, 7).view(np.uint32)
    b = np.ascontiguousarray(new, np.float32).reshape(-1, 7).view(np.uint32)
    keep = (sk[at] == hk) & (a == b[j]).all(axis=1)
    fresh[j[keep]] = False
    return keep, fresh


def _row_bytes(records: np.ndarray) -> np.ndarray:
    """Each 28-byte record as one comparable value (so 'same instance' means the same bytes)."""
    r = np.ascontiguousarray(np.asarray(records, np.float32).reshape(-1, 7))
    return r.view(np.dtype((np.void, 28))).ravel()


# ---- ownership side file --------------------------------------------------------------------
OWNED, REMOVED = 0, 1


def encode_owned(owned: dict[str, Owned], removed: dict[str, Owned] | None = None) -> bytes:
    """The ownership side file's bytes (see the module docstring)."""
    groups = [(kind, s, t, k) for kind, sets in ((OWNED, owned), (REMOVED, removed or {}))
              for s in sorted(sets) for t, k in sorted(sets[s].items()) if len(k)]
    out = bytearray(MAGIC + struct.pack("<II", VERSION, len(groups)))
    for kind, spawner, type_name, keys in groups:
        out += struct.pack("<B", kind)
        for text in (spawner, type_name):
            raw = text.encode("utf-8")
            out += struct.pack("<H", len(raw)) + raw
        out += struct.pack("<I", len(keys)) + np.asarray(keys, "<u8").tobytes()
    out += struct.pack("<I", zlib.crc32(out) & 0xFFFFFFFF)
    return bytes(out)


def decode_owned(data: bytes, path: Path | None = None) -> tuple[dict[str, Owned], dict[str, Owned]]:
    """(owned, removed by hand) from the side file's bytes; any damage is one FormatError."""
    if len(data) < 16 or data[:4] != MAGIC:
        raise FormatError(path, 0, "not a Boscage spawner ownership file (bad magic)")
    body, (crc,) = data[:-4], struct.unpack("<I", data[-4:])
    if zlib.crc32(body) & 0xFFFFFFFF != crc:
        raise FormatError(path, len(body), "checksum mismatch (the file is damaged)")
    version, groups = struct.unpack_from("<II", body, 4)
    if version != VERSION:
        raise FormatError(path, 4, f"unsupported ownership file version {version}")
    pos = 12
    sets: tuple[dict[str, Owned], dict[str, Owned]] = ({}, {})
    for _ in range(groups):
        check_available(path, pos, 1, len(body) - pos, "group kind")
        kind = body[pos]
        if kind not in (OWNED, REMOVED):
            raise FormatError(path, pos, f"unknown group kind {kind}")
        pos += 1
        names = []
        for what in ("spawner name", "type name"):
            check_available(path, pos, 2, len(body) - pos, what)
            (n,) = struct.unpack_from("<H", body, pos)
            pos += 2
            check_available(path, pos, n, len(body) - pos, what)
            try:
                names.append(body[pos:pos + n].decode("utf-8"))
            except UnicodeDecodeError:
                raise FormatError(path, pos, f"{what} is not UTF-8") from None
            pos += n
        check_available(path, pos, 4, len(body) - pos, "key count")
        (count,) = struct.unpack_from("<I", body, pos)
        pos += 4
        check_available(path, pos, count * 8, len(body) - pos, f"{count} keys")
        keys = np.frombuffer(body, "<u8", count, pos).astype(np.uint64)
        pos += count * 8
        if count > 1 and not np.all(keys[1:] > keys[:-1]):
            raise FormatError(path, pos, "keys are not ascending")
        sets[kind].setdefault(names[0], {})[names[1]] = keys
    if pos != len(body):
        raise FormatError(path, pos, f"{len(body) - pos} unexpected bytes after the last group")
    return sets


# ---- scene section hooks --------------------------------------------------------------------
def write_spawners(scene: Scene, manifest: Path, files: dict[Path, bytes]) -> list | None:
    section = scene.sections.get(KEY)
    if section is None or not section.spawners:
        return None
    return [spawner_to_toml(s) for s in section.spawners]


def write_owned(scene: Scene, manifest: Path, files: dict[Path, bytes]) -> dict | None:
    section = scene.sections.get(KEY)
    if section is None or not any(len(k) for sets in (section.owned, section.removed)
                                  for o in sets.values() for k in o.values()):
        return None
    data = encode_owned(section.owned, section.removed)
    # named by its content's CRC (the one in its last 4 bytes; the CRC of the whole file is the
    # same constant for every such file), so a save never overwrites the file the manifest on
    # disk names: a save stopped before its manifest leaves the previous scene whole
    (crc,) = struct.unpack("<I", data[-4:])
    side = scene_file.versioned_side_path(manifest, KIND, data, crc32=crc)
    files[side] = data
    return {"file": side.name, "crc32": f"{crc:08x}"}


def read_spawners(scene: Scene, manifest: Path, doc: object) -> None:
    if doc is None:
        return
    spawners_of(scene).spawners = spawners_from_toml(doc, manifest, KEY)


# What saves before content-named ownership wrote as `crc32` and in the name: the CRC-32 of a whole
# file ending in its own CRC-32, the same for every file. Still read; the next save renames it.
_WHOLE_FILE_CRC = zlib.crc32(b"\0\0\0\0")


def read_owned(scene: Scene, manifest: Path, doc: object) -> None:
    if doc is None:
        return
    if not isinstance(doc, dict) or set(doc) - {"file", "crc32"} or "file" not in doc:
        raise FormatError(manifest, OWNED_KEY, "expected { file = \"…\", crc32 = \"…\" }")
    # a plain name in the scene's folder, a regular file (or a link inside the folder): checked
    # as every side file is, so a link out or a FIFO is refused before anything is read
    side, size = scene_file.checked_side_file(manifest, doc["file"], f"{OWNED_KEY}.file",
                                              "spawner ownership")
    if size > MAX_OWNED_BYTES:
        raise FormatError(side, None, f"spawner ownership file of {size} bytes is over the "
                          f"{MAX_OWNED_BYTES}-byte limit")
    try:
        data = side.read_bytes()
    except OSError as e:
        raise FormatError(side, None, f"cannot read spawner ownership file: {e.strerror or e}") from None
    owned, removed = decode_owned(data, side)  # checks the file against its own trailing CRC
    _check_owned_crc(manifest, side, doc.get("crc32"), data)
    section = spawners_of(scene)
    known = {s.name for s in section.spawners}
    # a spawner deleted from the manifest by hand leaves its instances as painted foliage
    section.owned = {k: v for k, v in owned.items() if k in known}
    section.removed = {k: v for k, v in removed.items() if k in known}


def _check_owned_crc(manifest: Path, side: Path, crc_text: object, data: bytes) -> None:
    """The manifest's `crc32` and the CRC in the file's name must both be its content's: another
    ownership file under the name (a save interrupted in an older build) is refused here."""
    (content,) = struct.unpack("<I", data[-4:])
    legacy = _WHOLE_FILE_CRC  # older saves: the whole file's CRC, in the manifest and the name
    if crc_text is not None:
        if not (isinstance(crc_text, str) and len(crc_text) == 8
                and all(c in "0123456789abcdefABCDEF" for c in crc_text)):
            raise FormatError(manifest, f"{OWNED_KEY}.crc32",
                              f"expected 8 hexadecimal digits, got {crc_text!r}")
        if int(crc_text, 16) not in (content, legacy):
            raise FormatError(side, None, f"checksum differs from the one {manifest.name} names")
    named = re.fullmatch(re.escape(manifest.stem) + r"\." + KIND + r"\.([0-9a-f]{8})\.bin", side.name)
    if named is not None and int(named.group(1), 16) not in (content, legacy):
        raise FormatError(side, None, f"holds content with CRC-32 {content:08x}, not the "
                          f"{named.group(1)} its name says (file replaced or damaged)")


def register() -> None:
    scene_file.SECTION_WRITERS[KEY] = write_spawners
    scene_file.SECTION_READERS[KEY] = read_spawners
    scene_file.SECTION_WRITERS[OWNED_KEY] = write_owned
    scene_file.SECTION_READERS[OWNED_KEY] = read_owned
