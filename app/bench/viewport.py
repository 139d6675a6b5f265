"""Viewport budgets, drawn for real into an offscreen OpenGL 3.3 framebuffer (needs a display).

- the culled, counted foliage frame against a bare instanced draw of the same chunk buffers;
- a view of about a tenth of the chunks against the all-visible frame;
- after a one-stamp edit, chunks re-uploaded per chunk the stamp touched;
- Frame All over 1M conifers (every instance drawn, near ones as meshes or impostors, far chunks
  from their proxies) against the terrain alone, and 10M against 1M (the full run builds 10M
  instances: only `boscage bench` runs it; the quick run and the test suite use 100k and 1M);
- terrain LOD: a fly-over frame of 8,193² samples at 2 m (16 km) against one of 513² (1 km), and
  its triangles against the LOD's budget; a Raise drag's move on 8,193² against one on 513².
"""

from __future__ import annotations

import sys
from collections.abc import Callable

import numpy as np

from app.bench import BenchCase, qt_application
from model.foliage import FoliageScatter, FoliageType, Stamp, foliage_of
from model.scene import Scene
from model.terrain import Terrain

SIZE = 256  # framebuffer pixels: small, so the fill rate of a software rasteriser does not dominate
AREA = 1024.0  # metres square of foliage


class _Gl:
    """An offscreen context with a framebuffer, current while the bench runs."""

    def __init__(self) -> None:
        from PySide6.QtGui import QOffscreenSurface, QOpenGLContext
        from PySide6.QtOpenGL import QOpenGLFramebufferObject, QOpenGLFramebufferObjectFormat

        self.app = qt_application()
        self.context = QOpenGLContext()
        if not self.context.create():
            raise RuntimeError("no OpenGL context")
        self.surface = QOffscreenSurface()
        self.surface.setFormat(self.context.format())
        self.surface.create()
        if not self.context.makeCurrent(self.surface):
            raise RuntimeError("cannot make the OpenGL context current")
        fmt = QOpenGLFramebufferObjectFormat()
        fmt.setAttachment(QOpenGLFramebufferObject.Attachment.Depth)
        self.fbo = QOpenGLFramebufferObject(SIZE, SIZE, fmt)
        self.fbo.bind()

    def close(self) -> None:
        self.fbo.release()
        self.context.doneCurrent()


def _display_available() -> bool:
    from app.gui_entry import display_available

    return display_available()


def _scene(instances: int) -> Scene:
    n = 65
    terrain = Terrain(np.zeros((n, n), np.float32), AREA / (n - 1), (-AREA / 2, -AREA / 2))
    terrain.add_layer("ground", (120, 120, 110), np.full((n, n), 255, np.uint8))
    scene = Scene(terrain=terrain, name="bench")
    foliage = foliage_of(scene)
    # the grass blades as a stored mesh: six triangles, so the draw measures instancing, not fill
    foliage.palette.add(FoliageType("tuft", mesh="builtin:grass", cull=(1e5, 1e5 + 1.0)))
    rng = np.random.default_rng(7)
    rec = np.zeros((instances, 7), np.float32)
    rec[:, 0] = rng.uniform(-AREA / 2, AREA / 2, instances)
    rec[:, 2] = rng.uniform(-AREA / 2, AREA / 2, instances)
    rec[:, 3] = rng.uniform(0, 2 * np.pi, instances)
    rec[:, 6] = rng.uniform(0.8, 1.2, instances)
    foliage.volume.add("tuft", rec)
    return scene


def _frame(lo, hi):
    from rendering.camera import OrbitCamera
    from rendering.renderer import FrameContext
    from widgets.viewport import LIGHT_DIRECTION

    cam = OrbitCamera(pitch=np.radians(89.0), yaw=0.0)
    cam.scene_extent = AREA * 1.5
    cam.frame(np.asarray(lo, float), np.asarray(hi, float), 1.0, margin=1.0)
    return FrameContext(cam, cam.view_matrix(), cam.projection_matrix(1.0), cam.view_projection(1.0),
                        SIZE, SIZE, LIGHT_DIRECTION)


def _timed(draw, frame, repeat: int) -> float:
    import time

    from OpenGL import GL

    best = float("inf")
    for _ in range(repeat):
        GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)
        GL.glFinish()
        t0 = time.perf_counter()
        draw(frame)
        GL.glFinish()  # the frame is done when the GPU is
        best = min(best, time.perf_counter() - t0)
    return best


