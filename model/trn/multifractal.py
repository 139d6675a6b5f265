"""The TRN multifractal: minimal-standard generator, 2-D gradient noise, octave rules, bias, gain.

Arithmetic is single precision, as in the original engine, so values match it to ~1e-7. The octave
loop runs compiled (numba, at first use: `model.trn.jit`), one pole at a time, in the same float32
operations and order as the numpy `noise2`: a numpy pass per octave made ~20 temporaries of every
pole, and fractals are most of a planet's evaluation time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model import portable_math as pmath
from model.trn.jit import compile_kernels, kernel
from model.trn.portable_kernels import power32

_IA, _IM, _IQ, _IR = 16807, 2147483647, 127773, 2836
NTAB = 322
NDIV = 6669205.0  # 1 + (IM − 1)/NTAB evaluated in float, as the original does
_NDIV32 = np.float32(NDIV)
# Real files use up to about 10 octaves. Past 32, a frequency ≥ 2 has pushed the lattice index past
# int32 (the engine's result is undefined there) and a damaged file's 2 billion octaves would take
# hours: the rest are not evaluated (the evaluator warns).
MAX_OCTAVES = 32


class MinimalStandard:
    """Park–Miller minimal standard behind a Bays–Durham table of 322 entries (`ran1`)."""

    def __init__(self, seed: int) -> None:
        s = int(seed) & 0xFFFFFFFF
        s = s - (1 << 32) if s >= (1 << 31) else s  # (int32)seed
        self.idnum = -s
        self.iy = 0
        self.iv = [0] * NTAB

    @staticmethod
    def _step(idnum: int) -> int:
        k = idnum // _IQ if idnum >= 0 else -((-idnum) // _IQ)  # C division truncates
        idnum = _IA * (idnum - k * _IQ) - _IR * k
        return idnum + _IM if idnum < 0 else idnum

    def draw(self) -> int:
        if self.idnum <= 0 or not self.iy:
            self.idnum = 1 if -self.idnum < 1 else -self.idnum
            for j in range(NTAB + 7, -1, -1):
                self.idnum = self._step(self.idnum)
                if j < NTAB:
                    self.iv[j] = self.idnum
            self.iy = self.iv[0]
        self.idnum = self._step(self.idnum)
        j = table_slot(self.iy)
        self.iy = self.iv[j]
        self.iv[j] = self.idnum
        return self.iy


def table_slot(iy: int) -> int:
    """The shuffle-table slot of `iy`: the division is float32, as the engine's (in float64 some
    iy land in the neighbouring slot, e.g. 1033726756 → 155 in float32, 154 in float64)."""
    return min(int(np.float32(iy) / _NDIV32), NTAB - 1)


@dataclass(frozen=True)
class NoiseTables:
    p: np.ndarray  # int64 (514,)
    g2: np.ndarray  # float32 (514, 2)


_TABLE_CACHE: dict[int, NoiseTables] = {}


def noise_tables(seed: int) -> NoiseTables:
    """Permutation and gradient tables exactly as the generator fills them."""
    seed = int(seed) & 0xFFFFFFFF
    if seed in _TABLE_CACHE:
        return _TABLE_CACHE[seed]
    rng = MinimalStandard(seed)
    f32 = np.float32
    p = np.zeros(514, np.int64)
    g2 = np.zeros((514, 2), np.float32)
    for i in range(256):
        p[i] = i
        rng.draw()  # g1[i]: drawn to keep the stream in step, unused in 2-D
        gx = f32((rng.draw() % 512) - 256) / f32(256)
        gz = f32((rng.draw() % 512) - 256) / f32(256)
        s = np.sqrt(gx * gx + gz * gz, dtype=np.float32)
        if s > 0:
            gx, gz = gx / s, gz / s
        g2[i] = (gx, gz)
    for i in range(255, 0, -1):
        j = rng.draw() % 256
        p[i], p[j] = p[j], p[i]
    for i in range(258):  # sequential, as the original loop: 512, 513 repeat 0, 1
        p[256 + i] = p[i]
        g2[256 + i] = g2[i]
    tables = NoiseTables(p, g2)
    _TABLE_CACHE[seed] = tables
    return tables


def _s_curve(r: np.ndarray) -> np.ndarray:
    return r * r * (np.float32(3) - np.float32(2) * r)


def noise2(tables: NoiseTables, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Classic 2-D gradient noise, vectorised, single precision."""
    f32 = np.float32
    tx = np.asarray(x, np.float32) + f32(4096)
    tz = np.asarray(z, np.float32) + f32(4096)
    ix = np.floor(tx)
    iz = np.floor(tz)
    bx0 = ix.astype(np.int64) & 255
    bz0 = iz.astype(np.int64) & 255
    bx1 = (bx0 + 1) & 255
    bz1 = (bz0 + 1) & 255
    rx0 = (tx - ix).astype(np.float32)
    rz0 = (tz - iz).astype(np.float32)
    rx1 = rx0 - f32(1)
    rz1 = rz0 - f32(1)
    p, g = tables.p, tables.g2
    i, j = p[bx0], p[bx1]
    b00, b10, b01, b11 = p[i + bz0], p[j + bz0], p[i + bz1], p[j + bz1]
    sx, sz = _s_curve(rx0), _s_curve(rz0)
    u = rx0 * g[b00, 0] + rz0 * g[b00, 1]
    v = rx1 * g[b10, 0] + rz0 * g[b10, 1]
    a = u + sx * (v - u)
    u = rx0 * g[b01, 0] + rz1 * g[b01, 1]
    v = rx1 * g[b11, 0] + rz1 * g[b11, 1]
    b = u + sx * (v - u)
    return (a + sz * (b - a)).astype(np.float32)


