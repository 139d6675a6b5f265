"""A region of a TRN generator as an editable scene.

Heights become the terrain; each shader family that occurs becomes a named paint layer; flora
families become foliage types: collidable ones are stored, one instance per pole that carries the
family; non-collidable and radial ones are derived, growing on a paint layer of their poles.
"""

from __future__ import annotations

import errno
import math
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from model.atomic import make_folder, write_error
from model.batch import BatchCancelled, releases_gil
from model.scene import Scene
from model.terrain import Terrain
from model.trn.bake import NonFinite, finite_heights
from model.trn.bitmaps import load_bitmaps
from model.trn.document import Family, TrnDocument
from model.trn.evaluator import Cancelled, Evaluation, Region, evaluate, pole_random
from model.trn.palette import family_palette, layer_color

Progress = Callable[[float, str], bool]  # (fraction done, what) → False to cancel
DERIVED_DENSITY = 200.0  # derived instances per 100 m² on a fully painted layer, scaled by family density
_SLOT_TITLES = {"noncollidable": "non-collidable", "radial_near": "radial near", "radial_far": "radial far"}
_MESH_WORDS = (("pine", "conifer"), ("fir", "conifer"), ("conifer", "conifer"), ("tree", "broadleaf"),
               ("bush", "bush"), ("shrub", "bush"), ("rock", "rock"), ("stone", "rock"), ("grass", "grass"))
MAX_IMPORT_POLES = 4096 * 4096


class ImportCancelled(Exception):
    """The progress callback asked to stop; nothing was changed."""


def _unique(name: str, taken: set[str]) -> str:
    out, n = name, 2
    while out in taken:
        out = f"{name} ({n})"
        n += 1
    taken.add(out)
    return out


def mesh_for(family: Family | None, collidable: bool) -> str:
    """A built-in mesh guessed from the family's name and first appearance."""
    words = " ".join([family.name] + [str(c.get("appearance", c.get("shader", ""))) for c in family.children]
                     ).lower() if family else ""
    for word, mesh in _MESH_WORDS:
        if word in words:
            return f"builtin:{mesh}"
    return "builtin:broadleaf" if collidable else "builtin:grass"


def trn_to_scene(doc: TrnDocument, region: Region, progress: Progress | None = None,
                 name: str | None = None, foliage: bool = True,
                 bitmaps: dict[int, np.ndarray] | None = None,
                 warnings: list[str] | None = None, workers: int | None = 1) -> Scene:
    """A new scene from the poles of `region`; `progress` may cancel (ImportCancelled).

    Bitmap families' images are looked up beside the TRN file unless `bitmaps` is given. The
    evaluation's warnings (and poles whose height is not finite: a scene holds finite heights only,
    so they get the lowest or highest finite height) are appended to `warnings` when given.
    `workers` other than 1 evaluates as a batch job on that many local worker processes (None: one
    per core), the same bytes either way; a cancel stops the workers."""
    from model.foliage import SceneFoliage

    if region.rows < 2 or region.cols < 2:
        raise ValueError("the region must span at least 2 x 2 poles")
    if region.rows * region.cols > MAX_IMPORT_POLES:
        raise ValueError(f"{region.cols} x {region.rows} poles is more than an import allows "
                         f"({MAX_IMPORT_POLES}); choose a larger spacing")

    def step(fraction: float, what: str) -> None:
        if progress is not None and progress(fraction, what) is False:
            raise ImportCancelled(what)

    step(0.0, "evaluating")
    def tiles(done: int, total: int) -> bool:
        return progress is None or progress(0.8 * done / max(total, 1), "evaluating") is not False

    try:
        if bitmaps is None:
            bitmaps = load_bitmaps(doc)[0] if doc.path else {}
        if workers == 1:
            ev = evaluate(doc, region, progress=tiles, bitmaps=bitmaps)
        else:
            from model.trn.bake_batch import evaluate_in_tiles

            ev = evaluate_in_tiles(doc, region, bitmaps, workers=workers, progress=tiles)
    except (Cancelled, BatchCancelled):
        raise ImportCancelled("evaluating") from None
    step(0.8, "terrain")
    x0, z0, _, _ = region.bounds
    heights, _, replaced = finite_heights(ev.heights)
    if warnings is not None:
        warnings.extend(ev.warnings + ([replaced.sentence()] if replaced.total else []))
    terrain = Terrain(heights, spacing=region.spacing, origin=(x0, z0))
    taken: set[str] = set()
    colors = family_palette(doc)  # readable and distinct, not the families' own (often neon) tints
    for fam in doc.families["shader"]:
        mask = ev.shader == fam.id
        if mask.any():
            weights = np.where(mask, np.uint8(255), np.uint8(0))
            terrain.add_layer(_unique(fam.name or f"shader {fam.id}", taken),
                              layer_color(colors, "shader", fam.id), weights)
    scene = Scene(terrain=terrain, name=name or (doc.path.stem if doc.path else "TRN import"))
    # the scene's palette is made from this data only: an empty one when there is no flora, or
    # the editor would seed its demo types, which filter on layers this scene does not have
    scene.sections["foliage"] = SceneFoliage()
    if foliage:
        step(0.9, "flora")
        _add_flora(scene, doc, ev, taken, colors)
    step(1.0, "done")
    return scene


