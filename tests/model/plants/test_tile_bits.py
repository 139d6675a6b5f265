"""Bit maps of tiles against plain boolean maps."""

from __future__ import annotations

import numpy as np
import pytest

from model.plants import tile_bits as tb


def _plain_dilate(mask: np.ndarray, offsets: list[tuple[int, int]]) -> np.ndarray:
    h, w = mask.shape
    out = np.zeros_like(mask)
    for y, x in zip(*np.nonzero(mask), strict=True):
        for dy, dx in offsets:
            if 0 <= y + dy < h and 0 <= x + dx < w:
                out[y + dy, x + dx] = True
    return out


@pytest.mark.parametrize("shape", [(40, 70), (17, 128), (64, 64), (5, 200)])
def test_pack_unpack_and_lookups_round_trip(shape: tuple[int, int]) -> None:
    mask = np.random.default_rng(1).random(shape) < 0.3
    bits = tb.pack(mask)
    assert bits.shape == (shape[0], -(-shape[1] // 64) + 3)
    assert not tb.words_for(*shape).any()
    assert np.array_equal(tb.unpack(tb.words_for(*shape, fill=True), shape[1]), np.ones(shape, bool))
    assert np.array_equal(tb.unpack(bits, shape[1]), mask)
    ys, xs = np.nonzero(np.ones(shape, bool))
    assert np.array_equal(tb.test(bits, ys, xs), mask[ys, xs])


@pytest.mark.parametrize("d", [-63, -40, -5, -1, 0, 1, 3, 40, 63])
def test_shifts_move_every_tile_and_drop_what_leaves(d: int) -> None:
    mask = np.random.default_rng(2).random((30, 150)) < 0.4
    expected = np.zeros_like(mask)
    if d >= 0:
        expected[:, d:] = mask[:, :150 - d]
    else:
        expected[:, :150 + d] = mask[:, -d:]
    assert np.array_equal(tb.unpack(tb.shift_x(tb.pack(mask), d), 150), expected)
    ey = np.zeros_like(mask)
    dy = max(-30, min(30, d // 4))
    if dy >= 0:
        ey[dy:] = mask[:30 - dy]
    else:
        ey[:30 + dy] = mask[-dy:]
    assert np.array_equal(tb.unpack(tb.shift_y(tb.pack(mask), dy), 150), ey)


@pytest.mark.parametrize("r", [0, 1, 4, 7])
@pytest.mark.parametrize("shape", [(50, 100), (40, 128)])
def test_square_dilation_is_the_plain_one(r: int, shape: tuple[int, int]) -> None:
    mask = np.random.default_rng(3).random(shape) < 0.02
    mask[0, 0] = mask[-1, -1] = mask[-1, 0] = mask[0, -1] = True  # the edges lose nothing
    square = [(dy, dx) for dy in range(-r, r + 1) for dx in range(-r, r + 1)]
    bits = tb.dilate_square(tb.pack(mask), r, shape[1])
    assert np.array_equal(tb.unpack(bits, shape[1]), _plain_dilate(mask, square))
    assert np.array_equal(bits, tb.pack(tb.unpack(bits, shape[1])))  # nothing set beyond the width


@pytest.mark.parametrize("kd", [1, 2, 4, 6, 9])
@pytest.mark.parametrize("shape", [(60, 130), (30, 64)])
def test_disc_dilation_is_the_kill_distance_disc(kd: int, shape: tuple[int, int]) -> None:
    mask = np.random.default_rng(4).random(shape) < 0.01
    mask[0, 0] = mask[-1, -1] = mask[-1, 0] = mask[0, -1] = True
    disc = [(dy, dx) for dy in range(-kd, kd) for dx in range(-kd, kd) if dy * dy + dx * dx < kd * kd]
    bits = tb.dilate_disc(tb.pack(mask), kd, shape[1])
    assert np.array_equal(tb.unpack(bits, shape[1]), _plain_dilate(mask, disc))
    assert np.array_equal(bits, tb.pack(tb.unpack(bits, shape[1])))



def test_shifts_of_a_word_or_more_are_refused() -> None:
    with pytest.raises(ValueError):
        tb.shift_x(tb.pack(np.zeros((2, 10), bool)), 64)


@pytest.mark.parametrize("kd", [1, 2, 4, 6])
def test_punctured_disc_leaves_out_the_tile_itself(kd: int) -> None:
    mask = np.random.default_rng(5).random((40, 128)) < 0.02
    mask[0, 0] = mask[-1, -1] = True
    disc = [(dy, dx) for dy in range(-kd, kd) for dx in range(-kd, kd) if 0 < dy * dy + dx * dx < kd * kd]
    bits = tb.dilate_disc(tb.pack(mask), kd, 128, punctured=True)
    assert np.array_equal(tb.unpack(bits, 128), _plain_dilate(mask, disc))
