"""The terrain's baked base colour: each drawn tile's layer blend rendered once, from above, into a
texture of its own, which the terrain shader samples (one fetch) past a near radius instead of
blending every layer's maps per fragment, as engines' distance base maps / virtual textures do.

A texture holds the blend before lighting (albedo, roughness in alpha), height blending and
triplanar included: the bake runs the terrain program itself into a framebuffer (`u_bake`). Its
texel density follows the screen: about a texel per pixel at the tile's distance (never nearer than
the near radius), a power of two from `MIN_SIDE` to `MAX_SIDE`, re-baked at a finer size when the
camera comes closer. An edit re-bakes only the texels it touched (a scissored draw, the same frame);
new tiles and changed layers or textures bake within a time budget per frame, nearest first, and a
tile without a current bake draws the full blend meanwhile, so what shows is never stale.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from OpenGL import GL

from rendering.gl_program import ShaderProgram

Key = tuple[int, int, int]
Rect = tuple[int, int, int, int]  # texels x0, y0, x1, y1 (end exclusive)

CACHE_UNIT = 5  # texture unit of the cache (0: foliage cover, 1-4: the layers' map arrays)
NEAR_M = 40.0  # metres from the eye where the handover to the cache starts ...
BAND_M = 16.0  # ... and how wide its dither is
MIN_SIDE, MAX_SIDE = 32, 1024
CACHE_BYTES = 96 << 20  # GPU bytes of cache textures kept at most (mipmaps included)
BAKE_BUDGET_S = 0.03  # of each frame spent on full bakes (at least one a frame); edits are not budgeted


@dataclass
class _Entry:
    tex: int
    side: int
    tile: tuple[float, float, float, float]  # the tile's world x0, z0, x1, z1
    current: bool = False  # baked with the present layers, textures and heights
    dirty: Rect | None = None  # texels an edit touched since (re-baked before the next draw)

    @property
    def nbytes(self) -> int:
        return self.side * self.side * 16 // 3  # RGBA8 and its mipmaps

    def rect(self) -> tuple[float, float, float, float]:
        """World x, z of the texture's corner and the metres it spans: texel centres on the tile's edges."""
        x0, z0, x1, z1 = self.tile
        px, pz = (x1 - x0) / (self.side - 1), (z1 - z0) / (self.side - 1)
        return x0 - px / 2, z0 - pz / 2, x1 - x0 + px, z1 - z0 + pz


def wanted_side(size: float, distance: float, pixels_per_radian: float, near: float) -> int:
    """Texture side giving about a texel per pixel at `distance` (the near radius at the least)."""
    texel = max(distance, near) / max(pixels_per_radian, 1.0)
    want = size / texel
    return int(min(MAX_SIDE, max(MIN_SIDE, 1 << max(0, math.ceil(math.log2(max(want, 1.0)))))))


class TerrainBaseCache:
    """Base-colour textures of terrain tiles by key. `enabled` off draws the full blend everywhere
    (a debug switch); `bakes` counts full bakes and `patches` re-baked edits; `pending` says whether
    tiles in view still wait for a bake."""

    def __init__(self, near: float = NEAR_M, band: float = BAND_M, cache_bytes: int = CACHE_BYTES,
                 budget_s: float = BAKE_BUDGET_S) -> None:
        self.enabled = True
        self.near = near
        self.band = band
        self.cache_bytes = cache_bytes
        self.budget_s = budget_s
        self.entries: OrderedDict[Key, _Entry] = OrderedDict()  # least recently drawn first
        self.resident_bytes = 0
        self.bakes = 0
        self.patches = 0
        self.pending = False
        self._fbo = 0
        self._signature: object = None

    # ---- following the model ----------------------------------------------------------
    def invalidate(self) -> None:
        """Layers, textures or the whole grid changed: every tile bakes again (drawn in full meanwhile)."""
        for e in self.entries.values():
            e.current = False
            e.dirty = None

    def follow(self, signature: object) -> None:
        """Invalidate when what the blend reads (layer colours, materials, maps in) changed."""
        if signature != self._signature:
            self._signature = signature
            self.invalidate()

    def mark(self, x0: float, z0: float, x1: float, z1: float, margins: Callable[[Key], float]) -> None:
        """World rectangle an edit changed; each cache widens it by `margins(key)` metres (the tile's
        sample stride: interpolation and normals reach that far) and re-bakes the texels under it."""
        for key, e in self.entries.items():
            if not e.current:
                continue
            m = margins(key)
            tx0, tz0, tx1, tz1 = e.tile
            if x1 + m < tx0 or x0 - m > tx1 or z1 + m < tz0 or z0 - m > tz1:
                continue
            ox, oz, sx, sz = e.rect()
            n = e.side
            a = max(0, int(math.floor((x0 - m - ox) / sx * n)) - 1)
            b = min(n, int(math.ceil((x1 + m - ox) / sx * n)) + 1)
            c = max(0, int(math.floor((z0 - m - oz) / sz * n)) - 1)
            d = min(n, int(math.ceil((z1 + m - oz) / sz * n)) + 1)
            if a >= b or c >= d:
                continue
            if (b - a) * (d - c) * 2 > n * n:  # most of the tile: a full bake, within the frame budget
                e.current, e.dirty = False, None
                continue
            if e.dirty is not None:
                a, c = min(a, e.dirty[0]), min(c, e.dirty[1])
                b, d = max(b, e.dirty[2]), max(d, e.dirty[3])
            e.dirty = (a, c, b, d)

    # ---- per frame ----------------------------------------------------------------------
    def prepare(self, keys: list[Key], tiles: dict[Key, tuple[float, float, float, float, float]],
                pixels_per_radian: float, draw_tile: Callable[[Key], None], program: ShaderProgram) -> None:
        """Bake what the frame's tiles need: edits now, new or outdated tiles within the budget.
        `tiles[key]` = (x0, z0, x1, z1, distance from the eye); `draw_tile(key)` draws the tile's mesh
        with the program (in use, the layers' textures bound)."""
        self.pending = False
        if not self.enabled:
            return
        full: list[tuple[float, Key, int]] = []
        patch: list[Key] = []
        for key in keys:
            x0, z0, x1, z1, dist = tiles[key]
            far = math.hypot(x1 - x0, z1 - z0) + dist
            if far < self.near:  # wholly inside the near radius: never sampled
                continue
            side = wanted_side(max(x1 - x0, z1 - z0), dist, pixels_per_radian, self.near)
            e = self.entries.get(key)
            if e is None or not e.current or side > e.side or side * 4 <= e.side:
                full.append((dist, key, side))
            elif e.dirty is not None:
                patch.append(key)
            if e is not None:
                self.entries.move_to_end(key)
        if not full and not patch:
            return
        state = _save_state()
        baked: list[_Entry] = []
        # textures are made and mipmapped on the cache's unit: unit 0 holds the foliage cover the
        # frame draws with
        GL.glActiveTexture(GL.GL_TEXTURE0 + CACHE_UNIT)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)  # no bake samples the texture it draws into
        try:
            for key in patch:
                e = self.entries[key]
                self._bake(key, e, e.dirty, draw_tile, program)
                baked.append(e)
                self.patches += 1
            start = time.perf_counter()
            full.sort()
            for n, (_, key, side) in enumerate(full):
                if n and time.perf_counter() - start > self.budget_s:
                    self.pending = True
                    break
                x0, z0, x1, z1, _ = tiles[key]
                e = self._entry(key, side, (x0, z0, x1, z1))
                self._bake(key, e, None, draw_tile, program)
                baked.append(e)
                e.current = True
                self.bakes += 1
        finally:
            _restore_state(state, program)
        # the mipmaps, once the caller's framebuffer is back
        for e in baked:
            GL.glBindTexture(GL.GL_TEXTURE_2D, e.tex)
            GL.glGenerateMipmap(GL.GL_TEXTURE_2D)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glActiveTexture(GL.GL_TEXTURE0)
        self._evict(set(keys))

    def covers(self, key: Key, distance: float) -> bool:
        """Whether the tile lies wholly past the handover and its cache is current: drawn from it alone."""
        e = self.entries.get(key) if self.enabled else None
        return e is not None and e.current and e.dirty is None and distance > self.near + self.band

    def bind(self, p: ShaderProgram, key: Key) -> None:
        """Point the terrain program at the tile's cache, or draw it in full where it has none."""
        e = self.entries.get(key) if self.enabled else None
        on = e is not None and e.current and e.dirty is None
        p.set_uniform("u_cache_on", 1 if on else 0)
        if on:
            GL.glActiveTexture(GL.GL_TEXTURE0 + CACHE_UNIT)
            GL.glBindTexture(GL.GL_TEXTURE_2D, e.tex)
            GL.glActiveTexture(GL.GL_TEXTURE0)
            p.set_uniform("u_cache_rect", np.array(e.rect(), np.float32))

    def set_uniforms(self, p: ShaderProgram) -> None:
        p.set_uniform("u_near", np.array([self.near, self.band], np.float32))
        p.set_uniform("u_bake", 0)

    def unbind(self) -> None:
        GL.glActiveTexture(GL.GL_TEXTURE0 + CACHE_UNIT)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        GL.glActiveTexture(GL.GL_TEXTURE0)

    # ---- GL -----------------------------------------------------------------------------
    def _entry(self, key: Key, side: int, tile: tuple[float, float, float, float]) -> _Entry:
        """The key's entry at `side` texels: the texture kept when its size holds, else a new one."""
        e = self.entries.get(key)
        if e is not None and e.side == side:
            e.tile = tile
            return e
        if e is not None:
            self._drop(key)
        tex = int(GL.glGenTextures(1))
        GL.glBindTexture(GL.GL_TEXTURE_2D, tex)
        # storage of every level at once: Mesa's llvmpipe, given the levels one by one, moved them
        # into one resource on the texture's first use and lost what a bake had drawn before
        GL.glTexStorage2D(GL.GL_TEXTURE_2D, side.bit_length(), GL.GL_RGBA8, side, side)
        # one mip level a fetch: half the texel reads of trilinear, and the far ground's mip steps
        # lie under the macro variation
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MIN_FILTER, GL.GL_LINEAR_MIPMAP_NEAREST)
        GL.glTexParameteri(GL.GL_TEXTURE_2D, GL.GL_TEXTURE_MAG_FILTER, GL.GL_LINEAR)
        for name in (GL.GL_TEXTURE_WRAP_S, GL.GL_TEXTURE_WRAP_T):
            GL.glTexParameteri(GL.GL_TEXTURE_2D, name, GL.GL_CLAMP_TO_EDGE)
        GL.glBindTexture(GL.GL_TEXTURE_2D, 0)
        e = _Entry(tex, side, tile)
        self.entries[key] = e
        self.resident_bytes += e.nbytes
        return e

    def _bake(self, key: Key, e: _Entry, rect: Rect | None, draw_tile: Callable[[Key], None],
              p: ShaderProgram) -> None:
        """Draw the tile's blend from above into its texture (only `rect`'s texels where given)."""
        if not self._fbo:
            self._fbo = int(GL.glGenFramebuffers(1))
        GL.glBindFramebuffer(GL.GL_FRAMEBUFFER, self._fbo)
        GL.glFramebufferTexture2D(GL.GL_FRAMEBUFFER, GL.GL_COLOR_ATTACHMENT0, GL.GL_TEXTURE_2D, e.tex, 0)
        GL.glViewport(0, 0, e.side, e.side)
        if rect is not None:
            GL.glEnable(GL.GL_SCISSOR_TEST)
            GL.glScissor(rect[0], rect[1], rect[2] - rect[0], rect[3] - rect[1])
        else:
            GL.glDisable(GL.GL_SCISSOR_TEST)
        p.set_uniform("u_bake", 1)
        p.set_uniform("u_bake_rect", np.array(e.rect(), np.float32))
        p.set_uniform("u_bake_tile", np.array(e.tile, np.float32))
        draw_tile(key)
        e.dirty = None

    def _drop(self, key: Key) -> None:
        e = self.entries.pop(key)
        GL.glDeleteTextures(1, [e.tex])
        self.resident_bytes -= e.nbytes

    def _evict(self, keep: set[Key]) -> None:
        while self.resident_bytes > self.cache_bytes:
            old = next((k for k in self.entries if k not in keep), None)
            if old is None:
                break
            self._drop(old)

    def release(self) -> None:
        for key in list(self.entries):
            self._drop(key)
        if self._fbo:
            GL.glDeleteFramebuffers(1, [self._fbo])
            self._fbo = 0
        self._signature = None


