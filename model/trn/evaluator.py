"""Evaluate a TRN layer stack on a grid of poles: heights, colour, shader, flora, masks.

Vectorised over poles: each layer works on the index set of poles its parent reached, so bounded
layers cost what they cover. Poles sit on a lattice anchored at the world origin, and per-pole
randomness is a hash of world coordinates, so a window equals the same poles of the whole map.

Where spec/trn.md is silent this follows the original engine: FDIR angles are stored in degrees
(like FSLP's); filter feathers clamp to 0–1; FBIT stretches its image bilinearly over the layer's
boundary box, adds gain, keeps the value below 1 and scales the band by it; a flora "replace"
removes only where the density draw passes; colour "multiply" blends toward the mean of old and
new colour and a height ramp colours only heights within [low, high]; a layer holding only
sub-layers hands its parent's amounts straight on; a road's or river's width is its whole width
(half either side). Surface normals come from central differences of the current heights.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from model import portable_math as pmath
from model.trn import shapes
from model.trn.document import Item, TrnDocument
from model.trn.jit import compile_kernels, kernel
from model.trn.multifractal import MAX_OCTAVES, Multifractal

FLORA_SLOTS = ("collidable", "noncollidable", "radial_near", "radial_far")
_FLORA_SLOT = {"AFSC": 0, "AFSN": 1, "AFDN": 2, "AFDF": 3}
_FLORA_KIND = {0: "flora", 1: "flora", 2: "radial", 3: "radial"}
_NORMAL_FILTERS = {"FSLP", "FDIR"}
_HEIGHT_AFFECTORS = {"AHCN", "AHFR", "AHTR", "AROA", "ARIV"}
TILE = 512  # poles per side evaluated at once; larger regions are tiled (exact: see module doc)


class Cancelled(Exception):
    """The progress callback asked to stop; nothing partial is returned."""


@dataclass(frozen=True)
class Region:
    """Poles at world (ix·spacing, iz·spacing) for ix0 ≤ ix < ix0+cols, iz0 ≤ iz < iz0+rows."""

    ix0: int
    iz0: int
    cols: int
    rows: int
    spacing: float

    @classmethod
    def from_bounds(cls, x0: float, z0: float, x1: float, z1: float, spacing: float) -> Region:
        if not spacing > 0:
            raise ValueError("spacing must be positive")
        ix0, ix1 = round(min(x0, x1) / spacing), round(max(x0, x1) / spacing)
        iz0, iz1 = round(min(z0, z1) / spacing), round(max(z0, z1) / spacing)
        return cls(ix0, iz0, ix1 - ix0 + 1, iz1 - iz0 + 1, float(spacing))

    @property
    def shape(self) -> tuple[int, int]:
        return (self.rows, self.cols)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        s = self.spacing
        return (self.ix0 * s, self.iz0 * s, (self.ix0 + self.cols - 1) * s, (self.iz0 + self.rows - 1) * s)

    def grown(self, margin: int) -> Region:
        return Region(self.ix0 - margin, self.iz0 - margin, self.cols + 2 * margin, self.rows + 2 * margin,
                      self.spacing)

    def coords(self) -> tuple[np.ndarray, np.ndarray]:
        """World x and z of every pole, flat, row-major (rows = z)."""
        ix = np.arange(self.ix0, self.ix0 + self.cols, dtype=np.float64) * self.spacing + 0.0
        iz = np.arange(self.iz0, self.iz0 + self.rows, dtype=np.float64) * self.spacing + 0.0
        xs, zs = np.meshgrid(ix, iz)
        return xs.ravel(), zs.ravel()


@dataclass
class Evaluation:
    """Per-pole results, arrays shaped (rows, cols). Family ids are −1 where none."""

    region: Region
    heights: np.ndarray
    color: np.ndarray  # float32 (rows, cols, 3), 0..1
    shader: np.ndarray
    shader_child: np.ndarray
    flora: dict[str, np.ndarray]
    flora_child: dict[str, np.ndarray]
    environment: np.ndarray
    exclude: np.ndarray
    passable: np.ndarray
    warnings: list[str] = field(default_factory=list)
    trace: list[dict] | None = None


def _salt(text: str, seed: int = 0) -> np.uint64:
    return np.uint64((zlib.crc32(text.encode("utf-8")) << 32) ^ (int(seed) & 0xFFFFFFFF))


def pole_random(x: np.ndarray, z: np.ndarray, salt: np.uint64) -> np.ndarray:
    """Uniform [0, 1) from a hash of the pole's world coordinates (splitmix64 finaliser)."""
    a = np.ascontiguousarray(x, np.float64)
    b = np.ascontiguousarray(z, np.float64)
    a, b = np.broadcast_arrays(a, b)
    out = np.empty(a.shape)
    _kernels()
    _hash_draws(np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1), np.uint64(salt),
                out.reshape(-1))
    return out


