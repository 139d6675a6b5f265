"""Zone layer files: naming, size checks, and byte-exact round trips, raw and gzip."""

from __future__ import annotations

import gzip
import io
import os
import zlib
from pathlib import Path

import numpy as np
import pytest

from model.errors import FormatError
from model.zones import (
    LAYER_NAMES,
    LAYERS,
    PLANT_INFO,
    Zone,
    layer_filename,
    parse_layer_filename,
    read_zone,
    write_zone,
    zone_ids,
)
from model.zones.sample import sample_zone


def random_layer_files(folder: Path, zone_id: int, w: int, h: int, seed: int = 1) -> dict[str, bytes]:
    """Arbitrary bytes of the right length for every layer, written as raw files."""
    rng = np.random.default_rng(seed)
    files = {}
    for name, kind in LAYERS.items():
        data = rng.integers(0, 256, w * h * kind.tile_bytes, dtype=np.uint8).tobytes()
        (folder / layer_filename(name, zone_id)).write_bytes(data)
        files[name] = data
    return files


def gzip_bytes(data: bytes, level: int, mtime: int = 1_700_000_000, name: str | None = None) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(filename=name or "", mode="wb", compresslevel=level, fileobj=buf, mtime=mtime) as f:
        f.write(data)
    return buf.getvalue()


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_names_follow_the_layer_and_zone_id() -> None:
    assert layer_filename("altitude", 7) == "altitude.0007.bin"
    assert layer_filename("plants", 12345, gz=True) == "plants.12345.bin.gz"
    assert parse_layer_filename("altitude_blend.0106.bin.gz") == ("altitude_blend", 106, True)
    assert PLANT_INFO.itemsize == 7
    for bad in ("Altitude.0001.bin", "altitude.1.bin", "height.0001.bin", "altitude.0001.raw"):
        with pytest.raises(FormatError, match="not a zone layer file name"):
            parse_layer_filename(bad)
    with pytest.raises(FormatError, match="lower case"):
        parse_layer_filename("PLANTS.0001.bin")