def _add_flora(scene: Scene, doc: TrnDocument, ev: Evaluation, taken: set[str],
               colors: dict[tuple[str, int], tuple[int, int, int]]) -> None:
    from model.foliage import FoliageType, LayerFilter

    result = scene.sections["foliage"]
    names: set[str] = set()
    terrain = scene.terrain
    xs, zs = ev.region.coords()
    spacing = ev.region.spacing
    ids = ev.flora["collidable"].ravel()
    kids = ev.flora_child["collidable"].ravel()
    for fid in np.unique(ids[ids >= 0]):
        fam = doc.family("flora", int(fid))
        label = _unique(fam.name if fam else f"flora {fid}", names)
        result.palette.add(FoliageType(label, mesh=mesh_for(fam, True)))
        at = np.nonzero(ids == fid)[0]
        px, pz = xs[at], zs[at]
        # jitter within the pole's cell so a forest is not a lattice; hashed, so imports repeat exactly
        jx = (pole_random(px, pz, np.uint64(0x7A11)) - 0.5) * spacing
        jz = (pole_random(px, pz, np.uint64(0x7A12)) - 0.5) * spacing
        x = np.clip(px + jx, *terrain.bounds()[0::2])
        z = np.clip(pz + jz, *terrain.bounds()[1::2])
        records = np.zeros((at.size, 7), np.float32)
        records[:, 0] = x
        records[:, 1] = terrain.height_at(x, z)
        records[:, 2] = z
        records[:, 3] = pole_random(px, pz, np.uint64(0x7A13)) * (2 * math.pi)
        records[:, 6] = _scales(fam, kids[at], pole_random(px, pz, np.uint64(0x7A14)))
        result.volume.add(label, records, copy=False)
    for slot, title in _SLOT_TITLES.items():
        kind = "flora" if slot == "noncollidable" else "radial"
        grid = ev.flora[slot]
        for fid in np.unique(grid[grid >= 0]):
            fam = doc.family(kind, int(fid))
            base = fam.name if fam else f"{kind} {fid}"
            layer = _unique(f"{title}: {base}", taken)
            terrain.add_layer(layer, layer_color(colors, kind, int(fid)),
                              np.where(grid == fid, np.uint8(255), np.uint8(0)))
            density = DERIVED_DENSITY * (float(fam.record["density"]) if fam else 1.0)
            result.palette.add(FoliageType(_unique(f"{base} ({title})", names), mesh=mesh_for(fam, False),
                                           storage="derived", density=max(density, 0.0),
                                           layer=LayerFilter(layer, 0.5)))


def _scales(fam: Family | None, child: np.ndarray, draw: np.ndarray) -> np.ndarray:
    """Scale between the chosen child's min and max scale where it asks to be scaled, else 1."""
    out = np.ones(child.size)
    if fam is None:
        return out
    for i, c in enumerate(fam.children):
        if not c.get("shouldScale"):
            continue
        lo, hi = float(c.get("minScale", 1.0)), float(c.get("maxScale", 1.0))
        if not (lo > 0 and hi >= lo):
            continue
        sel = child == i
        out[sel] = lo + (hi - lo) * draw[sel]
    return out