def _setup(quick: bool):
    from OpenGL import GL

    from rendering.foliage_renderer import FoliageRenderer

    gl = _Gl()
    GL.glViewport(0, 0, SIZE, SIZE)
    GL.glEnable(GL.GL_DEPTH_TEST)
    scene = _scene(100_000 if quick else 1_000_000)
    renderer = FoliageRenderer(scene)
    renderer.initialize()
    everything = _frame((-AREA / 2, 0, -AREA / 2), (AREA / 2, 2, AREA / 2))
    renderer.draw(everything)  # uploads every chunk
    return gl, scene, renderer, everything


def _with_gl(measure: Callable[[], float]) -> float:
    """`measure()` inside an offscreen OpenGL 3.3 context; NaN (the case did not run) without one."""
    if not _display_available():
        print("viewport bench: needs an OpenGL display (run under xvfb-run)", file=sys.stderr)
        return float("nan")
    try:
        gl = _Gl()
    except RuntimeError as e:  # e.g. a platform plugin without OpenGL
        print(f"viewport bench: {e}", file=sys.stderr)
        return float("nan")
    try:
        return measure()
    finally:
        gl.close()


def _run(measure, quick: bool) -> float:
    if not _display_available():
        print("viewport bench: needs an OpenGL display (run under xvfb-run)", file=sys.stderr)
        return float("nan")
    try:
        gl, scene, renderer, everything = _setup(quick)
    except RuntimeError as e:  # e.g. a platform plugin without OpenGL
        print(f"viewport bench: {e}", file=sys.stderr)
        return float("nan")
    try:
        return measure(scene, renderer, everything, quick)
    finally:
        renderer.release()
        gl.close()


def _paired(a, b, frame_a, frame_b, pairs: int) -> tuple[float, float]:
    """Best times of two draws taken turn about, so a burst of load on the machine hits both."""
    best_a = best_b = float("inf")
    for _ in range(pairs):
        best_a = min(best_a, _timed(a, frame_a, 1))
        best_b = min(best_b, _timed(b, frame_b, 1))
    return best_a, best_b


def _culled_vs_bare(scene, renderer, everything, quick: bool) -> float:
    full, bare = _paired(renderer.draw, renderer.draw_unculled, everything, everything, 8 if quick else 6)
    assert everything.stats.chunks_culled == 0, "the whole area should be in view"
    return full / bare


def _tenth_vs_all(scene, renderer, everything, quick: bool) -> float:
    side = AREA * np.sqrt(0.1)
    tenth = _frame((-AREA / 2, 0, -AREA / 2), (-AREA / 2 + side, 2, -AREA / 2 + side))
    part, full = _paired(renderer.draw, renderer.draw, tenth, everything, 6 if quick else 4)
    return part / full


def _uploads_per_touched_chunk(scene, renderer, everything, quick: bool) -> float:
    volume = foliage_of(scene).volume
    touched: set = set()
    volume.changed.connect(touched.update)
    before = sum(renderer.uploads.values())
    scatter = FoliageScatter(scene.terrain, volume)
    scatter.paint(["tuft"], Stamp((100.0, -60.0), 20.0, 0.3, 1.0, seed=5))
    volume.changed.disconnect(touched.update)
    renderer.draw(everything)
    uploaded = sum(renderer.uploads.values()) - before
    if not touched:
        return float("nan")
    return uploaded / len(touched)


CASES = [
    BenchCase("viewport.frame_1m_vs_bare_instanced_draw", budget=1.25,
              run=lambda quick: _run(_culled_vs_bare, quick),
              description="culling, counters and change checks cost little next to the draw itself"),
    BenchCase("viewport.tenth_in_view_vs_all_visible", budget=0.3,
              run=lambda quick: _run(_tenth_vs_all, quick),
              description="frustum culling per chunk skips what is out of view"),
    BenchCase("viewport.uploads_per_touched_chunk", budget=1.0,
              run=lambda quick: _run(_uploads_per_touched_chunk, quick),
              description="a one-stamp edit re-uploads only the chunks it changed"),
]


