"""A `.usdz` package is read only after its zip structure is checked and every layer in it was read
in the capped child: a damaged crate inside, a compressed or escaping entry, a lying size are each
one FormatError naming the package."""

from __future__ import annotations

import struct
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("pxr")

from model.errors import FormatError  # noqa: E402
from model.interchange import ExportOptions, export_scene, read_foliage  # noqa: E402
from model.interchange.usdz_package import package_entries  # noqa: E402

BOMB = (Path(__file__).resolve().parents[1] / "fuzz" / "regressions" / "usdc"
        / "crate_count_allocates_gigabytes" / "files" / "s.usdc")


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    from tests.model.fuzz.corpora import _interchange_scene

    path = tmp_path_factory.mktemp("pkg") / "scene.usdz"
    export_scene(_interchange_scene(), path, ExportOptions(terrain_step=4))
    return path


def _zip(path: Path, entries: list[tuple[str, bytes]], method: int = zipfile.ZIP_STORED) -> Path:
    with zipfile.ZipFile(path, "w", method) as z:
        for name, data in entries:
            z.writestr(name, data)
    return path


def _inner(package: Path) -> bytes:
    with zipfile.ZipFile(package) as z:
        return z.read("scene.usdc")


def _error(path: Path) -> str:
    with pytest.raises(FormatError) as caught:
        read_foliage(path)
    assert str(path) in str(caught.value)
    return caught.value.reason


def test_our_package_reads(package: Path) -> None:
    imported = read_foliage(package)
    assert {name: len(r) for name, r in imported.records.items()} == {"conifer": 12, "rock": 7}
    assert [e.name for e in package_entries(package)][0] == "scene.usdc"


@pytest.fixture(params=["fork", "fresh"])
def way(request, monkeypatch):
    """The child forked (the command line) or a fresh interpreter given the entries (the editor)."""
    from model.interchange import usd_preflight

    monkeypatch.setattr(usd_preflight, "_fresh_interpreter", request.param == "fresh")
    return request.param


def test_a_damaged_crate_inside_is_refused_by_the_capped_child(way, tmp_path: Path) -> None:
    reason = _error(_zip(tmp_path / "bomb.usdz", [("scene.usdc", BOMB.read_bytes())]))
    assert "MiB" in reason and "damaged" in reason


def test_a_damaged_crate_after_the_first_layer_is_read_too(way, package: Path, tmp_path: Path) -> None:
    path = _zip(tmp_path / "two.usdz", [("scene.usdc", _inner(package)), ("more.usdc", BOMB.read_bytes())])
    assert "MiB" in _error(path)


def test_our_package_reads_either_way(way, package: Path) -> None:
    assert {name: len(r) for name, r in read_foliage(package).records.items()} == {"conifer": 12, "rock": 7}


def test_a_crate_pxr_refuses_names_its_entry(way, package: Path, tmp_path: Path) -> None:
    broken = b"PXR-USDC" + b"\0" * 40
    path = _zip(tmp_path / "bad.usdz", [("scene.usdc", _inner(package)), ("more.usdc", broken)])
    assert "more.usdc" in _error(path)


@pytest.mark.parametrize(("name", "words"), [
    ("../up.usdc", "leaves the package"),
    ("/abs.usdc", "not a relative path"),
    ("a\\b.usdc", "not a relative path"),
    ("inner.usdz", "package inside the package"),
    ("x[1].usdc", "cannot name"),
])
def test_entry_names_that_leave_or_confuse_are_refused(package: Path, tmp_path: Path, name: str,
                                                       words: str) -> None:
    path = _zip(tmp_path / "n.usdz", [("scene.usdc", _inner(package)), (name, b"x")])
    assert words in _error(path)


def test_a_compressed_entry_is_refused(package: Path, tmp_path: Path) -> None:
    path = _zip(tmp_path / "c.usdz", [("scene.usdc", _inner(package))], zipfile.ZIP_DEFLATED)
    assert "compressed" in _error(path)


def test_the_first_file_must_be_a_layer(package: Path, tmp_path: Path) -> None:
    path = _zip(tmp_path / "f.usdz", [("t.png", b"png"), ("scene.usdc", _inner(package))])
    assert "first file" in _error(path)


