"""The derived slope against a plain per-tile loop of the spec's formula, edges included."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from model.zones import derive_slope, slope_at


def reference_slope(altitude: np.ndarray) -> np.ndarray:
    rows, cols = altitude.shape
    out = np.zeros((rows, cols), np.uint8)

    def units(x: int, y: int) -> int:
        return int(altitude[min(y, rows - 1), min(x, cols - 1)]) >> 5

    for y in range(rows):
        for x in range(cols):
            a, b, c, d = units(x, y), units(x + 1, y), units(x + 1, y + 1), units(x, y + 1)
            e = (a + b) >> 1
            f = (b + c) >> 1
            g = (c + d) >> 1
            h = (d + e) >> 1
            i = (a + b + c + d) >> 2
            total = 0
            for k in (a, b, c, d, e, f, g, h):
                total += abs(i - k)
            out[y, x] = min(2 * total, 255)
    return out


def test_random_altitudes_match_the_reference() -> None:
    rng = np.random.default_rng(7)
    # Full-range noise saturates; gentle relief exercises the unclamped values.
    steep = rng.integers(0, 65536, (37, 53), dtype=np.uint16)
    gentle = (rng.integers(0, 40, (41, 29)).cumsum(axis=0) * 8 + 20000).astype(np.uint16)
    for alt in (steep, gentle):
        expected = reference_slope(alt)
        np.testing.assert_array_equal(derive_slope(alt), expected)
        assert 0 < np.count_nonzero(expected < 255)
    assert len(np.unique(derive_slope(gentle))) > 20


def test_edges_clamp_to_the_last_row_and_column() -> None:
    alt = np.zeros((4, 4), np.uint16)
    alt[:, 3] = 100 << 5  # a cliff in the last column
    slope = derive_slope(alt)
    # Column 2 sees the cliff to its right; column 3 sees only itself (clamped), so it is flat.
    assert (slope[:, 2] > 0).all()
    assert (slope[:, 3] == 0).all()
    np.testing.assert_array_equal(slope, reference_slope(alt))


def test_the_fractional_bits_of_raw_altitude_do_not_count() -> None:
    alt = np.full((3, 3), 31, np.uint16)  # all < 32: zero units
    alt[1, 1] = 0
    assert not derive_slope(alt).any()


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32 - 1), st.integers(0, 15))
def test_any_shape_matches_the_reference(rows: int, cols: int, seed: int, shift: int) -> None:
    alt = (np.random.default_rng(seed).integers(0, 65536, (rows, cols)) >> shift).astype(np.uint16)
    expected = reference_slope(alt)
    np.testing.assert_array_equal(derive_slope(alt), expected)
    for y in range(rows):
        for x in range(cols):
            assert slope_at(alt, x, y) == expected[y, x]