def _save_state() -> tuple:
    """What a bake changes in the caller's GL state: framebuffers, viewport and switches."""
    draw = int(GL.glGetIntegerv(GL.GL_DRAW_FRAMEBUFFER_BINDING))
    read = int(GL.glGetIntegerv(GL.GL_READ_FRAMEBUFFER_BINDING))
    viewport = [int(v) for v in GL.glGetIntegerv(GL.GL_VIEWPORT)]
    switches = {s: bool(GL.glIsEnabled(s)) for s in (GL.GL_DEPTH_TEST, GL.GL_CULL_FACE, GL.GL_BLEND,
                                                      GL.GL_SCISSOR_TEST)}
    for s in (GL.GL_DEPTH_TEST, GL.GL_CULL_FACE, GL.GL_BLEND):
        GL.glDisable(s)
    return draw, read, viewport, switches


def _restore_state(state: tuple, p: ShaderProgram) -> None:
    draw, read, viewport, switches = state
    GL.glBindFramebuffer(GL.GL_DRAW_FRAMEBUFFER, draw)
    GL.glBindFramebuffer(GL.GL_READ_FRAMEBUFFER, read)
    GL.glViewport(*viewport)
    for s, on in switches.items():
        (GL.glEnable if on else GL.glDisable)(s)
    p.set_uniform("u_bake", 0)