# ---- big regions: evaluated and written tile by tile ------------------------------------------
MAX_STREAM_POLES = 16384 * 16384  # what a scene holds
TileProgress = Callable[[int, int, str], object]  # (steps done, steps in all, what) → False stops
_LAYER_GRIDS = ("shader", "noncollidable", "radial_near", "radial_far")
_FLORA_CHUNK = 1 << 16  # instances placed at a time (sampling the ground takes ~100 bytes each)


@releases_gil
def scene_tile(doc: TrnDocument, bitmaps, region: Region) -> dict[str, np.ndarray]:
    """One scene tile's evaluation, only what a scene keeps (a batch task: in a worker thread or
    process)."""
    ev = evaluate(doc, region, bitmaps=bitmaps, tile=max(region.rows, region.cols))
    out = {"heights": ev.heights, "shader": ev.shader, "collidable": ev.flora["collidable"],
           "collidable_child": ev.flora_child["collidable"], "warnings": np.array(ev.warnings, dtype=str)}
    for slot in _LAYER_GRIDS[1:]:
        out[slot] = ev.flora[slot]
    return out


class _Spill:
    """Per-tile id grids kept in an anonymous temporary file (gone with the process, whatever
    happens) until the layers they make are known: ids + 1 in the smallest unsigned type."""

    def __init__(self, target: Path) -> None:
        import tempfile

        self.target = target  # what a refused write names: the scene, not this nameless file
        make_folder(target.parent, target)
        try:
            self.file = tempfile.TemporaryFile(dir=target.parent, prefix=f".{target.name}.~{os.getpid()}.")
        except OSError as e:
            raise write_error(target, e) from None
        self.end = 0

    def put(self, values: np.ndarray) -> tuple[int, np.dtype, tuple[int, ...]]:
        if values.dtype.kind == "i":
            v = values.astype(np.int64) + 1
            lo, hi = (int(v.min()), int(v.max())) if v.size else (0, 0)
            dtype = next((np.dtype(t) for t in ("u1", "<u2", "<u4") if lo >= 0 and hi < np.iinfo(t).max),
                         np.dtype("<i8"))
        else:
            v, dtype = values, np.dtype(values.dtype)
        data = np.ascontiguousarray(v, dtype).tobytes()
        try:
            written = os.pwrite(self.file.fileno(), data, self.end)
            if written != len(data):  # the disk took only part of it
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        except OSError as e:
            raise write_error(self.target, e) from None
        where = (self.end, dtype, values.shape, v is not values)
        self.end += len(data)
        return where

    def get(self, where) -> np.ndarray:
        offset, dtype, shape, shifted = where
        size = int(np.prod(shape)) * dtype.itemsize
        data = np.frombuffer(os.pread(self.file.fileno(), size, offset), dtype).reshape(shape)
        return data.astype(np.int64) - 1 if shifted else data.copy()

    def close(self) -> None:
        self.file.close()


