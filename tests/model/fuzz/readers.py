"""What "reading" means for each format: the product's reader, and the checks it promises.

Runs in the fuzz worker; a reader may end in success or `FormatError`, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from model.biomes import flattened_json, load_biome_set
from model.errors import FormatError
from model.foliage.foliage_type import load_foliage_type
from model.foliage.palette import Palette, load_palette_file
from model.foliage.store import load_store
from model.foliage.volume import FoliageVolume
from model.formats.heightmap import open_heightmap, read_heightmap, read_layer_png
from model.formats.scene_file import load_scene
from model.grasslib import library_bytes, read_library
from model.plants.loader import load_folder
from model.trn import document
from model.trn.bitmaps import load_bitmaps
from model.zones import read_zone, zone_ids
from tests.model.fuzz.corpora import ZONE_ID
from tests.model.fuzz.corpora_usd import SENTINEL_TYPE, SENTINEL_USDA


def _scene(folder: Path, main: str) -> None:
    load_scene(folder / main)


def _store(folder: Path, main: str) -> None:
    load_store(folder / main, FoliageVolume(Palette()))  # the cells it was written with
    load_store(folder / main, FoliageVolume(Palette(), 50.0))  # other cells: re-celled by sorting


def _vxfoliage(folder: Path, main: str) -> None:
    load_foliage_type(folder / main)


def _palette(folder: Path, main: str) -> None:
    load_palette_file(folder / main)


def _zone(folder: Path, main: str) -> None:
    zone_ids(folder)
    read_zone(folder, ZONE_ID)


def _plants(folder: Path, main: str) -> None:
    load_folder(folder)


def _trn(folder: Path, main: str) -> None:
    path = folder / main
    doc = document.read(path)
    assert doc.to_bytes() == path.read_bytes(), "a TRN file read must write back byte for byte"
    load_bitmaps(doc)


def _grasslib(folder: Path, main: str) -> None:
    path = folder / main
    for tail in (443, None):
        lib = read_library(path, tail)
        assert library_bytes(lib) == path.read_bytes(), "a library read must write back byte for byte"


def _biomes(folder: Path, main: str) -> None:
    biomes = load_biome_set([folder])
    for asset in biomes.assets.values():
        if asset.resolved:
            flattened_json(asset).encode("utf-8")  # what `biomes export` writes


def _heights(path: Path) -> None:
    refusal = None
    try:
        heights = read_heightmap(path).heights
    except FormatError as e:
        whole, refusal = None, e
    else:
        # a terrain's heights are finite float32 (the scene reader refuses any other)
        assert np.isfinite(heights).all(), "the heightmap reader returned heights that are not finite"
        whole = heights
    # the band-by-band reader the importers use: the same heights, or a refusal as well
    try:
        opened = open_heightmap(path)
        bands = [band for _, band in opened.bands()]
    except FormatError:
        assert whole is None, "the band reader refused a heightmap the whole-file reader reads"
    else:
        assert whole is not None, "the band reader read a heightmap the whole-file reader refuses"
        assert np.concatenate(bands).tobytes() == whole.tobytes(), "the band reader read other heights"
    if refusal is not None:
        raise refusal


def _png16(folder: Path, main: str) -> None:
    _heights(folder / main)
    read_layer_png(folder / main)


def _heightmap(folder: Path, main: str) -> None:
    _heights(folder / main)


# Foliage imports may hold this much beyond 4 bytes per byte of input: numpy's and the JSON
# parser's working set for a small file. A size that lies is refused before it costs more.
IMPORT_MEMORY_CAP = 16 << 20


def _foliage(folder: Path, main: str):
    """An import read and added to a scene, its peak traced allocation bounded by its input's size."""
    import tracemalloc

    from model.interchange import read_foliage
    from model.interchange.merge import add_to_scene
    from model.scene import Scene
    from model.terrain import Terrain

    size = sum(p.stat().st_size for p in folder.iterdir() if p.is_file() and not p.is_symlink())
    tracemalloc.start()
    try:
        imported = read_foliage(folder / main)
        add_to_scene(Scene(Terrain(np.zeros((4, 4), np.float32))), imported, write_meshes=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= 4 * size + IMPORT_MEMORY_CAP, f"an import of {size} bytes allocated {peak} at its peak"
    return imported


def _load_pxr() -> None:
    """pxr's libraries and plugins loaded before the worker caps its address space: loading them
    under the cap fails inside C++ and kills the process."""
    from pxr import Sdf, Usd, UsdGeom, UsdShade  # noqa: F401

    layer = Sdf.Layer.CreateAnonymous(".usda")
    layer.ImportFromString(SENTINEL_USDA)
    stage = Usd.Stage.Open(layer)
    for prim in stage.Traverse():
        prim.IsA(UsdGeom.PointInstancer)
        UsdShade.MaterialBindingAPI(prim).ComputeBoundMaterial()


_load_pxr()


def _usd(folder: Path, main: str) -> None:
    """A USD import (as `boscage import-foliage` reads it). pxr opens layers from C++, past the audit
    hook: the worker's inotify watch on `outside/` sees those opens, and a stage that composed the
    sentinel layer there would import its type."""
    imported = _foliage(folder, main)
    assert SENTINEL_TYPE not in imported.records, "the import composed a layer outside its folder"


READERS: dict[str, Callable[[Path, str], None]] = {
    "scene": _scene,
    "store": _store,
    "vxfoliage": _vxfoliage,
    "palette": _palette,
    "zone_raw": _zone,
    "zone_gz": _zone,
    "plants": _plants,
    "trn": _trn,
    "grasslib": _grasslib,
    "biomes": _biomes,
    "png16": _png16,
    "r16": _heightmap,
    "npy": _heightmap,
    "gltf": _foliage,
    "csv": _foliage,
    "json": _foliage,
    "tif": _heightmap,
    "exr": _heightmap,
    "r32": _heightmap,
    "usda": _usd,
    "usdc": _usd,
    "usdz": _usd,
}


# ---- readers that misbehave on purpose: the harness's own tests prove each limit catches them ----
def _selftest_crash(folder: Path, main: str) -> None:
    {}["missing"]  # noqa: B018 - a KeyError, as a careless reader would raise


def _selftest_outside(folder: Path, main: str) -> None:
    (folder.parent.parent / "outside" / "secret.txt").read_bytes()


def _selftest_swallow(folder: Path, main: str) -> None:
    try:
        (folder / main).resolve().read_bytes()  # main is a link out of the folder
    except BaseException:  # noqa: S110 - a reader hiding the refusal is still caught
        pass


def _selftest_write(folder: Path, main: str) -> None:
    (folder / "written.txt").write_text("readers never write")


def _selftest_loop(folder: Path, main: str) -> None:
    while True:
        pass


def _selftest_memory(folder: Path, main: str) -> None:
    blocks = []
    while True:
        blocks.append(bytearray(64 << 20))


def _selftest_die(folder: Path, main: str) -> None:
    import os
    import signal

    os.kill(os.getpid(), signal.SIGSEGV)  # as a crash in C code would end the process


def _selftest_usd_outside(folder: Path, main: str) -> None:
    from pxr import Usd  # composed as given: no confinement, as a careless USD reader would

    Usd.Stage.Open(str(folder / main))


def _selftest_format_error_without_file(folder: Path, main: str) -> None:
    from model.errors import FormatError

    raise FormatError(None, None, "bad, but where?")


SELF_TESTS = {
    "selftest_crash": _selftest_crash,
    "selftest_outside": _selftest_outside,
    "selftest_swallow": _selftest_swallow,
    "selftest_write": _selftest_write,
    "selftest_loop": _selftest_loop,
    "selftest_memory": _selftest_memory,
    "selftest_unnamed": _selftest_format_error_without_file,
    "selftest_die": _selftest_die,
    "selftest_usd_outside": _selftest_usd_outside,
}
READERS.update(SELF_TESTS)
