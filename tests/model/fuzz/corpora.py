"""Seed inputs for every reader, made by the project's own writers (nothing committed but crash files).

Each builder writes real files with the product's writer into a temporary folder and returns
them as bytes, with what the mutator may know: size fields, structure edges, the side files text
may name, a checksum repair, and mutations of the format's own (gzip bombs, wrong-size layers,
long `source=` and `Parent` chains).
"""

from __future__ import annotations

import functools
import json
import random
import re
import struct
import tempfile
import zlib
from pathlib import Path

import numpy as np

from tests.model.fuzz.corpora_float import FLOAT_SEEDS, heights_edge
from tests.model.fuzz.corpora_usd import USD_SEEDS, usd_deep
from tests.model.fuzz.engine import (
    Entry,
    Seed,
    SizeField,
    deep_nesting,
    gzip_bytes,
    text_mutation,
    zeros_gzip,
)

ZONE_ID = 7
FORMATS = (
    "scene",
    "store",
    "vxfoliage",
    "palette",
    "zone_raw",
    "zone_gz",
    "plants",
    "trn",
    "grasslib",
    "biomes",
    "png16",
    "r16",
    "npy",
    "gltf",
    "csv",
    "json",
    "tif",
    "exr",
    "r32",
    "usda",
    "usdc",
    "usdz",
)
RESOURCES = Path(__file__).resolve().parents[3] / "resources"


