"""Transcendental functions whose bits are the same on every machine.

numpy dispatches sin, cos, exp, log, power, arctan2… to SIMD code chosen by the CPU (SVML on
AVX-512, other kernels on AVX2 or NEON) and libm differs between systems, so their last bits
differ between machines. Everything that is stored, hashed or exported uses these instead: float64
polynomials evaluated with +, −, ×, ÷, sqrt, rint, frexp and ldexp only — IEEE operations that are
exact (correctly rounded) in every numpy build, scalar or SIMD — in a fixed order, with no fused
multiply-add. Accuracy is a few float64 ulps (far below float32's), which is all the TRN engine's
float32 arithmetic and the scatter need; what matters is that every machine gets the same bits.

The constants are derived from decimal expansions with exact rational arithmetic, not from libm.
"""

from __future__ import annotations

from fractions import Fraction
from math import factorial, sqrt

import numpy as np

_PI_DIGITS = "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899863"
_LN2_DIGITS = "0.69314718055994530941723212145817656807550013436025525412068000949339362196969471561"
_PI = Fraction(_PI_DIGITS)
_LN2 = Fraction(_LN2_DIGITS)


def _rounded(value: Fraction, bits: int) -> float:
    """`value` rounded to a float of `bits` significant bits (exactly representable in float64)."""
    if value == 0:
        return 0.0
    exponent = abs(value).numerator.bit_length() - abs(value).denominator.bit_length()
    while abs(value) >= Fraction(2) ** exponent:
        exponent += 1
    while abs(value) < Fraction(2) ** (exponent - 1):
        exponent -= 1
    scale = Fraction(2) ** (bits - exponent)
    return float(Fraction(round(value * scale)) / scale)


def _split(value: Fraction, bits: int, parts: int) -> tuple[float, ...]:
    """`value` as a sum of `parts` floats, each of `bits` bits (the last of 53): products with small
    integers stay exact, which Cody–Waite reduction needs."""
    out = []
    for i in range(parts):
        piece = _rounded(value, 53 if i == parts - 1 else bits)
        out.append(piece)
        value -= Fraction(piece)
    return tuple(out)


PI = float(_PI)
HALF_PI = float(_PI / 2)
TWO_OVER_PI = float(2 / _PI)
RADIANS_PER_DEGREE = float(_PI / 180)
DEGREES_PER_RADIAN = float(180 / _PI)
_P1, _P2, _P3 = _split(_PI / 2, 33, 3)  # k·P1, k·P2 exact for |k| < 2^20
_LN2_HI, _LN2_LO = _split(_LN2, 40, 2)  # k·LN2_HI exact for |k| < 2^13
_INV_LN2 = float(1 / _LN2)
_SQRT_HALF = sqrt(0.5)  # sqrt is correctly rounded everywhere

# Taylor coefficients, each a correctly rounded ratio of integers
_SIN = tuple((-1) ** i / factorial(2 * i + 1) for i in range(1, 10))  # −1/3!, 1/5!, … ±1/19!
_COS = tuple((-1) ** i / factorial(2 * i) for i in range(2, 10))  # 1/4!, −1/6!, … 1/18!
_EXP = tuple(1 / factorial(i) for i in range(2, 15))  # 1/2!, …, 1/14!
_ATANH = tuple(1 / (2 * i + 1) for i in range(1, 12))  # 1/3, 1/5, …, 1/23
_ATAN = tuple((-1) ** i / (2 * i + 1) for i in range(1, 14))  # −1/3, 1/5, …, 1/27