# ---- sculpting: a drag's frames cost what a still frame costs ---------------------------------
SCULPT_STAMPS = 21  # moves of the drag the issue timed


def _sculpt_setup():
    """The demo scene's terrain and foliage, drawn as the viewport draws them, seen from frame-all."""
    from model.demo import demo_resource_path
    from model.formats.scene_file import load_scene
    from rendering.camera import OrbitCamera
    from rendering.foliage_renderer import FoliageRenderer
    from rendering.renderer import FrameContext
    from rendering.terrain_renderer import TerrainRenderer
    from widgets.viewport import LIGHT_DIRECTION

    scene = load_scene(demo_resource_path())
    renderers = [TerrainRenderer(scene.terrain), FoliageRenderer(scene)]
    for r in renderers:
        r.initialize()
    cam = OrbitCamera()
    sx, sz = scene.terrain.size
    cam.scene_extent = float(np.hypot(sx, sz))
    lo, hi = renderers[0].bounds()
    cam.frame(lo, hi, 1.0)
    frame = FrameContext(cam, cam.view_matrix(), cam.projection_matrix(1.0), cam.view_projection(1.0),
                         SIZE, SIZE, LIGHT_DIRECTION)
    return scene, renderers, frame


def _sculpt_drag_vs_still(quick: bool) -> float:
    """Frame time while a Raise drag crosses the terrain (one stamp, then the frame, per move)
    over the frame time of the same view standing still."""
    import time

    from OpenGL import GL

    from model.brush import Brush
    from model.sculpt import TerrainStroke, raise_lower

    def body() -> float:
        GL.glViewport(0, 0, SIZE, SIZE)
        GL.glEnable(GL.GL_DEPTH_TEST)
        scene, renderers, frame = _sculpt_setup()
        volume = scene.sections["foliage"].volume
        brush = Brush(radius=20.0, strength=0.5)

        def draw() -> float:
            GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)
            for r in renderers:
                r.draw(frame)
            GL.glFinish()

        draw()  # first uploads
        still, drag = [], []
        for k in range(2 if quick else 4):  # drags and still frames taken turn about
            stroke = TerrainStroke(scene.terrain, None, volume)
            z = -300.0 + 150.0 * k
            for i in range(SCULPT_STAMPS):
                t0 = time.perf_counter()
                stroke.apply(raise_lower(scene.terrain, brush, -200.0 + 20.0 * i, z, 0.8))
                draw()
                drag.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                draw()
                still.append(time.perf_counter() - t0)
            stroke.finish()
        for r in renderers:
            r.release()
        return float(np.median(drag) / np.median(still))

    return _with_gl(body)


CASES.append(BenchCase(
    "viewport.sculpt_drag_frame_vs_still_frame", budget=1.5, run=_sculpt_drag_vs_still,
    description="a Raise drag's frame (stamp, re-grounded foliage, uploads, draw) costs about a still frame"))


# ---- far forests: Frame All draws every instance: meshes and cards near, chunk proxies far -----
FOREST_SAMPLES = 513  # the demo terrain's size: 1024 m at 2 m
FOREST_SIZE = 256  # framebuffer pixels


def _forest_scene(instances: int) -> Scene:
    """Rolling terrain with `instances` conifers on it (default cull: cards from 150 m)."""
    n = FOREST_SAMPLES
    x = np.linspace(0.0, 8.0 * np.pi, n)
    heights = (12.0 * np.sin(x)[None, :] * np.cos(0.7 * x)[:, None] + 20.0).astype(np.float32)
    terrain = Terrain(heights, AREA / (n - 1), (-AREA / 2, -AREA / 2))
    terrain.add_layer("ground", (110, 130, 80), np.full((n, n), 255, np.uint8))
    scene = Scene(terrain=terrain, name="forest bench")
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("fir", mesh="builtin:conifer"))
    rng = np.random.default_rng(11)
    step = 2_000_000  # built in blocks: 10M records at once would double the peak memory
    for start in range(0, instances, step):
        k = min(step, instances - start)
        rec = np.zeros((k, 7), np.float32)
        rec[:, 0] = rng.uniform(-AREA / 2, AREA / 2, k)
        rec[:, 2] = rng.uniform(-AREA / 2, AREA / 2, k)
        rec[:, 1] = terrain.height_at(rec[:, 0], rec[:, 2])
        rec[:, 3] = rng.uniform(0, 2 * np.pi, k)
        rec[:, 6] = rng.uniform(0.8, 1.2, k)
        foliage.volume.add("fir", rec, copy=False)
    return scene


