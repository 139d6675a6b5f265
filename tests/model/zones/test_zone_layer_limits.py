"""Layer files off the spec: gzip bombs, layers sized for another zone, zones without a layer."""

from __future__ import annotations

import struct
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest

from model.errors import FormatError
from model.zones import gzip_codec, read_zone, write_zone
from model.zones.gzip_codec import DEFAULT_HEADER, GRACE, STEP
from model.zones.sample import sample_zone
from model.zones.zone import MissingLayer

BOMB_CONTENT = 512 << 20  # a 16384² altitude layer


def gzip_bomb(content: int = BOMB_CONTENT, claim: int | None = None) -> bytes:
    """`content` zero bytes gzipped at level 9 (about 1030:1), built from one repeated 1 MiB block:
    a full flush resets the compressor, so every MiB deflates to the same bytes."""
    c = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    mib = bytes(1 << 20)
    block = c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH)
    assert c.compress(mib) + c.flush(zlib.Z_FULL_FLUSH) == block
    body = block * (content >> 20) + c.flush()
    crc = 0
    for _ in range(content >> 20):
        crc = zlib.crc32(mib, crc)
    size = content if claim is None else claim
    return DEFAULT_HEADER + body + struct.pack("<II", crc, size & 0xFFFFFFFF)


class _CountingInflater:
    """A zlib decompressor that adds the bytes it gives out to `counter.inflated`."""

    def __init__(self, inner, counter: InflateCounter) -> None:
        self._inner, self._counter = inner, counter

    def decompress(self, data, max_length: int = 0) -> bytes:
        piece = self._inner.decompress(data, max_length)
        self._counter.inflated += len(piece)
        return piece

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


class InflateCounter:
    """Stands in for `zlib` in the gzip codec: how many bytes reading a layer inflated. A bomb is
    refused in time when it is refused after a bounded amount of inflating, whatever the machine."""

    def __init__(self) -> None:
        self.inflated = 0

    def decompressobj(self, *args, **kwargs) -> _CountingInflater:
        return _CountingInflater(zlib.decompressobj(*args, **kwargs), self)

    def __getattr__(self, name: str):
        return getattr(zlib, name)


@pytest.fixture
def inflating(monkeypatch) -> InflateCounter:
    counter = InflateCounter()
    monkeypatch.setattr(gzip_codec, "zlib", counter)
    return counter


def measured(call):
    """(exception raised, peak bytes allocated) of `call()`."""
    tracemalloc.start()
    try:
        with pytest.raises(FormatError) as e:
            call()
        return e.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_gzip_bomb_is_refused_at_once(tmp_path: Path, inflating: InflateCounter) -> None:
    blob = gzip_bomb()
    assert len(blob) < 600_000  # the reported file: 521 KB holding 512 MiB
    path = tmp_path / "altitude.0001.bin.gz"
    path.write_bytes(blob)
    error, peak = measured(lambda: read_zone(tmp_path, 1))
    assert error.path == str(path) and "gzip bomb" in error.reason
    assert inflating.inflated == 0 and peak < 8 << 20, peak  # the trailer gave it away


def test_a_bomb_with_a_lying_trailer_stops_at_the_ratio_bound(tmp_path: Path,
                                                              inflating: InflateCounter) -> None:
    # The trailer claims an innocent size; the zone size is given, so nothing else stops it early.
    path = tmp_path / "altitude.0001.bin.gz"
    path.write_bytes(gzip_bomb(claim=1024))
    error, peak = measured(lambda: read_zone(tmp_path, 1, size=16384))
    assert error.path == str(path) and "refused as a gzip bomb" in error.reason
    # one inflating step past the grace size, not the 512 MiB it holds
    assert GRACE < inflating.inflated <= GRACE + STEP, inflating.inflated
    assert peak < GRACE + (16 << 20), peak


