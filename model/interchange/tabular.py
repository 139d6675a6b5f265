"""Instances as CSV or JSON for engine-side import scripts, written and read back.

One row (CSV) or object (JSON) per instance: type, position and quaternion in the target frame
(the export's conventions), the record's yaw/pitch/roll in degrees (in the scene frame: yaw about
up, pitch about right, roll about forward, R = Ry·Rx·Rz), the uniform scale, and optionally the
4×4 matrix, then the instance's look (variant index, its mesh, hue and value shift; derived from
its position hash, so the reader ignores them). The CSV's leading `#` lines and the JSON's
top-level keys state these conventions; our reader takes the angles when present (exact) and the
quaternion otherwise.

Written chunk by chunk, each chunk formatted by one `%` over the whole batch (no per-value Python
loop); float32 values with 9 significant digits, which restores them bit for bit.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np

from model import portable_math as pmath
from model.atomic import atomic_write
from model.errors import FormatError
from model.foliage.foliage_type import foliage_type_to_dict
from model.foliage.volume import MAX_COORDINATE
from model.interchange.conventions import Conventions, from_target, quaternions, to_target
from model.interchange.gltf import json_safe
from model.interchange.instances import (
    TypeLook,
    instance_chunks,
    instance_counts,
    selected_types,
    type_look,
    volume_of,
)
from model.interchange.options import (
    DEFAULT_OPTIONS,
    ExportOptions,
    ExportReport,
    ImportedFoliage,
    Progress,
    check_instances,
    check_progress,
)
from model.json_doc import expect, field, numbers, read_json_file
from model.scene import Scene

FORMAT = "boscage-instances"
VERSION = 1
COLUMNS = ("type", "x", "y", "z", "yaw_deg", "pitch_deg", "roll_deg", "qx", "qy", "qz", "qw", "scale")
MATRIX_COLUMNS = tuple(f"m{r}{c}" for r in range(4) for c in range(4))
# each instance's look, derived from its position hash as the viewport draws it (never read back:
# the position decides it again)
LOOK_COLUMNS = ("variant", "mesh", "hue_shift", "value_shift")
LOOK_NOTE = ("variant: which of the type's meshes the instance draws (0 for a type with one), mesh: "
             "that mesh as the palette names it; hue_shift (degrees) and value_shift (brightness "
             "change, -0.2: 20 % darker): the instance's colour variation")
ROTATION_NOTE = ("yaw_deg/pitch_deg/roll_deg: the scene's angles in degrees, applied yaw (about up) "
                 "then pitch (about right) then roll (about forward), R = Ry*Rx*Rz in Boscage's "
                 "right-handed +Y-up frame; qx,qy,qz,qw: the same rotation as a unit quaternion in "
                 "the target frame")
MATRIX_NOTE = ("4x4 transform T*R*S in the target frame for column vectors, written row by row "
               "(m00 m01 m02 m03 m10 ...; the translation is m03 m13 m23)")
F32 = "%.9g"   # enough digits to restore any float32
DEG = "%.12g"
BATCH = 65536
MAX_JSON_BYTES = 1 << 30


def _metadata(conv: Conventions) -> dict:
    return {"format": FORMAT, "version": VERSION,
            "conventions": {"up": conv.up, "handedness": conv.handedness, "units": conv.units},
            "position": f"target frame: +{conv.up.upper()} up, {conv.handedness}-handed, {conv.units}",
            "rotation": ROTATION_NOTE, "scale": "uniform", "look": LOOK_NOTE}


def _columns(records: np.ndarray, conv: Conventions, matrix: bool) -> np.ndarray:
    """(n, 11 or 27) float64 of x y z, yaw pitch roll (degrees), qx qy qz qw, scale[, matrix]."""
    t = to_target(records, conv)
    parts = [t.positions.astype(np.float32).astype(np.float64),
             pmath.degrees(records[:, 3:6].astype(np.float64)),
             t.rotations.astype(np.float32).astype(np.float64), records[:, 6:7].astype(np.float64)]
    if matrix:
        parts.append(t.matrices().reshape(-1, 16))
    return np.concatenate(parts, axis=1)


def _row_format(matrix: bool) -> str:
    return ",".join([F32] * 3 + [DEG] * 3 + [F32] * 5 + ([F32] * 16 if matrix else []))


def _look_values(records: np.ndarray, name: str, look: TypeLook, cols: np.ndarray,
                 quote) -> tuple[list[str], np.ndarray]:
    """The format of each LOOK_COLUMNS value, and the rows' values with the varying ones appended.
    Constants (variant 0, the one mesh, no shift) go into the format itself, so most types format
    as fast as without them."""
    pieces = ["0", quote(look.meshes[0]).replace("%", "%%"), "0", "0"]
    values = cols
    if look.variants > 1:
        variant = look.variant_of(records, name)
        values = np.empty((len(cols), cols.shape[1] + 2), object)
        values[:, :-2] = cols
        values[:, -2] = variant.tolist()
        values[:, -1] = np.array([quote(m) for m in look.meshes], object)[variant]
        pieces[:2] = ["%d", "%s"]
    if look.shifted:
        values = np.concatenate([values, look.shifts_of(records, name).astype(np.float64)], axis=1)
        pieces[2:] = [F32, F32]
    return pieces, values


def _csv_field(text: str) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow([text])
    return buf.getvalue()


def _batches(scene: Scene, options: ExportOptions):
    """(type name, records) in batches of up to BATCH instances, chunk order kept."""
    name, parts, n = None, [], 0
    for chunk in instance_chunks(scene, options):
        if parts and (chunk.type_name != name or n >= BATCH):
            yield name, np.concatenate(parts)
            parts, n = [], 0
        name = chunk.type_name
        parts.append(chunk.records)
        n += len(chunk.records)
    if parts:
        yield name, np.concatenate(parts)


def write_tabular(scene: Scene, path: str | Path, options: ExportOptions = DEFAULT_OPTIONS,
                  progress: Progress | None = None) -> ExportReport:
    """Write `.csv` or `.json` of the selected instances (atomic, cancellable)."""
    path = Path(path)
    as_json = path.suffix.lower() == ".json"
    conv = options.conventions
    counts = instance_counts(scene, options)
    total = sum(n for *_, n in counts)
    types: dict[str, int] = {}
    for name, _, n in counts:
        types[name] = types.get(name, 0) + n
    check_progress(progress, 0, total)
    meta = _metadata(conv)
    if options.matrix:
        meta["matrix"] = MATRIX_NOTE
    volume = volume_of(scene)
    looks = {name: type_look(scene, name) for name in types}

    def write(f) -> None:
        done = 0
        if as_json:
            palette = {}
            for name in selected_types(scene, options):
                ftype = volume.palette.get(name) if volume is not None else None
                palette[name] = {"count": types.get(name, 0),
                                 "palette": json_safe(foliage_type_to_dict(ftype)) if ftype else None}
            head = json.dumps({**meta, "types": palette}, ensure_ascii=False, indent=1)[:-2]
            f.write((head + ',\n "instances": [').encode("utf-8"))
            first = True
            for name, records in _batches(scene, options):
                cols = _columns(records, conv, options.matrix)
                quoted = json.dumps(name, ensure_ascii=False).replace("%", "%%")
                fmt = (f'\n  {{"type": {quoted}, "position": [{F32}, {F32}, {F32}], '
                       f'"rotation_deg": [{DEG}, {DEG}, {DEG}], '
                       f'"quaternion": [{F32}, {F32}, {F32}, {F32}], "scale": {F32}')
                if options.matrix:
                    fmt += ', "matrix": [' + ", ".join([F32] * 16) + "]"
                pieces, values = _look_values(records, name, looks[name], cols,
                                              lambda t: json.dumps(t, ensure_ascii=False))
                fmt += "".join(f', "{key}": {p}' for key, p in zip(LOOK_COLUMNS, pieces, strict=True)) + "},"
                text = (fmt * len(cols)) % tuple(values.ravel().tolist())
                first = False
                f.write(text.encode("utf-8"))
                done += len(cols)
                check_progress(progress, done, total)
            # the last object's trailing comma is overwritten: seek back one byte
            if not first:
                f.seek(-1, io.SEEK_CUR)
            f.write(b"\n ]\n}\n")
            f.truncate()
        else:
            lines = [f"# {FORMAT} v{VERSION}: one row per instance"]
            for key in ("position", "rotation", "scale", "matrix", "look"):
                if key in meta:
                    lines.append(f"# {key}: {meta[key]}")
            c = meta["conventions"]
            lines.append(f"# conventions: up={c['up']} handedness={c['handedness']} units={c['units']}")
            lines.append(",".join(COLUMNS + (MATRIX_COLUMNS if options.matrix else ()) + LOOK_COLUMNS))
            f.write(("\n".join(lines) + "\n").encode("utf-8"))
            row = _row_format(options.matrix)
            for name, records in _batches(scene, options):
                cols = _columns(records, conv, options.matrix)
                pieces, values = _look_values(records, name, looks[name], cols, _csv_field)
                fmt = _csv_field(name).replace("%", "%%") + "," + row + "," + ",".join(pieces) + "\n"
                f.write(((fmt * len(cols)) % tuple(values.ravel().tolist())).encode("utf-8"))
                done += len(cols)
                check_progress(progress, done, total)

    atomic_write(path, write)
    return ExportReport(path, total, types, 0, path.stat().st_size)


# ---- reading ------------------------------------------------------------------------------------
def _conventions(path: Path, where: str, doc) -> Conventions:
    if not isinstance(doc, dict):
        return Conventions()
    values = {k: doc.get(k, default) for k, default in (("up", "y"), ("handedness", "right"), ("units", "m"))}
    for key, value in values.items():
        expect(path, value, "string", f"{where}.{key}")
    try:
        return Conventions(**values)
    except ValueError as e:
        raise FormatError(path, where, str(e)) from None


def _records(path: Path, place_of, values: np.ndarray, names: list[str], conv: Conventions) -> np.ndarray:
    """Records from columns named `names` (see COLUMNS / MATRIX_COLUMNS) of float64 `values`;
    `place_of(row)` names a row's line or index in the file."""
    col = {n: i for i, n in enumerate(names)}
    finite = np.isfinite(values).all(axis=1)
    if not finite.all():
        raise FormatError(path, place_of(int(np.argmin(finite))), "a number is not finite")
    place = place_of(0)

    def get(*keys):
        return values[:, [col[k] for k in keys]]

    have = set(names)
    if not {"x", "y", "z"} <= have and not set(MATRIX_COLUMNS) <= have:
        raise FormatError(path, place, "needs x, y, z (or the matrix columns)")
    if {"x", "y", "z"} <= have:
        pos = get("x", "y", "z")
    else:
        pos = get("m03", "m13", "m23")
    far = (np.abs(pos) > MAX_COORDINATE).any(axis=1)
    if far.any():  # refused before float32 turns it into infinity
        row = int(np.argmax(far))
        raise FormatError(path, place_of(row), f"position ({', '.join(f'{v:g}' for v in pos[row])}) "
                          f"lies beyond ±{MAX_COORDINATE:g} m")
    scale = get("scale")[:, 0] if "scale" in have else None
    if {"qx", "qy", "qz", "qw"} <= have:
        q = get("qx", "qy", "qz", "qw")
        zero = np.linalg.norm(q, axis=1) < 1e-6
        if zero.any():
            raise FormatError(path, place_of(int(np.argmax(zero))), "a quaternion is zero")
    elif set(MATRIX_COLUMNS) <= have:
        m = get(*MATRIX_COLUMNS).reshape(-1, 4, 4)
        s3 = np.linalg.norm(m[:, :3, :3], axis=1)
        flat = (s3 < 1e-12).any(axis=1)
        if flat.any():
            raise FormatError(path, place_of(int(np.argmax(flat))), "a matrix has a zero scale")
        q = quaternions(m[:, :3, :3] / s3[:, None, :])
        scale = s3.mean(axis=1) if scale is None else scale
    else:
        q = np.tile([0.0, 0.0, 0.0, 1.0], (len(values), 1))
    if scale is None:
        scale = np.ones(len(values))
    out = from_target(pos, q, scale, conv)
    if conv.is_identity:
        out[:, :3] = pos.astype(np.float32)  # as written: no conversion, bit for bit
    if {"yaw_deg", "pitch_deg", "roll_deg"} <= have:
        out[:, 3:6] = pmath.radians(get("yaw_deg", "pitch_deg", "roll_deg")).astype(np.float32)
    return out