def _frame_all(terrain_renderer):
    from rendering.camera import OrbitCamera
    from rendering.renderer import FrameContext
    from widgets.viewport import LIGHT_DIRECTION

    cam = OrbitCamera()
    lo, hi = terrain_renderer.bounds()
    cam.scene_extent = float(np.hypot(hi[0] - lo[0], hi[2] - lo[2]))  # the forest's: AREA a side
    cam.frame(lo, hi, 1.0)
    return FrameContext(cam, cam.view_matrix(), cam.projection_matrix(1.0), cam.view_projection(1.0),
                        FOREST_SIZE, FOREST_SIZE, LIGHT_DIRECTION)


def _framed(scene):
    """(terrain, foliage renderers, the Frame All frame, draw-both) for `scene`, drawn once (uploads,
    bakes and builds the proxies), checked to stand for every stored instance."""
    from rendering.foliage_renderer import FoliageRenderer
    from rendering.terrain_renderer import TerrainRenderer

    terrain, foliage = TerrainRenderer(scene.terrain), FoliageRenderer(scene)
    terrain.initialize()
    foliage.initialize()
    frame = _frame_all(terrain)

    def both(f):
        terrain.draw(f)
        foliage.draw(f)

    both(frame)
    instances = len(foliage_of(scene).volume)
    assert sum(frame.stats.levels.values()) == instances, frame.stats.levels  # every one stood for
    return terrain, foliage, frame, both


def _forest_frame_ms(instances_list: list[int], pairs: int) -> list[float]:
    """Best Frame All time of terrain + foliage for each size, and last of the terrain alone."""
    from OpenGL import GL

    best: list[float] = []
    terrain_only = float("inf")
    for instances in instances_list:
        scene = _forest_scene(instances)
        assert len(foliage_of(scene).volume) == instances
        terrain, foliage, frame, both = _framed(scene)
        full, bare = _paired(both, terrain.draw, frame, frame, pairs)
        best.append(full)
        terrain_only = min(terrain_only, bare)
        foliage.release()
        terrain.release()
        del scene
        GL.glFinish()
    return best + [terrain_only]


def _forest_run(measure, quick: bool) -> float:
    from OpenGL import GL

    def body() -> float:
        GL.glViewport(0, 0, SIZE, SIZE)
        GL.glEnable(GL.GL_DEPTH_TEST)
        return measure(quick)

    return _with_gl(body)


def _frame_all_vs_hidden(quick: bool) -> float:
    # more pairs than the other cases: the foliage is a few ms of a frame the terrain takes ~100 ms
    # to draw on llvmpipe, and a shared machine's bursts land on one side or the other
    full, hidden = _forest_frame_ms([100_000 if quick else 1_000_000], 6 if quick else 8)
    return full / hidden


def _ten_million_vs_one(quick: bool) -> float:
    # the quick run (and the test suite, which runs the quick sizes) never builds 10M instances
    small, big = (100_000, 1_000_000) if quick else (1_000_000, 10_000_000)
    one, ten, _ = _forest_frame_ms([small, big], 4 if quick else 5)
    return ten / one


CASES += [
    BenchCase("viewport.frame_all_1m_instances_vs_foliage_hidden", budget=2.0,
              run=lambda quick: _forest_run(_frame_all_vs_hidden, quick),
              description="Frame All over 1M conifers (meshes and cards near, chunk proxies far) against "
                          "the terrain alone"),
    BenchCase("viewport.frame_all_10m_instances_vs_1m", budget=3.0,
              run=lambda quick: _forest_run(_ten_million_vs_one, quick),
              description="ten times the forest at Frame All costs at most three times the frame "
                          "(the full run builds 10M instances: `boscage bench` only)"),
]


# ---- a 16 km world of foliage at Frame All: cost and proxy memory bounded by the view ----------
WORLD_CHUNKS = {False: 512, True: 256}  # cells a side: 16 km (262,144 chunks of 32 m); quick: 8 km
WORLD_PER_CHUNK = 3  # a few instances a chunk: built fast, and the chunk count is what is measured
WORLD_PROXY_MB = 64.0  # proxy memory after a Frame All (host cache and GPU buffers), at most
_world_memory: dict[bool, float] = {}


