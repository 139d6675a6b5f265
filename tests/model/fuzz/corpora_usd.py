"""Seed inputs for the USD foliage import: instancer scenes as the exporter writes them, as text
(`.usda`, mutated in its own language and with the hostile cases below) and as crate (`.usdc`,
mutated byte by byte) and as a package (`.usdz`: its zip headers, the crate inside, entry names
with `..`, compressed entries, huge sizes).

Hostile cases: invalid UTF-8 in a string, prototypes naming missing prims, odd `boscage:variant`
values, palette attributes of types the exporter never writes, palette keys `a` and `a:b`, face
vertex counts that are negative or lie, huge arrays, sublayers, references, payloads and value
clips naming `../..`, absolute paths, the `outside/` folder's sentinel layer, a FIFO or a
directory beside the file, and nesting thousands deep.
"""

from __future__ import annotations

import functools
import random
import re
import tempfile
from pathlib import Path

from tests.model.fuzz.engine import OUTSIDE, Entry, Fifo, Folder, Link, Seed

# the layer `runner.write_input` puts in `outside/`: a reader that composes it imports this type
SENTINEL_TYPE = "outside_sentinel"
SENTINEL_USDA = (
    "#usda 1.0\n"
    'def PointInstancer "OutsideSentinel"\n{\n'
    f'    custom string boscage:typeName = "{SENTINEL_TYPE}"\n'
    "    point3f[] positions = [(1, 2, 3)]\n    int[] protoIndices = [0]\n"
    "    rel prototypes = </OutsideSentinel/P>\n"
    '    def Xform "P" {}\n}\n'
)

# asset paths a layer may name: escapes, absolute paths, devices, the outside sentinel, side files
ASSET_TRICKS = (
    "../../outside/secret.usda",
    "../outside/secret.usda",
    "../../../../../../../../etc/passwd",
    "/etc/passwd",
    "/dev/zero",
    "/dev/stdin",
    "/proc/self/mem",
    "/proc/self/environ",
    "@OUTSIDE@/secret.usda",
    "@OUTSIDE@/secret.txt",
    "@OUTSIDE@/../outside/secret.usda",
    "file://@OUTSIDE@/secret.usda",
    "side.usda",
    "./side.usda",
    "sub/../side.usda",
    "side.usda/../../outside/secret.usda",
    "link.usda",
    "pipe.usda",
    "dir.usda",
    "missing.usda",
    "s.usda",
    "side.usda[x.usda]",
    "",
    "a" * 5000 + ".usda",
    "side.usda%00.txt",
)
SIDE_LAYER = (
    b"#usda 1.0\n"
    b'over "World"\n{\n    over "Foliage"\n    {\n        custom string boscage:note = "side"\n    }\n}\n'
)


def _asset(rng: random.Random) -> bytes:
    return rng.choice(ASSET_TRICKS).encode().replace(b"@OUTSIDE@", OUTSIDE)


def _beside(files: dict[str, Entry], name: str, rng: random.Random) -> str:
    """Make `name` (a file a layer names) a FIFO, a directory, a link out, or a layer."""
    kind = rng.choice(("fifo", "folder", "link", "layer", "none"))
    if kind == "fifo":
        files[name] = Fifo()
    elif kind == "folder":
        files[name] = Folder()
    elif kind == "link":
        files[name] = Link("usd/side.usda")
    elif kind == "layer":
        files[name] = SIDE_LAYER
    return kind


def _layer_meta(data: bytes, entry: bytes) -> bytes:
    """`data` with `entry` added to its layer metadata (after `#usda 1.0` and its opening paren)."""
    head = re.match(rb"#usda 1\.0\s*\(\s*\n", data)
    if head:
        return data[:head.end()] + b"    " + entry + b"\n" + data[head.end():]
    first = data.find(b"\n")
    return data[:first + 1] + b"(\n    " + entry + b"\n)\n" + data[first + 1:] if first >= 0 else data


