"""The multifractal and its generator reproduce the original engine's reference values."""

from __future__ import annotations

import numpy as np
import pytest

from model.trn.multifractal import MinimalStandard, Multifractal, noise2, noise_tables

DRAWS = {
    0: [1086531968, 304987844, 524102504, 1887638, 925238588, 555860589],
    1: [1086531968, 304987844, 524102504, 1887638, 925238588, 555860589],
    7: [2034366040, 1982488685, 1797810937, 714192172, 522395024, 13213466],
    12345: [209567120, 451350201, 440185056, 109072277, 1552920794, 963885229],
    4294967295: [1086531968, 304987844, 524102504, 1887638, 925238588, 555860589],
}

POINTS = [(0, 0), (1.5, 2.25), (100, 200), (-333.3, 512.7), (4096, -8000), (12345.6, 7890.1)]

CASES = [
    (dict(seed=0, useBias=0, bias=0.5, useGain=0, gain=0.7, octaves=2, frequency=4, amplitude=0.5,
          scaleX=0.01, scaleY=0.01, offsetX=0, offsetY=0, combinationRule=0),
     [0.5000000, 0.5110731, 0.5000000, 0.4694791, 0.4776193, 0.3729106]),
    (dict(seed=0, useBias=0, bias=0.5, useGain=0, gain=0.7, octaves=1, frequency=4, amplitude=0.5,
          scaleX=0.1, scaleY=0.1, offsetX=0, offsetY=0, combinationRule=0),
     [0.5000000, 0.5379506, 0.5000000, 0.3683906, 0.7176384, 0.6628276]),
    (dict(seed=42, useBias=1, bias=0.3, useGain=1, gain=0.8, octaves=4, frequency=2, amplitude=0.5,
          scaleX=0.003, scaleY=0.003, offsetX=10, offsetY=-5, combinationRule=2),
     [1.0000000, 0.9998006, 0.7916707, 0.8054301, 0.9449975, 0.9617676]),
    (dict(seed=7, useBias=0, bias=0.5, useGain=0, gain=0.7, octaves=3, frequency=3, amplitude=0.6,
          scaleX=0.02, scaleY=0.02, offsetX=0, offsetY=0, combinationRule=3),
     [0.0000000, 0.1146950, 0.0000000, 0.1407471, 0.0801399, 0.1001880]),
    (dict(seed=99, useBias=0, bias=0.5, useGain=1, gain=0.6, octaves=5, frequency=2, amplitude=0.45,
          scaleX=0.005, scaleY=0.005, offsetX=0, offsetY=0, combinationRule=4),
     [1.0000000, 1.0000000, 1.0000000, 0.9974313, 0.9940609, 0.8896163]),
    (dict(seed=1234, useBias=1, bias=0.7, useGain=0, gain=0.7, octaves=2, frequency=2.5, amplitude=0.5,
          scaleX=0.05, scaleY=0.05, offsetX=3, offsetY=3, combinationRule=5),
     [0.0000000, 0.1697646, 0.1666236, 0.1534000, 0.2995071, 0.4718786]),
]


@pytest.mark.parametrize("seed", sorted(DRAWS))
def test_generator_first_draws(seed):
    rng = MinimalStandard(seed)
    assert [rng.draw() for _ in range(6)] == DRAWS[seed]


@pytest.mark.parametrize("params,expected", CASES)
def test_multifractal_reference_values(params, expected):
    x = np.array([p[0] for p in POINTS])
    z = np.array([p[1] for p in POINTS])
    got = Multifractal(**params).value(x, z)
    np.testing.assert_allclose(got, expected, atol=1e-5, rtol=0)
    # scalar evaluation agrees with the vectorised one
    for (px, pz), e in zip(POINTS, expected, strict=True):
        assert abs(float(Multifractal(**params).value(px, pz)) - e) <= 1e-5


