"""The compiled kernels against the numpy passes they replaced (kept here as the reference): the
same bytes for random, lattice-aligned (ties, zero-length segments) and damaged (NaN, ±inf, huge,
tiny) inputs. Importing the model does not import numba; the kernels compile at first use."""

from __future__ import annotations

import numpy as np
import pytest

from model import portable_math as pmath
from model.trn import shapes
from model.trn.multifractal import MAX_OCTAVES, Multifractal, _bias, _gain, noise2, noise_tables

pytestmark = pytest.mark.bytes  # run again with the SIMD narrowed (scripts/portability.sh)


def numpy_polyline_distance(x, z, points):
    p = np.asarray(points, np.float64).reshape(-1, 2)
    best, seg, tt = np.full(np.shape(x), np.inf), np.zeros(np.shape(x), np.int64), np.zeros(np.shape(x))
    if len(p) == 1:
        return pmath.hypot(x - p[0, 0], z - p[0, 1]), seg, tt
    for i in range(len(p) - 1):
        ax, az = p[i]
        dx, dz = p[i + 1, 0] - ax, p[i + 1, 1] - az
        ll = dx * dx + dz * dz
        t = np.zeros(np.shape(x)) if ll == 0 else np.clip(((x - ax) * dx + (z - az) * dz) / ll, 0.0, 1.0)
        d = pmath.hypot(x - (ax + t * dx), z - (az + t * dz))
        closer = d < best
        best, seg, tt = np.where(closer, d, best), np.where(closer, i, seg), np.where(closer, t, tt)
    return best, seg, tt


def numpy_polygon_inside(x, z, points):
    p = np.asarray(points, np.float64).reshape(-1, 2)
    inside = np.zeros(np.shape(x), bool)
    for i in range(len(p)):
        xi, zi = p[i]
        xj, zj = p[i - 1]
        if zi == zj:
            continue
        inside ^= ((zi > z) != (zj > z)) & (x < (xj - xi) * (z - zi) / (zj - zi) + xi)
    return inside


def numpy_polygon(x, z, points, f):
    if len(points) < 3:
        return np.zeros(np.shape(x))
    inside = numpy_polygon_inside(x, z, points)
    if f <= 0:
        return inside.astype(np.float64)
    d, _, _ = numpy_polyline_distance(x, z, list(points) + [points[0]])
    return np.where(inside, np.minimum(d, f) / f, 0.0)


def numpy_polyline(x, z, points, width, f):
    if len(points) == 0 or width <= 0:
        return np.zeros(np.shape(x))
    return shapes.polyline_amount(numpy_polyline_distance(x, z, points)[0], width, f)


def numpy_multifractal(mf: Multifractal, x, z):
    f32 = np.float32
    tables = noise_tables(mf.seed)
    xs, zs = np.asarray(x, np.float32) * f32(mf.scaleX), np.asarray(z, np.float32) * f32(mf.scaleY)
    off_x, off_z = f32(mf.offsetX), f32(mf.offsetY)
    total = np.zeros(xs.shape, np.float32)
    freq, weight, norm = f32(1), f32(1), f32(0)
    rule = int(mf.combinationRule)
    for _ in range(min(max(0, int(mf.octaves)), MAX_OCTAVES)):
        n = noise2(tables, xs * freq + off_x * freq, zs * freq + off_z * freq)
        if rule == 2:
            n = f32(1) - np.abs(n)
        elif rule == 3:
            n = np.abs(n)
        elif rule == 4:
            n = f32(1) - np.clip(n, f32(0), f32(1))
        elif rule == 5:
            n = np.clip(n, f32(0), f32(1))
        total = total + weight * n
        norm = f32(norm + weight)
        freq, weight = f32(freq * f32(mf.frequency)), f32(weight * f32(mf.amplitude))
    if norm != 0:
        total = total * f32(f32(1) / norm)
    r = total if rule in (2, 3, 4, 5) else (total + f32(1)) * f32(0.5)
    if mf.useBias:
        r = _bias(r, f32(mf.bias))
    if mf.useGain:
        r = _gain(r, f32(mf.gain))
    return r


def _points(rng, kind: int, n: int):
    if kind == 0:
        pts = rng.uniform(-500, 500, (n, 2))
    elif kind == 1:  # integer points on the pole lattice: ties between segments, zero-length ones
        pts = np.round(rng.uniform(-20, 20, (n, 2)))
    elif kind == 2:
        pts = rng.uniform(-500, 500, (n, 2)).astype(np.float32).astype(np.float64)
    else:  # a damaged file's point
        pts = rng.uniform(-1e3, 1e3, (n, 2))
        pts[rng.integers(0, n)] = rng.choice([np.inf, -np.inf, np.nan, 1e300, 1e-300])
    return [tuple(p) for p in pts]


def _poles(rng, spacing: float):
    g = np.arange(-40, 40) * spacing + 0.0
    x, z = (a.ravel() for a in np.meshgrid(g, g))
    x = np.concatenate([x, rng.uniform(-600, 600, 2000)])
    return x, np.concatenate([z, rng.uniform(-600, 600, 2000)])