@dataclass
class Multifractal:
    """MFRC parameters; `value(x, z)` gives the fractal in [0, 1] at world positions."""

    seed: int = 0
    useBias: int = 0  # noqa: N815 - names follow the file's fields
    bias: float = 0.5
    useGain: int = 0  # noqa: N815
    gain: float = 0.7
    octaves: int = 1
    frequency: float = 4.0
    amplitude: float = 0.5
    scaleX: float = 0.01  # noqa: N815
    scaleY: float = 0.01  # noqa: N815
    offsetX: float = 0.0  # noqa: N815
    offsetY: float = 0.0  # noqa: N815
    combinationRule: int = 0  # noqa: N815

    @classmethod
    def from_values(cls, values: dict) -> Multifractal:
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in values.items() if k in names})

    def octave_steps(self) -> tuple[np.ndarray, np.ndarray, np.float32 | None]:
        """Each evaluated octave's frequency and weight, and the normaliser's reciprocal (None when
        the weights sum to 0): running float32 products and a float32 sum in octave order."""
        f32 = np.float32
        step_f, step_a = f32(self.frequency), f32(self.amplitude)
        count = min(max(0, int(self.octaves)), MAX_OCTAVES)
        freqs, weights = np.zeros(count, np.float32), np.zeros(count, np.float32)
        freq, weight, norm = f32(1), f32(1), f32(0)
        for i in range(count):
            freqs[i], weights[i] = freq, weight
            norm = f32(norm + weight)
            freq = f32(freq * step_f)  # running products, not powers
            weight = f32(weight * step_a)
        recip = f32(f32(1) / norm) if norm != 0 else None  # the engine multiplies by the reciprocal
        return freqs, weights, recip

    def value(self, x, z) -> np.ndarray:
        """Every step rounds to float32 in the engine's order (spec trn.md, "exact float32 order"):
        another order of the same operations drifts by up to 5e-4 at several thousand metres."""
        _kernels()
        f32 = np.float32
        tables = noise_tables(self.seed)
        x, z = np.broadcast_arrays(np.asarray(x, np.float32), np.asarray(z, np.float32))
        shape = x.shape
        freqs, weights, recip = self.octave_steps()
        out = np.empty(x.size, np.float32)
        _octaves(np.ascontiguousarray(x).ravel(), np.ascontiguousarray(z).ravel(), f32(self.scaleX),
                 f32(self.scaleY), f32(self.offsetX), f32(self.offsetY), freqs, weights,
                 recip is not None, f32(0) if recip is None else recip, int(self.combinationRule),
                 tables.p, tables.g2, out)
        r = out.reshape(shape)
        if self.useBias:
            r = _bias(r, f32(self.bias))
        if self.useGain:
            r = _gain(r, f32(self.gain))
        return r


    def grid_value(self, x_axis, z_axis) -> np.ndarray:
        """`value` at every pole of the grid x_axis × z_axis, shaped (rows = z, cols = x): the same
        bytes, with each column's and row's share of an octave computed once."""
        _kernels()
        f32 = np.float32
        tables = noise_tables(self.seed)
        xa = np.ascontiguousarray(np.asarray(x_axis, np.float32).ravel())
        za = np.ascontiguousarray(np.asarray(z_axis, np.float32).ravel())
        freqs, weights, recip = self.octave_steps()
        out = np.empty((za.size, xa.size), np.float32)
        _octaves_grid(xa, za, f32(self.scaleX), f32(self.scaleY), f32(self.offsetX), f32(self.offsetY),
                      freqs, weights, recip is not None, f32(0) if recip is None else recip,
                      int(self.combinationRule), tables.p, tables.g2, out)
        r = out
        if self.useBias:
            r = _bias(r, f32(self.bias))
        if self.useGain:
            r = _gain(r, f32(self.gain))
        return r