def _world_scene(cells: int) -> Scene:
    """`cells`² chunks of conifers, `WORLD_PER_CHUNK` each, on rolling terrain as wide (513²)."""
    n = FOREST_SAMPLES
    side = cells * 32.0
    x = np.linspace(0.0, 8.0 * np.pi, n)
    heights = (60.0 * np.sin(x)[None, :] * np.cos(0.7 * x)[:, None] + 80.0).astype(np.float32)
    terrain = Terrain(heights, side / (n - 1), (-side / 2, -side / 2))
    terrain.add_layer("ground", (110, 130, 80), np.full((n, n), 255, np.uint8))
    scene = Scene(terrain=terrain, name="world bench")
    foliage = foliage_of(scene)
    foliage.palette.add(FoliageType("fir", mesh="builtin:conifer"))
    rng = np.random.default_rng(17)
    k = cells * cells * WORLD_PER_CHUNK
    cell = np.repeat(np.arange(cells * cells), WORLD_PER_CHUNK)
    rec = np.zeros((k, 7), np.float32)
    rec[:, 0] = (cell % cells + rng.uniform(0.02, 0.98, k)) * 32.0 - side / 2
    rec[:, 2] = (cell // cells + rng.uniform(0.02, 0.98, k)) * 32.0 - side / 2
    rec[:, 1] = terrain.height_at(rec[:, 0], rec[:, 2])
    rec[:, 3] = rng.uniform(0, 2 * np.pi, k)
    rec[:, 6] = rng.uniform(0.8, 1.2, k)
    foliage.volume.add("fir", rec, copy=False)
    return scene


def _world_frame_ms(quick: bool, pairs: int) -> tuple[float, float, float]:
    """Best Frame All time of the 1 km forest (1M; quick 100k) and of the world, timed in turns,
    and the world's proxy memory in MB after its Frame All."""
    from OpenGL import GL

    runs = []
    for scene in (_forest_scene(100_000 if quick else 1_000_000), _world_scene(WORLD_CHUNKS[quick])):
        terrain, foliage, frame, both = _framed(scene)
        runs.append((both, frame, terrain, foliage))
    best = [float("inf"), float("inf")]
    for _ in range(pairs):
        for i, (both, frame, _, _) in enumerate(runs):
            best[i] = min(best[i], _timed(both, frame, 1))
    world = runs[1][3]
    memory = sum(t.host_bytes + t.gpu_bytes for t in world._proxies.values()) / 1e6
    for _, _, terrain, foliage in runs:
        foliage.release()
        terrain.release()
    GL.glFinish()
    return best[0], best[1], memory


def _world_vs_forest(quick: bool) -> float:
    forest, world, memory = _world_frame_ms(quick, 5 if quick else 8)
    _world_memory[quick] = memory
    return world / forest


def _world_proxy_mb(quick: bool) -> float:
    if quick not in _world_memory:
        _world_vs_forest(quick)
    return _world_memory[quick]


CASES += [
    BenchCase("viewport.frame_all_16km_world_vs_1m_forest", budget=3.0,
              run=lambda quick: _forest_run(_world_vs_forest, quick),
              description="Frame All over a 16 km world of foliage (262,144 chunks; quick: 8 km) against "
                          "the 1M forest of 1 km: far foliage costs what the view shows"),
    BenchCase("viewport.frame_all_16km_world_proxy_mb", budget=WORLD_PROXY_MB,
              run=lambda quick: _forest_run(_world_proxy_mb, quick),
              description="MB of proxies (host cache and GPU buffers) after a Frame All of that world: "
                          "bounded by the proxy budget, not by its 262,144 chunks"),
]


# ---- terrain LOD: flying over a 16 km world costs what flying over 1 km does -------------------
FLY_SIZE = (480, 270)  # window pixels of the fly-over frames
FLY_SPACING = 2.0  # metres between height samples
FLY_FRAMES = 24


def fly_heights(n: int, spacing: float = FLY_SPACING) -> np.ndarray:
    """Ridges, valleys and a ripple as one function of world x, z (centred on 0), so a 1 km and a
    16 km terrain look alike where they overlap; built in row blocks (float32, no big temporaries)."""
    out = np.empty((n, n), np.float32)
    x = (np.arange(n, dtype=np.float64) - (n - 1) / 2) * spacing
    sx = [np.sin(x / w).astype(np.float32) for w in (197.0, 43.0, 9.3)]
    cz = [np.cos(x / w).astype(np.float32) for w in (263.0, 57.0, 12.1)]
    for a in range(0, n, 1024):
        b = min(n, a + 1024)
        out[a:b] = (160 * cz[0][a:b, None] * sx[0][None] + 40 * cz[1][a:b, None] * sx[1][None]
                    + 6 * cz[2][a:b, None] * sx[2][None])
    return out


def fly_terrain(n: int) -> Terrain:
    half = (n - 1) * FLY_SPACING / 2
    t = Terrain(fly_heights(n), FLY_SPACING, (-half, -half))
    t.add_layer("ground", (96, 128, 70), np.full((n, n), 255, np.uint8))
    return t


def opened_fly_terrain(n: int, folder) -> Terrain:
    """`fly_terrain(n)` saved as a scene in `folder` and opened again, as the editor holds it:
    paged from its 512² tiles (memory-mapped as they are read), nothing assembled."""
    from pathlib import Path

    from model.formats.scene_file import load_scene, save_scene

    path = Path(folder) / f"fly{n}.boscage"
    save_scene(Scene(terrain=fly_terrain(n), name=f"fly{n}"), path)
    return load_scene(path).terrain


def _fly(terrain: Terrain, frames: int) -> tuple[float, int]:
    """Median frame time (uploads of newly needed tiles included) and the most triangles drawn,
    flying 150 m above the ground, 30 degrees down, 25 m a frame along z through the centre."""
    import time

    from OpenGL import GL
    from PySide6.QtOpenGL import QOpenGLFramebufferObject, QOpenGLFramebufferObjectFormat

    from rendering.camera import OrbitCamera
    from rendering.renderer import FrameContext
    from rendering.terrain_renderer import TerrainRenderer
    from widgets.viewport import LIGHT_DIRECTION, SKY_COLOUR

    w, h = FLY_SIZE
    fmt = QOpenGLFramebufferObjectFormat()
    fmt.setAttachment(QOpenGLFramebufferObject.Attachment.Depth)
    fbo = QOpenGLFramebufferObject(w, h, fmt)
    fbo.bind()
    GL.glViewport(0, 0, w, h)
    GL.glEnable(GL.GL_DEPTH_TEST)
    GL.glClearColor(*SKY_COLOUR)
    renderer = TerrainRenderer(terrain)
    renderer.initialize()
    cam = OrbitCamera(pitch=np.radians(30.0), yaw=0.0, distance=300.0)
    cam.scene_extent = float(np.hypot(*terrain.size))
    times, triangles = [], 0
    try:
        for k in range(frames + 1):
            z = -250.0 + 500.0 * k / frames  # inside the 1 km terrain too
            cam.target = np.array([0.0, float(terrain.height_at(0.0, z)), z])
            aspect = w / h
            frame = FrameContext(cam, cam.view_matrix(), cam.projection_matrix(aspect),
                                 cam.view_projection(aspect), w, h, LIGHT_DIRECTION)
            GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)
            GL.glFinish()
            t0 = time.perf_counter()
            renderer.draw(frame)
            GL.glFinish()
            if k:  # the first frame measures the terrain and builds its first tiles
                times.append(time.perf_counter() - t0)
                triangles = max(triangles, renderer.triangles)
    finally:
        renderer.release()
        fbo.release()
    return float(np.median(times)), triangles


