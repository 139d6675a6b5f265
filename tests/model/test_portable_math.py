"""`model.portable_math`: accurate to a few float64 ulps, the same bits on every machine, and the only
place in the model that computes a transcendental function."""

from __future__ import annotations

import ast
import math
import zlib
from pathlib import Path

import numpy as np
import pytest

from model import portable_math as pm

MODEL = Path(__file__).resolve().parents[2] / "model"


def _inputs() -> dict[str, np.ndarray]:
    """Arguments built from integers only (no CPU-dependent call makes them)."""
    i = np.arange(-20000, 20001, dtype=np.float64)
    return {
        "angle": i * (1.0 / 997.0),  # ±20 rad
        "wide_angle": i * 37.125,  # ±742,500 rad
        "unit": i / 20000.0,  # [−1, 1]
        "ratio": (i + 20001.0) / 4096.0,  # (0, 10]
        "exponent": i / 28.5,  # ±700
        "magnitude": np.ldexp(1.0 + (np.abs(i) % 1000.0) / 1000.0, (i % 2001 - 1000).astype(np.int64)),
    }


def _ulps(got: np.ndarray, want: np.ndarray) -> float:
    both = np.isfinite(want)
    assert np.array_equal(np.isnan(got), np.isnan(want)), "NaN where the reference has a value"
    scale = np.spacing(np.abs(want[both]))
    return float(np.max(np.abs(got[both] - want[both]) / np.maximum(scale, 5e-324)))


CASES = [
    ("sin", pm.sin, math.sin, "angle", 2), ("sin", pm.sin, math.sin, "wide_angle", 4),
    ("cos", pm.cos, math.cos, "angle", 2), ("cos", pm.cos, math.cos, "wide_angle", 4),
    ("arctan", pm.arctan, math.atan, "ratio", 4), ("arctan", pm.arctan, math.atan, "magnitude", 4),
    ("arcsin", pm.arcsin, math.asin, "unit", 6), ("arccos", pm.arccos, math.acos, "unit", 6),
    ("exp", pm.exp, math.exp, "exponent", 2), ("log", pm.log, math.log, "magnitude", 2),
    ("log", pm.log, math.log, "ratio", 2), ("cbrt", pm.cbrt, lambda v: math.copysign(abs(v) ** (1 / 3), v),
                                              "exponent", 2),
]