_F0, _F1, _F2, _F3, _FHALF, _F4096 = (np.float32(v) for v in (0.0, 1.0, 2.0, 3.0, 0.5, 4096.0))
_I64_LIMIT = 9.223372036854775808e18  # 2^63: float → int64 beyond it gives INT64_MIN, as numpy's cast


@kernel(inline=True)
def _lattice(i):
    """`int64(i) & 255` of a floored float32, with numpy's result where the cast overflows (NaN, ±inf,
    |i| ≥ 2^63: INT64_MIN, whose low byte is 0) instead of the undefined value of a compiled cast."""
    if -_I64_LIMIT <= i < _I64_LIMIT:
        return np.int64(i) & 255
    return 0


@kernel(inline=True)
def _clip01(n):
    """numpy's clip of float32: a bound only where n is beyond it (NaN and -0.0 stay)."""
    return _F0 if n < _F0 else (_F1 if n > _F1 else n)


@kernel(inline=True)
def _axis(v):
    """One coordinate's share of `noise2`: lattice cells, offsets in the cell, s-curve weight."""
    t = v + _F4096
    i = np.floor(t)
    b0 = _lattice(i)
    r0 = t - i
    return b0, (b0 + 1) & 255, r0, r0 - _F1, r0 * r0 * (_F3 - _F2 * r0)


@kernel(inline=True)
def _blend(p, g2, bx0, bx1, rx0, rx1, sx, bz0, bz1, rz0, rz1, sz):
    """The corner gradients dotted with the offsets, blended x first, then z."""
    i = p[bx0]
    j = p[bx1]
    b00 = p[i + bz0]
    b10 = p[j + bz0]
    b01 = p[i + bz1]
    b11 = p[j + bz1]
    u = rx0 * g2[b00, 0] + rz0 * g2[b00, 1]
    v = rx1 * g2[b10, 0] + rz0 * g2[b10, 1]
    a = u + sx * (v - u)
    u = rx0 * g2[b01, 0] + rz1 * g2[b01, 1]
    v = rx1 * g2[b11, 0] + rz1 * g2[b11, 1]
    b = u + sx * (v - u)
    return a + sz * (b - a)


@kernel(inline=True)
def _term(n, rule):
    """An octave's noise through the combination rule."""
    if rule == 2:
        return _F1 - abs(n)
    if rule == 3:
        return abs(n)
    if rule == 4:
        return _F1 - _clip01(n)
    if rule == 5:
        return _clip01(n)
    return n


@kernel(inline=True)
def _finish(total, normalise, recip, rule):
    if normalise:
        total = total * recip
    if rule < 2 or rule > 5:
        total = (total + _F1) * _FHALF
    return total