FLY_SAMPLES = {False: 8193, True: 4097}  # 16 km at 2 m; 8 km in the quick run


def _fly_16km_vs_1km(quick: bool) -> float:
    import tempfile

    def body() -> float:
        frames = 12 if quick else FLY_FRAMES
        big = FLY_SAMPLES[quick]
        with tempfile.TemporaryDirectory(prefix="boscage-bench-") as folder:  # paged, as opened
            small_ms, small_tri = _fly(opened_fly_terrain(513, folder), frames)
            big_ms, big_tri = _fly(opened_fly_terrain(big, folder), frames)
        print(f"  fly-over: {big}² {big_ms * 1e3:.1f} ms, {big_tri:,} triangles; "
              f"513² {small_ms * 1e3:.1f} ms, {small_tri:,} triangles", file=sys.stderr)
        return big_ms / small_ms

    return _with_gl(body)


def _fly_triangles_vs_budget(quick: bool) -> float:
    """The most triangles a fly-over frame of the large terrain draws, over the LOD's budget."""
    import tempfile

    from rendering.terrain_lod import MAX_TILES, TILE

    def body() -> float:
        with tempfile.TemporaryDirectory(prefix="boscage-bench-") as folder:
            _, triangles = _fly(opened_fly_terrain(FLY_SAMPLES[quick], folder), 6 if quick else 12)
        return triangles / (MAX_TILES * 2 * TILE * TILE)

    return _with_gl(body)