def write_trn_scene(doc: TrnDocument, region: Region, out, progress: TileProgress | None = None,
                    name: str | None = None, foliage: bool = True,
                    bitmaps: dict[int, np.ndarray] | None = None, warnings: list[str] | None = None,
                    workers: int | None = 1, scheduler: str | None = None) -> Scene:
    """`save_scene(trn_to_scene(...), out)` for a region of any size (up to what a scene holds),
    evaluated one scene tile at a time (in this process, or in order on Dask workers: `workers`,
    `scheduler`) and written as it comes: heights at once, family ids kept in an anonymous
    temporary file until every tile has said which families occur (they decide the layers),
    then each tile's layer weights. The same bytes as the whole-array path; memory of a few
    tiles plus the stored flora. `progress(done, total, what)` hears each tile of both passes;
    False stops (ImportCancelled), removes every tile written and stops the workers."""
    from model.batch import Task, stream_tasks
    from model.foliage import FoliageType, LayerFilter, SceneFoliage
    from model.formats.scene_writer import SceneWriter

    if region.rows < 2 or region.cols < 2:
        raise ValueError("the region must span at least 2 x 2 poles")
    if region.rows * region.cols > MAX_STREAM_POLES:
        raise ValueError(f"{region.cols} x {region.rows} poles is more than a scene holds "
                         f"({MAX_STREAM_POLES}); choose a larger spacing")
    if bitmaps is None:
        bitmaps = load_bitmaps(doc)[0] if doc.path else {}
    x0, z0, _, _ = region.bounds
    out = Path(out)
    spill = None
    with SceneWriter(out, region.rows, region.cols, region.spacing, (x0, z0)) as writer:
        n_i, n_j = writer.tile_counts
        total = 2 * n_i * n_j
        done = 0

        def step(what: str) -> None:
            if progress is not None and progress(done, total, what) is False:
                raise ImportCancelled(what)

        step("evaluating")
        spill = _Spill(out)
        try:
            tasks = [Task(f"tile_{i:05d}_{j:05d}", (Region(region.ix0 + cs.start, region.iz0 + rs.start,
                                                          cs.stop - cs.start, rs.stop - rs.start,
                                                          region.spacing),))
                     for i, j, rs, cs in writer.tiles()]
            places = {t.key: (i, j, rs, cs) for t, (i, j, rs, cs) in zip(tasks, writer.tiles(), strict=True)}
            present = {g: set() for g in _LAYER_GRIDS}
            stored: dict[int, list[tuple[np.ndarray, np.ndarray]]] = {}
            kept: dict[tuple[int, int], dict] = {}
            held: dict[tuple[int, int], object] = {}  # tiles whose heights wait for the finite range
            counts = [0, 0, 0]  # NaN, −inf, +inf
            low, high = math.inf, -math.inf
            found: list[str] = []
            for task, a in stream_tasks(scene_tile, tasks, shared=(doc, bitmaps), workers=workers,
                                        scheduler=scheduler):
                i, j, rs, cs = places[task.key]
                h = a["heights"]
                finite = np.isfinite(h)
                if finite.any():
                    low, high = min(low, float(h[finite].min())), max(high, float(h[finite].max()))
                if finite.all():
                    writer.put_heights(i, j, h)
                else:
                    counts[0] += int(np.isnan(h).sum())
                    counts[1] += int((h == -np.inf).sum())
                    counts[2] += int((h == np.inf).sum())
                    held[(i, j)] = spill.put(h)
                kept[(i, j)] = {g: spill.put(a[g]) for g in _LAYER_GRIDS}
                for g in _LAYER_GRIDS:
                    ids = a[g]
                    present[g].update(int(v) for v in np.unique(ids[ids >= 0]))
                if foliage:
                    ids, kids = a["collidable"], a["collidable_child"]
                    rr, cc = np.nonzero(ids >= 0)
                    if rr.size:
                        at = (rr + rs.start).astype(np.int64) * region.cols + (cc + cs.start)
                        fids = ids[rr, cc]
                        for fid in np.unique(fids):
                            sel = fids == fid
                            stored.setdefault(int(fid), []).append((at[sel], kids[rr[sel], cc[sel]]))
                for w in (str(x) for x in a["warnings"]):
                    if len(tasks) == 1 or w not in found:
                        found.append(w)
                done += 1
                step("evaluating")
            if not math.isfinite(low):
                low = high = 0.0
            for (i, j), where in held.items():  # a scene holds finite heights only
                h = spill.get(where).astype(np.float32)
                h[np.isnan(h) | (h == -np.inf)] = low
                h[h == np.inf] = high
                writer.put_heights(i, j, h)
            replaced = NonFinite(*counts, low, high)
            layers, planes = _planned_layers(doc, present, foliage)
            writer.set_layers([(lname, color, True) for lname, color, _, _ in layers])
            for i, j, _, _ in writer.tiles():
                grids = {g: spill.get(kept[(i, j)][g]) for g in _LAYER_GRIDS}
                stack = np.empty((len(layers), *grids["shader"].shape), np.uint8)
                for k, (_, _, grid, fid) in enumerate(layers):
                    stack[k] = np.where(grids[grid] == fid, np.uint8(255), np.uint8(0))
                writer.put_layers(i, j, stack)
                done += 1
                step("writing layers")
        finally:
            spill.close()
        if warnings is not None:
            warnings.extend(found + ([replaced.sentence()] if replaced.total else []))
        section = SceneFoliage()
        if foliage:
            _stream_flora(section, doc, region, writer.heights_terrain(), stored, planes, FoliageType,
                          LayerFilter)
        return writer.finish(name or (doc.path.stem if doc.path else "TRN import"), {"foliage": section})


