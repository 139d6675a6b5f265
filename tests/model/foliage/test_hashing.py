import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from model.foliage import hashing
from model.foliage.reference import candidate_hash
from model.foliage.reference import draw as draw_scalar


@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=50))
def test_vectorised_pcg_equals_integer_reference(values):
    got = hashing.pcg(np.array(values, np.uint32))
    assert got.tolist() == [hashing.pcg_scalar(v) for v in values]


def test_pcg_pinned_values():
    # Known outputs of the PCG-RXS-M-XS hash; a GLSL port must print the same.
    assert [hashing.pcg_scalar(v) for v in (0, 1, 2)] == [129708002, 2831084092, 2055130248]


@given(st.integers(-2**40, 2**40), st.text(min_size=1, max_size=8), st.integers(0, 10**6))
def test_candidate_hashes_match_scalar_chain(seed, name, stamp):
    idx = np.arange(20)
    vec = hashing.candidate_hashes(seed, name, stamp, idx)
    assert vec.tolist() == [candidate_hash(seed, name, stamp, int(i)) for i in idx]
    for ch in hashing.Channel:
        d = hashing.draw(vec, ch)
        assert d.tolist() == [draw_scalar(int(h), ch) for h in vec]
        assert ((d >= 0) & (d < 1)).all()
        assert np.array_equal(d.astype(np.float32).astype(np.float64), d)  # exact in float32


def test_draws_depend_on_seed_stamp_index_and_type():
    a = hashing.candidate_hashes(1, "tree", 0, np.arange(100))
    assert len(set(a.tolist())) == 100
    for other in (hashing.candidate_hashes(2, "tree", 0, np.arange(100)),
                  hashing.candidate_hashes(1, "tree", 1, np.arange(100)),
                  hashing.candidate_hashes(1, "bush", 0, np.arange(100))):
        assert (a != other).mean() > 0.95


def test_draws_are_roughly_uniform():
    d = hashing.draw(hashing.candidate_hashes(9, "t", 0, np.arange(100_000)), hashing.Channel.X)
    hist = np.histogram(d, bins=10, range=(0, 1))[0]
    assert hist.min() > 9_500 and hist.max() < 10_500


def test_position_hashes_are_deterministic_and_position_sensitive():
    x = np.array([1.0, 1.0, 2.0], np.float32)
    z = np.array([5.0, 5.0, 5.0], np.float32)
    h = hashing.position_hashes(x, z, 3)
    assert h[0] == h[1] and h[0] != h[2]
    assert (hashing.position_hashes(x, z, 4) != h).all()
