"""The TRN document: the IFF tree read from disk plus typed views of every chunk it understands.

The tree is never rebuilt: typed records write their values back into the chunks they came from,
so unknown chunks, unknown versions and everything around them survive untouched.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model.atomic import atomic_write
from model.errors import FormatError
from model.trn import iff, layouts
from model.trn.fields import Record, decode
from model.trn.iff import Chunk, Form

FAMILY_KINDS = ("shader", "flora", "radial", "environment", "fractal", "bitmap")


@dataclass(eq=False)
class Family:
    """One family entry (SFAM, FFAM, RFAM, EFAM or MFAM); `fractal` holds the MFRC parameters."""

    kind: str
    record: Record
    fractal: Record | None = None
    fractal_version: str | None = None

    @property
    def id(self) -> int:
        return int(self.record["id"])

    @property
    def name(self) -> str:
        return str(self.record["name"])

    @property
    def color(self) -> tuple[int, int, int]:
        return tuple(self.record.get("color", (128, 128, 128)))

    @property
    def children(self) -> list[dict[str, Any]]:
        return self.record.get("children", [])


@dataclass(eq=False)
class Item:
    """A layer, boundary, filter or affector. Unsupported items keep only their node."""

    tag: str
    version: str | None
    node: Form
    path: str
    ihdr: Record | None = None
    params: Record | None = None  # item payload, or the layer's ADTA
    children: list[Item] = field(default_factory=list)
    unsupported: str | None = None  # reason, when the item is kept raw

    @property
    def kind(self) -> str:
        return layouts.kind_of(self.tag)

    @property
    def canonical_tag(self) -> str:
        return layouts.ALIASES.get(self.tag, self.tag)

    @property
    def title(self) -> str:
        return layouts.TITLES.get(self.tag, self.tag)

    @property
    def offset(self) -> int:
        return self.node.offset

    @property
    def name(self) -> str:
        return str(self.ihdr["name"]) if self.ihdr is not None else ""

    @name.setter
    def name(self, value: str) -> None:
        if self.ihdr is None:
            raise ValueError(f"{self.tag} at offset {self.offset} is kept raw and cannot be renamed")
        self.ihdr["name"] = value

    @property
    def active(self) -> bool:
        return bool(self.ihdr["active"]) if self.ihdr is not None else False

    @active.setter
    def active(self, value: bool) -> None:
        if self.ihdr is None:
            raise ValueError(f"{self.tag} at offset {self.offset} is kept raw")
        self.ihdr["active"] = int(bool(value))

    def walk(self):
        """This item and every item below it, depth first in file order."""
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(eq=False)
class Unsupported:
    path: str
    tag: str
    version: str | None
    offset: int
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"path": self.path, "tag": self.tag, "version": self.version, "offset": self.offset,
                "reason": self.reason}


class TrnDocument:
    """A parsed TRN file. Edit `header`, families and items; `to_bytes()` writes them back."""

    def __init__(self, root: Form, path: str | Path | None = None) -> None:
        self.root = root
        self.path = Path(path) if path is not None else None
        self.header: Record
        self.version = ""
        self.families: dict[str, list[Family]] = {k: [] for k in FAMILY_KINDS}
        self.layers: list[Item] = []
        self.unsupported: list[Unsupported] = []
        self.baked: dict[str, Any] | None = None
        self.group_versions: dict[str, str] = {}
        self._bindings: list[tuple[Record, Chunk]] = []
        reader = _Reader(self)
        reader.read()
        reader.report_tails()

    # ---- queries -----------------------------------------------------------------------
    def items(self):
        for layer in self.layers:
            yield from layer.walk()

    def family(self, kind: str, family_id: int) -> Family | None:
        for fam in self.families[kind]:
            if fam.id == family_id:
                return fam
        return None

    def tag_counts(self) -> Counter:
        """Item count per (tag, version) over the whole layer tree."""
        return Counter((it.tag, it.version) for it in self.items())

    @property
    def pole_spacing(self) -> float:
        tiles = max(1, int(self.header["tilesPerChunk"]))
        return float(self.header["chunkWidth"]) / tiles / 2.0

    @property
    def map_width(self) -> float:
        return float(self.header["mapWidth"])

    # ---- writing -----------------------------------------------------------------------
    def to_bytes(self) -> bytes:
        for record, chunk in self._bindings:
            chunk.data = record.to_bytes()
        return iff.serialize(self.root)

    def save(self, path: str | Path) -> None:
        atomic_write(path, self.to_bytes())


def read(path: str | Path) -> TrnDocument:
    return TrnDocument(iff.read(path), path)


def parse(data: bytes, path: str | Path | None = None) -> TrnDocument:
    return TrnDocument(iff.parse(data, path), path)


class _Reader:
    def __init__(self, doc: TrnDocument) -> None:
        self.doc = doc
        self.path = doc.path

    def fail(self, offset: int, reason: str) -> FormatError:
        return FormatError(self.path, offset, reason)

    def record(self, layout, chunk: Chunk, what: str) -> Record:
        values = decode(layout, chunk.data, chunk.data_offset, self.path, what)
        rec = Record(layout, values, chunk.data)
        self.doc._bindings.append((rec, chunk))
        return rec

    def keep(self, path: str, node: iff.Node, version: str | None, reason: str) -> None:
        tag = node.name if isinstance(node, Form) else node.tag
        self.doc.unsupported.append(Unsupported(path, tag, version, node.offset, reason))

    def tolerate(self, path: str, node: iff.Node, version: str | None, read):
        """Run `read()`; a block whose inside does not fit its layout is kept raw and reported
        (with the offset of the first byte that did not fit) instead of refusing the whole file."""
        mark = len(self.doc._bindings)
        try:
            return read()
        except FormatError as e:
            del self.doc._bindings[mark:]  # the block is written back exactly as read
            where = f" @ offset {e.place}" if isinstance(e.place, int) else ""
            self.keep(path, node, version, f"kept raw: {e.reason}{where}")
            return None

    def only_form(self, node: Form, what: str) -> Form:
        if len(node.children) != 1 or not isinstance(node.children[0], Form):
            raise self.fail(node.offset, f"{what}: expected exactly one version FORM inside")
        return node.children[0]

    def chunk(self, form: Form, tag: str, what: str) -> Chunk:
        found = form.chunks(tag)
        if not found:
            raise self.fail(form.offset, f"{what}: missing {tag} chunk")
        return found[0]

    def report_tails(self) -> None:
        """Left-over bytes too short for a block header, anywhere in the file: kept, and listed."""
        for _, node in iff.walk(self.doc.root):
            if isinstance(node, Form) and node.tail:
                self.doc.unsupported.append(Unsupported(
                    "", node.name, None, node.tail_offset,
                    f"{len(node.tail)} bytes at the end of FORM {node.name} are too short for a block "
                    "(kept as they are)"))

    # ---- top level ---------------------------------------------------------------------
    def read(self) -> None:
        root = self.doc.root
        if root.name not in ("PTAT", "MPTA"):
            raise self.fail(root.offset + 8, f"not a TRN terrain generator: top form is FORM {root.name} "
                                             "(expected FORM PTAT)")
        if not root.children or not isinstance(root.children[0], Form):
            raise self.fail(root.offset + 12, "FORM PTAT must hold a version FORM")
        vform = root.children[0]
        if vform.name not in layouts.HEADER:
            raise self.fail(vform.offset + 8, f"unsupported TRN version {vform.name!r} "
                                              f"(this reader knows {', '.join(layouts.VERSIONS)})")
        self.doc.version = vform.name
        for extra in root.children[1:]:
            self.keep("/", extra, None, "unexpected block after the version form")
        header = self.chunk(vform, "DATA", f"TRN {vform.name}")
        self.doc.header = self.record(layouts.HEADER[vform.name], header, f"header DATA ({vform.name})")
        tgens = vform.forms("TGEN")
        if not tgens:
            raise self.fail(vform.offset, "missing FORM TGEN")
        self.tgen(tgens[0])
        for child in vform.children:
            if child is header or child is tgens[0]:
                continue
            if isinstance(child, Form) and child.name in ("0000", "0001") and self.doc.baked is None:
                self.tolerate("/", child, child.name, lambda child=child: self.baked(child))
            elif isinstance(child, Form) and child.name in ("PIMP", "PFPM"):
                continue  # packed flora maps: kept raw by design
            else:
                self.keep("/", child, None, "unknown top-level block")

    def baked(self, form: Form) -> None:
        baked: dict[str, Any] = {"version": form.name}
        if form.name == "0001":
            data = self.chunk(form, "DATA", "baked terrain")
            rec = self.record(layouts.BAKED_DATA, data, "baked terrain DATA")
            baked.update(rec.values)
            for tag in ("WMAP", "SMAP"):  # u8 per cell; kept raw, but a size that does not fit is reported
                for chunk in form.chunks(tag):
                    if len(chunk.data) != rec["width"] * rec["height"]:
                        self.keep("/", chunk, form.name, f"baked {tag} holds {len(chunk.data)} bytes, "
                                  f"not {rec['width']} x {rec['height']}")
        self.doc.baked = baked

    # ---- TGEN --------------------------------------------------------------------------
    def tgen(self, tgen: Form) -> None:
        ver = self.only_form(tgen, "TGEN")
        if ver.name != "0000":
            self.keep("TGEN", tgen, ver.name, f"TGEN version {ver.name} is not supported")
            return
        mgrp_seen = 0
        for group in ver.children:
            if not isinstance(group, Form):
                self.keep("TGEN", group, None, "unknown chunk in TGEN")
                continue
            name = group.name
            if name == "LYRS":
                for i, child in enumerate(group.children):
                    if isinstance(child, Form):
                        self.doc.layers.append(self.item(child, f"{i}"))
                    else:
                        self.keep("LYRS", child, None, "unknown chunk in LYRS")
                continue
            if name not in layouts.GROUP_VERSIONS:
                self.keep("TGEN", group, None, f"unknown group {name}")
                continue
            if len(group.children) != 1 or not isinstance(group.children[0], Form):
                self.keep("TGEN", group, None, f"{name} does not hold exactly one version FORM")
                continue
            gver = group.children[0]
            if name == "MGRP":
                mgrp_seen += 1
            if gver.name not in layouts.GROUP_VERSIONS[name]:
                self.keep(name, group, gver.name, f"{name} version {gver.name} is not supported")
                continue
            self.doc.group_versions[name if name != "MGRP" or mgrp_seen == 1 else "MGRP bitmaps"] = gver.name
            getattr(self, f"group_{name.lower()}")(gver, mgrp_seen)

    def _family_chunks(self, gver: Form, tag: str, group: str):
        for child in gver.children:
            if isinstance(child, Chunk) and child.tag == tag:
                yield child
            else:
                self.keep(group, child, gver.name, f"unexpected block in {group}")

    def _flat_families(self, gver: Form, tag: str, group: str, kind: str, layout) -> None:
        for c in self._family_chunks(gver, tag, group):
            fam = self.tolerate(group, c, gver.name, lambda c=c: Family(kind, self.record(layout, c, tag)))
            if fam is not None:
                self.doc.families[kind].append(fam)

    def group_sgrp(self, gver: Form, _n: int) -> None:
        self._flat_families(gver, "SFAM", "SGRP", "shader", layouts.SFAM)

    def group_fgrp(self, gver: Form, _n: int) -> None:
        self._flat_families(gver, "FFAM", "FGRP", "flora", layouts.FFAM)

    def group_rgrp(self, gver: Form, _n: int) -> None:
        self._flat_families(gver, "RFAM", "RGRP", "radial", layouts.RFAM[gver.name])

    def group_egrp(self, gver: Form, _n: int) -> None:
        for child in gver.children:
            if isinstance(child, Form) and child.name == "EFAM":
                fam = self.tolerate("EGRP", child, gver.name, lambda child=child: Family(
                    "environment", self.record(layouts.EFAM, self.chunk(child, "DATA", "EFAM"), "EFAM DATA")))
                if fam is not None:
                    self.doc.families["environment"].append(fam)
            else:
                self.keep("EGRP", child, gver.name, "unexpected block in EGRP")

    def group_mgrp(self, gver: Form, n: int) -> None:
        bitmaps = n > 1
        for child in gver.children:
            if not (isinstance(child, Form) and child.name == "MFAM"):
                self.keep("MGRP", child, gver.name, "unexpected block in MGRP")
                continue
            fam = self.tolerate("MGRP", child, gver.name, lambda child=child: self.mfam(child, bitmaps))
            if fam is not None:
                self.doc.families[fam.kind].append(fam)

    def mfam(self, child: Form, bitmaps: bool) -> Family:
        data = self.chunk(child, "DATA", "MFAM")
        if bitmaps:
            return Family("bitmap", self.record(layouts.MFAM_BITMAP, data, "MFAM DATA (bitmap)"))
        fam = Family("fractal", self.record(layouts.MFAM_FRACTAL, data, "MFAM DATA"))
        mfrcs = child.forms("MFRC")
        if not mfrcs:
            raise self.fail(child.offset, f"fractal family {fam.id} has no FORM MFRC")
        mver = self.only_form(mfrcs[0], "MFRC")
        if mver.name not in layouts.MFRC:
            self.keep(f"MGRP/{fam.id}", mfrcs[0], mver.name, f"MFRC version {mver.name} is not supported")
        else:
            fam.fractal = self.record(layouts.MFRC[mver.name], self.chunk(mver, "DATA", "MFRC"),
                                      f"MFRC {mver.name} DATA")
            fam.fractal_version = mver.name
        return fam

    # ---- layers and items --------------------------------------------------------------
    def item(self, node: Form, path: str) -> Item:
        tag = node.name
        if len(node.children) != 1 or not isinstance(node.children[0], Form):
            it = Item(tag, None, node, path, unsupported="no single version form")
            self.keep(path, node, None, it.unsupported)
            return it
        vform = node.children[0]
        version = vform.name
        known = (tag == "LAYR" and version in layouts.ADTA) or (tag, version) in layouts.ITEMS
        if not known:
            reason = (f"unknown item {tag}" if layouts.kind_of(tag) == "unknown" or tag == "ARIB"
                      else f"{tag} version {version} is not supported")
            it = Item(tag, version, node, path, unsupported=reason)
            self.keep(path, node, version, reason)
            return it
        it = self.tolerate(path, node, version, lambda: self.known_item(node, vform, path))
        if it is None:  # its inside does not fit the layout: kept raw, reported
            it = Item(tag, version, node, path, unsupported=self.doc.unsupported[-1].reason)
        return it

    def known_item(self, node: Form, vform: Form, path: str) -> Item:
        tag, version = node.name, vform.name
        children = list(vform.children)
        if not children or not isinstance(children[0], Form) or children[0].name != "IHDR":
            raise self.fail(vform.offset, f"{tag} {version}: the first child must be FORM IHDR")
        it = Item(tag, version, node, path, ihdr=self.ihdr(children[0], tag))
        rest = children[1:]
        if tag == "LAYR":
            if not rest or not isinstance(rest[0], Chunk) or rest[0].tag != "ADTA":
                raise self.fail(vform.offset, f"LAYR {version}: missing ADTA after IHDR")
            it.params = self.record(layouts.ADTA[version], rest[0], f"LAYR {version} ADTA")
            for i, child in enumerate(rest[1:]):
                if isinstance(child, Form):
                    it.children.append(self.item(child, f"{path}/{i}"))
                else:
                    self.keep(path, child, version, f"unexpected chunk {child.tag} in a layer")
            return it
        layout = layouts.ITEMS[(tag, version)]
        payload = self.payload_chunk(tag, version, vform, rest, required=bool(layout))
        if payload is None:  # an item with no fields (AEXC) written without its empty DATA
            it.params = Record(layout, {})
        else:
            it.params = self.record_any((layout, *layouts.ALT_ITEMS.get((tag, version), ())), payload,
                                        f"{tag} {version} payload")
        return it

    def record_any(self, candidates, chunk: Chunk, what: str) -> Record:
        """The first of `candidates` that consumes the chunk exactly; else the first one's error."""
        first: FormatError | None = None
        for layout in candidates:
            try:
                return self.record(layout, chunk, what)
            except FormatError as e:
                first = first or e
        raise first

    def ihdr(self, form: Form, tag: str) -> Record:
        ver = self.only_form(form, f"{tag} IHDR")
        if ver.name not in layouts.IHDR:
            raise self.fail(ver.offset + 8, f"{tag} IHDR version {ver.name} is not supported")
        return self.record(layouts.IHDR[ver.name], self.chunk(ver, "DATA", "IHDR"), f"{tag} IHDR")

    def payload_chunk(self, tag: str, version: str, vform: Form, rest: list,
                      required: bool = True) -> Chunk | None:
        if tag in layouts.PARM_ITEMS or tag in layouts.NESTED_DATA_ITEMS:
            inner = [c for c in rest if isinstance(c, Form) and c.name == "DATA"]
            if not inner:
                raise self.fail(vform.offset, f"{tag} {version}: missing FORM DATA")
            want = "PARM" if tag in layouts.PARM_ITEMS else "DATA"
            return self.chunk(inner[0], want, f"{tag} {version} FORM DATA")
        chunks = [c for c in rest if isinstance(c, Chunk) and c.tag == "DATA"]
        if not chunks:
            if not required:
                return None
            raise self.fail(vform.offset, f"{tag} {version}: missing DATA chunk")
        return chunks[0]