_M1, _M2, _M3, _M4 = (np.uint64(v) for v in (0x9E3779B97F4A7C15, 0x632BE59BD9B4E019, 0xBF58476D1CE4E5B9,
                                             0x94D049BB133111EB))
_S11, _S27, _S30, _S31 = (np.uint64(v) for v in (11, 27, 30, 31))
_INV53 = 1.0 / (1 << 53)


@kernel(inline=True)
def _hash(xbits, zbits, salt):
    """One pole's draw: the coordinates' bits mixed with wrapping uint64 arithmetic."""
    h = (xbits * _M1) ^ ((zbits + _M2) * _M3) ^ salt
    h ^= h >> _S30
    h *= _M3
    h ^= h >> _S27
    h *= _M4
    h ^= h >> _S31
    return np.float64(h >> _S11) * _INV53


@kernel()
def _hash_draws(x, z, salt, out):
    """`pole_random` per pole."""
    a = x.view(np.uint64)
    b = z.view(np.uint64)
    for k in range(a.size):
        out[k] = _hash(a[k], b[k], salt)


@kernel()
def _flora_add(xs, zs, idx, a, density, salt_draw, salt_pick, cum, fid, flora, child):
    """A flora affector that adds: where a pole's draw ≤ a × density, the family, and a child picked
    by a second draw through the cumulative weights (numpy's searchsorted, side right, clipped to
    the last child; -1 without children). The numpy passes' values, without their temporaries."""
    xb = xs.view(np.uint64)
    zb = zs.view(np.uint64)
    n = cum.size
    for k in range(idx.size):
        i = idx[k]
        if _hash(xb[i], zb[i], salt_draw) <= a[k] * density:
            flora[i] = fid
            if n == 0:
                child[i] = -1
                continue
            pick = _hash(xb[i], zb[i], salt_pick)
            j = 0
            while j < n and cum[j] <= pick:  # cum rises, NaN only at its end: as the binary search
                j += 1
            child[i] = min(j, n - 1)


_BIG = np.finfo(np.float64).max


@kernel(inline=True)
def _finite(v):
    """numpy's nan_to_num: NaN 0, ±inf the largest finite float of that sign."""
    if v != v:
        return 0.0
    if v == np.inf:
        return _BIG
    if v == -np.inf:
        return -_BIG
    return v