def _files(folder: Path) -> dict[str, Entry]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# ---- foliage store ------------------------------------------------------------------------------
def store_layout(data: bytes, name: str) -> tuple[list[SizeField], list[int]]:
    """Size fields and edges of a valid foliage instance file."""
    fields = [SizeField(name, 20, 4)]
    edges = [0, 8, 12, 20, 24, len(data) - 4, len(data)]
    (ntypes,) = struct.unpack_from("<I", data, 20)
    pos = 24
    for _ in range(ntypes):
        fields.append(SizeField(name, pos, 2))
        (nlen,) = struct.unpack_from("<H", data, pos)
        pos += 2 + nlen
        fields.append(SizeField(name, pos, 8))
        (count,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        edges += [pos, pos + 28, pos + count * 28 - 28, pos + count * 28]
        pos += count * 28
    return fields, edges


def store_crc(data: bytes) -> bytes:
    return data[:-4] + struct.pack("<I", zlib.crc32(data[:-4])) if len(data) >= 4 else data


def _fix_store(name: str):
    def fix(files: dict[str, Entry]) -> dict[str, Entry]:
        if isinstance(files.get(name), bytes):
            files[name] = store_crc(files[name])
        return files

    return fix


def _demo_scene(with_foliage: bool, layers: bool = True, spawner: bool = False):
    from model.demo import build_demo_scene

    scene = build_demo_scene(size=33, spacing=8.0, foliage=with_foliage)
    if not layers:
        scene.terrain.layers.clear()
    if spawner:  # a [[spawners]] recipe in the manifest and the ownership side file beside it
        from model.foliage.spawner import spawners_from_toml
        from model.foliage.spawner_section import run_and_apply, spawners_of

        spawners_of(scene).spawners = spawners_from_toml([{
            "name": "forest", "seed": 3, "area": {"layer": "grass", "min_weight": 0.2},
            "species": [{"type": "conifer", "density": 2.0, "exclusion": 2.0,
                         "conditions": [{"slope": [0, 35]},
                                        {"not": {"noise": {"scale": 40.0, "threshold": 0.7}}}]},
                        {"type": "bush", "density": 3.0, "order": 1,
                         "conditions": [{"near": {"type": "conifer", "within": 9.0}}]}]}])
        run_and_apply(scene, spawners_of(scene).spawners[0])
    return scene


def _store_values(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """Records set to finite but far-out values (or NaN), the checksum repaired."""
    name = next((n for n in files if ".foliage." in n and isinstance(files[n], bytes)), None)
    if name is None or len(files[name]) < 24 + 28 + 4:
        return ""
    data = bytearray(files[name])
    value = rng.choice(
        (
            3.4e38,
            -3.4e38,
            1e20,
            -1e20,
            9.3e18,
            -9.3e18,
            1e-45,
            -0.0,
            65504.0,
            float("nan"),
            float("inf"),
            2.0**63,
            -(2.0**63),
        )
    )
    first = rng.randrange(24, len(data) - 8)
    for _ in range(rng.choice((1, 4, 50))):
        at = min(len(data) - 8, first + 4 * rng.randrange(64))
        struct.pack_into("<f", data, at, value)
    files[name] = store_crc(bytes(data))
    if seed.fixup is not None:
        files = seed.fixup(files)
    return f"{name}: records set to {value!r}, checksum repaired"


@functools.lru_cache(maxsize=1)
def store_seeds() -> list[Seed]:
    from model.foliage import foliage_of, save_store
    from model.foliage.palette import Palette
    from model.foliage.volume import FoliageVolume

    seeds = []
    with tempfile.TemporaryDirectory() as tmp:
        scene = _demo_scene(True)
        save_store(foliage_of(scene).volume, Path(tmp) / "demo.foliage.bin")
        empty = FoliageVolume(Palette())
        save_store(empty, Path(tmp) / "empty.foliage.bin")
        # large enough (> 2 MiB of one type) for the reader's threaded scan
        big = FoliageVolume(Palette())
        rng = np.random.default_rng(5)
        records = rng.uniform(-1, 1, (80_000, 7)).astype(np.float32)
        records[:, [0, 2]] *= 3000.0
        big.add("spruce", records)
        big.add("fern", records[:500] * 0.5)
        save_store(big, Path(tmp) / "big.foliage.bin")
        for name in ("demo.foliage.bin", "empty.foliage.bin", "big.foliage.bin"):
            data = (Path(tmp) / name).read_bytes()
            fields, edges = store_layout(data, "f.foliage.bin")
            seeds.append(
                Seed(
                    name.split(".")[0],
                    {"f.foliage.bin": data},
                    "f.foliage.bin",
                    size_fields=fields,
                    boundaries={"f.foliage.bin": edges},
                    fixup=_fix_store("f.foliage.bin"),
                    special=[_store_values],
                )
            )
    return seeds


# ---- scene --------------------------------------------------------------------------------------
_SIDE_KEY = re.compile(rb'(heights|layers|instances) = "([^"]*)"')


def _fix_scene(files: dict[str, Entry]) -> dict[str, Entry]:
    """Give the manifest the checksums of the side files it names (and the store its own CRC)."""
    manifest = next((n for n in files if n.endswith(".boscage")), None)
    if manifest is None or not isinstance(files[manifest], bytes):
        return files
    text = files[manifest]
    for m in _SIDE_KEY.finditer(text):
        key, side = m.group(1).decode(), m.group(2).decode("utf-8", "replace")
        data = files.get(side)
        if not isinstance(data, bytes):
            continue
        if key == "instances":
            data = files[side] = store_crc(data)
            crc = struct.unpack("<I", data[-4:])[0] if len(data) >= 4 else 0
        else:
            crc = zlib.crc32(data)
        text = re.sub(
            rb"(" + key.encode() + rb'_crc32 = ")[^"]*(")',
            rb"\g<1>" + f"{crc:08x}".encode() + rb"\2",
            text,
            count=1,
        )
    files[manifest] = text
    return files


def _scene_special_side_size(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """A side file of another grid size, its checksum fitting (the manifest's sizes lie)."""
    names = [n for n in files if n.endswith(".bin") and isinstance(files[n], bytes)]
    if not names:
        return ""
    name = rng.choice(names)
    data = files[name]
    files[name] = rng.choice((data[: len(data) // 2], data + data, data[:-1], data + b"\0"))
    _fix_scene(files)
    return f"{name}: resized to {len(files[name])} bytes, checksum fitting"


@functools.lru_cache(maxsize=1)
def scene_seeds() -> list[Seed]:
    from model.formats.scene_file import save_scene

    seeds = []
    for label, foliage, layers, spawner in (("demo", True, True, False), ("bare", False, True, False),
                                            ("nolayers", False, False, False), ("spawned", True, True, True)):
        with tempfile.TemporaryDirectory() as tmp:
            save_scene(_demo_scene(foliage, layers, spawner), Path(tmp) / "s.boscage")
            files = _files(Path(tmp))
        kinds = {n: ("toml" if n.endswith(".boscage") else "binary") for n in files}
        sides = [n for n in files if n.endswith(".bin")]
        fields, edges = [], {}
        for n in sides:
            if ".foliage." in n:
                f, e = store_layout(files[n], n)
                fields += f
                edges[n] = e
        seeds.append(
            Seed(
                label,
                files,
                "s.boscage",
                kind=kinds,
                size_fields=fields,
                boundaries=edges,
                references=sides,
                fixup=_fix_scene,
                special=[_scene_special_side_size],
            )
        )
    return seeds


# ---- foliage types and palettes -----------------------------------------------------------------
def _full_type():
    from model.foliage.foliage_type import Extent, FoliageType, LayerFilter

    return FoliageType(
        name="every key",
        mesh="meshes/tree.glb",
        storage="stored",
        density=2.5,
        spacing=3.0,
        scale=(0.5, 2.0),
        yaw=(-90.0, 90.0),
        tilt=(-5.0, 5.0),
        align=0.5,
        sink=(0.1, 0.3),
        slope=(0.0, 35.0),
        altitude=(-10.0, 400.0),
        layer=LayerFilter("grass", 0.25),
        extent=Extent(2.0, 9.0),
        activation_radius=12.0,
        cull=(80.0, 120.0),
    )


@functools.lru_cache(maxsize=1)
def vxfoliage_seeds() -> list[Seed]:
    from model.foliage.foliage_type import dumps_foliage_type
    from model.foliage.palette import builtin_palette

    types = [*builtin_palette(), _full_type()]
    return [
        Seed(
            t.name,
            {"t.vxfoliage": dumps_foliage_type(t).encode()},
            "t.vxfoliage",
            kind={"t.vxfoliage": "toml"},
        )
        for t in types
    ]


@functools.lru_cache(maxsize=1)
def palette_seeds() -> list[Seed]:
    from model.foliage.palette import Palette, builtin_palette, dumps_palette

    full = Palette([*builtin_palette(), _full_type()])
    return [
        Seed(
            label,
            {"p.palette.toml": dumps_palette(p).encode()},
            "p.palette.toml",
            kind={"p.palette.toml": "toml"},
        )
        for label, p in (("builtin", full), ("empty", Palette()))
    ]


# ---- zones --------------------------------------------------------------------------------------
def _zone(size: int):
    from model.zones import Zone
    from model.zones.layers import LAYERS

    rng = np.random.default_rng(size)
    zone = Zone(ZONE_ID, size, size)
    for name, kind in LAYERS.items():
        raw = rng.integers(0, 256, size * size * kind.tile_bytes, dtype=np.uint8)
        zone.layers[name] = np.frombuffer(raw.tobytes(), kind.dtype).reshape(size, size).copy()
    return zone


def _zone_other_size(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """One layer sized for another zone (Perpetuum's zone 45 ships one), stored as the seed stores it."""
    names = [n for n in files if isinstance(files[n], bytes)]
    name = rng.choice(names)
    side = rng.choice((2, 16, 31, 33, 64, 128))
    tile = 7 if name.startswith("plants") else 2
    content = bytes(rng.randrange(256) for _ in range(64)) * (side * side * tile // 64 + 1)
    content = content[: side * side * tile]
    files[name] = gzip_bytes(content) if name.endswith(".gz") else content
    return f"{name}: sized for {side}x{side}"


def _zone_bomb(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """A layer that inflates far past what the zone needs, with a truthful or a lying trailer."""
    name = rng.choice([n for n in files if isinstance(files[n], bytes)])
    size = rng.choice((4 << 20, 64 << 20))
    blob = zeros_gzip(size)
    if rng.random() < 0.5:  # the trailer says what the zone needs
        need = 32 * 32 * (7 if name.startswith("plants") else 2)
        blob = blob[:-4] + struct.pack("<I", need)
    files[name] = blob
    return f"{name}: gzip bomb of {size} bytes"


def _zone_multi_member(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    name = rng.choice([n for n in files if isinstance(files[n], bytes)])
    data = files[name]
    try:
        content = zlib.decompress(data, 31) if data[:2] == b"\x1f\x8b" else data
    except zlib.error:
        content = data
    cut = rng.randrange(len(content) + 1)
    files[name] = gzip_bytes(content[:cut]) + gzip_bytes(content[cut:]) + rng.choice((b"", b"\0" * 8, b"x"))
    return f"{name}: two gzip members split at {cut}"


def _zone_gz_content(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """The layer's content cut or grown, then compressed again (a valid gzip of the wrong size)."""
    name = rng.choice([n for n in files if isinstance(files[n], bytes)])
    try:
        content = zlib.decompress(files[name], 31)
    except zlib.error:
        return ""
    n = rng.choice(
        (0, 1, len(content) - 1, len(content) + 1, len(content) * 4, rng.randrange(len(content) + 1))
    )
    content = (content * (n // max(1, len(content)) + 1))[:n]
    files[name] = gzip_bytes(content, isize=rng.choice((None, None, len(content) * 2, 0)))
    return f"{name}: recompressed {n} bytes"


def _zone_seeds(gz: bool) -> list[Seed]:
    from model.zones import write_zone

    seeds = []
    for size in (32,):
        with tempfile.TemporaryDirectory() as tmp:
            write_zone(_zone(size), tmp, gz=gz)
            files = _files(Path(tmp))
        main = next(n for n in files if n.startswith("altitude."))
        fields, special = [], [_zone_other_size]
        if gz:
            fields = [SizeField(n, len(d) - 4, 4) for n, d in files.items()]
            special += [_zone_bomb, _zone_multi_member, _zone_gz_content]
        seeds.append(
            Seed(
                f"zone{size}",
                files,
                main,
                folder_reader=True,
                kind={n: "gzip" if gz else "binary" for n in files},
                size_fields=fields,
                special=special,
                boundaries={n: [0, 2, 3, 4, 8, 10, len(d) - 8, len(d) - 4] for n, d in files.items()}
                if gz
                else {},
            )
        )
    return seeds


@functools.lru_cache(maxsize=1)
def zone_raw_seeds() -> list[Seed]:
    return _zone_seeds(False)


@functools.lru_cache(maxsize=1)
def zone_gz_seeds() -> list[Seed]:
    return _zone_seeds(True)


# ---- plant rules --------------------------------------------------------------------------------
def _simple_rule(index: int, states: int = 3, source: str | None = None) -> str:
    lines = [f"source=${source}"] if source else []
    lines += [
        f"index=n{index}",
        f"name=$Plant{index}",
        "fertility=n2",
        "damageScale=f1.5",
        "health=N" + ",".join(["10"] * states),
        "blockingHeight=N" + ",".join(["1"] * states),
        "allowedTerrainTypes=N1,2,3",
        "fruitAmount=i10",
        "colour=c1.2.3.4",
        "when=d2020.1.2.3.4.5",
        "nested=[a=n1|b=[c=$x]]",
    ]
    for s in range(states):
        nxt = min(s + 1, states - 1)
        lines += [f"state_{s}=N{s},{nxt}", f"action_{s}=N{index}" + (",0" if s == states - 1 else "")]
    return "\n".join(lines) + "\n"


def plants_chain(files: dict[str, Entry], n: int, cycle: bool = False) -> None:
    """`chain0.txt` … `chain<n-1>.txt`, each naming the next in `source=` (the last the first: a cycle)."""
    for i in range(n):
        nxt = f"chain{i + 1}.txt" if i + 1 < n else ("chain0.txt" if cycle else "")
        text = (f"source=${nxt}\n" if nxt else "") + f"k{i}=n{i}\n" + ("index=n200\n" if i == 0 else "")
        files[f"chain{i}.txt"] = text.encode()


def _plants_chain(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """A long `source=` chain (each file names the next), or a cycle."""
    n = rng.choice((20, 60, 150))
    cycle = rng.random() < 0.3
    plants_chain(files, n, cycle)
    return f"source= chain of {n} files" + (" closing a cycle" if cycle else "")


def _plants_deep(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    depth = rng.choice((100, 1000, 20000))
    files["deep.txt"] = b"index=n201\nnested=" + deep_nesting("genxy", depth) + b"\n"
    return f"dictionary nested {depth} deep"


@functools.lru_cache(maxsize=1)
def plants_seeds() -> list[Seed]:
    sample = {p.name: p.read_bytes() for p in sorted((RESOURCES / "plants").glob("*.txt"))}
    made = {
        "a.txt": _simple_rule(40).encode(),
        "b.txt": _simple_rule(41, 4, "a.txt").encode(),
        "c.txt": _simple_rule(42, 2, "b.txt").encode(),
    }
    seeds = []
    for label, files in (("sample", sample), ("made", made)):
        seeds.append(
            Seed(
                label,
                dict(files),
                sorted(files)[0],
                folder_reader=True,
                kind={n: "genxy" for n in files},
                references=sorted(files),
                special=[_plants_chain, _plants_deep],
            )
        )
    return seeds


# ---- TRN ----------------------------------------------------------------------------------------
def iff_layout(data: bytes, name: str) -> tuple[list[SizeField], list[int]]:
    from model.trn import iff

    fields, edges = [], [len(data)]
    for _, node in iff.walk(iff.parse(data)):
        fields.append(SizeField(name, node.offset + 4, 4, big_endian=True))
        edges += [node.offset, node.offset + 4, node.offset + 8, node.offset + node.size()]
    return fields, sorted(set(edges))


def payload_counts(data: bytes, name: str) -> list[SizeField]:
    """Small little-endian i32 values inside leaf chunks: the counts of lists and point arrays."""
    from model.trn import iff

    fields = []
    for _, node in iff.walk(iff.parse(data)):
        if isinstance(node, iff.Chunk):
            start = node.data_offset
            for at in range(start, start + len(node.data) - 3):
                if 0 < struct.unpack_from("<i", data, at)[0] <= 16:
                    fields.append(SizeField(name, at, 4))
    return fields


TRN_TAGS = (
    b"FORM",
    b"LAYR",
    b"IHDR",
    b"ADTA",
    b"DATA",
    b"PARM",
    b"MFRC",
    b"MFAM",
    b"SGRP",
    b"FGRP",
    b"RGRP",
    b"EGRP",
    b"MGRP",
    b"LYRS",
    b"TGEN",
    b"PTAT",
    b"0000",
    b"0001",
    b"0002",
    b"0003",
    b"0004",
    b"0005",
    b"0014",
    b"0015",
    b"BCIR",
    b"BPOL",
    b"AROA",
    b"ARIV",
    b"HDTA",
    b"SFAM",
    b"EFAM",
    b"FFRA",
    b"AEXC",
)


def _trn_tag_swap(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """A block's tag (or a FORM's name) swapped for another tag the reader knows."""
    data = files.get("t.trn")
    if not isinstance(data, bytes):
        return ""
    edges = [e for e in seed.boundaries.get("t.trn", []) if e + 4 <= len(data)]
    if not edges:
        return ""
    at = rng.choice(edges)
    tag = rng.choice(TRN_TAGS)
    files["t.trn"] = data[:at] + tag + data[at + 4 :]
    return f"tag at {at} -> {tag!r}"


def _trn_deep_layers(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """Layers inside layers, down to and past the container's depth limit."""
    from model.trn import build

    depth = rng.choice((40, 100, 126, 127, 128, 200))
    layer = build.layer("leaf", [build.item("AHCN", "0000", operation=0, height=1.0)])
    for i in range(depth):
        layer = build.layer(f"level {i}", [layer])
    files["t.trn"] = build.to_bytes(build.document("0014", None, None, [layer]))
    return f"layers nested {depth} deep"


def _trn_bitmap_doc(reference: str = "terrain\\maps\\mask.png") -> bytes:
    from model.trn import build, layouts
    from model.trn.build import item

    groups = build.family_groups(
        fractals=[
            (
                {"id": 0, "name": "f"},
                {
                    "seed": 3,
                    "useBias": 0,
                    "bias": 0.5,
                    "useGain": 0,
                    "gain": 0.7,
                    "octaves": 3,
                    "frequency": 2.0,
                    "amplitude": 0.5,
                    "scaleX": 0.01,
                    "scaleY": 0.01,
                    "offsetX": 0.0,
                    "offsetY": 0.0,
                    "combinationRule": 0,
                },
                "0001",
            )
        ],
        bitmaps=[
            {"id": 0, "name": "mask", "bitmapFile": reference},
            {"id": 1, "name": "tga", "bitmapFile": "mask2.tga"},
        ],
    )
    layer = build.layer(
        "masked",
        [
            item("FBIT", "0001", bitmapFamily=0, featherFn=0, feather=0.1, low=0.2, high=0.9, gain=1.0),
            item("AHCN", "0000", operation=0, height=5.0),
        ],
    )
    assert layouts.HEADER
    return build.to_bytes(build.document("0015", None, groups, [layer]))


BITMAP_TRICKS = (
    "a" * 300 + ".png",
    "a" * 251 + ".png",
    "..",
    ".",
    "",
    "C:",
    "C:\\",
    "/etc/passwd",
    "../outside/secret.txt",
    "..\\..\\secret.txt",
    "\\\\server\\share\\mask.png",
    "mask",
    "MASK.PNG",
    "mask.png\\",
    "mask.png/.",
    "mask2",
    "mask2.png",
    "\xe9\xff.png",
    "secret.txt",
)


def _trn_bitmap_reference(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """The bitmap family names its image by a path that is overlong, absolute, escaping or odd."""
    reference = rng.choice(BITMAP_TRICKS)
    files["t.trn"] = _trn_bitmap_doc(reference)
    return f"bitmapFile {reference[:40]!r}"


def _tga(size: int) -> bytes:
    pixels = bytes((i * 37) & 0xFF for i in range(size * size))
    return struct.pack("<BBBHHBHHHHBB", 0, 0, 3, 0, 0, 0, 0, 0, size, size, 8, 0x20) + pixels


@functools.lru_cache(maxsize=1)
def trn_seeds() -> list[Seed]:
    from model.formats.png import encode_png
    from model.trn import build, synthetic
    from tests.model.trn.builders import kitchen_sink

    docs = {
        "kitchen": build.to_bytes(kitchen_sink("0015")),
        "kitchen14": build.to_bytes(kitchen_sink("0014")),
        "realistic": synthetic.realistic_stack(n_layers=6).to_bytes(),
        "bitmaps": _trn_bitmap_doc(),
    }
    mask = encode_png((np.arange(16 * 16, dtype=np.uint16).reshape(16, 16) * 257).astype(np.uint16))
    seeds = []
    for label, data in docs.items():
        files: dict[str, Entry] = {"t.trn": data}
        if label == "bitmaps":
            files["mask.png"] = mask
            files["mask2.tga"] = _tga(8)
        fields, edges = iff_layout(data, "t.trn")
        fields += payload_counts(data, "t.trn")
        seeds.append(
            Seed(
                label,
                files,
                "t.trn",
                size_fields=fields,
                boundaries={"t.trn": edges},
                special=[_trn_deep_layers, _trn_tag_swap, _trn_tag_swap]
                + ([_trn_bitmap_reference] * 3 if label == "bitmaps" else []),
                references=["mask.png", "mask2.tga"] if label == "bitmaps" else [],
            )
        )
    return seeds


# ---- grass pattern library ----------------------------------------------------------------------
def _library(models: int, group_sizes: list[int], seed: int):
    from model.grasslib import RULE_CLASS_ID, GrassLibrary, Group
    from model.grasslib.library import MODEL_PAIR_DTYPE, RULE_DTYPE, TAIL_RAW_SIZE

    rng = np.random.default_rng(seed)
    pairs = np.zeros(models, MODEL_PAIR_DTYPE)
    pairs["model"]["identity"] = rng.integers(0, 2**63, models)
    pairs["model"]["class_id"] = zlib.crc32(b"GrassModel")
    pairs["model"]["lod"] = (0, 1, 2, 3, 3)
    pairs["model"]["distances"] = (5.0, 10.0, 20.0)
    pairs["bounds"]["class_id"] = zlib.crc32(b"BoundingVolume")
    pairs["bounds"]["body"] = rng.uniform(-1, 1, (models, 12))
    groups = []
    for i, n in enumerate(group_sizes):
        rules = np.zeros(n, RULE_DTYPE)
        rules["identity"] = rng.integers(0, 2**63, n)
        rules["class_id"] = RULE_CLASS_ID
        rules["model"] = rng.integers(0, models + 2, n)
        rules["density"] = rng.uniform(0.5, 8, n)
        rules["scale_a"], rules["scale_b"] = 0.8, 1.2
        rules["unnamed_float"] = 5.0
        groups.append(
            Group(
                identity=int(rng.integers(0, 2**63)),
                class_id=zlib.crc32(b"GrassPattern"),
                flag=i % 2,
                rules=rules,
            )
        )
    table = np.full(256, 0xFF, np.uint8)
    table[: len(group_sizes)] = np.arange(len(group_sizes))
    tail = bytes(int(v) for v in rng.integers(0, 256, TAIL_RAW_SIZE))
    return GrassLibrary(models=pairs, groups=groups, table=table, tail_raw=tail)


@functools.lru_cache(maxsize=1)
def grasslib_seeds() -> list[Seed]:
    from model.grasslib import library_bytes
    from model.grasslib.library import GROUP_HEAD_SIZE, HEADER_SIZE, MODEL_PAIR_SIZE, RULE_SIZE

    seeds = []
    for label, models, sizes in (("small", 4, [0, 1, 2, 3, 1]), ("empty", 0, []), ("wide", 2, [5, 0, 0, 2])):
        lib = _library(models, sizes, len(sizes))
        data = library_bytes(lib)
        fields = [SizeField("g.grass", 1, 4)]
        pos = HEADER_SIZE + models * MODEL_PAIR_SIZE
        edges = [0, 1, 5, HEADER_SIZE, pos, pos + 4, len(data) - 443, len(data) - 256, len(data)]
        pos += 4
        for n in sizes:
            fields.append(SizeField("g.grass", pos + 13, 4))
            edges += [pos, pos + GROUP_HEAD_SIZE, pos + GROUP_HEAD_SIZE + RULE_SIZE]
            pos += GROUP_HEAD_SIZE + n * RULE_SIZE
        seeds.append(
            Seed(label, {"g.grass": data}, "g.grass", size_fields=fields, boundaries={"g.grass": edges})
        )
    return seeds


# ---- biomes -------------------------------------------------------------------------------------
BIOME_DOCS = {
    "Root": {
        "Type": "Tile",
        "SeedName": "root-seed",
        "MapColor": "#112233",
        "Weight": 1.5,
        "Fade": {"FadeStart": 1.0, "FadeLength": 2.0, "TerrainStart": 3.0},
        "Layers": {"Default": "Stone", "Environment": "Cave"},
        "Zones": [{"Zone": "Plains", "Order": 0, "ConvertedPin": False}],
        "TerrainHeightThreshold": {"Type": "Basic", "Positions": [0, 64, 128], "Values": [0.0, 0.5, 1.0]},
    },
    "Forest": {
        "Type": "Tile",
        "Parent": "Root",
        "Tags": {"Climate": ["Cold"]},
        "SizeModifier": 2.0,
        "Water": [{"SeedIndex": 0, "Block": "Water", "Min": 10, "Max": 60}],
    },
    "Caves": {
        "Type": "Custom",
        "CustomBiomeGenerator": {
            "Noise": "Caves",
            "Threshold": [0.1, 0.4],
            "Priority": 2,
            "BiomeMask": ["Forest", "Root"],
        },
        "Interpolation": {"DefaultRadius": 8, "Biomes": [{"Biome": "Forest", "Radius": 4}]},
    },
}


def biome_chain(files: dict[str, Entry], n: int, cycle: bool = False) -> None:
    """`Chain0.json` … `Chain<n-1>.json`, each the Parent of the one before (the last: Root, or Chain0)."""
    for i in range(n):
        parent = f"Chain{i + 1}" if i + 1 < n else ("Chain0" if cycle else "Root")
        files[f"Chain{i}.json"] = json.dumps(
            {"Type": "Tile", "Parent": parent, "Weight": i, "Tags": {f"T{i}": ["x" * 50]}}
        ).encode()


def _biome_chain(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    n = rng.choice((30, 100, 300))
    cycle = rng.random() < 0.3
    biome_chain(files, n, cycle)
    return f"Parent chain of {n} files" + (" closing a cycle" if cycle else "")


def _biome_bom(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    name = rng.choice([n for n in files if isinstance(files[n], bytes)])
    text = files[name].decode("utf-8", "replace")
    files[name] = rng.choice(
        (b"\xef\xbb\xbf" + files[name], text.encode("utf-16"), b"\xff\xfe" + files[name][:7])
    )
    return f"{name}: byte-order mark or UTF-16"


@functools.lru_cache(maxsize=1)
def biomes_seeds() -> list[Seed]:
    from model.biomes import flattened_json, load_biome_set

    files = {f"{k}.json": json.dumps(v, indent=2).encode() for k, v in BIOME_DOCS.items()}
    with tempfile.TemporaryDirectory() as tmp:
        for n, d in files.items():
            (Path(tmp) / n).write_bytes(d)
        flat = flattened_json(load_biome_set([tmp])["Forest"]).encode()
    seeds = [
        Seed(
            "set",
            files,
            "Root.json",
            folder_reader=True,
            kind={n: "json" for n in files},
            references=sorted(files),
            special=[_biome_chain, _biome_bom],
        ),
        Seed(
            "flattened",
            {"Flat.json": flat, "Root.json": files["Root.json"]},
            "Flat.json",
            folder_reader=True,
            kind={"Flat.json": "json", "Root.json": "json"},
            special=[_biome_bom],
        ),
    ]
    return seeds


# ---- heightmaps ---------------------------------------------------------------------------------
def png_layout(data: bytes, name: str) -> tuple[list[SizeField], list[int]]:
    fields, edges = [SizeField(name, 16, 4, True), SizeField(name, 20, 4, True)], [0, 8, len(data)]
    pos = 8
    while pos + 12 <= len(data):
        (length,) = struct.unpack_from(">I", data, pos)
        fields.append(SizeField(name, pos, 4, True))
        edges += [pos, pos + 4, pos + 8, pos + 8 + length]
        pos += 12 + length
    return fields, edges


def png_crc(data: bytes) -> bytes:
    """Every chunk's CRC made right again, as far as the lengths let chunks be found."""
    out = bytearray(data)
    pos = 8
    while pos + 12 <= len(out):
        (length,) = struct.unpack_from(">I", out, pos)
        if pos + 12 + length > len(out):
            break
        struct.pack_into(">I", out, pos + 8 + length, zlib.crc32(bytes(out[pos + 4 : pos + 8 + length])))
        pos += 12 + length
    return bytes(out)


def _fix_png(files: dict[str, Entry]) -> dict[str, Entry]:
    for n, d in files.items():
        if n.endswith(".png") and isinstance(d, bytes):
            files[n] = png_crc(d)
    return files


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def _png_special(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """Checksummed chunks with content that lies: an inflating bomb, a huge claimed size, odd tEXt."""
    data = files["h.png"]
    if not isinstance(data, bytes):
        return ""
    op = rng.randrange(4)
    ihdr_end = 8 + 12 + 13
    if op == 0:
        bomb = zlib.compress(bytes(64 << 20), 9)
        files["h.png"] = data[:ihdr_end] + _png_chunk(b"IDAT", bomb) + _png_chunk(b"IEND", b"")
        return "IDAT inflates to 64 MiB"
    if op == 1:
        w, h = rng.choice(((16384, 16384), (65535, 65535), (1, 1 << 30), (0x7FFFFFFF, 2), (16384, 16383)))
        ihdr = struct.pack(">IIBBBBB", w, h, rng.choice((8, 16)), rng.choice((0, 2, 4, 6)), 0, 0, 0)
        files["h.png"] = data[:8] + _png_chunk(b"IHDR", ihdr) + data[ihdr_end:]
        return f"IHDR claims {w} x {h}"
    if op == 2:
        key = rng.choice((b"boscage.height_scale", b"boscage.height_offset", b"boscage.spacing"))
        value = rng.choice(
            (
                b"nan",
                b"inf",
                b"-inf",
                b"1e999",
                b"-1",
                b"0",
                b"",
                b"9" * 400,
                b"1e308",
                b"-3.5e38",
                b"3.4e38",
                b"\xff",
                b"1_0",
            )
        )
        files["h.png"] = data[:ihdr_end] + _png_chunk(b"tEXt", key + b"\0" + value) + data[ihdr_end:]
        return f"tEXt {key!r} = {value[:20]!r}"
    filters = bytes(rng.choice((0, 1, 2, 3, 4, 5, 255)) for _ in range(4))
    raw = b"".join(
        bytes([filters[r % 4]]) + bytes(rng.randrange(256) for _ in range(2 * 4)) for r in range(4)
    )
    ihdr = struct.pack(">IIBBBBB", 4, 4, 16, 0, 0, 0, 0)
    files["h.png"] = (
        data[:8]
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", zlib.compress(raw))
        + _png_chunk(b"IEND", b"")
    )
    return f"4 x 4 image with row filters {list(filters)}"


@functools.lru_cache(maxsize=1)
def _heights() -> np.ndarray:
    from model.demo import demo_heights

    return demo_heights(size=17, spacing=8.0)


@functools.lru_cache(maxsize=1)
def png16_seeds() -> list[Seed]:
    from model.formats.heightmap import write_heightmap, write_layer_png
    from model.formats.png import encode_png

    seeds = []
    with tempfile.TemporaryDirectory() as tmp:
        write_heightmap(Path(tmp) / "h16.png", _heights(), spacing=8.0)
        write_layer_png(Path(tmp) / "layer.png", (np.arange(17 * 17) % 256).astype(np.uint8).reshape(17, 17))
        rgba = (np.arange(9 * 7 * 4) % 256).astype(np.uint8).reshape(9, 7, 4)
        (Path(tmp) / "rgba.png").write_bytes(encode_png(rgba, filters=np.array([0, 1, 2, 3, 4, 4, 3, 2, 1])))
        for name in ("h16.png", "layer.png", "rgba.png"):
            data = (Path(tmp) / name).read_bytes()
            fields, edges = png_layout(data, "h.png")
            seeds.append(
                Seed(
                    name.split(".")[0],
                    {"h.png": data},
                    "h.png",
                    size_fields=fields,
                    boundaries={"h.png": edges},
                    fixup=_fix_png,
                    special=[_png_special],
                )
            )
    return seeds


@functools.lru_cache(maxsize=1)
def r16_seeds() -> list[Seed]:
    from model.formats.heightmap import write_heightmap

    with tempfile.TemporaryDirectory() as tmp:
        write_heightmap(Path(tmp) / "h.r16", _heights()[:16, :16])
        data = (Path(tmp) / "h.r16").read_bytes()
    return [Seed("square", {"h.r16": data}, "h.r16", boundaries={"h.r16": [0, 2, len(data) - 2, len(data)]})]


_NPY_HEADER = re.compile(rb"\{.*\}", re.S)


def _npy_header(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """The header dictionary edited: shapes, dtypes and order that lie, or nesting that never ends."""
    data = files["h.npy"]
    if not isinstance(data, bytes):
        return ""
    m = _NPY_HEADER.search(data[:4096])
    if not m:
        return ""
    shape = rng.choice(
        (
            "(16, 16)",
            "(1, 1)",
            "(0, 16)",
            "(-1, 16)",
            "(16,)",
            "(2, 2, 2)",
            "(100000, 100000)",
            "(4294967296, 4294967296)",
            "(16384, 16385)",
            "(" + "9" * 40 + ", 2)",
            "(16, 'a')",
            "(16, 16.5)",
            "(" * 200 + ")" * 200,
            "None",
        )
    )
    dtype = rng.choice(
        (
            "'<f4'",
            "'<f8'",
            "'>f4'",
            "'<f2'",
            "'<i8'",
            "'|u1'",
            "'|b1'",
            "'<c8'",
            "'|O'",
            "'<U4'",
            "'|V8'",
            "'<M8[s]'",
            "[('a', '<f4')]",
            "'f4,f4'",
            "'<f16'",
            "'xyz'",
            "1",
        )
    )
    order = rng.choice(("False", "True", "0", "'yes'"))
    header = f"{{'descr': {dtype}, 'fortran_order': {order}, 'shape': {shape}, }}".encode()
    if rng.random() < 0.3:
        header = m.group(0)[:-1] + b", 'extra': " + deep_nesting("json", rng.choice((50, 5000))) + b"}"
    header = header.ljust(len(m.group(0)), b" ")
    if rng.random() < 0.8:  # keep the header length field honest
        start = m.start()
        total = len(header) + 1
        data = (
            data[: start - (2 if data[6] == 1 else 4)]
            + (struct.pack("<H", total) if data[6] == 1 else struct.pack("<I", total))
            + header
            + b"\n"
            + data[m.end() + 1 :]
        )
    else:
        data = data[: m.start()] + header + data[m.end() :]
    files["h.npy"] = data
    return f"npy header {header[:80]!r}"


@functools.lru_cache(maxsize=1)
def npy_seeds() -> list[Seed]:
    seeds = []
    for label, version, dtype in (("v1", (1, 0), "<f4"), ("v2", (2, 0), "<f8"), ("int", (1, 0), "<i2")):
        import io

        buf = io.BytesIO()
        np.lib.format.write_array(
            buf, np.ascontiguousarray(_heights().astype(dtype)), version=version, allow_pickle=False
        )
        data = buf.getvalue()
        fields = [SizeField("h.npy", 8, 2 if version == (1, 0) else 4)]
        header_end = data.index(b"\n") + 1
        seeds.append(
            Seed(
                label,
                {"h.npy": data},
                "h.npy",
                size_fields=fields,
                boundaries={"h.npy": [0, 6, 8, 10, 12, header_end, len(data)]},
                special=[_npy_header] + ([heights_edge("h.npy", dtype, header_end)] if "f" in dtype else []),
            )
        )
    return seeds


# ---- foliage interchange: glTF, CSV and JSON of instances ---------------------------------------
def _interchange_scene():
    from tests.model.interchange.conftest import small_scene

    return small_scene({"conifer": 12, "rock": 7}, size=9)


def glb_layout(data: bytes, name: str) -> tuple[list[SizeField], list[int]]:
    """Size fields (the header's length, each chunk's) and chunk edges of a GLB."""
    fields, edges = [SizeField(name, 8, 4)], [0, 4, 8, 12, len(data)]
    pos = 12
    while pos + 8 <= len(data):
        (n,) = struct.unpack_from("<I", data, pos)
        fields.append(SizeField(name, pos, 4))
        edges += [pos, pos + 8, pos + 8 + n]
        pos += 8 + ((n + 3) & ~3)
    return fields, edges


def _glb_json(data: bytes) -> tuple[bytes, bytes] | None:
    """The GLB's JSON chunk and everything after it, or None when the layout is already broken."""
    if len(data) < 20 or data[:4] != b"glTF":
        return None
    (n,) = struct.unpack_from("<I", data, 12)
    if 20 + n > len(data):
        return None
    return data[20:20 + n], data[20 + ((n + 3) & ~3):]


def _glb_pack(text: bytes, rest: bytes) -> bytes:
    text += b" " * (-len(text) % 4)
    return (b"glTF" + struct.pack("<II", 2, 20 + len(text) + len(rest)) + struct.pack("<I", len(text))
            + b"JSON" + text + rest)


def _glb_text(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """A change in the language of the GLB's JSON chunk, the chunk lengths made right again."""
    name = seed.main
    data = files.get(name)
    parts = _glb_json(data) if isinstance(data, bytes) else None
    if parts is None:
        return ""
    text, step = text_mutation(rng, parts[0], "json", seed)
    files[name] = _glb_pack(text, parts[1])
    return f"{name} JSON chunk: {step}"


# Lies a glTF document can tell: counts, offsets, strides, lengths, indices, URIs and types.
_GLTF_LIES = (
    ("accessors", "count", (0, 1, 2 ** 31, 2 ** 40, -1, "3", None, 1.5)),
    ("accessors", "byteOffset", (4, 2 ** 32, -4, "0")),
    ("accessors", "bufferView", (None, 99, -1, [0])),
    ("accessors", "componentType", (5121, 5125, 5130, 0, "5126")),
    ("accessors", "type", ("SCALAR", "MAT4", "VEC9", 3, ["VEC3"])),
    ("bufferViews", "byteLength", (0, 2 ** 40, -1, 3)),
    ("bufferViews", "byteOffset", (2 ** 40, 1, -8)),
    ("bufferViews", "byteStride", (1, 4, 252, 256, 2 ** 31, 0)),
    ("bufferViews", "buffer", (1, 99, -1, "0")),
    ("buffers", "byteLength", (0, 2 ** 40, -1, 7)),
    ("buffers", "uri", ("../s.bin", "/etc/passwd", "s.bin%00", "data:application/octet-stream;base64,AAAA",
                        "data:,xx", "sub/../../x.bin", "", 7, "@OUTSIDE@/secret.txt", "file:///etc/passwd")),
    ("nodes", "mesh", (99, -1, "0", [0], None)),
    ("nodes", "children", ([0], [99], "1", [[1]], {"a": 1})),
    ("nodes", "translation", ([1e39, 0, 0], [3.4e38, 0, 0], "x", [0, 0], [1, None, 2], [10 ** 400, 0, 0])),
    ("nodes", "rotation", ([0, 0, 0, 0], [1e300, 1e300, 0, 1], [0, 0, 1])),
    ("nodes", "scale", ([0, 0, 0], [-1, 1, 1], [1e300, 1, 1], {})),
    ("nodes", "matrix", ([0] * 16, [1e308] * 16, [1] * 15, "m")),
    ("meshes", "name", ("", " ", "a" * 300, "x\ud800", 5)),
    ("meshes", "primitives", ({}, [1], [{"attributes": 5}], [{"mode": "4"}])),
)


def _gltf_lie(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """One field of one object set to a value it cannot hold, the JSON still well formed."""
    name = seed.main
    data = files.get(name)
    if not isinstance(data, bytes):
        return ""
    glb = name.endswith(".glb")
    parts = _glb_json(data) if glb else (data, b"")
    if parts is None:
        return ""
    try:
        doc = json.loads(parts[0])
    except (ValueError, RecursionError):  # an earlier step broke it: nothing to lie in
        return ""
    key, prop, values = rng.choice(_GLTF_LIES)
    items = doc.get(key) if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items or not isinstance(items[0], dict):
        return ""
    k = rng.randrange(len(items))
    value = rng.choice(values)
    if value is None:
        items[k].pop(prop, None)
    else:
        items[k][prop] = value
    text = json.dumps(doc).encode()  # "@OUTSIDE@" becomes the outside folder when written
    files[name] = _glb_pack(text, parts[1]) if glb else text
    return f"{key}[{k}].{prop} = {str(value)[:40]}"



@functools.lru_cache(maxsize=1)
def gltf_seeds() -> list[Seed]:
    from model.interchange import ExportOptions, export_scene
    from tests.model.interchange.test_gltf import _foreign

    seeds = []
    with tempfile.TemporaryDirectory() as tmp:
        scene = _interchange_scene()
        made = {"ours": ("s.glb", ExportOptions(terrain_step=4)),
                "plain": ("s.glb", ExportOptions(terrain=False, gpu_instancing=False)),
                "split": ("s.gltf", ExportOptions(terrain=False))}
        for label, (name, options) in made.items():
            folder = Path(tmp) / label
            folder.mkdir()
            export_scene(scene, folder / name, options)
        foreign = Path(tmp) / "foreign"
        foreign.mkdir()
        _foreign(foreign, "s.glb")
        for label in (*made, "foreign"):
            folder = Path(tmp) / label
            files = _files(folder)
            main = next(n for n in files if n.startswith("s.gl"))
            kinds = {n: ("json" if n.endswith(".gltf") else "binary") for n in files}
            fields, edges = glb_layout(files[main], main) if main.endswith(".glb") else ([], [])
            seeds.append(Seed(label, files, main, kind=kinds, size_fields=fields,
                              boundaries={main: edges} if edges else {},
                              references=[n for n in files if n.endswith(".bin")],
                              special=[_glb_text, _gltf_lie, _gltf_lie] if main.endswith(".glb")
                              else [_gltf_lie, _gltf_lie]))
    return seeds


_CSV_VALUES = ("nan", "inf", "-inf", "1e999", "3.4e38", "-3.4e38", "1e308", "0", "-0", "", "x", "1e-45",
               "9" * 400, '"1,2"', "1\n2")
_TYPE_NAMES = ("", " ", "\t", "a" * 256, "a" * 70000, "é" * 128, '"', "x\ud800", "\u0000", "pine")


def _csv_cells(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """A cell set to a number that is no position, or a type name the scene reader refuses."""
    data = files.get(seed.main)
    if not isinstance(data, bytes):
        return ""
    lines = data.split(b"\n")
    rows = [i for i, line in enumerate(lines) if line and not line.startswith(b"#") and i > 0
            and not line.startswith(b"type")]
    if not rows:
        return ""
    i = rng.choice(rows)
    cells = lines[i].split(b",")
    k = rng.randrange(len(cells))
    value = rng.choice(_TYPE_NAMES if k == 0 else _CSV_VALUES).encode("utf-8", "surrogatepass")
    cells[k] = value
    lines[i] = b",".join(cells)
    files[seed.main] = b"\n".join(lines)
    return f"line {i + 1} cell {k} = {value[:30]!r}"


def _json_items(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """One instance's field set to a value of the wrong type, range or name."""
    data = files.get(seed.main)
    if not isinstance(data, bytes):
        return ""
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):  # an earlier step broke it: nothing to lie in
        return ""
    items = doc.get("instances") if isinstance(doc, dict) else None
    if not isinstance(items, list) or not items:
        return ""
    k = rng.randrange(len(items))
    key = rng.choice(("type", "position", "quaternion", "rotation_deg", "scale", "matrix"))
    value = rng.choice((
        "", " ", "a" * 300, "x\ud800", 5, None, [], [1, 2], ["1", 2, 3], [3.4e38, 0, 0], [1e308, 0, 0],
        [10 ** 300, 0, 0], [0, 0, 0, 0], 0, -1, {"x": 1}, [[1, 2, 3]]))
    if isinstance(items[k], dict):
        items[k][key] = value
    files[seed.main] = json.dumps(doc).encode()  # "x\ud800" stays an escape: read back, a lone surrogate
    return f"instances[{k}].{key} = {str(value)[:40]}"


def _tabular_seeds(suffix: str, special) -> list[Seed]:
    from model.interchange import ExportOptions, export_scene

    seeds = []
    with tempfile.TemporaryDirectory() as tmp:
        scene = _interchange_scene()
        for label, options in (("plain", ExportOptions()), ("matrix", ExportOptions(matrix=True)),
                               ("unreal", ExportOptions(conventions=_unreal()))):
            path = Path(tmp) / f"{label}{suffix}"
            export_scene(scene, path, options)
            main = f"f{suffix}"
            kind = {main: "json" if suffix == ".json" else "text"}
            seeds.append(Seed(label, {main: path.read_bytes()}, main, kind=kind, special=[special, special]))
    return seeds


def _unreal():
    from model.interchange import ENGINE_PRESETS

    return ENGINE_PRESETS["Unreal"]


@functools.lru_cache(maxsize=1)
def csv_seeds() -> list[Seed]:
    return _tabular_seeds(".csv", _csv_cells)


@functools.lru_cache(maxsize=1)
def json_seeds() -> list[Seed]:
    return _tabular_seeds(".json", _json_items)


# Regression cases too large to commit are built: case.json's "build" names one of these and its arguments.
BUILDERS = {"plants_chain": plants_chain, "biome_chain": biome_chain, "usd_deep": usd_deep}

SEEDS = {
    "scene": scene_seeds,
    "store": store_seeds,
    "vxfoliage": vxfoliage_seeds,
    "palette": palette_seeds,
    "zone_raw": zone_raw_seeds,
    "zone_gz": zone_gz_seeds,
    "plants": plants_seeds,
    "trn": trn_seeds,
    "grasslib": grasslib_seeds,
    "biomes": biomes_seeds,
    "png16": png16_seeds,
    "r16": r16_seeds,
    "npy": npy_seeds,
    "gltf": gltf_seeds,
    "csv": csv_seeds,
    "json": json_seeds,
    **FLOAT_SEEDS,
    **USD_SEEDS,
}
assert tuple(SEEDS) == FORMATS
__all__ = ["FORMATS", "SEEDS", "ZONE_ID", "text_mutation"]