def test_a_bomb_in_a_smaller_zone_stops_one_byte_past_the_zone(tmp_path: Path,
                                                               inflating: InflateCounter) -> None:
    write_zone(sample_zone(1, 256), tmp_path)
    (tmp_path / "control.0001.bin").unlink()
    (tmp_path / "control.0001.bin.gz").write_bytes(gzip_bomb(64 << 20))
    tracemalloc.start()
    zone = read_zone(tmp_path, 1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert not zone.has("control") and zone.has("altitude")
    assert "control.0001.bin.gz" in zone.warnings[0] and "more than the expected 131072" in zone.warnings[0]
    assert inflating.inflated == 131072 + 1 and peak < 8 << 20, (inflating.inflated, peak)


def test_big_honest_layers_still_read(tmp_path: Path) -> None:
    # Past the grace size the ratio bound applies; ordinary data is far inside it.
    rng = np.random.default_rng(3)
    side = 4096 + 1024  # 5120² x 2 bytes = 50 MiB > GRACE
    altitude = (rng.integers(0, 4, (side, side), dtype=np.uint16) + 20000).astype("<u2")
    (tmp_path / "altitude.0002.bin.gz").write_bytes(
        DEFAULT_HEADER + zlib.compress(altitude.tobytes(), 1, )[2:-4]
        + struct.pack("<II", zlib.crc32(altitude.tobytes()), altitude.nbytes))
    zone = read_zone(tmp_path, 2)
    assert zone.width == side and np.array_equal(zone.altitude, altitude)


@pytest.mark.parametrize("noisy", [False, True])  # deflates well (stops inflating) / too big to read
def test_a_layer_sized_for_another_zone_is_left_out_with_a_warning(tmp_path: Path, noisy: bool) -> None:
    # Perpetuum zone 45: 1024² tiles, but its altitude blend is sized for 2048² (8 MiB).
    write_zone(sample_zone(45, 1024, seed=2), tmp_path, gz=True)
    blend = tmp_path / "altitude_blend.0045.bin.gz"
    content = (np.random.default_rng(1).integers(0, 1 << 16, 2048 * 2048, dtype=np.uint16) if noisy
               else np.full(2048 * 2048, 300, np.uint16)).astype("<u2").tobytes()
    blend.write_bytes(DEFAULT_HEADER + zlib.compress(content, 1)[2:-4]
                      + struct.pack("<II", zlib.crc32(content), len(content)))
    zone = read_zone(tmp_path, 45)
    assert (zone.width, zone.height) == (1024, 1024)
    assert sorted(zone.layers) == ["altitude", "blocks", "control", "plants"]
    [warning] = zone.warnings
    assert str(blend) in warning and "8388608" in warning and "2097152" in warning
    assert warning.endswith("layer left out")
    # Asking for that layer by name is an error, naming the same file and sizes.
    with pytest.raises(FormatError, match="altitude_blend.0045.bin.gz.*8388608") as e:
        read_zone(tmp_path, 45, layers=("altitude", "altitude_blend"))
    assert e.value.path == str(blend)


def test_every_layer_off_size_is_an_error(tmp_path: Path) -> None:
    write_zone(sample_zone(3, 16), tmp_path)
    with pytest.raises(FormatError, match="holds 512 bytes, expected 2048"):
        read_zone(tmp_path, 3, size=32)


def test_a_missing_layer_names_the_folder_and_the_file(tmp_path: Path) -> None:
    zone = sample_zone(7, 16)
    del zone.layers["altitude"]
    write_zone(zone, tmp_path)
    zone = read_zone(tmp_path, 7)  # the plants layer gives the size
    assert zone.width == 16 and not zone.has("altitude")
    with pytest.raises(FormatError) as e:
        zone.layer("altitude")
    assert isinstance(e.value, MissingLayer) and isinstance(e.value, KeyError)
    assert str(e.value) == (f"{tmp_path}: zone 7 has no altitude layer (altitude.0007.bin[.gz]); "
                            "it has blocks, control, plants")
    with pytest.raises(FormatError, match=r"zone 7 has no altitude layer \(altitude.0007.bin\[.gz\]\)"):
        read_zone(tmp_path, 7, require=("altitude",))


def test_zone_ids_can_ask_for_the_layers_a_use_needs(tmp_path: Path) -> None:
    from model.zones import no_zone_with, zone_ids

    flat = sample_zone(1, 16)
    del flat.layers["altitude"]
    write_zone(flat, tmp_path)
    write_zone(sample_zone(2, 16), tmp_path)
    assert zone_ids(tmp_path) == [1, 2]
    assert zone_ids(tmp_path, ("altitude",)) == [2]
    assert zone_ids(tmp_path, ("altitude", "altitude_blend")) == []
    error = no_zone_with(tmp_path, ("altitude", "altitude_blend"))
    assert error.path == str(tmp_path)
    assert "zone 1 has blocks, control, plants; zone 2 has altitude, blocks, control, plants" in error.reason