@pytest.mark.parametrize("kind", [0, 1, 2, 3])
def test_outline_kernels_give_the_numpy_bytes(kind):
    rng = np.random.default_rng(kind)
    for _ in range(25):
        pts = _points(rng, kind, int(rng.integers(1, 70)))
        x, z = _poles(rng, float(rng.choice([0.5, 1.0, 2.0, 16.384])))
        with np.errstate(all="ignore"):
            want, got = numpy_polyline_distance(x, z, pts), shapes.polyline_distance(x, z, pts)
            assert numpy_polygon_inside(x, z, pts).tobytes() == shapes.polygon_inside(x, z, pts).tobytes()
        for a, b in zip(want, got, strict=True):
            assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("kind", [0, 1, 2, 3])
def test_distances_up_to_a_limit_and_the_shapes_built_on_them_give_the_numpy_bytes(kind):
    rng = np.random.default_rng(10 + kind)
    for _ in range(25):
        pts = _points(rng, kind, int(rng.integers(1, 40)))
        x, z = _poles(rng, float(rng.choice([0.5, 1.0, 2.0])))
        limit = float(rng.choice([0.5, 3.0, 17.0, 250.0, np.inf, np.nan, -1.0, 0.0]))
        if kind == 1 and rng.random() < 0.5:
            limit = float(rng.integers(1, 6))  # a lattice distance: poles exactly at the limit
        f = float(rng.uniform(0.0, 1.0))
        with np.errstate(all="ignore"):
            d, seg, t = numpy_polyline_distance(x, z, pts)
            dl, segl, tl = shapes.polyline_distance(x, z, pts, limit)
            if 0 < limit < np.inf:
                near = d <= limit
                assert (dl[~near] > limit).all()
            else:
                near = np.ones(d.shape, bool)
            assert d[near].tobytes() == dl[near].tobytes() and seg[near].tobytes() == segl[near].tobytes()
            assert t[near].tobytes() == tl[near].tobytes()
            assert numpy_polygon(x, z, pts, limit).tobytes() == shapes.polygon(x, z, pts, limit).tobytes()
            assert (numpy_polyline(x, z, pts, limit, f).tobytes()
                    == shapes.polyline(x, z, pts, limit, f).tobytes())


def test_multifractal_kernel_gives_the_numpy_bytes():
    rng = np.random.default_rng(11)
    x, z = rng.uniform(-9000, 9000, 20000), rng.uniform(-9000, 9000, 20000)
    x[:6] = [0.0, 1e30, -1e30, np.inf, np.nan, -0.0]
    for _ in range(40):
        mf = Multifractal(seed=int(rng.integers(0, 2**32)), useBias=int(rng.random() < 0.3),
                          bias=float(rng.uniform(0, 1)), useGain=int(rng.random() < 0.3),
                          gain=float(rng.uniform(0, 1)), octaves=int(rng.integers(0, 10)),
                          frequency=float(rng.uniform(1.5, 4.5)), amplitude=float(rng.uniform(0.2, 0.8)),
                          scaleX=float(rng.choice([0.0005, 0.01, 0.09, 1.7])),
                          scaleY=float(rng.uniform(0.0001, 0.1)), offsetX=float(rng.uniform(-50, 50)),
                          offsetY=float(rng.uniform(-50, 50)), combinationRule=int(rng.integers(-1, 7)))
        with np.errstate(all="ignore"):
            want, got = numpy_multifractal(mf, x, z), mf.value(x, z)
            gx, gz = np.sort(x[:90]), z[100:160]
            grid = mf.grid_value(gx, gz)
            on_grid = numpy_multifractal(mf, *(a.ravel() for a in np.meshgrid(gx, gz)))
        assert got.dtype == np.float32 and want.tobytes() == got.tobytes(), mf
        assert grid.shape == (60, 90) and grid.dtype == np.float32
        assert grid.tobytes() == on_grid.tobytes(), mf


def numpy_pole_random(x, z, salt):
    a = np.ascontiguousarray(x, np.float64).view(np.uint64)
    b = np.ascontiguousarray(z, np.float64).view(np.uint64)
    with np.errstate(over="ignore"):
        h = a * np.uint64(0x9E3779B97F4A7C15) ^ (b + np.uint64(0x632BE59BD9B4E019)) * np.uint64(
            0xBF58476D1CE4E5B9) ^ salt
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
    return (h >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))


def test_pole_draws_give_the_numpy_bytes():
    from model.trn.evaluator import _salt, pole_random

    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(-1e4, 1e4, 5000), [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300]])
    z = np.concatenate([rng.uniform(-1e4, 1e4, 5000), [-0.0, 0.0, 1.0, np.nan, -np.inf, -1e-300]])
    for salt in (np.uint64(0), _salt("a/b/flora", 7), _salt("x", 2**32 - 1), np.uint64(2**64 - 1)):
        assert numpy_pole_random(x, z, salt).tobytes() == pole_random(x, z, salt).tobytes()
    assert pole_random(x[:12].reshape(3, 4), z[:12].reshape(3, 4), np.uint64(5)).shape == (3, 4)