def test_raw_round_trip_is_byte_exact(tmp_path: Path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    original = random_layer_files(src, 3, 40, 40)
    zone = read_zone(src, 3)
    assert (zone.width, zone.height) == (40, 40)
    assert sorted(zone.layers) == sorted(LAYER_NAMES)
    write_zone(zone, dst)
    assert folder_bytes(dst) == {layer_filename(n, 3): b for n, b in original.items()}


def test_layers_decode_little_endian_row_major(tmp_path: Path) -> None:
    original = random_layer_files(tmp_path, 1, 5, 3)
    zone = read_zone(tmp_path, 1, size="5x3")
    alt = original["altitude"]
    y, x = 2, 4
    k = 2 * (y * 5 + x)
    assert zone.altitude[y, x] == alt[k] | alt[k + 1] << 8
    rec = original["plants"][7 * (y * 5 + x):7 * (y * 5 + x) + 7]
    assert tuple(zone.plants[y, x]) == tuple(rec)
    assert zone.blocks["height"][y, x] == original["blocks"][2 * (y * 5 + x) + 1]


@pytest.mark.parametrize("level", [1, 6, 9])
def test_gzip_round_trip_is_byte_exact(tmp_path: Path, level: int) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    src.mkdir()
    raw = random_layer_files(src, 9, 32, 32)
    for name, data in raw.items():
        path = src / layer_filename(name, 9)
        (src / (path.name + ".gz")).write_bytes(gzip_bytes(data, level, name=path.name))
        path.unlink()
    zone = read_zone(src, 9)
    write_zone(zone, dst)
    assert folder_bytes(dst) == folder_bytes(src)


def test_gzip_from_another_encoder_still_round_trips(tmp_path: Path) -> None:
    # Level 4 announces nothing in its header, so only the kept bytes can reproduce it.
    data = sample_zone(2, 64).altitude.tobytes()
    blob = gzip_bytes(data, 4)
    (tmp_path / "altitude.0002.bin.gz").write_bytes(blob)
    zone = read_zone(tmp_path, 2)
    out = tmp_path / "out"
    write_zone(zone, out)
    assert (out / "altitude.0002.bin.gz").read_bytes() == blob


def test_an_edited_gzip_layer_is_re_encoded_with_its_header_and_level(tmp_path: Path) -> None:
    data = sample_zone(2, 64).altitude.tobytes()
    (tmp_path / "altitude.0002.bin.gz").write_bytes(gzip_bytes(data, 9, name="altitude.0002.bin"))
    zone = read_zone(tmp_path, 2)
    zone.altitude[10, 20] = 1234
    out = tmp_path / "out"
    write_zone(zone, out)
    written = (out / "altitude.0002.bin.gz").read_bytes()
    assert written == gzip_bytes(zone.altitude.tobytes(), 9, name="altitude.0002.bin")
    assert read_zone(out, 2).altitude[10, 20] == 1234


def test_write_chooses_the_encoding_and_leaves_one_file_per_layer(tmp_path: Path) -> None:
    zone = sample_zone(5, 48, seed=3)
    write_zone(zone, tmp_path, gz=True)
    assert sorted(os.listdir(tmp_path)) == sorted(layer_filename(n, 5, gz=True) for n in zone.layers)
    gz_zone = read_zone(tmp_path, 5)
    for name in zone.layers:
        np.testing.assert_array_equal(gz_zone.layer(name), zone.layer(name))
    write_zone(gz_zone, tmp_path, gz=False)
    assert sorted(os.listdir(tmp_path)) == sorted(layer_filename(n, 5) for n in zone.layers)
    assert (tmp_path / "plants.0005.bin").read_bytes() == zone.plants.tobytes()
    # A zone written from scratch is the same bytes twice (no timestamps in gzip headers).
    a, b = tmp_path / "a", tmp_path / "b"
    write_zone(sample_zone(5, 48, seed=3), a, gz=True)
    write_zone(sample_zone(5, 48, seed=3), b, gz=True)
    assert folder_bytes(a) == folder_bytes(b)


def test_multi_member_gzip_is_read(tmp_path: Path) -> None:
    data = np.arange(16 * 16, dtype="<u2").tobytes()
    blob = gzip_bytes(data[:100], 6) + gzip_bytes(data[100:], 6)
    (tmp_path / "control.0001.bin.gz").write_bytes(blob)
    zone = read_zone(tmp_path, 1, size=16)
    assert zone.control.tobytes() == data
    write_zone(zone, tmp_path / "out")
    assert (tmp_path / "out" / "control.0001.bin.gz").read_bytes() == blob


def test_size_is_given_or_inferred_for_square_zones(tmp_path: Path) -> None:
    random_layer_files(tmp_path, 1, 24, 10)
    zone = read_zone(tmp_path, 1, size="24x10")
    assert (zone.width, zone.height) == (24, 10)
    assert read_zone(tmp_path, 1, size=(24, 10)).plants.shape == (10, 24)
    with pytest.raises(FormatError, match="not a square zone"):
        read_zone(tmp_path, 1)


def test_layers_subfolder_and_partial_layers(tmp_path: Path) -> None:
    sub = tmp_path / "layers"
    write_zone(sample_zone(4, 32), sub)
    assert zone_ids(tmp_path) == [4]
    zone = read_zone(tmp_path, 4, layers=("altitude", "control"))
    assert sorted(zone.layers) == ["altitude", "control"]
    with pytest.raises(FormatError, match=r"no altitude_blend layer \(altitude_blend.0004.bin"):
        read_zone(tmp_path, 4, layers=("altitude_blend",))


# ---- bad inputs -------------------------------------------------------------------------------

def test_short_file_reports_expected_and_actual(tmp_path: Path) -> None:
    write_zone(sample_zone(1, 16), tmp_path)
    path = tmp_path / "plants.0001.bin"
    path.write_bytes(path.read_bytes()[:-3])
    zone = read_zone(tmp_path, 1)  # left out with a warning: the other layers still open
    assert "plants" not in zone.layers and zone.has("altitude")
    assert zone.warnings == [f"{path}: holds 1789 bytes, expected 1792 (16x16 tiles x 7 bytes); "
                             "layer left out"]
    with pytest.raises(FormatError) as e:
        read_zone(tmp_path, 1, require=("plants",))
    assert e.value.path == str(path)
    assert "holds 1789 bytes, expected 1792" in str(e.value)


def test_odd_sizes_are_refused(tmp_path: Path) -> None:
    (tmp_path / "altitude.0001.bin").write_bytes(b"\x00" * 513)
    with pytest.raises(FormatError, match="not a whole number of 2-byte"):
        read_zone(tmp_path, 1)
    (tmp_path / "altitude.0001.bin").write_bytes(b"\x00" * 2 * 300)
    with pytest.raises(FormatError, match=r"300 tiles, which is not a square zone"):
        read_zone(tmp_path, 1)
    (tmp_path / "altitude.0001.bin").write_bytes(b"")
    with pytest.raises(FormatError, match="holds 0 bytes"):
        read_zone(tmp_path, 1)


def test_wrong_names_and_unknown_ids_say_what_is_there(tmp_path: Path) -> None:
    write_zone(sample_zone(106, 16), tmp_path)
    (tmp_path / "Altitude.0007.bin").write_bytes(b"\x00" * 512)
    with pytest.raises(FormatError) as e:
        read_zone(tmp_path, 7)
    text = str(e.value)
    assert "unknown zone id 7" in text and "zones here: 106" in text and "Altitude.0007.bin" in text
    with pytest.raises(FormatError, match="zone folder not found"):
        read_zone(tmp_path / "nowhere", 1)
    with pytest.raises(FormatError, match="non-negative"):
        read_zone(tmp_path, -1)


def test_a_layer_stored_twice_is_refused(tmp_path: Path) -> None:
    write_zone(sample_zone(1, 16), tmp_path)
    data = (tmp_path / "control.0001.bin").read_bytes()
    (tmp_path / "control.0001.bin.gz").write_bytes(gzip.compress(data))
    with pytest.raises(FormatError, match="both control.0001.bin and control.0001.bin.gz"):
        read_zone(tmp_path, 1)


def test_damaged_gzip_files_are_refused(tmp_path: Path) -> None:
    data = np.zeros(32 * 32, "<u2").tobytes()
    path = tmp_path / "altitude.0001.bin.gz"
    blob = gzip_bytes(data, 6)
    path.write_bytes(blob[:len(blob) // 2] + blob[-8:])
    with pytest.raises(FormatError, match="damaged gzip data|ends early"):
        read_zone(tmp_path, 1, size=32)
    path.write_bytes(b"PK\x03\x04" + blob[4:])
    with pytest.raises(FormatError, match="not a gzip file"):
        read_zone(tmp_path, 1, size=32)
    # The trailer claims the right size but the stream holds more: refused without inflating it all.
    big = bytearray(gzip_bytes(data * 64, 6))
    big[-4:] = (len(data)).to_bytes(4, "little")
    path.write_bytes(bytes(big))
    with pytest.raises(FormatError, match="more than the expected 2048 bytes"):
        read_zone(tmp_path, 1, size=32)
    path.write_bytes(gzip_bytes(data[:-2], 6))
    with pytest.raises(FormatError, match="decompresses to 2046 bytes, expected 2048"):
        read_zone(tmp_path, 1, size=32)


def test_links_out_of_the_folder_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.bin"
    outside.write_bytes(b"\x00" * 512)
    zone_dir = tmp_path / "zone"
    zone_dir.mkdir()
    (zone_dir / "altitude.0001.bin").symlink_to(outside)
    with pytest.raises(FormatError, match="outside the zone folder"):
        read_zone(zone_dir, 1)


def test_zone_checks_layer_shapes() -> None:
    zone = Zone.blank(1, 8, 4)
    assert zone.plants.shape == (4, 8) and zone.plants.dtype == PLANT_INFO
    with pytest.raises(ValueError, match="must be"):
        zone.set_layer("altitude", np.zeros((8, 4), "<u2"))
    with pytest.raises(KeyError, match="no altitude_blend layer"):
        zone.layer("altitude_blend")


def test_sample_zone_is_deterministic() -> None:
    a, b = sample_zone(3, 64, seed=5), sample_zone(3, 64, seed=5)
    for name in a.layers:
        assert a.layer(name).tobytes() == b.layer(name).tobytes()
    assert zlib.crc32(sample_zone(3, 64, seed=6).plants.tobytes()) != zlib.crc32(a.plants.tobytes())


def test_a_gzip_file_too_large_for_its_content_is_refused_before_reading(tmp_path: Path) -> None:
    # 16x16 altitude = 512 bytes of content; 2 MiB of gzip cannot be that (deflate barely grows data).
    blob = gzip_bytes(bytes(512), 6) + bytes(2 << 20)
    (tmp_path / "altitude.0003.bin.gz").write_bytes(blob)
    with pytest.raises(FormatError, match=r"compressed bytes \(its trailer says 0\) cannot hold 512 bytes"):
        read_zone(tmp_path, 3, size=16)
