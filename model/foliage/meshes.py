"""Foliage meshes: the built-in low-poly set generated in code, and mesh files (glTF and OBJ with
their materials, other formats through trimesh).

A mesh is triangles, not indexed: float32 (n, 12) rows of position, normal, colour, texture
coordinates u, v and material index, three rows per triangle, sorted by material, +Y up, standing
on y = 0 at the origin; `Mesh.materials` holds the materials (`model.foliage.materials`). Numpy only
(no GL), so tests and the command line can use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from model import portable_math as pmath
from model.errors import FormatError
from model.foliage.materials import DEFAULT_MATERIAL, Material

VERTEX_FLOATS = 12
UV = slice(9, 11)  # texture coordinates (glTF's: v = 0 at the image's top)
MATERIAL = 11  # the triangle's index into Mesh.materials (a float, exact for small integers)
BARK = (0.36, 0.25, 0.16)
NEEDLES = (0.16, 0.33, 0.17)
LEAVES = (0.28, 0.47, 0.18)
SHRUB = (0.30, 0.44, 0.20)
STONE = (0.52, 0.50, 0.47)
BLADES = (0.42, 0.62, 0.22)
FILE_COLOUR = (0.55, 0.60, 0.45)  # a mesh file without colours


@dataclass(frozen=True, eq=False)
class Mesh:
    """Triangle soup (n, 12) float32, its materials (none: the default, untextured) and the
    warnings reading it gave (images that could not be used)."""

    name: str
    vertices: np.ndarray
    materials: tuple[Material, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def triangles(self) -> int:
        return len(self.vertices) // 3

    def material(self, index: int) -> Material:
        return self.materials[index] if 0 <= index < len(self.materials) else DEFAULT_MATERIAL

    @property
    def textured(self) -> bool:
        return any(m.base_texture is not None for m in self.materials)

    def surface_colours(self) -> np.ndarray:
        """(n, 3) float64 colour of each vertex as seen: its colour times its material's base
        colour texture, averaged over the texels the material shows (thumbnails, distant tints)."""
        colours = self.vertices[:, 6:9].astype(np.float64)
        for index, first, count in self.material_ranges():
            m = self.material(index)
            if m.base_texture is not None:
                px = m.base_texture.pixels.reshape(-1, 4)
                shown = px[px[:, 3] >= 255 * min(m.alpha_cutoff, 0.5)] if m.alpha_mode != "OPAQUE" else px
                if len(shown):
                    colours[first:first + count] *= shown[:, :3].astype(np.float64).mean(axis=0) / 255.0
        return colours

    def material_ranges(self) -> list[tuple[int, int, int]]:
        """(material index, first vertex, vertex count) of each run of one material."""
        ids = self.vertices[::3, MATERIAL].astype(np.int64)
        if not len(ids):
            return []
        starts = np.r_[0, np.flatnonzero(np.diff(ids)) + 1]
        ends = np.r_[starts[1:], len(ids)]
        return [(int(ids[a]), 3 * int(a), 3 * int(b - a)) for a, b in zip(starts, ends, strict=True)]

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        p = self.vertices[:, :3]
        return p.min(axis=0), p.max(axis=0)


def triangles(positions: np.ndarray, colour, uv=None, material=0, normals=None) -> np.ndarray:
    """Rows from (m, 3, 3) triangle corners (counter-clockwise seen from outside): flat-shaded, or
    with `normals` (m, 3, 3) where they are finite; `uv` (m, 3, 2) or zeros; `material` one index
    or one per triangle."""
    p = np.asarray(positions, np.float64).reshape(-1, 3, 3)
    n = np.cross(p[:, 1] - p[:, 0], p[:, 2] - p[:, 0])
    length = np.linalg.norm(n, axis=1, keepdims=True)
    n = np.broadcast_to((n / np.where(length > 0, length, 1.0))[:, None, :], p.shape)
    if normals is not None:
        given = np.asarray(normals, np.float64).reshape(-1, 3, 3)
        n = np.where(np.isfinite(given).all(axis=2, keepdims=True), given, n)
    out = np.empty((len(p), 3, VERTEX_FLOATS), np.float32)
    out[..., :3] = p
    out[..., 3:6] = n
    c = np.asarray(colour, np.float64)
    out[..., 6:9] = c.reshape(-1, 3, 3) if c.ndim == 3 else \
        np.broadcast_to(c.reshape(-1, 1, 3), (len(p), 3, 3))
    out[..., UV] = 0.0 if uv is None else np.asarray(uv, np.float64).reshape(-1, 3, 2)
    out[..., MATERIAL] = np.broadcast_to(np.asarray(material, np.float64).reshape(-1, 1), (len(p), 3))
    return out.reshape(-1, VERTEX_FLOATS)


def ring(radius: float, y: float, sides: int, phase: float = 0.0) -> np.ndarray:
    a = phase + np.arange(sides) * 2.0 * np.pi / sides
    return np.stack([radius * pmath.cos(a), np.full(sides, y), -radius * pmath.sin(a)], axis=1)


def frustum(r0: float, y0: float, r1: float, y1: float, sides: int, colour, phase: float = 0.0,
            cap: bool = True) -> np.ndarray:
    """A cone or truncated cone between two rings; r1 = 0 is a point on top."""
    lo, hi = ring(r0, y0, sides, phase), ring(r1, y1, sides, phase)
    nxt = np.roll(np.arange(sides), -1)
    tris = [np.stack([lo, lo[nxt], hi[nxt]], axis=1)]
    if r1 > 0:
        tris.append(np.stack([lo, hi[nxt], hi], axis=1))
    if cap:
        centre = np.broadcast_to([0.0, y0, 0.0], lo.shape)
        tris.append(np.stack([centre, lo[nxt], lo], axis=1))
    return triangles(np.concatenate(tris), colour)


def blob(rx: float, ry: float, cy: float, colour, seed: int, roughness: float = 0.12,
         rings: int = 5, sides: int = 8) -> np.ndarray:
    """A lumpy ellipsoid: a UV sphere whose vertices are pushed in and out by a fixed hash."""
    lat = np.linspace(0.0, np.pi, rings + 1)
    lon = np.arange(sides) * 2.0 * np.pi / sides
    la, lo = np.meshgrid(lat, lon, indexing="ij")
    idx = np.arange(la.size, dtype=np.uint32).reshape(la.shape)
    with np.errstate(over="ignore"):
        h = (idx * np.uint32(2654435761)) ^ np.uint32(seed * 40503 + 1)
        h = (h ^ (h >> np.uint32(13))) * np.uint32(1274126177)
    bump = 1.0 + roughness * ((h >> np.uint32(8)).astype(np.float64) / 2.0**24 - 0.5) * 2.0
    bump[0, :] = bump[0, 0]
    bump[-1, :] = bump[-1, 0]  # the poles stay single points
    x = rx * pmath.sin(la) * pmath.cos(lo) * bump
    y = np.maximum(cy + ry * pmath.cos(la) * bump, 0.0)  # a flat underside sits on the ground
    z = -rx * pmath.sin(la) * pmath.sin(lo) * bump
    p = np.stack([x, y, z], axis=-1)
    nxt = np.roll(np.arange(sides), -1)
    a, b = p[:-1], p[:-1][:, nxt]
    c, d = p[1:], p[1:][:, nxt]
    tris = np.concatenate([np.stack([a, c, d], axis=2).reshape(-1, 3, 3),
                           np.stack([a, d, b], axis=2).reshape(-1, 3, 3)])
    area = np.linalg.norm(np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]), axis=1)
    return triangles(tris[area > 1e-9], colour)


def _cylinder_uv(rows: np.ndarray, radius: float, repeat: float) -> np.ndarray:
    """Bark coordinates for a trunk's rows: u across it (seen from any side: a mirrored planar
    projection, no seam and no angles), v up it, one texture every `repeat` metres."""
    rows[:, 9] = 0.5 + 0.5 * (rows[:, 0] + rows[:, 2]) / (2.0 * radius)
    rows[:, 10] = -rows[:, 1] / repeat
    return rows


def _card(base, tip, side, width: float, colour, material: int, bend=None) -> np.ndarray:
    """A quad from `base` to `tip`, `width` across along `side`: u runs base → tip, v across.
    `bend`: a point the corner normals lean away from (a crown's middle), for soft round shading."""
    base, tip, side = (np.asarray(v, np.float64) for v in (base, tip, side))
    h = side / np.linalg.norm(side) * width / 2.0
    a, b, c, d = base + h, tip + h, tip - h, base - h
    rows = triangles(np.array([[a, b, c], [a, c, d]]), colour,
                     uv=np.array([[[0, 0], [1, 0], [1, 1]], [[0, 0], [1, 1], [0, 1]]], np.float64),
                     material=material)
    if bend is not None:
        face = rows[:, 3:6].astype(np.float64)
        face = np.where(face[:, 1:2] < 0, -face, face)  # the card's upper side
        out = rows[:, :3] - np.asarray(bend, np.float64)
        n = face * 0.45 + out / np.linalg.norm(out, axis=1, keepdims=True)
        rows[:, 3:6] = n / np.linalg.norm(n, axis=1, keepdims=True)
    return rows


def _material_rows(parts: list[np.ndarray]) -> np.ndarray:
    rows = np.concatenate(parts)
    tri = rows.reshape(-1, 3, VERTEX_FLOATS)
    return tri[np.argsort(tri[:, 0, MATERIAL], kind="stable")].reshape(-1, VERTEX_FLOATS)


def conifer() -> np.ndarray:
    """A spruce: a bark trunk, a dark core of three cones and tiers of cut-out branch cards
    drooping from the trunk, crossed cards at the leader: 2.5 m wide, 14 m tall (the built-in
    extent). Materials: `builtin_materials("conifer")`."""
    parts = [_cylinder_uv(frustum(0.28, 0.0, 0.12, 11.0, 6, (1.0, 1.0, 1.0)), 0.28, 1.6)]
    for r, y0, y1, shade in ((1.5, 2.4, 8.0, 0.92), (1.2, 5.5, 11.0, 1.0), (0.8, 8.8, 13.2, 1.08)):
        parts.append(frustum(r, y0, 0.0, y1, 8, tuple(c * shade * 0.75 for c in NEEDLES), phase=y0))
    for p in parts[1:]:
        p[:, MATERIAL] = 1
    tiers = 10
    for t in range(tiers):
        y = 2.6 + t * (12.8 - 2.6) / (tiers - 1)
        reach = 0.35 + 2.2 * (14.0 - y) / (14.0 - 2.6)
        cards = 7 if t < tiers - 3 else 5
        for k in range(cards):
            a = t * 2.39996 + k * 2.0 * np.pi / cards  # the golden angle between tiers
            d = np.array([pmath.cos(a), 0.0, -pmath.sin(a)])
            tilt = 0.9 if (t + k) % 2 else -0.9  # tilted either way: seen from the side as well
            side = np.array([pmath.sin(a), tilt, pmath.cos(a)])
            shade = 0.82 + 0.18 * t / tiers
            parts.append(_card(d * 0.1 + [0, y, 0], d * reach + [0, y - 0.3 * reach, 0], side,
                               reach * 1.1, (shade, shade, shade), 2, bend=(0.0, y - 1.0, 0.0)))
    for k in range(2):  # the leader: two crossed upright cards
        a = k * np.pi / 2
        parts.append(_card([0, 11.2, 0], [0, 14.0, 0], [pmath.cos(a), 0.0, -pmath.sin(a)], 1.3,
                           (1.0, 1.0, 1.0), 2))
    return _material_rows(parts)


def broadleaf() -> np.ndarray:
    """A broadleaf: a bark trunk, a dark lumpy core and leaf-cluster cards over the crown, each
    facing outwards at a hashed twist: 4.5 m wide, 11 m tall."""
    trunk = _cylinder_uv(frustum(0.38, 0.0, 0.2, 7.5, 6, (1.0, 1.0, 1.0)), 0.38, 1.8)
    core = blob(2.9, 2.3, 7.3, tuple(c * 0.6 for c in LEAVES), seed=11, roughness=0.1, rings=6, sides=10)
    core[:, MATERIAL] = 1
    parts = [trunk, core]
    n = 64
    idx = np.arange(n, dtype=np.uint32)
    with np.errstate(over="ignore"):
        h = (idx * np.uint32(2654435761)) ^ np.uint32(0x5BD1E995)
        h2 = (h ^ (h >> np.uint32(13))) * np.uint32(1274126177)
        h3 = (h2 ^ (h2 >> np.uint32(16))) * np.uint32(2246822519)
    u = (h >> np.uint32(8)).astype(np.float64) / 2.0**24
    v = (h2 >> np.uint32(8)).astype(np.float64) / 2.0**24
    w = (h3 >> np.uint32(8)).astype(np.float64) / 2.0**24
    # points spread over the crown's upper nine tenths: a Fibonacci-like lattice jittered by hash
    y = 1.0 - 1.8 * (idx + 0.5 * v) / n
    r = np.sqrt(np.maximum(1.0 - y * y, 0.0))
    a = idx * 2.39996 + u
    dirs = np.stack([r * pmath.cos(a), y, -r * pmath.sin(a)], axis=1)
    centre = np.array([0.0, 7.4, 0.0])
    for i, d in enumerate(dirs):
        p = centre + d * np.array([3.2, 2.5, 3.2])
        up = np.array([0.0, 1.0, 0.0]) if abs(d[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
        side = np.cross(d, up)
        side /= np.linalg.norm(side)
        along = np.cross(side, d)
        twist = w[i] - 0.5
        side, along = side + along * twist, along - side * twist
        size = 2.2 + 0.6 * u[i]
        shade = 0.8 + 0.2 * v[i]
        parts.append(_card(p - along * size / 2, p + along * size / 2, side, size,
                           (shade, shade, shade), 2, bend=centre))
    return _material_rows(parts)


def bush() -> np.ndarray:
    """A low lumpy dome: 1.2 m wide, 1.4 m tall."""
    return blob(1.15, 0.72, 0.66, SHRUB, seed=5, roughness=0.15, rings=5, sides=8)


def rock() -> np.ndarray:
    """A squat faceted boulder: 1.5 m wide, 1.2 m tall."""
    return blob(1.45, 0.75, 0.42, STONE, seed=3, roughness=0.3, rings=4, sides=7)


def grass() -> np.ndarray:
    """Three crossed blades (single triangles, lit from either side): 0.25 m wide, 0.5 m tall."""
    tris = []
    for k in range(3):
        a = k * np.pi / 3.0
        dx, dz = 0.22 * pmath.cos(a), 0.22 * pmath.sin(a)
        lean = 0.08 * np.array([pmath.sin(a + 1.0), 0.0, pmath.cos(a + 1.0)])
        left, right, tip = np.array([-dx, 0, -dz]), np.array([dx, 0, dz]), np.array([0, 0.5, 0]) + lean
        tris.append([left, right, tip])
    out = triangles(np.array(tris), BLADES)
    # Blades lit like the ground they cover: normals bent up, or they go dark under a high sun.
    n = out[:, 3:6] * 0.35 + np.array([0.0, 1.0, 0.0], np.float32)
    out[:, 3:6] = n / np.linalg.norm(n, axis=1, keepdims=True)
    return out


def builtin_materials(name: str) -> tuple[Material, ...]:
    """The materials of a built-in mesh: the trees' bark, crown core and cut-out cards (textures
    generated in `builtin_textures`); none for the others (the default look)."""
    from model.foliage.builtin_textures import builtin_texture

    cards = {"conifer": "spruce_branch", "broadleaf": "leaf_cluster"}
    if name not in cards:
        return ()
    # dielectric and rough (glTF's defaults are metal): what an exported tree shows in an engine
    look = {"metallic": 0.0, "roughness": 0.9}
    return (Material("bark", base_texture=builtin_texture("bark"), double_sided=False, **look),
            Material("crown", **look),
            Material("branches" if name == "conifer" else "leaves",
                     base_texture=builtin_texture(cards[name]), alpha_mode="MASK", double_sided=True, **look))


BUILTIN = {"conifer": conifer, "broadleaf": broadleaf, "bush": bush, "rock": rock, "grass": grass}


LOD_CELLS = (0.15, 0.35)  # clustering cell of generated level 1, 2: share of the mesh's size


def simplified(vertices: np.ndarray, cell: float, kept: np.ndarray | None = None) -> np.ndarray:
    """A coarser triangle soup by vertex clustering: corners snap to the centre of their grid
    cell, triangles that collapse or repeat are dropped, normals are recomputed, colours and
    materials kept. Triangles in `kept` (a mask, e.g. textured leaf cards, whose texture
    coordinates would not survive the snapping) are copied as they are.
    Written here (a few numpy lines) because the soup is flat-shaded and unindexed, which
    decimation libraries do not take as it is."""
    v = np.asarray(vertices, np.float64).reshape(-1, 3, VERTEX_FLOATS)
    if cell <= 0 or len(v) == 0:
        return np.asarray(vertices, np.float32)
    kept = np.zeros(len(v), bool) if kept is None else np.asarray(kept, bool)
    copied, v = v[kept], v[~kept]
    if len(v) == 0:
        return _by_material(copied.reshape(-1, VERTEX_FLOATS).astype(np.float32))
    p = v[..., :3]
    # a cluster holds one colour only: bark never snaps onto the crown (trunks would become wedges)
    _, material = np.unique(np.concatenate([v[:, 0, 6:9].round(4), v[:, 0, MATERIAL:]], axis=1), axis=0,
                            return_inverse=True)
    material = material.reshape(-1)
    q = np.concatenate([np.floor(p / cell).astype(np.int64),
                        np.broadcast_to(material.reshape(-1, 1, 1), p.shape[:2] + (1,))], axis=2)
    # each cluster's corners meet at its corner furthest from the mesh's middle, so crowns keep
    # their width and height (a mean would shrink every cone towards its cap's centre)
    flat, inverse = np.unique(q.reshape(-1, 4), axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    pts = p.reshape(-1, 3)
    middle = (pts.min(axis=0) + pts.max(axis=0)) / 2.0
    reach = pmath.hypot(pts[:, 0] - middle[0], pts[:, 2] - middle[2]) + np.abs(pts[:, 1] - middle[1])
    order = np.lexsort((-reach, inverse))
    pick = order[np.r_[0, np.flatnonzero(np.diff(inverse[order])) + 1]]
    centre = pts[pick]
    ids = inverse.reshape(-1, 3)
    keep = (ids[:, 0] != ids[:, 1]) & (ids[:, 1] != ids[:, 2]) & (ids[:, 0] != ids[:, 2])
    ids, colours, mats = ids[keep], v[keep, 0, 6:9], v[keep, 0, MATERIAL]
    _, first = np.unique(np.sort(ids, axis=1), axis=0, return_index=True)
    first = np.sort(first)
    out = triangles(centre[ids[first]], colours[first], material=mats[first])
    area = np.linalg.norm(np.cross(centre[ids[first]][:, 1] - centre[ids[first]][:, 0],
                                   centre[ids[first]][:, 2] - centre[ids[first]][:, 0]), axis=1)
    out = out.reshape(-1, 3, VERTEX_FLOATS)[area > 1e-9].reshape(-1, VERTEX_FLOATS)
    if not len(copied):
        return out
    return _by_material(np.concatenate([out, copied.reshape(-1, VERTEX_FLOATS).astype(np.float32)]))


def _by_material(rows: np.ndarray) -> np.ndarray:
    """Triangles ordered by material (stable), so each material is one run the renderer draws."""
    tri = rows.reshape(-1, 3, VERTEX_FLOATS)
    return tri[np.argsort(tri[:, 0, MATERIAL], kind="stable")].reshape(-1, VERTEX_FLOATS)


def lod_of(mesh: Mesh, level: int) -> Mesh:
    """Generated level `level` (1, 2) of a mesh: clustered at a share of its size; the mesh
    itself when clustering would leave nothing (a tiny one). Textured and cut-out triangles are
    kept whole."""
    lo, hi = mesh.bounds()
    size = float(np.min((hi - lo)[[0, 2]]))  # the width: a tall tree keeps its cones
    ids = mesh.vertices[::3, MATERIAL].astype(np.int64)
    special = np.array([mesh.material(i).base_texture is not None or mesh.material(i).alpha_mode != "OPAQUE"
                        for i in range(max(len(mesh.materials), 1))], bool)
    kept = special[np.clip(ids, 0, len(special) - 1)]
    coarse = simplified(mesh.vertices, size * LOD_CELLS[min(level, len(LOD_CELLS)) - 1], kept)
    return Mesh(f"{mesh.name}#lod{level}", coarse if len(coarse) else mesh.vertices, mesh.materials,
                mesh.warnings)


@cache
def builtin_mesh(name: str) -> Mesh:
    """One of `conifer`, `broadleaf`, `bush`, `rock`, `grass` (generated once); `NAME#lodK` is
    its generated level K."""
    if "#lod" in name:
        base, _, level = name.partition("#lod")
        if not level.isdigit() or not 1 <= int(level) <= len(LOD_CELLS):
            raise KeyError(f"no generated level {level!r} of {base!r}")
        return lod_of(builtin_mesh(base), int(level))
    if name not in BUILTIN:
        raise KeyError(f"no built-in mesh {name!r} (known: {', '.join(BUILTIN)})")
    return Mesh(f"builtin:{name}", BUILTIN[name](), builtin_materials(name))


def generate_builtin_meshes(palette) -> list[Mesh]:
    """Generate now the built-in meshes (and their generated levels) the palette's stored types
    draw, so a first frame finds them made (a helper thread calls this while the window is built)."""
    from model.foliage.lods import mesh_levels

    made: dict[str, Mesh] = {}
    for ftype in palette:
        if not ftype.stored:
            continue
        for level in mesh_levels(ftype):
            for name in level.meshes:
                if name.startswith("builtin:"):
                    try:
                        made[name] = builtin_mesh(name.removeprefix("builtin:"))
                    except KeyError:  # an unknown name: the renderer reports it
                        pass
    return list(made.values())


MAX_FILE_TRIANGLES = 200_000


def load_mesh_file(path: str | Path) -> Mesh:
    """A glTF/GLB or OBJ file with its materials, or another format trimesh reads (untextured);
    FormatError naming the file when it cannot be read. Images that cannot be used are warnings."""
    path = Path(path)
    if not path.is_file():
        raise FormatError(path, None, "mesh file not found")
    suffix = path.suffix.lower()
    if suffix in (".glb", ".gltf", ".obj"):
        from model.foliage.gltf_mesh import read_gltf_mesh
        from model.foliage.obj_mesh import read_obj_mesh

        reader = read_obj_mesh if suffix == ".obj" else read_gltf_mesh
        try:
            corners, normals, colours, uvs, ids, materials, warnings = reader(path, MAX_FILE_TRIANGLES)
        except OSError as e:
            raise FormatError(path, None, e.strerror or str(e)) from None
        rows = triangles(corners, colours, uvs, ids, normals)
        return Mesh(str(path), _by_material(rows), materials, warnings)
    return _load_with_trimesh(path)


def _load_with_trimesh(path: Path) -> Mesh:
    try:
        import trimesh
    except ImportError:  # pragma: no cover - trimesh is a dependency
        raise FormatError(path, None, "reading mesh files needs the 'trimesh' package") from None
    try:
        loaded = trimesh.load(str(path), force="mesh", process=False)
    except Exception as e:  # trimesh raises many kinds for a bad file; all mean "cannot read it"
        why = str(e).strip() or "not an OBJ or glTF file trimesh can read"
        raise FormatError(path, None, f"cannot read the mesh ({why})") from None
    faces = np.asarray(getattr(loaded, "faces", np.empty((0, 3))), np.int64)
    verts = np.asarray(getattr(loaded, "vertices", np.empty((0, 3))), np.float64)
    if faces.ndim != 2 or faces.shape[1] != 3 or len(faces) == 0:
        raise FormatError(path, None, "the file holds no triangles")
    if len(faces) > MAX_FILE_TRIANGLES:
        raise FormatError(path, None,
                          f"{len(faces)} triangles; at most {MAX_FILE_TRIANGLES} per foliage mesh")
    if faces.min() < 0 or faces.max() >= len(verts) or not np.all(np.isfinite(verts)):
        raise FormatError(path, None, "faces refer to missing or non-finite vertices")
    colour = np.broadcast_to(np.asarray(FILE_COLOUR), (len(faces), 3))
    try:
        fc = np.asarray(loaded.visual.face_colors, np.float64)
        if fc.shape == (len(faces), 4):
            colour = fc[:, :3] / 255.0
    except Exception:  # no per-face colours: keep the default
        pass
    return Mesh(str(path), triangles(verts[faces], colour))


def mesh_for(mesh: str, folder: str | Path | None = None) -> Mesh:
    """The mesh a FoliageType names: `builtin:<name>` or a file relative to `folder`."""
    if mesh.startswith("builtin:"):
        return builtin_mesh(mesh.removeprefix("builtin:"))
    base = Path(folder) if folder is not None else Path.cwd()
    target = (base / mesh).resolve()
    if base.resolve() not in target.parents:
        raise FormatError(target, None, "mesh path leaves the folder the type was opened from")
    return load_mesh_file(target)