def _horner(z: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    """c0 + z·(c1 + z·(c2 + …)), innermost first: one fixed order of rounding."""
    acc = np.full_like(z, coefficients[-1])
    for c in coefficients[-2::-1]:
        acc = acc * z + c
    return acc


def _f64(x) -> np.ndarray:
    return np.asarray(x, np.float64)


def _result(out: np.ndarray, like):
    """A scalar for scalar input (as numpy's ufuncs give), else the array."""
    return out[()] if np.ndim(like) == 0 else out


def _sin_cos_reduced(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """sin and cos of r = x − k·π/2 (|r| ≤ π/4) and the quadrant k mod 4 (as float)."""
    k = np.rint(x * TWO_OVER_PI)
    r = ((x - k * _P1) - k * _P2) - k * _P3
    z = r * r
    s = r + (r * z) * _horner(z, _SIN)
    c = (1.0 - 0.5 * z) + (z * z) * _horner(z, _COS)
    quadrant = k - 4.0 * np.floor(k * 0.25)
    return s, c, quadrant


def sin(x):
    """sin(x) in float64, the same bits everywhere (accurate to a few ulps for |x| < 1e6)."""
    x = _f64(x)
    with np.errstate(invalid="ignore"):
        s, c, q = _sin_cos_reduced(x)
        out = np.where(q == 0.0, s, np.where(q == 1.0, c, np.where(q == 2.0, -s, -c)))
    return _result(out, x)


def cos(x):
    """cos(x) in float64, the same bits everywhere."""
    x = _f64(x)
    with np.errstate(invalid="ignore"):
        s, c, q = _sin_cos_reduced(x)
        out = np.where(q == 0.0, c, np.where(q == 1.0, -s, np.where(q == 2.0, -c, s)))
    return _result(out, x)


def _atan_unit(t: np.ndarray) -> np.ndarray:
    """atan(t) for 0 ≤ t ≤ 1: two half-angle steps bring t under tan(π/16), then the series."""
    t0, tiny = t, t < 2.0 ** -27  # atan(t) rounds to t; the half-angle steps would round subnormals
    for _ in range(2):
        t = t / (1.0 + np.sqrt(1.0 + t * t))
    z = t * t
    return np.where(tiny, t0, 4.0 * (t + (t * z) * _horner(z, _ATAN)))


def arctan(x):
    """atan(x) in float64, the same bits everywhere."""
    x = _f64(x)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ax = np.abs(x)
        big = ax > 1.0
        a = _atan_unit(np.where(big, 1.0 / ax, ax))
        out = np.copysign(np.where(big, HALF_PI - a, a), x)
    return _result(out, x)


def arctan2(y, x):
    """atan2(y, x) in float64 with C's quadrants (x = −0 counts as negative), the same bits everywhere."""
    y, x = np.broadcast_arrays(_f64(y), _f64(x))
    with np.errstate(divide="ignore", invalid="ignore"):
        ay, ax = np.abs(y), np.abs(x)
        steep = ay > ax
        num, den = np.where(steep, ax, ay), np.where(steep, ay, ax)
        both_inf = np.isinf(num) & np.isinf(den)
        ratio = np.where(both_inf, 1.0, np.where(den == 0.0, 0.0, num / den))
        a = _atan_unit(ratio)
        a = np.where(steep, HALF_PI - a, a)
        a = np.where(np.signbit(x), PI - a, a)
        out = np.copysign(a, y)
        out = np.where(np.isnan(x) | np.isnan(y), np.nan, out)
    return _result(out, y)


def arcsin(x):
    """asin(x) in float64 (NaN outside [−1, 1]), the same bits everywhere."""
    x = _f64(x)
    with np.errstate(invalid="ignore"):
        out = arctan2(x, np.sqrt((1.0 - x) * (1.0 + x)))
    return out


def arccos(x):
    """acos(x) in float64 (NaN outside [−1, 1]), the same bits everywhere."""
    x = _f64(x)
    with np.errstate(invalid="ignore"):
        out = arctan2(np.sqrt((1.0 - x) * (1.0 + x)), x)
    return out


def degrees(x):
    """Radians to degrees: one correctly rounded product."""
    return _result(_f64(x) * DEGREES_PER_RADIAN, x)


def radians(x):
    """Degrees to radians: one correctly rounded product."""
    return _result(_f64(x) * RADIANS_PER_DEGREE, x)


def exp(x):
    """e^x in float64 (inf above ~709.78, 0 below ~−745), the same bits everywhere."""
    x = _f64(x)
    with np.errstate(invalid="ignore", over="ignore"):
        clipped = np.clip(np.where(np.isnan(x), 0.0, x), -760.0, 710.0)
        k = np.rint(clipped * _INV_LN2)
        r = (clipped - k * _LN2_HI) - k * _LN2_LO
        p = 1.0 + r * (1.0 + r * _horner(r, _EXP))
        out = np.ldexp(p, k.astype(np.int64))
        out = np.where(np.isnan(x), np.nan, out)
    return _result(out, x)


def log(x):
    """ln(x) in float64 (−inf at 0, NaN below), the same bits everywhere."""
    x = _f64(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        positive = (x > 0.0) & np.isfinite(x)
        m, e = np.frexp(np.where(positive, x, 1.0))
        low = m < _SQRT_HALF
        m = np.where(low, 2.0 * m, m)
        e = np.where(low, e - 1, e).astype(np.float64)
        f = m - 1.0
        s = f / (2.0 + f)
        z = s * s
        log_m = 2.0 * s + (2.0 * s) * (z * _horner(z, _ATANH))
        out = e * _LN2_HI + (e * _LN2_LO + log_m)
        out = np.where(positive, out, np.where(x == 0.0, -np.inf, np.where(x == np.inf, np.inf, np.nan)))
    return _result(out, x)


def power(x, y):
    """x^y for x ≥ 0 in float64 (NaN for negative x), as exp(y·ln x) with C's special cases:
    x^0 = 1, 0^y = 0 or inf, inf^y = inf or 0. The same bits everywhere."""
    x, y = np.broadcast_arrays(_f64(x), _f64(y))
    with np.errstate(invalid="ignore", over="ignore"):
        out = exp(y * log(x))
        out = np.where(x == 1.0, 1.0, out)
        out = np.where(y == 0.0, 1.0, out)
    return _result(np.asarray(out, np.float64), x)


def cbrt(x):
    """The real cube root in float64, the same bits everywhere: x^(1/3) refined by one Newton step."""
    x = _f64(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        ax = np.abs(x)
        y = power(ax, 1.0 / 3.0)
        finite = np.isfinite(y) & (y > 0.0)
        safe = np.where(finite, y, 1.0)
        y = np.where(finite, safe - (safe * safe * safe - ax) / (3.0 * safe * safe), y)
        out = np.copysign(y, x)
    return _result(out, x)


def det3(m):
    """Determinants of 3 × 3 matrices (…, 3, 3) by the rule of Sarrus in a fixed order (LAPACK's LU
    pivots and fuses differently per CPU)."""
    m = _f64(m)
    a, b, c = m[..., 0, 0], m[..., 0, 1], m[..., 0, 2]
    d, e, f = m[..., 1, 0], m[..., 1, 1], m[..., 1, 2]
    g, h, i = m[..., 2, 0], m[..., 2, 1], m[..., 2, 2]
    return _result(np.asarray((a * (e * i - f * h) - b * (d * i - f * g)) + c * (d * h - e * g)), a)


HYPOT_TINY, HYPOT_HUGE = 1e-100, 1e100  # between them the squares stay normal floats
HYPOT_DOWN, HYPOT_UP = 2.0 ** -600, 2.0 ** 600


def hypot(x, y):
    """sqrt(x² + y²) with C's special cases (inf wins over NaN), the same bits everywhere: libm's
    hypot differs between systems in the last bit. The squares are scaled by a power of two (exact)
    where they would overflow or go subnormal, then one correctly rounded sqrt."""
    ax, ay = np.broadcast_arrays(np.abs(_f64(x)), np.abs(_f64(y)))
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.where(ax > ay, ax, ay)
        scale = np.where(m > HYPOT_HUGE, HYPOT_DOWN, np.where(m < HYPOT_TINY, HYPOT_UP, 1.0))
        sx, sy = ax * scale, ay * scale
        out = np.sqrt(sx * sx + sy * sy) / scale
    out = np.where(m == 0.0, 0.0, out)
    out = np.where(np.isnan(ax) | np.isnan(ay), np.nan, out)
    out = np.where(np.isinf(ax) | np.isinf(ay), np.inf, out)
    return _result(out, ax)


def matmul(a, b):
    """a @ b over the last two axes (broadcast over the rest), each entry summed in index order:
    BLAS picks kernels per CPU, some fusing multiply and add."""
    a, b = _f64(a), _f64(b)
    out = a[..., :, 0:1] * b[..., 0:1, :]
    for k in range(1, a.shape[-1]):
        out = out + a[..., :, k:k + 1] * b[..., k:k + 1, :]
    return out
