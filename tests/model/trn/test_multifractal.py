"""The multifractal and its generator reproduce the original engine's reference values."""

from __future__ import annotations

import numpy as np
import pytest

from model.trn.multifractal import MinimalStandard, Multifractal, noise2, noise_tables, table_slot

pytestmark = pytest.mark.bytes  # run again with the SIMD narrowed (scripts/portability.sh)

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


# trn-reference.md, "Large coordinates": only the engine's exact float32 order reproduces these
# (bias and gain off). The last case needs the generator's float32 division.
_OFF = dict(useBias=0, bias=0.5, useGain=0, gain=0.5)
LARGE_CASES = [
    (dict(_OFF, seed=1714520946, octaves=6, frequency=3.3013415336608887, amplitude=0.6676657795906067,
          scaleX=0.06372614949941635, scaleY=0.037003565579652786, offsetX=33.76197052001953,
          offsetY=17.832469940185547, combinationRule=5),
     [(-4365.02001953125, 1684.0787353515625, 0.0638485), (109.1822738647461, 7106.9287109375, 0.0520228),
      (3118.02001953125, 4567.41015625, 0.0570760), (2064.70263671875, 4004.59228515625, 0.1547197)]),
    (dict(_OFF, seed=857579038, octaves=6, frequency=3.4265263080596924, amplitude=0.3888336420059204,
          scaleX=0.0666101723909378, scaleY=0.013274594210088253, offsetX=-34.52069091796875,
          offsetY=17.070823669433594, combinationRule=3),
     [(1773.1219482421875, 3110.4052734375, 0.3302823), (-6907.458984375, 421.378173828125, 0.0832284),
      (-1504.970703125, -1106.548828125, 0.1374607), (5664.2177734375, 3943.04736328125, 0.0892555)]),
    (dict(_OFF, seed=122651322, octaves=4, frequency=3.8859710693359375, amplitude=0.49702852964401245,
          scaleX=0.09212162345647812, scaleY=0.022445103153586388, offsetX=19.71613883972168,
          offsetY=34.93973922729492, combinationRule=3),
     [(-5615.26123046875, -4223.0224609375, 0.1424028), (541.922119140625, -2387.825927734375, 0.2076017),
      (-4219.05029296875, -4394.95068359375, 0.2479799),
      (-0.7311599254608154, -7595.40283203125, 0.2030782)]),
    (dict(_OFF, seed=471474872, octaves=4, frequency=2.4718544483184814, amplitude=0.5760979652404785,
          scaleX=0.07325582206249237, scaleY=0.016803404316306114, offsetX=-10.386713981628418,
          offsetY=-32.04901885986328, combinationRule=2),
     [(5357.16015625, 7634.927734375, 0.8482089), (-6058.65966796875, -2775.20263671875, 0.7755114),
      (-65.88713836669922, -4703.84326171875, 0.8807312),
      (1215.5054931640625, 112.72148132324219, 0.7091812)]),
    (dict(_OFF, seed=274635226, octaves=4, frequency=3.9771690368652344, amplitude=0.48065319657325745,
          scaleX=0.02512289769947529, scaleY=0.06871964782476425, offsetX=-41.367408752441406,
          offsetY=20.725109100341797, combinationRule=2),
     [(1212.9390869140625, -1930.619140625, 0.9173901), (898.596435546875, 7344.0, 0.8132430),
      (-6563.86962890625, -2022.859130859375, 0.9046326), (-2038.4375, 5500.3955078125, 0.8240068)]),
]
# a float64 division in the generator gives 0.7765800 here
DIVISION_CASE = (dict(_OFF, seed=1533557523, octaves=1, frequency=2, amplitude=0.5, scaleX=0.03477982,
                      scaleY=0.00040040637, offsetX=-9.607454, offsetY=-35.010159, combinationRule=0),
                 [(-7788.248, -3522.139, 0.4909588)])


@pytest.mark.parametrize("params,points", [*LARGE_CASES, DIVISION_CASE],
                         ids=[f"seed{c[0]['seed']}" for c in [*LARGE_CASES, DIVISION_CASE]])
def test_multifractal_large_coordinates_in_exact_float32_order(params, points):
    x = np.array([p[0] for p in points])
    z = np.array([p[1] for p in points])
    expected = [p[2] for p in points]
    got = Multifractal(**params).value(x, z)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, atol=1e-5, rtol=0)
    for (px, pz, e) in points:
        assert abs(float(Multifractal(**params).value(px, pz)) - e) <= 1e-5


def test_generator_table_slot_divides_in_float32():
    assert table_slot(1033726756) == 155  # float64 would give 154
    assert int(1033726756 / 6669205.0) == 154
    # the slot never leaves the table, even for the largest iy
    assert table_slot(2**31 - 2) == 321


def test_float32_order_holds_for_float64_input_arrays():
    """Callers pass float64 pole grids; the result must not depend on the input's dtype."""
    params, points = LARGE_CASES[2]
    x64 = np.array([p[0] for p in points], np.float64)
    z64 = np.array([p[1] for p in points], np.float64)
    m = Multifractal(**params)
    np.testing.assert_array_equal(m.value(x64, z64), m.value(x64.astype(np.float32), z64.astype(np.float32)))


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


def test_a_damaged_octave_count_is_bounded(monkeypatch):
    """2³¹−1 octaves (a damaged file) would take hours; past MAX_OCTAVES the lattice index has left
    int32 anyway, so evaluation stops there: the kernel is handed MAX_OCTAVES octaves, no more."""
    from model.trn import multifractal
    from model.trn.multifractal import MAX_OCTAVES

    handed = []
    kernel = multifractal._octaves
    monkeypatch.setattr(multifractal, "_octaves", lambda *a: handed.append(a[6].size) or kernel(*a))
    params = dict(CASES[0][0], octaves=2**31 - 1)
    x = np.linspace(-100, 100, 50)
    got = Multifractal(**params).value(x, x)
    assert handed == [MAX_OCTAVES]
    np.testing.assert_array_equal(got, Multifractal(**dict(params, octaves=MAX_OCTAVES)).value(x, x))
