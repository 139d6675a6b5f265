"""Derived foliage (grass) scattered on the GPU around the camera, never stored.

The vertex shader turns `gl_InstanceID` into a candidate of a tile near the eye, hashes it exactly
as `model.foliage.derived_grass` does, reads the type's layer weight from an integer texture and
either places the mesh or drops it. Heights and layer weights live in textures that follow the
terrain's change events (only the changed rectangle is re-uploaded). On a big terrain the textures
hold a window of the grid around what the view needs (read tile by tile from a paged terrain),
moved when the eye leaves it, so their memory follows the grass's reach, not the terrain's size.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable

import numpy as np
from OpenGL import GL

from model.errors import FormatError
from model.foliage.derived_grass import (
    TILE_CELLS,
    min_weight_u8,
    per_tile,
    tiles_near,
    type_base,
)
from model.foliage.foliage_type import FoliageType
from model.holes import sample_mask
from model.scene import Scene
from rendering.gl_program import (
    ShaderProgram,
    capture_points,
    feedback_program,
    load_shader_source,
)
from rendering.meshes import VERTEX_FLOATS, builtin_mesh, mesh_for
from rendering.renderer import FrameContext, Renderer
from rendering.terrain_renderer import foliage_fog, set_lit_uniforms

VERSION = "#version 330 core\n"
FEEDBACK_VARYINGS = ("f_grows", "f_placed", "f_scale")
FEEDBACK_FLOATS = 6  # uint grows, vec4 (x, y, z, yaw), float scale
GRASS_SEED = 0
WHOLE_TEXELS = 2049 * 2049  # up to this many samples the textures hold the whole grid (16 MB)
WINDOW_MARGIN = 512  # samples kept around the needed block, so flying seldom moves the window


def grass_vertex_source(main: str) -> str:
    return VERSION + load_shader_source("grass_common.glsl") + "\n" + load_shader_source(main)


class GrassRenderer(Renderer):
    """Draws every derived type of the scene's palette around the eye."""

    def __init__(self, scene: Scene, request_update: Callable[[], None] = lambda: None) -> None:
        self.scene = scene
        self.terrain = scene.terrain
        self.request_update = request_update
        self.program: ShaderProgram | None = None
        self._feedback_program = 0
        self._heights_tex = 0
        self._dummy_tex = 0
        self._layer_tex: dict[str, int] = {}
        self._holes_tex = 0
        self._holes_dirty: tuple[int, int, int, int] | None = None
        self._meshes: dict[str, tuple[int, int, int]] = {}  # mesh name → (vao, vbo, vertices)
        self._heights_dirty: tuple[int, int, int, int] | None = None
        self._layers_dirty: dict[str, tuple[int, int, int, int]] = {}
        self._all_dirty = True
        self._window: tuple[int, int, int, int] | None = None  # grid rows r0:r1, columns c0:c1 held
        self.window_moves = 0  # times the textures were filled for a new window
        self.drawn: dict[str, int] = {}  # candidates submitted per type in the last frame
        self._subscribed = False
        self._subscribe()

    # ---- model events --------------------------------------------------------------------------
    def _subscribe(self) -> None:
        """Follow the terrain's edits; after a release (context lost) the next draw subscribes again."""
        if not self._subscribed:
            t = self.terrain
            t.heights_changed.connect(self._on_heights)
            t.layer_weights_changed.connect(self._on_weights)
            t.layers_changed.connect(self._on_layers)
            t.holes_changed.connect(self._on_holes)
            self._subscribed = True
            self._all_dirty = True

    def _rect(self, rows: slice, cols: slice | None) -> tuple[int, int, int, int]:
        r0, r1, _ = rows.indices(self.terrain.rows)
        c0, c1, _ = (cols if cols is not None else slice(None)).indices(self.terrain.columns)
        return r0, r1, c0, c1

    @staticmethod
    def _union(a, b):
        if a is None:
            return b
        return (min(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), max(a[3], b[3]))

    def _on_heights(self, rows: slice, cols: slice | None = None) -> None:
        self._heights_dirty = self._union(self._heights_dirty, self._rect(rows, cols))
        self.request_update()

    def _on_weights(self, index: int, rows: slice, cols: slice | None = None) -> None:
        name = self.terrain.layers[index].name
        self._layers_dirty[name] = self._union(self._layers_dirty.get(name), self._rect(rows, cols))
        self.request_update()

    def _on_holes(self, rows: slice, cols: slice | None = None) -> None:
        self._holes_dirty = self._union(self._holes_dirty, self._rect(rows, cols))
        self.request_update()

    def _on_layers(self) -> None:
        self._all_dirty = True
        self.request_update()

    # ---- scene ---------------------------------------------------------------------------------
    def derived_types(self) -> list[FoliageType]:
        section = self.scene.sections.get("foliage")
        palette = getattr(section, "palette", None)
        return [t for t in palette if t.derived] if palette is not None else []

    # ---- GL ------------------------------------------------------------------------------------
    def initialize(self) -> None:
        self.program = ShaderProgram(grass_vertex_source("grass_vert.glsl"),
                                     VERSION + load_shader_source("foliage_shading.glsl") + "\n"
                                     + load_shader_source("grass_frag.glsl"), "grass")
        self._heights_tex = self._texture()
        self._dummy_tex = self._texture()
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._dummy_tex)
        GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, GL.GL_R8UI, 1, 1, 0, GL.GL_RED_INTEGER, GL.GL_UNSIGNED_BYTE,
                        np.zeros(1, np.uint8))
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        self._all_dirty = True

    @staticmethod
    def _texture() -> int:
        tex = int(GL.glGenTextures(1))
        GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
        # texelFetch only, but a texture without mipmaps must not ask for them to be complete
        for name in (GL.GL_TEXTURE_MIN_FILTER, GL.GL_TEXTURE_MAG_FILTER):
            GL.glTexParameteri(GL.GL_TEXTURE_2D, name, GL.GL_NEAREST)
        for name in (GL.GL_TEXTURE_WRAP_S, GL.GL_TEXTURE_WRAP_T):
            GL.glTexParameteri(GL.GL_TEXTURE_2D, name, GL.GL_CLAMP_TO_EDGE)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        return tex

    # ---- the window of the grid the textures hold ------------------------------------------------
    def _block_rect(self, tile0, tiles) -> tuple[int, int, int, int]:
        """Grid samples a block of grass tiles reads: its cells and the next sample (bilinear)."""
        t = self.terrain
        return (tile0[1] * TILE_CELLS, min(t.rows, (tile0[1] + tiles[1]) * TILE_CELLS + 2),
                tile0[0] * TILE_CELLS, min(t.columns, (tile0[0] + tiles[0]) * TILE_CELLS + 2))

    def _fit_window(self, need: tuple[int, int, int, int]) -> None:
        """Hold a window covering `need` (the whole grid on a small terrain): a new one, with a
        margin, only when `need` leaves the current one; every texture is refilled then."""
        t = self.terrain
        if t.rows * t.columns <= WHOLE_TEXELS:
            want = (0, t.rows, 0, t.columns)
        else:
            w = self._window
            if (w is not None and w[0] <= need[0] and need[1] <= w[1] and w[2] <= need[2]
                    and need[3] <= w[3]):
                return
            want = (max(0, need[0] - WINDOW_MARGIN), min(t.rows, need[1] + WINDOW_MARGIN),
                    max(0, need[2] - WINDOW_MARGIN), min(t.columns, need[3] + WINDOW_MARGIN))
        if want != self._window:
            self._window = want
            self._all_dirty = True
            self.window_moves += 1

    def _in_window(self, rect) -> tuple[tuple[slice, slice], tuple[int, int]] | None:
        """The part of a grid rectangle (all of the window for None) inside the window: its grid
        slices and its texel offset; None where they do not meet."""
        w0, w1, v0, v1 = self._window
        r0, r1, c0, c1 = (w0, w1, v0, v1) if rect is None else rect
        r0, r1, c0, c1 = max(r0, w0), min(r1, w1), max(c0, v0), min(c1, v1)
        if r1 <= r0 or c1 <= c0:
            return None
        return (slice(r0, r1), slice(c0, c1)), (c0 - v0, r0 - w0)

    def _upload(self, tex: int, internal, fmt, kind, read, rect=None) -> None:
        """Fill the texture with the window (rect None) or refresh the rectangle's part of it;
        `read(rows, cols)` gives the grid's values there."""
        part = self._in_window(rect)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
        if rect is None:
            w0, w1, v0, v1 = self._window
            GL.glTexImage2D(GL.GL_TEXTURE_2D, 0, internal, v1 - v0, w1 - w0, 0, fmt, kind,
                            np.ascontiguousarray(read(*part[0])))
        elif part is not None:
            (rows, cols), (x, y) = part
            GL.glTexSubImage2D(GL.GL_TEXTURE_2D, 0, x, y, cols.stop - cols.start, rows.stop - rows.start,
                               fmt, kind, np.ascontiguousarray(read(rows, cols)))
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)

    def _upload_heights(self, rect=None) -> None:
        self._upload(self._heights_tex, GL.GL_R32F, GL.GL_RED, GL.GL_FLOAT, self.terrain.read_heights, rect)

    def _upload_layer(self, name: str, rect=None) -> None:
        layer = self.terrain.layer(name)
        if layer is None:
            return
        if name not in self._layer_tex:
            self._layer_tex[name] = self._texture()
            rect = None
        self._upload(self._layer_tex[name], GL.GL_R8UI, GL.GL_RED_INTEGER, GL.GL_UNSIGNED_BYTE,
                     layer.read, rect)

    def _upload_holes(self, rect=None) -> None:
        if not self._holes_tex:
            self._holes_tex = self._texture()
            rect = None
        self._upload(self._holes_tex, GL.GL_R8UI, GL.GL_RED_INTEGER, GL.GL_UNSIGNED_BYTE,
                     lambda rows, cols: sample_mask(self.terrain, rows, cols), rect)

    def _sync(self, types: list[FoliageType], need: tuple[int, int, int, int]) -> None:
        """Textures up to date for `types` over the grid rectangle `need` (at least)."""
        wanted = {t.layer.name for t in types if t.layer is not None}
        self._fit_window(need)
        if self.terrain.holes is None:
            if self._holes_tex:  # gone (undone): a mask made later is sent whole
                GL.glDeleteTextures(1, [self._holes_tex])
                self._holes_tex = 0
            self._holes_dirty = None
        elif self._all_dirty or not self._holes_tex:
            self._upload_holes()
            self._holes_dirty = None
        elif self._holes_dirty is not None:
            self._upload_holes(self._holes_dirty)
            self._holes_dirty = None
        if self._all_dirty:
            self._upload_heights()
            for tex in self._layer_tex.values():
                GL.glDeleteTextures(1, [tex])
            self._layer_tex.clear()
            self._all_dirty = False
            self._heights_dirty = None
            self._layers_dirty.clear()
        if self._heights_dirty is not None:
            self._upload_heights(self._heights_dirty)
            self._heights_dirty = None
        for name in wanted:
            if name not in self._layer_tex:
                self._upload_layer(name)
            elif name in self._layers_dirty:
                self._upload_layer(name, self._layers_dirty.pop(name))
        # a layer no type drawn now reads keeps its changes for when one does again
        self._layers_dirty = {n: r for n, r in self._layers_dirty.items() if n in self._layer_tex}

    def _mesh(self, name: str) -> tuple[int, int, int]:
        if name in self._meshes:
            return self._meshes[name]
        try:
            folder = self.scene.path.parent if self.scene.path is not None else None
            mesh = mesh_for(name, folder)
        except (FormatError, KeyError):
            mesh = builtin_mesh("grass")
        vao = int(GL.glGenVertexArrays(1))
        vbo = int(GL.glGenBuffers(1))
        GL.glBindVertexArray(vao)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, vbo)
        GL.glBufferData(GL.GL_ARRAY_BUFFER, mesh.vertices.nbytes, mesh.vertices, GL.GL_STATIC_DRAW)
        for loc, offset in ((0, 0), (1, 12), (2, 24)):
            GL.glEnableVertexAttribArray(loc)
            GL.glVertexAttribPointer(loc, 3, GL.GL_FLOAT, GL.GL_FALSE, VERTEX_FLOATS * 4,
                                     ctypes.c_void_p(offset))
        GL.glBindVertexArray(0)
        GL.glBindBuffer(GL.GL_ARRAY_BUFFER, 0)
        self._meshes[name] = (vao, vbo, len(mesh.vertices))
        return self._meshes[name]

    def _set_type_uniforms(self, p: int | ShaderProgram, ftype: FoliageType, tile0, tiles) -> bool:
        """Uniforms of grass_common.glsl; False when the type cannot grow anywhere."""
        t = self.terrain
        layer_tex = self._dummy_tex
        if ftype.layer is not None:
            if ftype.layer.name not in self._layer_tex:
                return False  # its layer does not exist: nothing grows
            layer_tex = self._layer_tex[ftype.layer.name]
        values = {
            "u_type_base": ("1ui", type_base(GRASS_SEED, ftype.name)),
            "u_per_tile": ("1i", per_tile(ftype, t)),
            "u_tile_cells": ("1i", TILE_CELLS),
            "u_tile0": ("2i", tile0),
            "u_tiles_x": ("1i", tiles[0]),
            "u_origin": ("2f", t.origin),
            "u_spacing": ("1f", t.spacing),
            "u_grid": ("2i", (t.columns, t.rows)),
            "u_min_weight": ("1ui", min_weight_u8(ftype)),
            "u_has_layer": ("1i", int(ftype.layer is not None)),
            "u_yaw": ("2f", ftype.yaw),
            "u_scale": ("2f", ftype.scale),
            "u_heights": ("1i", 0),
            "u_weights": ("1i", 1),
            "u_texel0": ("2i", (self._window[2], self._window[0])),
            "u_has_holes": ("1i", int(t.holes is not None and bool(self._holes_tex))),
            "u_holes": ("1i", 2),
        }
        program = p.id if isinstance(p, ShaderProgram) else p
        for name, (kind, value) in values.items():
            loc = GL.glGetUniformLocation(program, name)
            if loc < 0:
                continue
            if kind == "1ui":
                GL.glUniform1ui(loc, int(value))
            elif kind == "1i":
                GL.glUniform1i(loc, int(value))
            elif kind == "2i":
                GL.glUniform2i(loc, int(value[0]), int(value[1]))
            elif kind == "1f":
                GL.glUniform1f(loc, float(value))
            else:
                GL.glUniform2f(loc, float(value[0]), float(value[1]))
        GL.glActiveTexture(GL.GL_TEXTURE0)
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._heights_tex)
        GL.glActiveTexture(GL.GL_TEXTURE1)
        GL.glBindTexture(GL.GL_TEXTURE_2D, layer_tex)
        GL.glActiveTexture(GL.GL_TEXTURE2)
        GL.glBindTexture(GL.GL_TEXTURE_2D, self._holes_tex if self._holes_tex else self._dummy_tex)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        return True

    def draw(self, frame: FrameContext) -> None:
        if self.program is None:
            self.initialize()
        self._subscribe()
        types = self.derived_types()
        self.drawn = {}
        if not types:
            return
        eye = frame.camera.eye()
        top = self.terrain.height_range()[1]  # paged: from the tiles' ranges
        plans = []
        for ftype in types:
            start, end = ftype.cull
            end = max(end, start + 1e-3)
            if eye[1] - top > end:
                continue  # too high above the ground for any blade to show
            tile0, tiles = tiles_near(self.terrain, eye[0], eye[2], end)
            count = tiles[0] * tiles[1] * per_tile(ftype, self.terrain)
            if count:
                plans.append((ftype, start, end, tile0, tiles, count))
        if not plans:
            return
        rects = [self._block_rect(tile0, tiles) for _, _, _, tile0, tiles, _ in plans]
        self._sync([plan[0] for plan in plans], (min(r[0] for r in rects), max(r[1] for r in rects),
                                                  min(r[2] for r in rects), max(r[3] for r in rects)))
        p = self.program
        p.use()
        set_lit_uniforms(p, frame, foliage_fog(frame))
        for ftype, start, end, tile0, tiles, count in plans:
            if not self._set_type_uniforms(p, ftype, tile0, tiles):
                continue
            p.set_uniform("u_fade", np.array([start, end], np.float32))
            vao, _, vertices = self._mesh(ftype.mesh)
            GL.glBindVertexArray(vao)
            GL.glDrawArraysInstanced(GL.GL_TRIANGLES, 0, vertices, count)
            self.drawn[ftype.name] = count
            frame.stats.grass += count
        GL.glBindVertexArray(0)

    # ---- the GPU's candidates, read back (tests compare them with the CPU reference) ------------
    def _feedback(self) -> int:
        if self._feedback_program:
            return self._feedback_program
        program = feedback_program(grass_vertex_source("grass_feedback_vert.glsl"), FEEDBACK_VARYINGS,
                                   "grass feedback")
        self._feedback_program = int(program)
        return self._feedback_program

    def gpu_candidates(self, type_name: str, tile0: tuple[int, int], tiles: tuple[int, int]) -> dict:
        """Run the shader's scatter for a tile block and read it back: grows, position, yaw, scale.

        Needs the viewport's context current.
        """
        if self.program is None:
            self.initialize()
        ftype = next(t for t in self.derived_types() if t.name == type_name)
        self._sync([ftype], self._block_rect(tile0, tiles))
        count = tiles[0] * tiles[1] * per_tile(ftype, self.terrain)
        out = np.zeros((max(count, 1), FEEDBACK_FLOATS), np.float32)
        program = self._feedback()
        GL.glUseProgram(program)
        if count and self._set_type_uniforms(program, ftype, tile0, tiles):
            vao = int(GL.glGenVertexArrays(1))  # no attributes: the shader derives each candidate
            GL.glBindVertexArray(vao)
            capture_points(count, out)
            GL.glBindVertexArray(0)
            GL.glDeleteVertexArrays(1, [vao])
        GL.glUseProgram(0)
        out = out[:count]
        return {"grows": out[:, 0].view(np.uint32) == 1, "position": out[:, 1:4].astype(np.float64),
                "yaw": out[:, 4].astype(np.float64), "scale": out[:, 5].astype(np.float64)}

    def release(self) -> None:
        t = self.terrain
        t.heights_changed.disconnect(self._on_heights)
        t.layer_weights_changed.disconnect(self._on_weights)
        t.layers_changed.disconnect(self._on_layers)
        t.holes_changed.disconnect(self._on_holes)
        self._subscribed = False
        if self.program is not None:
            self.program.delete()
            self.program = None
        if self._feedback_program:
            GL.glDeleteProgram(self._feedback_program)
            self._feedback_program = 0
        textures = [tex for tex in [self._heights_tex, self._dummy_tex, self._holes_tex,
                                    *self._layer_tex.values()] if tex]
        if textures:
            GL.glDeleteTextures(len(textures), textures)
        self._heights_tex = self._dummy_tex = self._holes_tex = 0
        self._layer_tex.clear()
        self._window = None
        for vao, vbo, _ in self._meshes.values():
            GL.glDeleteVertexArrays(1, [vao])
            GL.glDeleteBuffers(1, [vbo])
        self._meshes.clear()
        self._all_dirty = True