def numpy_gradient(h, idx, rows, cols, s):
    row, col = np.divmod(idx, cols)
    left = np.where(col > 0, idx - 1, idx)
    right = np.where(col < cols - 1, idx + 1, idx)
    up = np.where(row > 0, idx - cols, idx)
    down = np.where(row < rows - 1, idx + cols, idx)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        dx = np.nan_to_num((h[right] - h[left]) / ((right - left) * s), copy=False)
        dz = np.nan_to_num((h[down] - h[up]) / ((down - up) // cols * s), copy=False)
    return dx, dz


@pytest.mark.parametrize("rows,cols", [(9, 13), (1, 7), (6, 1), (1, 1)])
def test_gradient_kernel_gives_the_numpy_bytes(rows, cols):
    from model.trn import evaluator

    evaluator.warm_up()
    _gradient = evaluator._gradient
    assert hasattr(_gradient, "signatures")  # the compiled kernel, not its Python source
    rng = np.random.default_rng(rows * 31 + cols)
    h = rng.normal(0, 50, rows * cols)
    h[rng.integers(0, h.size, 3)] = [np.nan, np.inf, -np.inf][: min(3, h.size)]
    if h.size > 4:
        h[1] = 1.7e308  # differences that overflow to ±inf
    idx = np.sort(rng.choice(h.size, max(1, h.size // 2), replace=False)).astype(np.int64)
    for s in (0.5, 2.0, 16.384):
        dx, dz = np.empty(idx.size), np.empty(idx.size)
        with np.errstate(all="ignore"):
            _gradient(h, idx, rows, cols, s, dx, dz)
        want = numpy_gradient(h, idx, rows, cols, s)
        assert dx.tobytes() == want[0].tobytes() and dz.tobytes() == want[1].tobytes()


def test_importing_the_evaluator_does_not_import_numba():
    import subprocess
    import sys

    code = "import sys, model.trn.evaluator, model.trn.bake_batch; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("weights", [(1.0, 2.0, 0.5), (1.0, np.inf, 2.0), (np.nan, 1.0), (0.0, 0.0), (3.0,),
                                     ()])
def test_flora_draws_and_children_give_the_numpy_values(weights):
    from model.trn import build
    from model.trn.evaluator import _salt, pole_random
    from tests.model.trn.helpers import doc_of, flora, grid

    fam = flora(4, density=0.7, children=tuple((f"c{i}", w) for i, w in enumerate(weights)))
    aff = build.item("AFSN", "0004", floraFamily=4, operation=1, removeAll=0, densityOverride=0, density=0.0)
    doc = doc_of([build.layer("ramp", [build.item("BCIR", "0002", cx=0.0, cz=0.0, radius=30.0, featherFn=0,
                                                  feather=0.8), aff])], floras=[fam])
    ev = grid(doc, -32, -32, 32, 32, 1.0)
    xs, zs = ev.region.coords()
    layer = doc.layers[0]
    item = layer.children[-1]
    amount = np.clip(1 - (xs ** 2 + zs ** 2 - 6.0 ** 2) / (30.0 ** 2 - 6.0 ** 2), 0, 1)
    amount[xs ** 2 + zs ** 2 > 900] = 0
    seed = int(doc.header["nonCollidable.seed"])
    hit = (pole_random(xs, zs, _salt(item.path + "/flora", seed)) <= amount * 0.7) & (amount > 0)
    want = np.where(hit, 4, -1)
    got = ev.flora["noncollidable"].ravel()
    assert (got == want).all() and hit.any() and not hit.all()
    pick = pole_random(xs[hit], zs[hit], _salt(item.path + "/child", seed))
    if weights:
        w = np.maximum(np.array(weights, float), 0.0)
        w = np.ones(len(w)) if w.sum() <= 0 else w
        with np.errstate(invalid="ignore"):
            child = np.minimum(np.searchsorted(np.cumsum(w) / w.sum(), pick, side="right"), len(w) - 1)
    else:
        child = np.full(pick.shape, -1)
    assert (ev.flora_child["noncollidable"].ravel()[hit] == child).all()


def test_kernels_run_where_numba_finds_no_cache_folder():
    import subprocess
    import sys

    code = ("import numba.core.caching as c, numpy as np\n"
            "c.CacheImpl._locator_classes = []  # as where no folder numba could cache into is writable\n"
            "from model.trn.multifractal import Multifractal\n"
            "from model.trn import shapes\n"
            "print(float(Multifractal(octaves=2).value(np.array([1.5]), np.array([2.25]))[0]),\n"
            "      float(shapes.polyline_distance(np.array([3.0]), np.array([4.0]), [(0, 0)] * 2)[0][0]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    want = (float(Multifractal(octaves=2).value(np.array([1.5]), np.array([2.25]))[0]), 5.0)
    assert tuple(float(v) for v in out.stdout.split()) == want
