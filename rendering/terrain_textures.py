"""The terrain's layer textures on the GPU: one mipmapped GL_TEXTURE_2D_ARRAY per map kind (albedo,
normal, roughness, height), a slot per textured layer, filled in the background.

The files are decoded and resized off the GL thread (`model.layer_textures`, shared through its
cache); each frame uploads what is ready within a time budget and asks for another frame until
every map is in, so a scene opens as fast as one without textures and its layers show their
colours until their textures arrive.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from OpenGL import GL

from model.layer_material import MAP_KINDS
from model.layer_textures import CHANNELS, array_sides, load_maps, texture_requests
from model.terrain import Terrain
from rendering.gl_program import ShaderProgram
from rendering.terrain_mesh import TEXTURE_SLOTS, textured_layers, untextured_extras

UNITS = {"albedo": 1, "normal": 2, "roughness": 3, "height": 4}  # texture unit 0 is the foliage cover
MAP_BITS = {"albedo": 1, "normal": 2, "roughness": 4, "height": 8}
UPLOAD_BUDGET_S = 0.012  # of each frame spent uploading ready maps (at least one map a frame)
_FORMATS = {4: (GL.GL_RGBA8, GL.GL_RGBA), 1: (GL.GL_R8, GL.GL_RED)}


class TerrainTextures:
    """Texture arrays for `terrain`'s textured layers (`textured_layers`), files relative to
    `folder()`. `warn(message)` hears each unreadable file once, and once the textured layers past
    the slots (named); `request_update()` asks for a frame while maps are still coming; `progress(done,
    total)` hears each map in (and (0, 0) when a job has nothing to load). `pending` says whether
    any are still coming."""

    def __init__(self, terrain: Terrain, folder: Callable[[], Path | None],
                 warn: Callable[[str], None] = lambda m: None,
                 request_update: Callable[[], None] = lambda: None,
                 progress: Callable[[int, int], None] = lambda done, total: None) -> None:
        self.terrain = terrain
        self.folder = folder
        self.warn = warn
        self.request_update = request_update
        self.progress = progress
        self._extras: tuple[str, ...] = ()  # textured layers drawn in their colour, last warned about
        self._signature: tuple | None = None
        self._arrays: dict[str, int] = {}  # kind → texture name
        self._sides: dict[str, int] = {}
        self._loaded = np.zeros(TEXTURE_SLOTS, np.int32)  # per slot: MAP_BITS of the maps uploaded
        self._means = np.ones((TEXTURE_SLOTS, 3), np.float32)  # albedo means: the tint's reference
        self._queue: queue.Queue = queue.Queue()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._expected = 0  # maps the current job will deliver at most
        self._job_done = True
        self.uploaded = 0  # maps sent to the GPU since the job began
        self.uploads = 0  # maps sent since creation (a test reads it: textures are not sent twice)

    # ---- the background job ------------------------------------------------------------
    def _materials(self) -> list:
        return [self.terrain.layers[i].material for i in textured_layers(self.terrain)]

    def _start(self, signature: tuple) -> None:
        self._stop()
        self._signature = signature
        self._loaded[:] = 0
        self._means[:] = 1.0
        self.uploaded = 0
        folder = self.folder()
        materials = self._materials()
        if folder is None or not materials:
            if materials:
                self.warn("the scene's layer textures are drawn once the scene is saved in a folder")
            self._job_done = True
            self._expected = 0
            self.progress(0, 0)
            return
        self._queue = queue.Queue()
        self._cancel = threading.Event()
        self._job_done = False
        requests = texture_requests(Path(folder), materials)
        self._expected = len(requests)
        self.progress(0, self._expected)
        q, cancel = self._queue, self._cancel

        def job() -> None:
            try:
                sides, readable = array_sides(Path(folder), requests, lambda m: q.put(("warn", m)))
                q.put(("sides", sides))
                for prepared in load_maps(Path(folder), readable, sides, lambda m: q.put(("warn", m)),
                                          cancelled=cancel.is_set):
                    q.put(("map", prepared))
            except Exception as e:  # noqa: BLE001 — a slip here must not leave the frame waiting
                q.put(("warn", f"the layer textures could not be loaded: {e}"))
            finally:
                q.put(("done", None))

        self._thread = threading.Thread(target=job, name="terrain-textures", daemon=True)
        self._thread.start()

    def _stop(self) -> None:
        self._cancel.set()
        self._thread = None
        self._delete_arrays()

    def _delete_arrays(self) -> None:
        if self._arrays:
            GL.glDeleteTextures(len(self._arrays), list(self._arrays.values()))
        self._arrays.clear()
        self._sides.clear()

    @property
    def pending(self) -> bool:
        """Whether maps are still being read or uploaded (a screenshot waits for them)."""
        return not self._job_done or not self._queue.empty()

    # ---- per frame ---------------------------------------------------------------------
    def sync(self) -> None:
        """Follow the layers' materials and upload what the job has made, within the frame's budget."""
        self._check_extras()
        materials = self._materials()
        signature = (self.folder(), tuple(materials))
        if signature != self._signature:
            self._start(signature)
        start = time.perf_counter()
        while time.perf_counter() - start < UPLOAD_BUDGET_S:
            try:
                what, item = self._queue.get_nowait()
            except queue.Empty:
                break
            if what == "warn":
                self.warn(item)
            elif what == "sides":
                self._allocate(item, len(materials))
            elif what == "map":
                self._upload(item)
                self.progress(self.uploaded, self._expected)
            else:
                self._job_done = True
                if self.uploaded < self._expected:  # unreadable maps: the count is over all the same
                    self.progress(self._expected, self._expected)
        if self.pending:
            self.request_update()

    def _check_extras(self) -> None:
        """Warn once (per set of names) about the textured layers past the slots: they draw their colour."""
        extras = tuple(untextured_extras(self.terrain))
        if extras and extras != self._extras:
            names = ", ".join(f"'{n}'" for n in extras)
            self.warn(f"textures are drawn for the first {TEXTURE_SLOTS} textured layers only: {names} "
                      f"show{'s' if len(extras) == 1 else ''} the layer colour")
        self._extras = extras

    def _allocate(self, sides: dict[str, int], depth: int) -> None:
        self._delete_arrays()
        for kind, side in sides.items():
            tex = int(GL.glGenTextures(1))
            GL.glBindTexture(GL.GL_TEXTURE_2D_ARRAY, tex)
            internal, fmt = _FORMATS[CHANNELS[kind]]
            levels = side.bit_length()
            for level in range(levels):
                s = max(1, side >> level)
                GL.glTexImage3D(GL.GL_TEXTURE_2D_ARRAY, level, internal, s, s, max(1, depth), 0, fmt,
                                GL.GL_UNSIGNED_BYTE, None)
            GL.glTexParameteri(GL.GL_TEXTURE_2D_ARRAY, GL.GL_TEXTURE_MAX_LEVEL, levels - 1)
            GL.glTexParameteri(GL.GL_TEXTURE_2D_ARRAY, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_LINEAR)
            GL.glTexParameteri(GL.GL_TEXTURE_2D_ARRAY, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
            for name in (GL.GL_TEXTURE_WRAP_S, GL.GL_TEXTURE_WRAP_T):
                GL.glTexParameteri(GL.GL_TEXTURE_2D_ARRAY, name, GL.GL_REPEAT)
            self._arrays[kind] = tex
            self._sides[kind] = side
        GL.glBindTexture(GL.GL_TEXTURE_2D_ARRAY, 0)

    def _upload(self, prepared) -> None:
        r = prepared.request
        tex = self._arrays.get(r.kind)
        if tex is None:
            return
        _, fmt = _FORMATS[CHANNELS[r.kind]]
        GL.glBindTexture(GL.GL_TEXTURE_2D_ARRAY, tex)
        GL.glPixelStorei(GL.GL_UNPACK_ALIGNMENT, 1)
        for level, pixels in enumerate(prepared.levels):
            s = pixels.shape[0]
            GL.glTexSubImage3D(GL.GL_TEXTURE_2D_ARRAY, level, 0, 0, r.slot, s, s, 1, fmt, GL.GL_UNSIGNED_BYTE,
                               np.ascontiguousarray(pixels))
        GL.glBindTexture(GL.GL_TEXTURE_2D_ARRAY, 0)
        self._loaded[r.slot] |= MAP_BITS[r.kind]
        if r.kind == "albedo":
            self._means[r.slot] = np.maximum(prepared.mean[:3], 1.0 / 255.0)
        self.uploaded += 1
        self.uploads += 1

    # ---- drawing -----------------------------------------------------------------------
    def slots_in_use(self) -> int:
        """Textured layers drawn with their maps (0: the terrain shows its flat colours only)."""
        return len(textured_layers(self.terrain))

    def content_key(self) -> tuple:
        """Changes whenever what the blend reads changes: materials, maps in, layer colours."""
        colours = tuple(tuple(layer.color) for layer in self.terrain.layers)
        return self._signature, self.uploads, tuple(int(v) for v in self._loaded), colours

    def bind(self, p: ShaderProgram) -> None:
        """Bind the arrays and set the per-slot uniforms of the terrain program `p` (in use)."""
        layers = [self.terrain.layers[i] for i in textured_layers(self.terrain)]
        n = len(layers)
        p.set_uniform("u_slots", n)
        if not n:
            return
        colours = np.zeros((TEXTURE_SLOTS, 3), np.float32)
        tiling = np.ones(TEXTURE_SLOTS, np.float32)
        triplanar = np.zeros(TEXTURE_SLOTS, np.float32)
        for k, layer in enumerate(layers):
            colours[k] = np.asarray(layer.color, np.float32) / 255.0
            tiling[k] = layer.material.tiling
            triplanar[k] = 1.0 if layer.material.triplanar else 0.0
        tint = colours / self._means  # the texture's mean comes out as the layer's colour
        for name, values, setter in (("u_color", colours, GL.glUniform3fv), ("u_tint", tint, GL.glUniform3fv),
                                     ("u_tiling", tiling, GL.glUniform1fv),
                                     ("u_triplanar", triplanar, GL.glUniform1fv)):
            loc = p.location(name)
            if loc >= 0:
                setter(loc, TEXTURE_SLOTS, np.ascontiguousarray(values, np.float32))
        loc = p.location("u_maps")
        if loc >= 0:
            GL.glUniform1iv(loc, TEXTURE_SLOTS, np.ascontiguousarray(self._loaded, np.int32))
        for kind in MAP_KINDS:
            GL.glActiveTexture(GL.GL_TEXTURE0 + UNITS[kind])
            GL.glBindTexture(GL.GL_TEXTURE_2D_ARRAY, self._arrays.get(kind, 0))
        GL.glActiveTexture(GL.GL_TEXTURE0)

    def unbind(self) -> None:
        for kind in MAP_KINDS:
            GL.glActiveTexture(GL.GL_TEXTURE0 + UNITS[kind])
            GL.glBindTexture(GL.GL_TEXTURE_2D_ARRAY, 0)
        GL.glActiveTexture(GL.GL_TEXTURE0)

    def release(self) -> None:
        """Drop the arrays (context going); the next `sync` starts again (from the shared cache)."""
        self._stop()
        self._signature = None
        self._job_done = True
        self._queue = queue.Queue()