def _noise_loop(tables, x: float, z: float) -> float:
    """Plain-loop reference of the gradient noise, written from the spec's wording."""
    f = np.float32
    tx, tz = f(x) + f(4096), f(z) + f(4096)
    ix, iz = int(np.floor(tx)), int(np.floor(tz))
    bx0, bz0 = ix & 255, iz & 255
    bx1, bz1 = (bx0 + 1) & 255, (bz0 + 1) & 255
    rx0, rz0 = f(tx - f(ix)), f(tz - f(iz))
    rx1, rz1 = rx0 - f(1), rz0 - f(1)
    p, g = tables.p, tables.g2

    def corner(bx, bz, rx, rz):
        q = g[p[p[bx] + bz]]
        return rx * q[0] + rz * q[1]

    sx, sz = rx0 * rx0 * (f(3) - f(2) * rx0), rz0 * rz0 * (f(3) - f(2) * rz0)
    a = corner(bx0, bz0, rx0, rz0) + sx * (corner(bx1, bz0, rx1, rz0) - corner(bx0, bz0, rx0, rz0))
    b = corner(bx0, bz1, rx0, rz1) + sx * (corner(bx1, bz1, rx1, rz1) - corner(bx0, bz1, rx0, rz1))
    return float(a + sz * (b - a))


def test_noise_matches_plain_loop_and_is_zero_on_lattice():
    tables = noise_tables(5)
    rng = np.random.default_rng(3)
    xs = rng.uniform(-5000, 5000, 300)
    zs = rng.uniform(-5000, 5000, 300)
    vec = noise2(tables, xs, zs)
    loop = [_noise_loop(tables, x, z) for x, z in zip(xs, zs, strict=True)]
    np.testing.assert_allclose(vec, loop, atol=1e-6)
    assert np.all(noise2(tables, np.arange(-5.0, 5.0), np.arange(-5.0, 5.0)) == 0)
    assert np.abs(vec).max() > 0.1


def test_tables_are_a_permutation_with_unit_gradients():
    t = noise_tables(12345)
    assert sorted(t.p[:256]) == list(range(256))
    assert np.array_equal(t.p[256:512], t.p[:256]) and np.array_equal(t.p[512:], t.p[:2])
    norms = np.hypot(t.g2[:256, 0], t.g2[:256, 1])
    np.testing.assert_allclose(norms[norms > 0], 1.0, atol=1e-6)


def test_values_do_not_depend_on_array_position():
    """Tiles and windows put a pole at different array positions; its value must not change."""
    m = Multifractal(seed=3, useBias=1, bias=0.3, useGain=1, gain=0.8, octaves=4, frequency=2, amplitude=0.5,
                     scaleX=0.01, scaleY=0.01, combinationRule=2)
    rng = np.random.default_rng(1)
    x, z = rng.uniform(-3000, 3000, 1001), rng.uniform(-3000, 3000, 1001)
    whole = m.value(x, z)
    one_by_one = np.array([m.value(x[i:i + 1], z[i:i + 1])[0] for i in range(x.size)])
    np.testing.assert_array_equal(whole, one_by_one)
    np.testing.assert_array_equal(whole[3:], m.value(x[3:], z[3:]))


def test_bias_and_gain_at_the_ends_of_their_range_follow_the_formula():
    r = np.array([0.0005, 0.2, 0.5, 0.8, 0.9995], np.float32)
    from model.trn.multifractal import _bias, _gain
    # gain 0: p = ln 1 / ln 0.5 = 0, so (2r)^0 / 2 = ½ and 1 − ½ = ½ between the 0.001 / 0.999 cut-offs
    np.testing.assert_array_equal(_gain(r, np.float32(0.0)), np.float32([0, 0.5, 0.5, 0.5, 1]))
    # bias 1: exponent ln 1 / ln 0.5 = 0, so r^0 = 1 everywhere; bias ½ leaves r as it is
    np.testing.assert_array_equal(_bias(r, np.float32(1.0)), np.ones(5, np.float32))
    np.testing.assert_allclose(_bias(r, np.float32(0.5)), r, rtol=1e-6)