def _prim_meta(data: bytes, rng: random.Random, entry: bytes) -> tuple[bytes, str]:
    """`data` with `entry` as metadata of one of its prims (`def Type "name" (entry)`)."""
    hits = list(re.finditer(rb'(def|over) ([A-Za-z]+ )?"[^"\n]*"[ \t]*\n', data))
    if not hits:
        return data, ""
    m = rng.choice(hits)
    return data[:m.end() - 1] + b" (\n    " + entry + b"\n)" + data[m.end() - 1:], f"prim at {m.start()}"


def _composition(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """A sublayer, reference, payload or value clip naming a path trick, a FIFO or a directory."""
    data = files.get(seed.main)
    if not isinstance(data, bytes):
        return ""
    asset = _asset(rng)
    name = asset.decode(errors="replace")
    beside = ""
    if name in ("link.usda", "pipe.usda", "dir.usda", "side.usda", "./side.usda"):
        beside = _beside(files, name.removeprefix("./"), rng) if rng.random() < 0.7 else ""
    how = rng.randrange(5)
    if how == 0:
        files[seed.main] = _layer_meta(data, b"subLayers = [@" + asset + b"@]")
        return f"subLayers @{name[:60]}@ {beside}"
    entry = (b"references = @" + asset + b"@</World>",
             b"prepend payload = @" + asset + b"@",
             b"clips = { dictionary default = { asset[] assetPaths = [@" + asset + b"@] "
             b"string primPath = \"/World\" double2[] active = [(0, 0)] } }",
             b"clips = { dictionary default = { asset manifestAssetPath = @" + asset + b"@ } }")[how - 1]
    files[seed.main], where = _prim_meta(data, rng, entry)
    return f"{entry[:20]!r} @{name[:60]}@ at {where} {beside}"


def _replace_one(rng: random.Random, data: bytes, pattern: bytes, values: tuple[bytes, ...],
                 group: int = 1) -> tuple[bytes, str]:
    hits = list(re.finditer(pattern, data))
    if not hits:
        return data, ""
    m = rng.choice(hits)
    value = rng.choice(values)
    return data[:m.start(group)] + value + data[m.end(group):], f"{m.group(0)[:40]!r} -> {value[:40]!r}"


def _counts(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """faceVertexCounts that are negative, zero, huge, or that still sum to the index count."""
    m = re.search(rb"int\[\] faceVertexCounts = \[([^\]]*)\]", data)
    if not m:
        return data, ""
    counts = [int(c) for c in m.group(1).split(b",") if c.strip()]
    if not counts:
        return data, ""
    k = rng.randrange(len(counts))
    trick = rng.randrange(6)
    if trick == 0:
        counts[k] = -counts[k]
    elif trick == 1 and len(counts) > 1:  # the sum kept: a negative count and a huge one
        j = (k + 1) % len(counts)
        big = rng.choice((10 ** 6, 2 ** 30, 2 ** 31 - 1 - counts[j]))
        counts[k], counts[j] = counts[k] - big, counts[j] + big
    elif trick == 2:
        counts[k] = 0
    elif trick == 3:
        counts[k] = rng.choice((1, 2, 2 ** 31 - 1, -(2 ** 31)))
    elif trick == 4:  # every polygon one fan with all the indices
        counts = [sum(counts)]
    else:
        counts = [-c for c in counts]
    text = b", ".join(str(c).encode() for c in counts)
    data = data[:m.start(1)] + text + data[m.end(1):]
    # meshes named as files, not built-ins: the reader converts the prototype's own geometry
    data = data.replace(b'boscage:mesh = "builtin:', b'boscage:mesh = "file_')
    return data, f"faceVertexCounts trick {trick} at {k}, meshes from the file"


def _huge_array(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """An instancer array far longer than its instances (or all of them that long)."""
    n = rng.choice((1000, 100_000, 400_000))
    name, value = rng.choice(((b"int[] protoIndices", b"0"), (b"int64[] ids", b"1"),
                              (b"point3f[] positions", b"(1, 2, 3)"), (b"float3[] scales", b"(1, 1, 1)"),
                              (b"int[] faceVertexIndices", b"0"), (b"quath[] orientations", b"(1, 0, 0, 0)")))
    m = re.search(re.escape(name) + rb" = \[[^\]]*\]", data)
    if not m:
        return data, ""
    return (data[:m.start()] + name + b" = [" + b", ".join([value] * n) + b"]" + data[m.end():],
            f"{name.decode()} of {n}")


def _deep(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    depth = rng.choice((100, 1000, 5000, 50_000))
    kind = rng.randrange(3)
    if kind == 0:  # prims in prims
        body = b'def Xform "a" {\n' * depth + b"}\n" * depth
        return data + b"\n" + body, f"prims {depth} deep"
    if kind == 1:  # dictionaries in custom data
        body = b"customData = { " + b"dictionary a = { " * depth + b"int x = 1 " + b"} " * depth + b"}"
        return _layer_meta(data, body), f"customData {depth} deep"
    # an instancer whose prototype is an instancer whose prototype is ... (prototypes nest)
    parts = [b'def PointInstancer "P%d" {\n point3f[] positions = [(0, 0, 0)]\n int[] protoIndices = [0]\n'
             b' rel prototypes = <P%d>\n' % (i, i + 1) for i in range(min(depth, 2000))]
    return data + b"\n" + b"".join(parts) + b'def Xform "P%d" {}\n' % min(depth, 2000) + \
        b"}\n" * min(depth, 2000), f"instancers {min(depth, 2000)} deep"


def _hostile(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """One of the cases the USD reader must refuse or read sensibly."""
    data = files.get(seed.main)
    if not isinstance(data, bytes):
        return ""
    case = rng.randrange(10)
    step = ""
    if case == 0:  # invalid UTF-8 inside a string
        data, step = _replace_one(rng, data, rb'"([^"\n]*)"', (b"\xff\xfe", b"a\xc3", b"\xed\xa0\x80",
                                                                 b"\xc0\xaf", b"\x00", b"x\x80y"))
    elif case == 1:  # prototypes naming prims that are not there, or are not prims
        data, step = _replace_one(rng, data, rb"rel prototypes = (<[^>\n]*>|\[[^\]\n]*\])", (
            b"</Missing>", b"[</World/Foliage/x/Prototypes/none>, </Nope>]", b"</World.attr>", b"[]",
            b"</World/Foliage>", b"</>", b"<../../x>", b"[</World>, </World>, </World>]"))
    elif case == 2:  # boscage:variant as nan, inf, out of int range
        data, step = _replace_one(rng, data, rb"custom int boscage:variant = (\S+)", (
            b"nan", b"inf", b"-1", b"2147483647", b"-2147483648", b"2147483648", b"99999999999",
            b"1e30", b"\"x\""))
        if not step and rng.random() < 0.5:
            data, step = _replace_one(rng, data, rb"(custom int) boscage:variant", (
                b"custom double", b"custom string", b"custom float[]", b"custom bool"))
    elif case in (3, 4):  # palette attributes of types the exporter never writes, keys `a` and `a:b`
        m = re.search(rb'def PointInstancer "[^"]*"[^{]*\{\n', data)
        if m:
            extra = rng.choice((
                b'custom string[] boscage:palette:spacing = ["a", "b"]\n',
                b'custom string[] boscage:palette:variants = ["{}"] (customData = {bool boscageJson = 1})\n',
                b'custom double boscage:palette:a = 1\ncustom double boscage:palette:a:b = 2\n',
                b'custom double boscage:palette:a:b = 2\ncustom double boscage:palette:a = 1\n',
                b'custom string boscage:palette:a = "x"\ncustom double[] boscage:palette:a:b:c = [1, 2]\n',
                b'custom double boscage:palette:: = 1\n',
                b'custom double[] boscage:palette:scale = [nan, inf]\n',
                b'custom token boscage:palette:mesh = "builtin:rock"\n',
                b'custom matrix4d boscage:palette:m = ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1))\n',
                b'custom asset boscage:palette:mesh = @../../outside/secret.usda@\n',
                b'custom string boscage:palette:variants = "[1, {" (customData = {bool boscageJson = 1})\n',
                b'custom string boscage:palette:variants = "' + b"[" * 5000 + b'" '
                b"(customData = {bool boscageJson = 1})\n",
                b'custom int boscage:palette:spacing = 2147483647\n',
                b'custom bool[] boscage:palette:flags = [1, 0]\n',
                b'custom string boscage:mesh = "' + OUTSIDE + b'/secret.usda"\n',
                b'custom string boscage:typeName = ""\n',
                b'custom int boscage:typeName = 5\n',
                b'custom string boscage:layout = "prims"\n',
            ))
            data = data[:m.end()] + extra + data[m.end():]
            step = f"attribute {extra[:50]!r}"
    elif case == 5:
        data, step = _counts(rng, data)
    elif case == 6:
        data, step = _huge_array(rng, data)
    elif case == 7:
        data, step = _deep(rng, data)
    elif case == 8:  # units and axes that are no units or axes
        data, step = _replace_one(rng, data, rb"(metersPerUnit = \S+|upAxis = \"\w+\")", (
            b"metersPerUnit = 0", b"metersPerUnit = -1", b"metersPerUnit = nan", b"metersPerUnit = 1e308",
            b"metersPerUnit = 5e-324", b'upAxis = "X"', b'upAxis = ""', b"upAxis = 1"), group=0)
    else:  # an instancer's transform that collapses, mirrors or overflows
        m = re.search(rb'def PointInstancer "[^"]*"[^{]*\{\n', data)
        if m:
            extra = rng.choice((b"double3 xformOp:scale = (0, 0, 0)\n",
                                b"double3 xformOp:scale = (-1, 1, 1)\n",
                                b"double3 xformOp:scale = (1e300, 1e300, 1e300)\n",
                                b"double3 xformOp:translate = (nan, 0, 0)\n"))
            op = extra.split(b" = ")[0].split(b" ")[1]
            order = b'uniform token[] xformOpOrder = ["' + op + b'"]\n'
            data = data[:m.end()] + extra + order + data[m.end():]
            step = f"transform {extra.strip()[:40]!r}"
    files[seed.main] = data
    return step


def _flatten_textures(folder: Path) -> dict[str, Entry]:
    """The export's files with its textures beside it (an input is one folder)."""
    files: dict[str, Entry] = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            files[p.name] = p.read_bytes()
    for name, data in list(files.items()):
        if name.endswith(".usda"):
            files[name] = re.sub(rb"@\./[^/@]*_textures/", b"@./", data)
    return files


@functools.lru_cache(maxsize=1)
def _exports() -> dict[str, dict[str, Entry]]:
    from model.interchange import ExportOptions, export_scene
    from tests.model.fuzz.corpora import _interchange_scene
    from tests.model.interchange.test_variants import variant_scene

    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, scene, name, options in (
            ("ours", _interchange_scene(), "s.usda", ExportOptions(terrain=False)),
            ("terrain", _interchange_scene(), "s.usda", ExportOptions(terrain_step=4)),
            ("variants", variant_scene(), "s.usda", ExportOptions(terrain=False)),
            ("crate", _interchange_scene(), "s.usdc", ExportOptions(terrain_step=4)),
            ("crate-variants", variant_scene(), "s.usdc", ExportOptions(terrain=False)),
            ("package", _interchange_scene(), "s.usdz", ExportOptions(terrain_step=4)),
            ("package-variants", variant_scene(), "s.usdz", ExportOptions(terrain=False)),
        ):
            folder = Path(tmp) / label
            folder.mkdir()
            export_scene(scene, folder / name, options)
            out[label] = _flatten_textures(folder)
    return out


def _layered() -> dict[str, Entry]:
    """The export as a sublayer of a small root layer that also references a side layer."""
    files = dict(_exports()["ours"])
    files["body.usda"] = files.pop("s.usda")
    files["side.usda"] = SIDE_LAYER
    files["s.usda"] = (b'#usda 1.0\n(\n    defaultPrim = "World"\n    metersPerUnit = 1\n    upAxis = "Y"\n'
                       b"    subLayers = [@./side.usda@, @body.usda@]\n)\n")
    return files


def _seed(label: str, files: dict[str, Entry], main: str) -> Seed:
    text = main.endswith(".usda")
    layers = [n for n in files if n.endswith((".usda", ".usdc", ".png"))]
    # usda strings and numbers are written as TOML writes them: its text mutations fit
    kinds = {n: ("toml" if n.endswith(".usda") else "binary") for n in files}
    return Seed(label, files, main, kind=kinds, references=layers,
                special=[_composition, _hostile, _hostile] if text else [])


@functools.lru_cache(maxsize=1)
def usda_seeds() -> list[Seed]:
    made = _exports()
    return [_seed(label, dict(made[label]), "s.usda") for label in ("ours", "terrain", "variants")] + \
        [_seed("layered", _layered(), "s.usda")]


def crate_layout(data: bytes) -> tuple[list, list[int]]:
    """A crate file's size fields (the table of contents' offset, each section's start and size) and
    section edges, from the bootstrap header and the table of contents."""
    import struct

    from tests.model.fuzz.engine import SizeField

    if len(data) < 88 or data[:8] != b"PXR-USDC":
        return [], [0, len(data)]
    fields, edges = [SizeField("s.usdc", 16, 8)], [0, 8, 16, 24, 88, len(data)]
    (toc,) = struct.unpack_from("<Q", data, 16)
    if toc + 8 > len(data):
        return fields, edges
    (n,) = struct.unpack_from("<Q", data, toc)
    fields.append(SizeField("s.usdc", toc, 8))
    edges.append(toc)
    for k in range(min(n, 64)):
        at = toc + 8 + k * 32
        if at + 32 > len(data):
            break
        start, size = struct.unpack_from("<QQ", data, at + 16)
        fields += [SizeField("s.usdc", at + 16, 8), SizeField("s.usdc", at + 24, 8)]
        edges += [at, start, start + size]
        if start + 8 <= len(data):  # most sections open with a count or a compressed size
            fields.append(SizeField("s.usdc", start, 8))
    return fields, sorted(e for e in edges if 0 <= e <= len(data))


@functools.lru_cache(maxsize=1)
def usdc_seeds() -> list[Seed]:
    made = _exports()
    seeds = []
    for label in ("crate", "crate-variants"):
        files = dict(made[label])
        fields, edges = crate_layout(files["s.usdc"])
        seeds.append(Seed(label, files, "s.usdc", kind={n: "binary" for n in files}, size_fields=fields,
                          boundaries={"s.usdc": edges}, references=[n for n in files if n != "s.usdc"]))
    return seeds


# ---- .usdz: a zip of the crate layer and its textures, stored --------------------------------------
ENTRY_TRICKS = (
    "../scene.usdc", "../../outside/secret.usda", "/etc/passwd", "a/../../b.usdc", "sub/../scene.usdc",
    "x[1].usdc", "inner.usdz", "scene.usdc", "", "a\\b.usdc", ".", "scene.usdc/", "\u00e9.usdc",
    "side.usda", "a" * 3000 + ".usdc",
)


# (offset, width) of the sizes, lengths, counts and offsets in a directory record and the end record
CENTRAL_SIZES = ((20, 4), (24, 4), (28, 2), (30, 2), (32, 2), (42, 4))
END_SIZES = ((8, 2), (10, 2), (12, 4), (16, 4), (20, 2))


def _local_entries(data: bytes) -> list[tuple[int, int, int, str]]:
    """(header offset, data offset, size, name) of each local entry, as pxr walks them."""
    import struct

    found, at = [], 0
    while data[at:at + 4] == b"PK\x03\x04" and at + 30 <= len(data):
        size, _, name_len, extra_len = struct.unpack_from("<IIHH", data, at + 18)
        start = at + 30 + name_len + extra_len
        found.append((at, start, size, data[at + 30:at + 30 + name_len].decode("utf-8", "replace")))
        at = start + size
    return found


def usdz_layout(data: bytes) -> tuple[list, list[int]]:
    """A package's size fields (each local and directory header's sizes, name and extra lengths,
    the directory's offsets and counts) and the inner crate's own, moved to where it lies."""
    import struct

    from tests.model.fuzz.engine import SizeField

    fields, edges = [], [0, len(data)]
    for at, start, size, name in _local_entries(data):
        fields += [SizeField("s.usdz", at + 18, 4), SizeField("s.usdz", at + 22, 4),
                   SizeField("s.usdz", at + 26, 2), SizeField("s.usdz", at + 28, 2)]
        edges += [at, at + 30, start, start + size]
        if name.endswith(".usdc"):
            inner, inner_edges = crate_layout(data[start:start + size])
            fields += [SizeField("s.usdz", start + f.offset, f.width) for f in inner]
            edges += [start + e for e in inner_edges]
    at = data.find(b"PK\x01\x02")
    while 0 <= at and data[at:at + 4] == b"PK\x01\x02" and at + 46 <= len(data):
        fields += [SizeField("s.usdz", at + off, w) for off, w in CENTRAL_SIZES]
        edges.append(at)
        name_len, extra_len, comment_len = struct.unpack_from("<HHH", data, at + 28)
        at += 46 + name_len + extra_len + comment_len
    end = data.rfind(b"PK\x05\x06")
    if end >= 0:
        fields += [SizeField("s.usdz", end + off, w) for off, w in END_SIZES]
        edges.append(end)
    return fields, sorted(e for e in edges if 0 <= e <= len(data))


def _entries(data: bytes) -> list[tuple[str, bytes]]:
    return [(name, data[start:start + size]) for _, start, size, name in _local_entries(data)]


def _package(entries: list[tuple[str, bytes]], deflate: set[int] = frozenset()) -> bytes:
    """A zip of `entries` (stored, but those whose index is in `deflate`), any names allowed."""
    import io
    import warnings
    import zipfile

    out = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w") as z:
        warnings.simplefilter("ignore")  # a name given twice, on purpose
        for k, (name, blob) in enumerate(entries):
            info = zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED if k in deflate else zipfile.ZIP_STORED
            z.writestr(info, blob)
    return out.getvalue()


def _usdz_hostile(rng: random.Random, files: dict[str, Entry], seed: Seed) -> str:
    """A package rebuilt around one hostile change: an entry renamed to a trick (`..`, absolute,
    a package, a twin), compressed, a huge stated size, a root layer naming paths out of the
    package and folder, or the inner crate's bytes changed and its sizes kept true."""
    import struct

    data = files.get(seed.main)
    if not isinstance(data, bytes):
        return ""
    entries = _entries(data)
    if not entries:
        return ""
    case = rng.randrange(6)
    k = rng.randrange(len(entries))
    if case == 0:
        trick = rng.choice(ENTRY_TRICKS)
        entries[k] = (trick, entries[k][1])
        files[seed.main] = _package(entries)
        return f"entry {k} named {trick[:40]!r}"
    if case == 1:
        files[seed.main] = _package(entries, {k})
        return f"entry {k} deflated"
    if case == 2:  # sizes that lie alike (the local header, the directory, or both)
        buf = bytearray(data)
        at = _local_entries(data)[k][0]
        value = rng.choice((0xFFFFFFFF, 0x7FFFFFFF, 1 << 30, len(data), len(data) - at, 0))
        where = rng.choice(("local", "directory", "both"))
        if where != "directory":
            struct.pack_into("<II", buf, at + 18, value, value)
        central = [m.start() for m in re.finditer(b"PK\x01\x02", data)]
        if where != "local" and k < len(central):
            struct.pack_into("<II", buf, central[k] + 20, value, value)
        files[seed.main] = bytes(buf)
        return f"entry {k} sizes {value} in the {where} header"
    if case == 3:  # a text root layer first, naming the crate and a path trick
        # no `@OUTSIDE@` here: filled in as the input is written, it would change the entry's size
        asset = rng.choice([t for t in ASSET_TRICKS if "@OUTSIDE@" not in t])
        root = ('#usda 1.0\n(\n    subLayers = [@' + asset + '@, @scene.usdc@]\n)\n').encode()
        entries.insert(0, ("root.usda", root))
        if rng.random() < 0.3:
            entries.append(("side.usda", SIDE_LAYER))
        files[seed.main] = _package(entries)
        return f"root.usda first, subLayers @{asset[:60]}@"
    if case == 4:  # the crate's bytes changed, its sizes in the zip kept true
        layers = [j for j, (n, _) in enumerate(entries) if n.endswith(".usdc")]
        if not layers:
            return ""
        j = rng.choice(layers)
        crate = bytearray(entries[j][1])
        if not crate:  # an earlier step emptied it
            return ""
        fields, _ = crate_layout(bytes(crate))
        if fields and rng.random() < 0.6:
            f = rng.choice(fields)
            value = rng.choice((0, 1, 0xFF, 1 << 31, 1 << 40, (1 << 64) - 1, len(crate), len(crate) * 4))
            crate[f.offset:f.offset + 8] = (value & ((1 << 64) - 1)).to_bytes(8, "little")
            step = f"crate field @{f.offset} -> {value}"
        else:
            i = rng.randrange(len(crate))
            del crate[i:i + rng.choice((1, 8, 64))]
            step = f"crate cut at {i}"
        entries[j] = (entries[j][0], bytes(crate))
        files[seed.main] = _package(entries)
        return step
    # a second layer entry: another crate (a twin of the first, damaged), or the entries reordered
    if rng.random() < 0.5:
        name, crate = entries[0]
        crate = bytearray(crate)
        for _ in range(rng.choice((1, 4, 16))):
            if crate:
                crate[rng.randrange(len(crate))] ^= 1 << rng.randrange(8)
        entries.append(("more.usdc", bytes(crate)))
        files[seed.main] = _package(entries)
        return "a damaged twin crate added"
    rng.shuffle(entries)
    files[seed.main] = _package(entries)
    return f"entries reordered: {[n for n, _ in entries][:3]}"


@functools.lru_cache(maxsize=1)
def usdz_seeds() -> list[Seed]:
    made = _exports()
    seeds = []
    for label in ("package", "package-variants"):
        files = dict(made[label])
        fields, edges = usdz_layout(files["s.usdz"])
        seeds.append(Seed(label, files, "s.usdz", kind={n: "binary" for n in files}, size_fields=fields,
                          boundaries={"s.usdz": edges}, special=[_usdz_hostile]))
    return seeds


def usd_deep(files: dict[str, Entry], depth: int) -> None:
    """A layer of prims nested `depth` deep (a regression case too large to commit)."""
    files["s.usda"] = b"#usda 1.0\n" + b'def Xform "a" {\n' * depth + b"}\n" * depth


USD_SEEDS = {"usda": usda_seeds, "usdc": usdc_seeds, "usdz": usdz_seeds}