def read_tabular(path: str | Path, progress: Progress | None = None) -> ImportedFoliage:
    path = Path(path)
    if path.suffix.lower() == ".json":
        return _read_json(path, progress)
    return _read_csv(path, progress)


def _read_csv(path: Path, progress: Progress | None) -> ImportedFoliage:
    conv = Conventions()
    result = ImportedFoliage()
    parts: dict[str, list[np.ndarray]] = {}
    try:
        f = path.open("r", encoding="utf-8", newline="")
    except OSError as e:
        raise FormatError(path, None, e.strerror or str(e)) from None
    total = max(path.stat().st_size, 1)
    with f:
        header: list[str] | None = None
        names: list[str] = []
        line_no = 0
        rows: list[list[str]] = []
        types: list[str] = []
        row_lines: list[int] = []

        def flush() -> None:
            if not rows:
                return
            lines_of = np.asarray(row_lines)

            def place_of(k: int) -> str:
                return f"line {lines_of[k]}"
            try:
                values = np.array(rows, np.float64)
            except ValueError:
                for k, r in enumerate(rows):
                    try:
                        [float(v) for v in r]
                    except ValueError:
                        raise FormatError(path, f"line {row_lines[k]}", f"not a number in {r!r}") from None
                raise
            rec = _records(path, place_of, values, names, conv)
            names_arr = np.array(types, object)
            for t in dict.fromkeys(types):
                mine = np.flatnonzero(names_arr == t)
                check_instances(path, t, rec[mine], lambda k, rows=mine: place_of(rows[k]))
                parts.setdefault(t, []).append(rec[mine])
            rows.clear()
            types.clear()
            row_lines.clear()

        read = 0

        def lines():
            nonlocal read
            for text in f:
                read += len(text)  # characters, near enough to bytes for a progress bar
                yield text

        try:
            reader = csv.reader(lines())
            for line in reader:
                line_no = reader.line_num
                if not line or (line[0].startswith("#") and header is None):
                    if line and line[0].startswith("# conventions:"):
                        text = ",".join(line)[len("# conventions:"):]
                        kv = dict(p.split("=", 1) for p in text.split() if "=" in p)
                        conv = _conventions(path, f"line {line_no}", kv)
                    continue
                if header is None:
                    header = [h.strip() for h in line]
                    if "type" not in header:
                        raise FormatError(path, f"line {line_no}", "header has no 'type' column")
                    unknown = [h for h in header if h not in COLUMNS + MATRIX_COLUMNS + LOOK_COLUMNS]
                    if unknown:
                        raise FormatError(path, f"line {line_no}", f"unknown columns {', '.join(unknown)}")
                    if not ({"x", "y", "z"} <= set(header) or set(MATRIX_COLUMNS) <= set(header)):
                        raise FormatError(path, f"line {line_no}", "header needs x, y, z (or m00..m33)")
                    ti = header.index("type")
                    text_columns = {ti} | ({header.index("mesh")} if "mesh" in header else set())
                    names = [h for i, h in enumerate(header) if i not in text_columns]
                    continue
                if len(line) != len(header):
                    raise FormatError(path, f"line {line_no}",
                                      f"{len(line)} fields; the header has {len(header)}")
                row_lines.append(line_no)
                types.append(line[ti])
                rows.append([v for i, v in enumerate(line) if i not in text_columns])
                if len(rows) >= BATCH:
                    flush()
                    check_progress(progress, min(read, total), total)
            flush()
        except UnicodeDecodeError as e:
            raise FormatError(path, None, f"not UTF-8 text: {e.reason}") from None
        except csv.Error as e:
            raise FormatError(path, f"line {line_no}", str(e)) from None
        if header is None:
            raise FormatError(path, None, "no header line")
    for name in parts:
        result.records[name] = np.concatenate(parts[name])
    check_progress(progress, total, total)
    return result