CASES.append(BenchCase(
    "viewport.terrain_fly_16km_vs_1km", budget=1.5, run=_fly_16km_vs_1km,
    description="a frame flying over 8,193² samples at 2 m (4,097² in quick runs) costs about one over 513²"))
CASES.append(BenchCase(
    "viewport.terrain_fly_triangles_vs_budget", budget=1.0, run=_fly_triangles_vs_budget,
    description="terrain triangles drawn per frame stay within the LOD's budget, whatever the terrain size"))


def _stroke_frames(terrain: Terrain, stamps: int) -> float:
    """Median time of a Raise drag's move (one stamp, then the frame) seen 45 degrees down from 250 m."""
    import time

    from OpenGL import GL
    from PySide6.QtOpenGL import QOpenGLFramebufferObject, QOpenGLFramebufferObjectFormat

    from model.brush import Brush
    from model.sculpt import TerrainStroke, raise_lower
    from rendering.camera import OrbitCamera
    from rendering.renderer import FrameContext
    from rendering.terrain_renderer import TerrainRenderer
    from widgets.viewport import LIGHT_DIRECTION

    w, h = FLY_SIZE
    fmt = QOpenGLFramebufferObjectFormat()
    fmt.setAttachment(QOpenGLFramebufferObject.Attachment.Depth)
    fbo = QOpenGLFramebufferObject(w, h, fmt)
    fbo.bind()
    GL.glViewport(0, 0, w, h)
    GL.glEnable(GL.GL_DEPTH_TEST)
    renderer = TerrainRenderer(terrain)
    renderer.initialize()
    cam = OrbitCamera(pitch=np.radians(45.0), yaw=0.0, distance=250.0)
    cam.scene_extent = float(np.hypot(*terrain.size))
    cam.target = np.array([0.0, float(terrain.height_at(0.0, 0.0)), 0.0])
    frame = FrameContext(cam, cam.view_matrix(), cam.projection_matrix(w / h), cam.view_projection(w / h),
                         w, h, LIGHT_DIRECTION)

    def draw() -> None:
        GL.glClear(GL.GL_COLOR_BUFFER_BIT | GL.GL_DEPTH_BUFFER_BIT)
        renderer.draw(frame)
        GL.glFinish()

    try:
        draw()
        stroke = TerrainStroke(terrain)
        times = []
        for i in range(stamps):
            t0 = time.perf_counter()
            stroke.apply(raise_lower(terrain, Brush(radius=20.0, strength=0.5), -100.0 + 10.0 * i, 0.0, 0.8))
            draw()
            times.append(time.perf_counter() - t0)
        stroke.finish()
        return float(np.median(times))
    finally:
        renderer.release()
        fbo.release()


def _stroke_16km_vs_513(quick: bool) -> float:
    import tempfile

    def body() -> float:
        stamps = 11 if quick else 21
        with tempfile.TemporaryDirectory(prefix="boscage-bench-") as folder:  # paged, as opened
            small = _stroke_frames(opened_fly_terrain(513, folder), stamps)
            return _stroke_frames(opened_fly_terrain(FLY_SAMPLES[quick], folder), stamps) / small

    return _with_gl(body)


CASES.append(BenchCase(
    "viewport.terrain_stroke_frame_16km_vs_513", budget=1.5, run=_stroke_16km_vs_513,
    description="a Raise drag's move (stamp and frame) on 8,193² (4,097² quick) costs about one on 513²"))