@pytest.mark.parametrize("name,fn,ref,domain,ulps", CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_accurate_to_a_few_ulps(name, fn, ref, domain, ulps):
    x = _inputs()[domain]
    assert _ulps(fn(x), np.array([ref(float(v)) for v in x])) <= ulps


def test_two_argument_functions_are_accurate():
    x = _inputs()["angle"]
    y = x[::-1] * 1.5
    assert _ulps(pm.arctan2(y, x), np.array([math.atan2(a, b) for a, b in zip(y, x, strict=True)])) <= 4
    assert _ulps(pm.hypot(y, x), np.array([math.hypot(a, b) for a, b in zip(y, x, strict=True)])) <= 1
    base = _inputs()["ratio"]
    power = x / 4.0
    # exp(y·ln x) loses about |y ln x| ulps to the product's rounding: float32 needs 2^29 of them
    want = np.array([math.pow(a, b) for a, b in zip(base, power, strict=True)])
    assert _ulps(pm.power(base, power), want) < 64


def test_special_values_follow_c():
    inf, nan = math.inf, math.nan
    assert pm.exp(-inf) == 0.0 and pm.exp(inf) == inf and pm.exp(800.0) == inf and pm.exp(-800.0) == 0.0
    assert pm.log(0.0) == -inf and pm.log(inf) == inf and math.isnan(pm.log(-1.0))
    assert list(pm.power(0.0, [0.0, 2.0, -2.0])) == [1.0, 0.0, inf]
    assert list(pm.power(inf, [0.0, 2.0, -2.0])) == [1.0, inf, 0.0]
    assert pm.power(nan, 0.0) == 1.0 and math.isnan(pm.power(-2.0, 0.5))
    for y, x in [(0.0, -0.0), (-0.0, -1.0), (inf, inf), (-inf, -inf), (1.0, 0.0), (0.0, 0.0), (2.0, -inf)]:
        assert pm.arctan2(y, x) == pytest.approx(math.atan2(y, x), abs=1e-15)
        assert math.copysign(1.0, pm.arctan2(y, x)) == math.copysign(1.0, math.atan2(y, x))
    assert pm.hypot(inf, nan) == inf and math.isnan(pm.hypot(nan, 1.0)) and pm.hypot(3e300, 4e300) == 5e300
    assert pm.hypot(3e-320, 4e-320) == math.hypot(3e-320, 4e-320)
    assert pm.arctan(1e-310) == 1e-310 and math.isnan(pm.arcsin(1.5))
    assert pm.det3(np.diag([2.0, 3.0, 4.0])) == 24.0


@pytest.mark.bytes
def test_results_are_pinned_bit_for_bit():
    """The CRC-32 of every function over integer-built inputs: the same on every CPU, SIMD width,
    operating system and numpy version (a failure here means the arithmetic is not portable)."""
    x = _inputs()
    results = {
        "sin": pm.sin(np.concatenate([x["angle"], x["wide_angle"]])),
        "cos": pm.cos(np.concatenate([x["angle"], x["wide_angle"]])),
        "arctan2": pm.arctan2(x["angle"][::-1], x["angle"]),
        "arccos": pm.arccos(x["unit"]), "arcsin": pm.arcsin(x["unit"]),
        "exp": pm.exp(x["exponent"]), "log": pm.log(np.concatenate([x["ratio"], x["magnitude"]])),
        "power": pm.power(x["ratio"], x["angle"] / 4.0), "cbrt": pm.cbrt(x["exponent"]),
        "hypot": pm.hypot(x["angle"], x["wide_angle"]),
    }
    crcs = {name: f"{zlib.crc32(np.ascontiguousarray(v, np.float64).tobytes()):08x}"
            for name, v in results.items()}
    assert crcs == PINNED


PINNED = {
    "sin": "17dfeed8", "cos": "b8f61606", "arctan2": "e4cb8d9e", "arccos": "3a8502eb", "arcsin": "5ac719c0",
    "exp": "2ff2b280", "log": "afd9b341", "power": "699d4e79", "cbrt": "8be6900b", "hypot": "71fb1b36",
}


def test_the_compiled_power_gives_the_numpy_bits():
    from model.trn.portable_kernels import power32

    rng = np.random.default_rng(3)
    x = np.concatenate([rng.random(200_000), rng.random(50_000) * 2.0,
                        [0.0, 1.0, np.inf, np.nan, -1.0, 1e-40, 0.999]]).astype(np.float32)
    for y in (0.0, 1.7369656, 0.25, 7.0, -2.5, np.inf, 1e-3):
        want = pm.power(x, np.float32(y))
        with np.errstate(over="ignore"):
            want = want.astype(np.float32)
        assert np.array_equal(power32(x, np.float32(y)).view(np.uint32), want.view(np.uint32)), y


FORBIDDEN = {"sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh",
             "arcsinh", "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
             "power", "float_power", "cbrt", "hypot", "asin", "acos", "atan", "atan2", "pow"}


def test_the_model_computes_transcendentals_only_through_portable_math():
    """numpy's and libm's versions differ between machines in the last bit (SIMD dispatch, libm):
    a call of one anywhere in the model is a result that may differ between machines."""
    found = []
    for path in sorted(MODEL.rglob("*.py")):
        if path.name == "portable_math.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Attribute) and node.attr in FORBIDDEN
                    and isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy", "math")):
                found.append(f"{path.relative_to(MODEL.parent)}:{node.lineno} {node.value.id}.{node.attr}")
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not _exact_power(node.right):
                found.append(f"{path.relative_to(MODEL.parent)}:{node.lineno} ** {ast.unparse(node.right)}")
    assert found == []


def _exact_power(exponent: ast.expr) -> bool:
    """`x ** 2`, `2 ** k`-style integer powers are exact; a float exponent calls libm's pow."""
    if isinstance(exponent, ast.Constant):
        return isinstance(exponent.value, int)
    if isinstance(exponent, ast.UnaryOp) and isinstance(exponent.operand, ast.Constant):
        return isinstance(exponent.operand.value, int)
    return isinstance(exponent, ast.Name | ast.Attribute | ast.Call | ast.BinOp)  # integer expressions