def _planned_layers(doc: TrnDocument, present: dict[str, set], foliage: bool):
    """The layers `trn_to_scene` makes for the families present, in its order and with its names:
    [(name, colour, grid, family id)], and per flora slot the (family id, layer name) pairs."""
    taken: set[str] = set()
    colors = family_palette(doc)
    layers = []
    for fam in doc.families["shader"]:
        if fam.id in present["shader"]:
            layers.append((_unique(fam.name or f"shader {fam.id}", taken),
                           layer_color(colors, "shader", fam.id), "shader", fam.id))
    planes: dict[str, list[tuple[int, str]]] = {}
    if foliage:
        for slot, title in _SLOT_TITLES.items():
            kind = "flora" if slot == "noncollidable" else "radial"
            for fid in sorted(present[slot]):
                fam = doc.family(kind, int(fid))
                layer = _unique(f"{title}: {fam.name if fam else f'{kind} {fid}'}", taken)
                layers.append((layer, layer_color(colors, kind, int(fid)), slot, fid))
                planes.setdefault(slot, []).append((fid, layer))
    return layers, planes


def _stream_flora(result, doc: TrnDocument, region: Region, terrain: Terrain, stored: dict,
                  planes: dict, FoliageType, LayerFilter) -> None:
    """`_add_flora` from the collected poles: instances stand on the written (paged) heights."""
    names: set[str] = set()
    spacing = region.spacing
    bounds = terrain.bounds()
    for fid in sorted(stored):
        fam = doc.family("flora", int(fid))
        label = _unique(fam.name if fam else f"flora {fid}", names)
        result.palette.add(FoliageType(label, mesh=mesh_for(fam, True)))
        at = np.concatenate([p[0] for p in stored[fid]])
        kids = np.concatenate([p[1] for p in stored[fid]])
        order = np.argsort(at, kind="stable")  # pole order of the whole region, as one evaluation has it
        at, kids = at[order], kids[order]
        records = np.zeros((at.size, 7), np.float32)
        for k in range(0, at.size, _FLORA_CHUNK):  # every step is per instance: chunks change no bit
            part, child = at[k:k + _FLORA_CHUNK], kids[k:k + _FLORA_CHUNK]
            px = (region.ix0 + part % region.cols).astype(np.float64) * spacing + 0.0
            pz = (region.iz0 + part // region.cols).astype(np.float64) * spacing + 0.0
            jx = (pole_random(px, pz, np.uint64(0x7A11)) - 0.5) * spacing
            jz = (pole_random(px, pz, np.uint64(0x7A12)) - 0.5) * spacing
            x = np.clip(px + jx, *bounds[0::2])
            z = np.clip(pz + jz, *bounds[1::2])
            rec = records[k:k + _FLORA_CHUNK]
            rec[:, 0] = x
            rec[:, 1] = terrain.height_at(x, z)
            rec[:, 2] = z
            rec[:, 3] = pole_random(px, pz, np.uint64(0x7A13)) * (2 * math.pi)
            rec[:, 6] = _scales(fam, child, pole_random(px, pz, np.uint64(0x7A14)))
        result.volume.add(label, records, copy=False)
    for slot, title in _SLOT_TITLES.items():
        kind = "flora" if slot == "noncollidable" else "radial"
        for fid, layer in planes.get(slot, []):
            fam = doc.family(kind, int(fid))
            base = fam.name if fam else f"{kind} {fid}"
            density = DERIVED_DENSITY * (float(fam.record["density"]) if fam else 1.0)
            result.palette.add(FoliageType(_unique(f"{base} ({title})", names), mesh=mesh_for(fam, False),
                                           storage="derived", density=max(density, 0.0),
                                           layer=LayerFilter(layer, 0.5)))