@kernel()
def _gradient(h, idx, rows, cols, s, dx, dz):
    """Central differences of `h` at the poles `idx` of a rows × cols grid, one-sided at its edge:
    the numpy pass's operations (a step count times the spacing, then the division)."""
    for k in range(idx.size):
        i = idx[k]
        row = i // cols
        col = i - row * cols
        left = i - 1 if col > 0 else i
        right = i + 1 if col < cols - 1 else i
        up = i - cols if row > 0 else i
        down = i + cols if row < rows - 1 else i
        dx[k] = _finite((h[right] - h[left]) / ((right - left) * s))
        dz[k] = _finite((h[down] - h[up]) / ((down - up) // cols * s))


def _child_cum(children: list[dict], key: str) -> np.ndarray:
    """Cumulative weights of a family's children, 0..1 (equal weights where none is positive)."""
    if not children:
        return np.zeros(0)
    w = np.maximum(np.array([float(c.get(key, 0.0)) for c in children]), 0.0)
    if w.sum() <= 0:
        w = np.ones(len(children))
    with np.errstate(invalid="ignore"):  # an infinite weight: NaN past it, as numpy divides
        return np.cumsum(w) / w.sum()


def _weighted_child(children: list[dict], key: str, draw: np.ndarray) -> np.ndarray:
    if not children:
        return np.full(draw.shape, -1, np.int32)
    cum = _child_cum(children, key)
    return np.minimum(np.searchsorted(cum, draw, side="right"), len(children) - 1).astype(np.int32)


def _apply_op(op: int, old: np.ndarray, value, a: np.ndarray) -> np.ndarray:
    """0 replace lerp(old, v, a); 1 add old + a·v; 2 subtract old − a·v; 3 multiply lerp(old, old·v, a)."""
    if op == 1:
        return old + a * value
    if op == 2:
        return old - a * value
    if op == 3:
        return old + (old * value - old) * a
    return old + (value - old) * a


def _compress(keep: np.ndarray, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
    """Keep the selected entries; unbounded layers keep everything, so skip the gathers then."""
    if keep.all():
        return arrays
    return tuple(a[keep] for a in arrays)


def _modifies_heights(layer: Item) -> bool:
    return any(c.active and c.unsupported is None and (
        c.canonical_tag in _HEIGHT_AFFECTORS or (c.tag == "LAYR" and _modifies_heights(c)))
        for c in layer.children)


def layer_normal_margin(doc: TrnDocument) -> int:
    """Poles of padding that make a window exact.

    A normal at a pole reads the heights of its four neighbours. Where a normal-reading layer (or
    its sub-layers) changes heights, the heights that are right shrink by one pole at the window's
    edge; every other step keeps them. So: one pole per normal-reading layer that changes heights,
    plus one for the last read (a layer that reads normals only for shaders or flora costs none)."""
    reads = shrinks = 0
    for it in doc.items():
        if it.tag == "LAYR" and it.active and any(
                c.active and c.tag in _NORMAL_FILTERS and c.unsupported is None for c in it.children):
            reads += 1
            shrinks += _modifies_heights(it)
    return shrinks + 1 if reads else 0


class _Run:
    def __init__(self, doc: TrnDocument, region: Region, bitmaps, ramps, trace_index: int | None) -> None:
        self.doc, self.region = doc, region
        self.bitmaps = bitmaps or {}
        self.ramps = ramps or {}
        self.xs, self.zs = region.coords()
        # the lattice's axes: the same values as the grids (both are index · spacing + 0.0)
        self.x_axis = np.arange(region.ix0, region.ix0 + region.cols, dtype=np.float64) * region.spacing + 0.0
        self.z_axis = np.arange(region.iz0, region.iz0 + region.rows, dtype=np.float64) * region.spacing + 0.0
        n = self.xs.size
        self.h = np.zeros(n)
        self.color = np.ones((n, 3))
        self.shader = np.full(n, -1, np.int32)
        self.shader_child = np.full(n, -1, np.int32)
        self.flora = np.full((4, n), -1, np.int32)
        self.flora_child = np.full((4, n), -1, np.int32)
        self.env = np.full(n, -1, np.int32)
        self.exclude = np.zeros(n, bool)
        self.passable = np.ones(n, bool)
        self.warnings: list[str] = []
        self._fractals: dict[int, np.ndarray] = {}
        self._families: dict[tuple[str, int], object] = {}
        self.trace_index = trace_index
        self.trace: list[dict] | None = [] if trace_index is not None else None
        self.seed = int(doc.header.get("collidable.seed", 0) or 0)
        # each flora kind draws from its own header seed, so changing one leaves the others alone
        self.flora_seeds = [int(doc.header.get(f"{p}.seed", 0) or 0)
                            for p in ("collidable", "nonCollidable", "radial", "farRadial")]

    # ---- shared inputs -------------------------------------------------------------------
    def family(self, kind: str, family_id: int):
        """`doc.family`, looked up once per run (the document does not change during one)."""
        key = (kind, family_id)
        if key not in self._families:
            self._families[key] = self.doc.family(kind, family_id)
        return self._families[key]

    def gradient(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """dh/dx and dh/dz of the current heights at `idx` (central differences, one-sided at the edge).

        The surface normal is (−dx, 1, −dz) normalised."""
        rows, cols = self.region.shape
        dx, dz = np.empty(idx.size), np.empty(idx.size)
        _kernels()
        _gradient(self.h, np.ascontiguousarray(idx, np.int64), rows, cols, float(self.region.spacing), dx, dz)
        return dx, dz

    def fractal(self, family_id: int, idx: np.ndarray) -> np.ndarray:
        """The family's multifractal at `idx`: cached over the whole grid once most poles need it."""
        if family_id in self._fractals:
            return self._fractals[family_id][idx]
        fam = self.family("fractal", family_id)
        if fam is None or fam.fractal is None:
            msg = f"fractal family {family_id} is missing; using 0"
            if msg not in self.warnings:
                self.warnings.append(msg)
            return np.zeros(idx.size)
        mf = Multifractal.from_values(fam.fractal.values)
        if mf.octaves > MAX_OCTAVES:
            msg = (f"fractal family {family_id} asks for {mf.octaves} octaves; evaluated with the first "
                   f"{MAX_OCTAVES}")
            if msg not in self.warnings:
                self.warnings.append(msg)
        if idx.size * 4 < self.xs.size:  # a bounded layer: noise only where it is needed
            return mf.value(self.xs[idx], self.zs[idx]).astype(np.float64)
        self._fractals[family_id] = mf.grid_value(self.x_axis, self.z_axis).ravel().astype(np.float64)
        return self._fractals[family_id][idx]

    def record(self, item: Item, idx: np.ndarray, amount: np.ndarray, role: str) -> None:
        if self.trace is None:
            return
        hit = np.nonzero(idx == self.trace_index)[0]
        if hit.size and amount[hit[0]] > 0:
            self.trace.append({"path": item.path, "tag": item.tag, "name": item.name, "role": role,
                               "amount": float(amount[hit[0]])})

    # ---- layers --------------------------------------------------------------------------
    def layer(self, layer: Item, idx: np.ndarray, parent: np.ndarray) -> None:
        if not layer.active or layer.unsupported or idx.size == 0:
            return
        raw = [c for c in layer.children if c.unsupported and c.kind in ("boundary", "filter")]
        if raw:
            # without that boundary or filter the layer would reach poles it never reaches: skip it
            msg = (f"layer {layer.name!r} skipped: its {raw[0].tag} {raw[0].version or ''} at offset "
                   f"{raw[0].offset} is not supported")
            if msg not in self.warnings:
                self.warnings.append(msg)
            return
        kids = [c for c in layer.children if c.active and c.unsupported is None]
        if not any(c.kind in ("boundary", "filter", "affector") for c in kids):
            # a layer that only groups sub-layers hands its parent's amounts straight on (its invert
            # flags have nothing to invert), as the original engine does
            for c in kids:
                self.layer(c, idx, parent)
            return
        bounds = [c for c in kids if c.kind == "boundary"]
        if bounds and not layer.params["invertBoundaries"]:
            # poles outside every boundary's box get 0 and would be dropped below: skip them now
            idx, parent = self.within(idx, [_box(b) for b in bounds], parent)
            if idx.size == 0:
                return
        if bounds:
            x, z = self.xs[idx], self.zs[idx]
            amount = np.zeros(idx.size)
            for b in bounds:
                part = self.boundary(b, x, z)
                self.record(b, idx, part, "boundary")
                amount = np.maximum(amount, part)
        else:
            amount = np.ones(idx.size)
        if layer.params["invertBoundaries"]:
            amount = 1.0 - amount
        idx, amount, parent = _compress(amount > 0, idx, amount, parent)
        # filters narrow the boundary amount itself (min), and invertFilters inverts that combined
        # amount, with or without filters: spec/trn.md "Evaluation" steps 2 and 3
        filters = [c for c in kids if c.kind == "filter"]
        if idx.size and filters:
            extent = _extent(bounds) if not layer.params["invertBoundaries"] else None
            for f in filters:
                part = self.filter(f, idx, extent)
                self.record(f, idx, part, "filter")
                amount = np.minimum(amount, part)
        if layer.params["invertFilters"]:
            amount = 1.0 - amount
        idx, amount, parent = _compress(amount > 0, idx, amount, parent)
        if idx.size == 0:
            return
        self.record(layer, idx, amount, "layer")
        a = amount * parent
        for c in kids:
            if c.kind == "affector":
                self.affector(c, idx, a)
        for c in kids:
            if c.kind == "layer":
                self.layer(c, idx, a)

    def within(self, idx: np.ndarray, boxes, *arrays: np.ndarray) -> tuple[np.ndarray, ...]:
        """The entries of `idx` (and of `arrays` alongside) at poles inside the union of `boxes`
        (x0, z0, x1, z1; None or NaN boxes hold no pole, as the exact tests find). Where `idx` is every
        pole, the box is a block of rows and columns and only those are touched."""
        boxes = [b for b in boxes if b is not None and not any(v != v for v in b)]
        if not boxes:
            return (idx[:0], *(a[:0] for a in arrays))
        x0, z0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, z1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        if idx.size == self.xs.size:  # every pole, in order
            cols = np.nonzero((self.x_axis >= x0) & (self.x_axis <= x1))[0]
            rows = np.nonzero((self.z_axis >= z0) & (self.z_axis <= z1))[0]
            if cols.size == self.x_axis.size and rows.size == self.z_axis.size:
                return (idx, *arrays)
            sub = (rows[:, None] * self.x_axis.size + cols[None, :]).ravel()
            return (sub, *(a[sub] for a in arrays))
        x, z = self.xs[idx], self.zs[idx]
        keep = (x >= x0) & (x <= x1) & (z >= z0) & (z <= z1)
        return _compress(keep, idx, *arrays)

    # ---- boundaries ----------------------------------------------------------------------
    def boundary(self, b: Item, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        p = b.params
        tag = b.tag
        out = np.zeros(x.size)
        box = _box(b)
        if box is None:
            return out
        sel = np.nonzero((x >= box[0]) & (x <= box[2]) & (z >= box[1]) & (z <= box[3]))[0]
        if sel.size == 0:
            return out
        xs, zs = x[sel], z[sel]
        if tag == "BCIR":
            raw = shapes.circle(xs, zs, p["cx"], p["cz"], abs(p["radius"]), p["feather"])
        elif tag == "BREC":
            raw = shapes.rectangle(xs, zs, p["x0"], p["z0"], p["x1"], p["z1"], p["feather"])
        elif tag == "BPOL":
            raw = shapes.polygon(xs, zs, p["points"], p["featherDistance"])
        else:
            raw = shapes.polyline(xs, zs, p["points"], p["width"], p["feather"])
        out[sel] = shapes.feather(p["featherFn"], raw)
        return out

    # ---- filters -------------------------------------------------------------------------
    def filter(self, f: Item, idx: np.ndarray, extent=None) -> np.ndarray:
        """The filter's feathered amount at `idx`; `extent` is the layer's boundary box (FBIT maps its
        image over it). Feather fractions are clamped to 0–1, as the original engine loads them."""
        p, tag = f.params, f.tag
        if tag == "FSHD":
            return (self.shader[idx] == p["shaderFamily"]).astype(np.float64)
        feather = min(max(float(p["feather"]), 0.0), 1.0)
        if tag == "FHGT":
            v, low, high = self.h[idx], p["low"], p["high"]
        elif tag == "FSLP":
            lo = pmath.radians(min(max(p["minAngle"], 0.0), 90.0))
            hi = pmath.radians(min(max(p["maxAngle"], 0.0), 90.0))
            dx, dz = self.gradient(idx)
            v, low, high = 1.0 / np.sqrt(dx * dx + dz * dz + 1.0), float(pmath.cos(hi)), float(pmath.cos(lo))
        elif tag == "FDIR":
            dx, dz = self.gradient(idx)
            v = pmath.arctan2(-dx, -dz) / (2 * pmath.PI) + 0.5  # atan2(nx, nz): the normal's length cancels
            # stored in degrees like FSLP's (the original converts on load), limited to ±180°
            low = max(float(pmath.radians(p["minAngle"])), -pmath.PI) / (2 * pmath.PI)
            high = min(float(pmath.radians(p["maxAngle"])), pmath.PI) / (2 * pmath.PI)
        elif tag == "FFRA":
            v, low, high = p["scaleY"] * self.fractal(p["fractalFamily"], idx), p["low"], p["high"]
        elif tag == "FBIT":
            bitmap = self.bitmaps.get(p["bitmapFamily"])
            if bitmap is None:
                msg = f"bitmap family {p['bitmapFamily']} is not available; filter {f.name!r} passes all"
                if msg not in self.warnings:
                    self.warnings.append(msg)
                return np.ones(idx.size)
            # the image plus gain, kept below 1 so the strict upper limit still admits a full pixel;
            # the filter's amount is the band's times that value (as the original engine does)
            v = np.clip(self._bitmap(bitmap, idx, extent) + float(p["gain"]), 0.0, 0.99999)
            return shapes.feather(p["featherFn"], shapes.band(v, p["low"], p["high"], feather) * v)
        else:
            return np.ones(idx.size)
        return shapes.feather(p["featherFn"], shapes.band(v, low, high, feather))

    def _bitmap(self, bitmap: np.ndarray, idx: np.ndarray, extent) -> np.ndarray:
        """Bilinear sample of a 0..1 image (row 0 at the south edge) stretched over `extent`
        (x0, z0, x1, z1): the layer's boundaries, or the whole map for a layer without any."""
        if extent is None or not (extent[2] > extent[0] and extent[3] > extent[1]):
            half = self.doc.map_width / 2.0
            extent = (-half, -half, half, half)
        img = np.asarray(bitmap, np.float64)
        rows, cols = img.shape[:2]
        if img.ndim == 3:
            img = img[..., 0]
        sx = np.minimum((self.xs[idx] - extent[0]) * cols / (extent[2] - extent[0]), cols - 1.0)
        sz = np.minimum((self.zs[idx] - extent[1]) * rows / (extent[3] - extent[1]), rows - 1.0)
        sx, sz = np.maximum(sx, 0.0), np.maximum(sz, 0.0)
        x0, z0 = sx.astype(np.int64), sz.astype(np.int64)
        x1, z1 = np.minimum(x0 + 1, cols - 1), np.minimum(z0 + 1, rows - 1)
        fx, fz = sx - x0, sz - z0
        return (img[z0, x0] * (1 - fx) * (1 - fz) + img[z0, x1] * fx * (1 - fz)
                + img[z1, x0] * (1 - fx) * fz + img[z1, x1] * fx * fz)

    # ---- affectors -----------------------------------------------------------------------
    def affector(self, item: Item, idx: np.ndarray, a: np.ndarray) -> None:
        tag = item.canonical_tag
        handler = getattr(self, f"a_{tag.lower()}", None)
        if handler is None:
            return
        self.record(item, idx, a, "affector")
        handler(item, item.params, idx, a)

    def _set_height(self, idx: np.ndarray, values: np.ndarray) -> None:
        self.h[idx] = values

    def a_ahcn(self, it, p, idx, a):
        self._set_height(idx, _apply_op(p["operation"], self.h[idx], p["height"], a))

    def a_ahfr(self, it, p, idx, a):
        v = self.fractal(p["fractalFamily"], idx) * p["scaleY"]
        self._set_height(idx, _apply_op(p["operation"], self.h[idx], v, a))

    def a_ahtr(self, it, p, idx, a):
        step, flat = float(p["height"]), min(max(float(p["flatRatio"]), 0.0), 1.0)
        if step <= 0:
            return
        h0 = self.h[idx]
        lower = np.floor(h0 / step) * step
        frac = (h0 - lower) / step
        ramp = 0.0 if flat >= 1 else np.clip((frac - flat) / (1.0 - flat), 0.0, 1.0)
        terraced = lower + step * np.where(frac < flat, 0.0, ramp)
        self._set_height(idx, h0 + (terraced - h0) * a)

    def _color(self, op, idx, value, a):
        old = self.color[idx]
        if op == 3:  # the original's colour "multiply" blends toward the mean of old and new colour
            value = (old + value) * 0.5
            op = 0
        self.color[idx] = np.clip(_apply_op(op, old, value, a[:, None]), 0.0, 1.0)

    def a_accn(self, it, p, idx, a):
        self._color(p["operation"], idx, np.array(p["color"], np.float64) / 255.0, a)

    def _ramp(self, name: str, t: np.ndarray) -> np.ndarray:
        """The ramp image's pixel int(t·(width − 1)) of its first row, as the original reads it."""
        ramp = self.ramps.get(name)
        t = np.clip(t, 0.0, 1.0)
        if ramp is None:
            return np.repeat(t[:, None], 3, axis=1)  # grey ramp where the image is not available
        ramp = np.asarray(ramp, np.float64).reshape(-1, 3)
        return ramp[np.clip((t * (len(ramp) - 1)).astype(np.int64), 0, len(ramp) - 1)]

    def a_acrh(self, it, p, idx, a):
        # only heights from low to high (inclusive) take a colour from the ramp
        h = self.h[idx]
        inside = (h >= p["low"]) & (h <= p["high"])
        idx, a, h = idx[inside], a[inside], h[inside]
        span = p["high"] - p["low"]
        t = (h - p["low"]) / span if span else np.zeros(idx.size)
        self._color(p["operation"], idx, self._ramp(p["rampImage"], t), a)

    def a_acrf(self, it, p, idx, a):
        t = self.fractal(p["fractalFamily"], idx)
        self._color(p["operation"], idx, self._ramp(p["rampImage"], t), a)

    def _clamp(self, kind: str, family_id: int, use_override, override) -> float:
        if use_override:
            return float(override)
        fam = self.family(kind, family_id)
        return float(fam.record.get("featherClamp", 0.0)) if fam is not None else 0.0

    def _set_shader(self, idx, family_id: int, salt: str):
        fam = self.family("shader", family_id)
        self.shader[idx] = family_id
        draw = pole_random(self.xs[idx], self.zs[idx], _salt(salt + "/shader", self.seed))
        self.shader_child[idx] = _weighted_child(fam.children if fam else [], "weight", draw)

    def a_ascn(self, it, p, idx, a):
        clamp = self._clamp("shader", p["shaderFamily"], p["useFeatherClampOverride"],
                            p["featherClampOverride"])
        hit = idx[a >= clamp]
        self._set_shader(hit, p["shaderFamily"], it.path)

    def a_asrp(self, it, p, idx, a):
        clamp = self._clamp("shader", p["destinationFamily"], p["useOverride"], p["override"])
        hit = idx[(a >= clamp) & (self.shader[idx] == p["sourceFamily"])]
        self._set_shader(hit, p["destinationFamily"], it.path)

    def a_aenv(self, it, p, idx, a):
        clamp = self._clamp("environment", p["environmentFamily"], p["useOverride"], p["override"])
        self.env[idx[a >= clamp]] = p["environmentFamily"]

    def a_aexc(self, it, p, idx, a):
        self.exclude[idx] = True

    def a_apas(self, it, p, idx, a):
        self.passable[idx[a >= max(float(p["threshold"]), 1e-12)]] = bool(p["passable"])

    def _flora(self, it, p, idx, a):
        slot = _FLORA_SLOT[it.canonical_tag]
        fid = p["floraFamily"]
        if p["removeAll"]:
            self.flora[slot, idx] = -1
            self.flora_child[slot, idx] = -1
            return
        fam = self.family(_FLORA_KIND[slot], fid)
        if p["densityOverride"]:
            density = float(p["density"])
        else:
            density = float(fam.record["density"]) if fam else 0.0
        seed = self.flora_seeds[slot]
        if p["operation"] != 0:
            _kernels()
            _flora_add(np.ascontiguousarray(self.xs), np.ascontiguousarray(self.zs),
                       np.ascontiguousarray(idx, np.int64), np.ascontiguousarray(a, np.float64), density,
                       _salt(it.path + "/flora", seed), _salt(it.path + "/child", seed),
                       _child_cum(fam.children if fam else [], "weight"), int(fid), self.flora[slot],
                       self.flora_child[slot])
            return
        x, z = self.xs[idx], self.zs[idx]
        draw = pole_random(x, z, _salt(it.path + "/flora", seed))
        hit = draw <= a * density
        # replace removes the family, from the poles whose draw passes (as the original does)
        gone = idx[hit & (self.flora[slot, idx] == fid)]
        self.flora[slot, gone] = -1
        self.flora_child[slot, gone] = -1

    a_afsc = a_afsn = a_afdn = a_afdf = _flora

    def _near(self, pts, width, idx, a):
        return self.within(idx, [shapes.bbox(pts, width)], a)

    def _path_amounts(self, p, idx, limit=None):
        return shapes.polyline_distance(self.xs[idx], self.zs[idx], p["points"], limit)

    def a_aroa(self, it, p, idx, a):
        # the stored width is the whole road's: it reaches half of it either side of the line
        pts, width = p["points"], float(p["width"]) * 0.5
        if not pts or width <= 0:
            return
        sub, asub = self._near(pts, width, idx, a)
        if sub.size == 0:
            return
        d, seg, t = self._path_amounts(p, sub)
        hts = np.asarray(p.get("heights", []), np.float64)
        amt = shapes.feather(p["featherFn"], shapes.polyline_amount(d, width, p["feather"])) * asub
        if hts.size == len(pts) and hts.size > 1:
            target = hts[seg] * (1 - t) + hts[np.minimum(seg + 1, hts.size - 1)] * t
            self._set_height(sub, self.h[sub] + (target - self.h[sub]) * amt)
        shade = shapes.feather(p["featherFnShader"],
                               shapes.polyline_amount(d, width, p["featherShader"])) * asub
        clamp = self._clamp("shader", p["shaderFamily"], False, 0.0)
        self._set_shader(sub[(shade > 0) & (shade >= clamp)], p["shaderFamily"], it.path)
        self._clear_flora(sub[d < width])

    def a_ariv(self, it, p, idx, a):
        pts, width = p["points"], float(p["width"]) * 0.5  # whole width, as for roads
        if not pts or width <= 0:
            return
        sub, asub = self._near(pts, width, idx, a)
        if sub.size == 0:
            return
        d, _, _ = self._path_amounts(p, sub, limit=width)  # a river reads d only against its width
        amt = shapes.feather(p["featherFn"], shapes.polyline_amount(d, width, p["feather"])) * asub
        self._set_height(sub, self.h[sub] - float(p["trenchDepth"]) * amt)
        inner = width * (1.0 - min(max(float(p["feather"]), 0.0), 1.0))
        bottom = sub[(d <= inner) & (asub > 0)]
        bank = sub[(d > inner) & (d < width) & (asub > 0)]
        self._set_shader(bottom, p["bottomFamily"], it.path + "/bottom")
        self._set_shader(bank, p["bankFamily"], it.path + "/bank")
        self._clear_flora(sub[d < width])

    def _clear_flora(self, idx):
        self.flora[:, idx] = -1
        self.flora_child[:, idx] = -1


def _box(b: Item) -> tuple[float, float, float, float] | None:
    """A boundary's box (x0, z0, x1, z1), outside which it is 0; None where it is 0 everywhere."""
    p = b.params
    if b.tag == "BCIR":
        r = abs(p["radius"])
        return (p["cx"] - r, p["cz"] - r, p["cx"] + r, p["cz"] + r)
    if b.tag == "BREC":
        return (min(p["x0"], p["x1"]), min(p["z0"], p["z1"]), max(p["x0"], p["x1"]), max(p["z0"], p["z1"]))
    if b.tag in ("BPOL", "BPLN") and p["points"]:
        return shapes.bbox(p["points"], p["width"] if b.tag == "BPLN" else 0.0)
    return None


def _extent(bounds: list[Item]) -> tuple[float, float, float, float] | None:
    """The box around a layer's active boundaries (None without any)."""
    boxes = []
    for b in bounds:
        p = b.params
        if b.tag == "BCIR":
            r = abs(p["radius"])
            boxes.append((p["cx"] - r, p["cz"] - r, p["cx"] + r, p["cz"] + r))
        elif b.tag == "BREC":
            boxes.append((min(p["x0"], p["x1"]), min(p["z0"], p["z1"]), max(p["x0"], p["x1"]),
                          max(p["z0"], p["z1"])))
        elif b.tag in ("BPOL", "BPLN") and p["points"]:
            boxes.append(shapes.bbox(p["points"], p["width"] if b.tag == "BPLN" else 0.0))
    if not boxes:
        return None
    b = np.array(boxes)
    return (b[:, 0].min(), b[:, 1].min(), b[:, 2].max(), b[:, 3].max())


def _evaluate_tile(doc, region: Region, margin: int, bitmaps, ramps, trace_xz=None) -> Evaluation:
    padded = region.grown(margin)
    trace_index = None
    if trace_xz is not None:
        col = trace_xz[0] - padded.ix0
        row = trace_xz[1] - padded.iz0
        trace_index = row * padded.cols + col
    run = _Run(doc, padded, bitmaps, ramps, trace_index)
    every = np.arange(run.xs.size)
    ones = np.ones(run.xs.size)
    for layer in doc.layers:
        run.layer(layer, every, ones)
    rows, cols = padded.shape
    crop = (slice(margin, rows - margin), slice(margin, cols - margin))

    def grid(a, dtype=None):
        g = a.reshape(rows, cols, *a.shape[1:])[crop]
        return np.ascontiguousarray(g, dtype=dtype)

    return Evaluation(
        region=region, heights=grid(run.h, np.float32), color=grid(run.color, np.float32),
        shader=grid(run.shader), shader_child=grid(run.shader_child),
        flora={name: grid(run.flora[i]) for i, name in enumerate(FLORA_SLOTS)},
        flora_child={name: grid(run.flora_child[i]) for i, name in enumerate(FLORA_SLOTS)},
        environment=grid(run.env), exclude=grid(run.exclude), passable=grid(run.passable),
        warnings=run.warnings, trace=run.trace)


def warm_up() -> None:
    """Load the compiled kernels (from numba's cache; compiled once where there is none), which a
    process's first evaluation would otherwise do (~0.4 s with the cache, ~2 s without)."""
    x = np.zeros(2)
    shapes.polyline_distance(x, x, [(0.0, 0.0), (1.0, 1.0)])
    shapes.polygon_inside(x, x, [(0.0, 0.0), (1.0, 1.0), (1.0, 0.0)])
    Multifractal(octaves=1).value(x, x)
    Multifractal(octaves=1).grid_value(x, x)
    pole_random(x, x, np.uint64(0))
    _kernels()
    _gradient(x, np.zeros(2, np.int64), 1, 2, 1.0, np.empty(2), np.empty(2))
    ids = np.full(2, -1, np.int32)
    _flora_add(x, x, np.zeros(2, np.int64), x, 0.0, np.uint64(0), np.uint64(0), np.zeros(0), 0, ids,
               ids.copy())


def evaluate(doc: TrnDocument, region: Region, progress: Callable[[int, int], bool] | None = None,
             bitmaps: dict[int, np.ndarray] | None = None, ramps: dict[str, np.ndarray] | None = None,
             tile: int = TILE) -> Evaluation:
    """Evaluate every pole of `region`. `progress(done, total)` returning False cancels."""
    margin = layer_normal_margin(doc)
    tiles = [(r0, c0) for r0 in range(0, region.rows, tile) for c0 in range(0, region.cols, tile)]
    if len(tiles) == 1:
        if progress is not None and progress(0, 1) is False:
            raise Cancelled()
        out = _evaluate_tile(doc, region, margin, bitmaps, ramps)
        if progress is not None:
            progress(1, 1)
        return out
    result = _empty(region)
    for n, (r0, c0) in enumerate(tiles):
        if progress is not None and progress(n, len(tiles)) is False:
            raise Cancelled()
        sub = Region(region.ix0 + c0, region.iz0 + r0, min(tile, region.cols - c0),
                     min(tile, region.rows - r0), region.spacing)
        part = _evaluate_tile(doc, sub, margin, bitmaps, ramps)
        _paste(result, part, r0, c0)
    if progress is not None:
        progress(len(tiles), len(tiles))
    return result


def _empty(region: Region) -> Evaluation:
    shape = region.shape
    ids = lambda: np.full(shape, -1, np.int32)  # noqa: E731
    return Evaluation(region, np.zeros(shape, np.float32), np.ones(shape + (3,), np.float32), ids(), ids(),
                      {k: ids() for k in FLORA_SLOTS}, {k: ids() for k in FLORA_SLOTS}, ids(),
                      np.zeros(shape, bool), np.ones(shape, bool))


def _paste(dst: Evaluation, src: Evaluation, r0: int, c0: int) -> None:
    rs, cs = slice(r0, r0 + src.region.rows), slice(c0, c0 + src.region.cols)
    for name in ("heights", "color", "shader", "shader_child", "environment", "exclude", "passable"):
        getattr(dst, name)[rs, cs] = getattr(src, name)
    for k in FLORA_SLOTS:
        dst.flora[k][rs, cs] = src.flora[k]
        dst.flora_child[k][rs, cs] = src.flora_child[k]
    for w in src.warnings:
        if w not in dst.warnings:
            dst.warnings.append(w)


def explain(doc: TrnDocument, x: float, z: float, spacing: float,
            bitmaps: dict[int, np.ndarray] | None = None) -> tuple[Evaluation, list[dict]]:
    """Evaluate the pole nearest (x, z) and list every layer and item that reached it."""
    ix, iz = round(x / spacing), round(z / spacing)
    region = Region(ix, iz, 1, 1, float(spacing))
    ev = _evaluate_tile(doc, region, max(1, layer_normal_margin(doc)), bitmaps, None, trace_xz=(ix, iz))
    return ev, ev.trace or []


def sample(doc: TrnDocument, points: list[tuple[float, float]], spacing: float | None = None,
           bitmaps: dict[int, np.ndarray] | None = None) -> list[dict]:
    """Height, shader and flora at each point's nearest pole (on the file's pole lattice by default)."""
    spacing = spacing or doc.pole_spacing
    out = []
    for x, z in points:
        ev, _ = explain(doc, x, z, spacing, bitmaps)
        out.append({
            "x": x, "z": z, "pole": [ev.region.ix0 * spacing, ev.region.iz0 * spacing],
            "height": float(ev.heights[0, 0]), "shader": int(ev.shader[0, 0]),
            "flora": {k: int(v[0, 0]) for k, v in ev.flora.items()},
            "environment": int(ev.environment[0, 0]), "exclude": bool(ev.exclude[0, 0]),
            "passable": bool(ev.passable[0, 0]),
        })
    return out


_KERNELS = ('_hash', '_hash_draws', '_flora_add', '_finite', '_gradient')


def _kernels() -> None:
    compile_kernels(globals(), _KERNELS)