def test_a_twice_named_entry_is_refused(package: Path, tmp_path: Path) -> None:
    with pytest.warns(UserWarning):  # zipfile warns of the duplicate as it writes it
        path = _zip(tmp_path / "d.usdz", [("scene.usdc", _inner(package)), ("scene.usdc", b"x")])
    assert "named twice" in _error(path)


def _patch(path: Path, offset: int, fmt: str, value: int) -> None:
    data = bytearray(path.read_bytes())
    struct.pack_into(fmt, data, offset, value)
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(("field", "value", "words"), [
    (18, 0xFFFF_FFF0, "beyond"),  # the stored size only, past the end
    (22, 7, "sizes disagree"),  # uncompressed size only
    (26, 0xFFFF, "beyond"),  # a name longer than the file
])
def test_lying_local_sizes_are_refused_before_reading(package: Path, tmp_path: Path, field: int, value: int,
                                                      words: str) -> None:
    path = tmp_path / "lie.usdz"
    path.write_bytes(package.read_bytes())
    _patch(path, field, "<I" if field < 26 else "<H", value)
    assert words in _error(path)


def test_both_sizes_lying_alike_are_refused(package: Path, tmp_path: Path) -> None:
    path = tmp_path / "huge.usdz"
    path.write_bytes(package.read_bytes())
    _patch(path, 18, "<I", 0xFFFF_FFF0)
    _patch(path, 22, "<I", 0xFFFF_FFF0)
    assert "beyond the package" in _error(path)


def test_a_directory_that_disagrees_with_the_entries_is_refused(package: Path, tmp_path: Path) -> None:
    data = bytearray(package.read_bytes())
    at = data.rfind(b"PK\x01\x02")  # the last entry's directory record: its local header's offset
    struct.pack_into("<I", data, at + 42, struct.unpack_from("<I", data, at + 42)[0] + 64)
    path = tmp_path / "dir.usdz"
    path.write_bytes(bytes(data))
    assert "directory" in _error(path)


def test_a_package_named_by_a_layer_is_checked_whole(tmp_path: Path) -> None:
    _zip(tmp_path / "p.usdz", [("scene.usdc", BOMB.read_bytes())])
    main = tmp_path / "main.usda"
    main.write_text('#usda 1.0\n(\n    subLayers = [@p.usdz[scene.usdc]@]\n)\n')
    with pytest.raises(FormatError, match="MiB"):
        read_foliage(main)


def test_a_layer_deeper_in_the_package_cannot_name_a_file_outside_the_folder(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.usda").write_text(
        '#usda 1.0\ndef PointInstancer "Secret"\n{\n    point3f[] positions = [(1, 2, 3)]\n'
        '    int[] protoIndices = [0]\n    rel prototypes = </Secret/P>\n    def Xform "P" {}\n}\n')
    inside = tmp_path / "in"
    inside.mkdir()
    root = b"#usda 1.0\n(\n    subLayers = [@more.usda@]\n)\n"
    more = f"#usda 1.0\n(\n    subLayers = [@{outside / 'secret.usda'}@]\n)\n".encode()
    path = _zip(inside / "p.usdz", [("root.usda", root), ("more.usda", more)])
    with pytest.raises(FormatError) as caught:
        read_foliage(path)
    assert "leaves the input's folder" in caught.value.reason and "more.usda" in str(caught.value)


def test_a_texture_damaged_inside_the_package_is_a_warning(tmp_path: Path) -> None:
    from tests.model.interchange.test_materials_export import textured_scene

    package = tmp_path / "out" / "cards.usdz"  # a file mesh: its material and texture come back
    package.parent.mkdir()
    export_scene(textured_scene(tmp_path), package, ExportOptions(terrain=False))
    assert not read_foliage(package).warnings
    # the card's texture: pxr never checks its CRC-32, zipfile does
    entry = next(e for e in package_entries(package) if e.name.endswith("card_material_0_basecolor.png"))
    data = bytearray(package.read_bytes())
    data[entry.data + entry.size // 2] ^= 0x55
    path = tmp_path / "tex.usdz"
    path.write_bytes(bytes(data))
    imported = read_foliage(path)
    assert sum(map(len, imported.records.values())) == sum(map(len, read_foliage(package).records.values()))
    assert any(entry.name in w and "damaged in the package" in w for w in imported.warnings)
