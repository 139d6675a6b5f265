"""`model.portable_math`'s log, exp and power as compiled per-element loops, for the multifractal's
bias and gain over whole grids (the numpy versions make ~60 float64 temporaries of every pole).

The operations and their order are those of `model.portable_math`, one for one, so both give the
same bits (a test compares them on millions of values). numba compiles without fast-math, so LLVM
neither fuses a multiply and an add nor reorders them, on any CPU it targets.
"""

from __future__ import annotations

import math

import numpy as np

from model import portable_math as pm
from model.trn.jit import compile_kernels, kernel

_EXP = np.array(pm._EXP)
_ATANH = np.array(pm._ATANH)
_LN2_HI, _LN2_LO, _INV_LN2, _SQRT_HALF = pm._LN2_HI, pm._LN2_LO, pm._INV_LN2, pm._SQRT_HALF


@kernel(inline=True)
def _horner(z, coefficients):
    acc = coefficients[coefficients.size - 1]
    for i in range(coefficients.size - 2, -1, -1):
        acc = acc * z + coefficients[i]
    return acc


@kernel(inline=True)
def _exp(x, coefficients):
    if x != x:
        return x
    c = min(max(x, -760.0), 710.0)
    k = np.rint(c * _INV_LN2)
    r = (c - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 + r * (1.0 + r * _horner(r, coefficients))
    return math.ldexp(p, int(k))


@kernel(inline=True)
def _log(x, coefficients):
    if not (x > 0.0 and x < np.inf):
        if x == 0.0:
            return -np.inf
        if x == np.inf:
            return np.inf
        return np.nan
    m, e = math.frexp(x)
    if m < _SQRT_HALF:
        m = 2.0 * m
        e = e - 1
    ef = float(e)
    f = m - 1.0
    s = f / (2.0 + f)
    z = s * s
    log_m = 2.0 * s + (2.0 * s) * (z * _horner(z, coefficients))
    return ef * _LN2_HI + (ef * _LN2_LO + log_m)


@kernel()
def _power_into(x, y, exp_coefficients, log_coefficients, out):
    """out[i] = float32(power(float64(x[i]), y)): portable_math.power's steps, per element."""
    for i in range(x.size):
        xi = np.float64(x[i])
        if xi == 1.0 or y == 0.0:
            out[i] = 1.0
        else:
            out[i] = _exp(y * _log(xi, log_coefficients), exp_coefficients)


_KERNELS = ("_horner", "_exp", "_log", "_power_into")


def power32(x: np.ndarray, y: float) -> np.ndarray:
    """`portable_math.power(x, y)` of a float32 array and one exponent, rounded once to float32."""
    compile_kernels(globals(), _KERNELS)
    x = np.asarray(x, np.float32)
    out = np.empty(x.size, np.float32)
    _power_into(np.ascontiguousarray(x.ravel()), float(y), _EXP, _ATANH, out)
    return out.reshape(x.shape)