def _read_json(path: Path, progress: Progress | None) -> ImportedFoliage:
    doc = expect(path, read_json_file(path, MAX_JSON_BYTES, "JSON of instances"), "object", "(document)")
    instances = field(path, doc, "instances", "array", "")
    conv = _conventions(path, "conventions", field(path, doc, "conventions", "object", "", None))
    result = ImportedFoliage()
    for name, info in field(path, doc, "types", "object", "", {}).items():
        where = f"types.{name}"
        palette = field(path, expect(path, info, "object", where), "palette", "object", where, None)
        if palette is not None:
            result.extras[name] = palette
            mesh = palette.get("mesh", "builtin:conifer")
            if isinstance(mesh, str) and mesh.startswith("builtin:"):
                result.meshes[name] = mesh
    by_type: dict[str, list[int]] = {}
    for i, item in enumerate(instances):
        field(path, expect(path, item, "object", f"instances[{i}]"), "type", "string", f"instances[{i}]")
        by_type.setdefault(item["type"], []).append(i)
    done = 0
    widths = {"position": 3, "rotation_deg": 3, "quaternion": 4, "scale": 1, "matrix": 16}
    cols = {"position": ["x", "y", "z"], "rotation_deg": ["yaw_deg", "pitch_deg", "roll_deg"],
            "quaternion": ["qx", "qy", "qz", "qw"], "scale": ["scale"], "matrix": list(MATRIX_COLUMNS)}
    for name, idx in by_type.items():
        first = instances[idx[0]]
        keys = [k for k in widths if k in first]
        if "position" not in keys and "matrix" not in keys:
            raise FormatError(path, f"instances[{idx[0]}]", "needs 'position' (or 'matrix')")
        for i in idx:  # one type's instances carry the same transform keys: none is ignored
            other = [k for k in widths if k in instances[i]]
            if other != keys:
                raise FormatError(path, f"instances[{i}]", f"has {', '.join(other) or 'no transform'}, "
                                  f"but instances[{idx[0]}] of type {name!r} has {', '.join(keys)}")
        values = np.empty((len(idx), sum(widths[k] for k in keys)))
        for row, i in enumerate(idx):
            item = instances[i]
            at = 0
            for k in keys:
                where = f"instances[{i}].{k}"
                if k == "scale":
                    values[row, at] = expect(path, item.get(k), "number", where)
                else:
                    values[row, at:at + widths[k]] = numbers(path, item.get(k), widths[k], where)
                at += widths[k]
        names = [c for k in keys for c in cols[k]]

        def place_of(k: int, rows=idx) -> str:
            return f"instances[{rows[k]}]"

        records = _records(path, place_of, values, names, conv)
        check_instances(path, name, records, place_of)
        result.records[name] = records
        done += len(idx)
        check_progress(progress, done, len(instances))
    return result