@kernel()
def _octaves(x, z, scale_x, scale_z, off_x, off_z, freqs, weights, normalise, recip, rule, p, g2, out):
    """The weighted octave sum of every pole (float32 in, float32 out), normalised, before bias and
    gain: `noise2`'s float32 operations in its order."""
    for k in range(x.size):
        xs = x[k] * scale_x
        zs = z[k] * scale_z
        total = _F0
        for o in range(freqs.size):
            f = freqs[o]
            # two products, then their sum: not (xs + offset)·f
            bx0, bx1, rx0, rx1, sx = _axis(xs * f + off_x * f)
            bz0, bz1, rz0, rz1, sz = _axis(zs * f + off_z * f)
            n = _blend(p, g2, bx0, bx1, rx0, rx1, sx, bz0, bz1, rz0, rz1, sz)
            total = total + weights[o] * _term(n, rule)
        out[k] = _finish(total, normalise, recip, rule)


@kernel()
def _octaves_grid(xa, za, scale_x, scale_z, off_x, off_z, freqs, weights, normalise, recip, rule, p, g2, out):
    """`_octaves` over the grid xa × za (out: rows = za, cols = xa): a column's and a row's share of
    each octave are the same for all its poles, so they are computed once (the same values)."""
    cols, rows = xa.size, za.size
    cb0, cb1 = np.empty(cols, np.int64), np.empty(cols, np.int64)
    cr0, cr1, cs = np.empty(cols, np.float32), np.empty(cols, np.float32), np.empty(cols, np.float32)
    rb0, rb1 = np.empty(rows, np.int64), np.empty(rows, np.int64)
    rr0, rr1, rs = np.empty(rows, np.float32), np.empty(rows, np.float32), np.empty(rows, np.float32)
    out[:, :] = _F0
    for o in range(freqs.size):
        f = freqs[o]
        w = weights[o]
        for c in range(cols):
            xs = xa[c] * scale_x
            cb0[c], cb1[c], cr0[c], cr1[c], cs[c] = _axis(xs * f + off_x * f)
        for r in range(rows):
            zs = za[r] * scale_z
            rb0[r], rb1[r], rr0[r], rr1[r], rs[r] = _axis(zs * f + off_z * f)
        for r in range(rows):
            for c in range(cols):
                n = _blend(p, g2, cb0[c], cb1[c], cr0[c], cr1[c], cs[c],
                           rb0[r], rb1[r], rr0[r], rr1[r], rs[r])
                out[r, c] = out[r, c] + w * _term(n, rule)
    for r in range(rows):
        for c in range(cols):
            out[r, c] = _finish(out[r, c], normalise, recip, rule)


def _bias(r: np.ndarray, b: np.float32) -> np.ndarray:
    """r^(ln b / ln 0.5) for every bias the formula is defined for (b = 1 gives 1, b = 0 gives 0);
    a negative bias, where the logarithm has no value, leaves r as it is."""
    if not b >= 0:
        return r
    e = _exponent(b)
    return power32(np.maximum(r, np.float32(0)), e)


def _gain(r: np.ndarray, g: np.float32) -> np.ndarray:
    """The spec's gain for every g ≤ 1 (g = 0 flattens to ½, g = 1 is a step); a gain above 1, where
    ln(1 − g) has no value, leaves r as it is."""
    f32 = np.float32
    if not g <= 1:
        return r
    p = _exponent(f32(1) - g)
    low = power32(np.maximum(f32(2) * r, f32(0)), p) / f32(2)
    high = f32(1) - power32(np.maximum(f32(2) * (f32(1) - r), f32(0)), p) / f32(2)
    out = np.where(r < f32(0.5), low, high)
    out = np.where(r < f32(0.001), f32(0), out)
    out = np.where(r > f32(0.999), f32(1), out)
    return out.astype(np.float32)


def _exponent(v: np.float32) -> np.float32:
    """ln v / ln 0.5 rounded once to float32 (inf at v = 0): the portable logarithm, since numpy's
    float32 log and pow are SIMD code whose last bit depends on the CPU."""
    with np.errstate(divide="ignore"):
        return np.float32(pmath.log(float(v)) / pmath.log(0.5))


_KERNELS = ('_lattice', '_clip01', '_axis', '_blend', '_term', '_finish', '_octaves', '_octaves_grid')


def _kernels() -> None:
    compile_kernels(globals(), _KERNELS)
