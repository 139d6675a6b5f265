"""Textured terrain layers' cost (needs a display; see `viewport`):

- a frame of a 1 km terrain (513² at 2 m) painted with 8 textured, height-blended layers (albedo,
  normal, roughness and height maps, 512² each) against the same terrain drawn in the layers' flat
  colours, drawn for real into an offscreen framebuffer, seen 45 degrees down from 250 m, once the
  maps are in and the tiles' base colour is baked (all of this ground lies past the near radius);
- a frame drawn right after a paint stamp in the middle of that view (the mesh and the base colour
  re-made under the brush) against the same with the full per-layer blend everywhere;
- opening a scene whose 16 layers carry 2,048² albedo maps: seconds from starting the editor on it
  to the window's first frame, over the same for the same scene without the maps, each in a fresh
  process (the maps load in the background after the first frame, their progress in the status bar).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from app.bench import BenchCase
from model.layer_material import LayerMaterial
from model.scene import Scene
from model.terrain import Terrain

LAYERS = 8
MAP_SIDE = 512
OPEN_LAYERS = 16
OPEN_SIDE = 2048
OPEN_RUNS = {True: 2, False: 3}  # fresh processes per scene; the best of each is taken


def _noise(side: int, cells: int, rng: np.random.Generator) -> np.ndarray:
    """Tileable smooth noise in 0..1 (bilinear over a random lattice)."""
    lattice = rng.uniform(0.0, 1.0, (cells, cells))
    t = np.arange(side) * cells / side
    i0 = np.floor(t).astype(int)
    f = t - i0
    i1 = (i0 + 1) % cells
    rows = lattice[i0][:, i0] * (1 - f)[None, :] + lattice[i0][:, i1] * f[None, :]
    rows1 = lattice[i1][:, i0] * (1 - f)[None, :] + lattice[i1][:, i1] * f[None, :]
    return rows * (1 - f)[:, None] + rows1 * f[:, None]


def _png(image: np.ndarray) -> bytes:
    import imagecodecs

    return imagecodecs.png_encode(np.ascontiguousarray(image), level=1)


def write_layer_maps(folder: Path, k: int, side: int, kinds: tuple[str, ...]) -> LayerMaterial:
    """Noisy maps of layer `k` (a colour of its own, bumps, grain) written as PNGs under `folder`."""
    rng = np.random.default_rng(100 + k)
    detail = 0.6 * _noise(side, 16, rng) + 0.4 * rng.uniform(0.0, 1.0, (side, side))
    files: dict[str, str] = {}
    for kind in kinds:
        if kind == "albedo":
            base = np.array([60 + 20 * (k % 5), 70 + 15 * (k % 4), 40 + 25 * (k % 3)], np.float64)
            img = np.clip(base[None, None, :] * (0.6 + 0.8 * detail[..., None]), 0, 255).astype(np.uint8)
        elif kind == "normal":
            gy, gx = np.gradient(detail * 8.0)
            n = np.stack([-gx, -gy, np.ones_like(gx)], axis=-1)
            n /= np.linalg.norm(n, axis=-1, keepdims=True)
            img = np.clip((n * 0.5 + 0.5) * 255, 0, 255).astype(np.uint8)
        else:  # roughness, height: grey
            img = np.clip(detail * 255, 0, 255).astype(np.uint8)
        rel = f"textures/layer{k:02d}_{kind}.png"
        (folder / "textures").mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(_png(img))
        files[kind] = rel
    return LayerMaterial(**files, tiling=4.0 + k)


def layered_terrain(n: int, layers: int, spacing: float = 2.0) -> Terrain:
    """Rolling terrain with `layers` weight-blended layers in patches that overlap two or three at a
    time (weights add to 255), as painted ground does."""
    from app.bench.viewport import fly_heights

    half = (n - 1) * spacing / 2
    t = Terrain(fly_heights(n, spacing) * 0.25, spacing, (-half, -half))
    rng = np.random.default_rng(5)
    fields = np.stack([_noise(n, 8, rng) for _ in range(layers)]) ** 4
    # two or three layers at a point, as painting leaves them: the weakest give way to the rest
    third = np.sort(fields, axis=0)[-3]
    fields = np.where(fields >= third[None], fields, 0.0)
    weights = fields / fields.sum(axis=0, keepdims=True)
    w8 = np.floor(weights * 255.0).astype(np.uint8)
    for k in range(layers):
        t.add_layer(f"layer{k:02d}", (70 + 20 * (k % 5), 80 + 15 * (k % 4), 50 + 25 * (k % 3)), w8[k])
    return t


# ---- 8 textured, height-blended layers against flat colours -------------------------------------
def _textured_vs_flat(quick: bool) -> float:
    from app.bench.viewport import FLY_SIZE, _with_gl

    def body() -> float:
        import time

        from OpenGL import GL
        from PySide6.QtOpenGL import QOpenGLFramebufferObject, QOpenGLFramebufferObjectFormat

        from rendering.camera import OrbitCamera
        from rendering.renderer import FrameContext
        from rendering.terrain_renderer import TerrainRenderer
        from rendering.terrain_textures import TerrainTextures
        from widgets.viewport import LIGHT_DIRECTION

        w, h = FLY_SIZE
        fmt = QOpenGLFramebufferObjectFormat()
        fmt.setAttachment(QOpenGLFramebufferObject.Attachment.Depth)
        fbo = QOpenGLFramebufferObject(w, h, fmt)
        fbo.bind()
        GL.glViewport(0, 0, w, h)
        GL.glEnable(GL.GL_DEPTH_TEST)
        with tempfile.TemporaryDirectory(prefix="boscage-bench-") as name:
            folder = Path(name)
            terrain = layered_terrain(513, LAYERS)
            for k, layer in enumerate(terrain.layers):
                layer.material = write_layer_maps(folder, k, MAP_SIDE, ("albedo", "normal", "roughness",
                                                                        "height"))
            warnings: list[str] = []
            textures = TerrainTextures(terrain, lambda: folder, warnings.append)
            textured = TerrainRenderer(terrain, textures=textures)
            flat = TerrainRenderer(terrain)  # the same layers, in their colours
            cam = OrbitCamera(pitch=np.radians(45.0), yaw=0.3, distance=250.0)
            cam.scene_extent = float(np.hypot(*terrain.size))
            cam.target = np.array([0.0, float(terrain.height_at(0.0, 0.0)), 0.0])
            frame = FrameContext(cam, cam.view_matrix(), cam.projection_matrix(w / h),
                                 cam.view_projection(w / h), w, h, LIGHT_DIRECTION)
            try:
                for r in (textured, flat):
                    r.initialize()
                    r.draw(frame)
                started = time.perf_counter()
                # the maps arrive, then the tiles' base colour bakes (a few frames' budget each)
                baking = textured.base_cache
                while (textures.pending or baking.pending) and time.perf_counter() - started < 120.0:
                    textured.draw(frame)
                    GL.glFinish()
                assert not textures.pending and not baking.pending and not warnings, warnings
                assert int(textures._loaded[:LAYERS].min()) == 15, "every layer's four maps are in"
                from app.bench.viewport import _paired

                with_maps, colours = _paired(textured.draw, flat.draw, frame, frame, 5 if quick else 8)
                print(f"  8 textured layers: {with_maps * 1e3:.1f} ms a frame, flat colours "
                      f"{colours * 1e3:.1f} ms ({w}x{h}); base colour: {baking.bakes} tile bakes, "
                      f"{baking.resident_bytes / 2**20:.1f} MB", file=sys.stderr)
                _FIGURES[quick] = {"textured_vs_flat": with_maps / colours,
                                   "stroke_cached_vs_full": _stroke_frames(terrain, textured, frame, quick)}
                return _FIGURES[quick]["textured_vs_flat"]
            finally:
                textured.release()
                flat.release()
                fbo.release()

    return _with_gl(body)


_FIGURES: dict[bool, dict[str, float]] = {}


def _stroke_frames(terrain: Terrain, renderer, frame, quick: bool) -> float:
    """A frame drawn right after a paint stamp (10 m, in the middle of the view: far ground, whose
    base colour bakes again under it) with the base colour cache over the same without it."""
    from app.bench.viewport import _paired
    from model.brush import Brush
    from model.layer_ops import LayerPaintStroke, paint_layer_stamp

    brush = Brush(radius=10.0, strength=0.3)
    turn = [0]

    def stamp_and_draw(f) -> None:
        turn[0] += 1
        name = terrain.layers[turn[0] % LAYERS].name  # another layer each stamp: the weights keep moving
        x = float((turn[0] % 7) - 3)
        LayerPaintStroke(terrain, name).apply(paint_layer_stamp(terrain, name, brush, x, 0.0))
        renderer.draw(f)

    pairs = 4 if quick else 6
    figures = {}
    for cached in (False, True):
        renderer.base_cache.enabled = cached
        renderer.draw(frame)
        stroke, still = _paired(stamp_and_draw, renderer.draw, frame, frame, pairs)
        figures[cached] = (stroke, still)
        print(f"  {'with' if cached else 'without'} the base colour cache: a stroke's frame "
              f"{stroke * 1e3:.1f} ms, a still frame {still * 1e3:.1f} ms", file=sys.stderr)
    renderer.base_cache.enabled = True
    return figures[True][0] / figures[False][0]


def _stroke_vs_full(quick: bool) -> float:
    if quick not in _FIGURES:
        _textured_vs_flat(quick)
    return _FIGURES.get(quick, {}).get("stroke_cached_vs_full", float("nan"))  # NaN: no display


# ---- opening a scene with 16 textures of 2,048²: time to the first frame ------------------------
_FIRST_FRAME = r"""
import json, sys, time
t0 = time.perf_counter()
from app.gl_format import install_default_format
install_default_format()
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
from app.main_window import MainWindow
from model.formats.scene_file import load_scene
window = MainWindow(load_scene(sys.argv[1]), restore_layout=False)
window.resize(1200, 800)
window.show()
viewport = window.viewport
def wait(after):
    loop = QEventLoop()
    viewport.frame_rendered.connect(loop.quit)
    QTimer.singleShot(60000, loop.quit)
    if viewport.frames_rendered <= after:
        loop.exec()
    viewport.frame_rendered.disconnect(loop.quit)
wait(0)
first = time.perf_counter() - t0
pending = viewport.textures_pending()
progress_shown = not window.texture_progress.isHidden()
app.processEvents()
progress_shown = progress_shown or not window.texture_progress.isHidden()
while viewport.textures_pending() and time.perf_counter() - t0 < 120:
    before = viewport.frames_rendered
    viewport.update()
    wait(before)
app.processEvents()
done = time.perf_counter() - t0
print(json.dumps({"first_frame_s": first, "pending_at_first_frame": pending,
                  "progress_shown": progress_shown, "all_in_s": done,
                  "progress_hidden_after": window.texture_progress.isHidden()}))
window.document.undo_stack.setClean()
window.close()
"""


def _first_frame(scene: Path) -> dict:
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]),
               PYTHONPYCACHEPREFIX=str(Path(tempfile.gettempdir()) / "boscage-bench-pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory(prefix="boscage-bench-home-") as home:
        env["XDG_CONFIG_HOME"] = env["XDG_DATA_HOME"] = home  # the user's settings stay untouched
        run = subprocess.run([sys.executable, "-c", _FIRST_FRAME, str(scene)], capture_output=True, text=True,
                             env=env, cwd=root, timeout=300)
    if run.returncode != 0 or not run.stdout.strip():
        raise RuntimeError(f"the editor did not start: {run.stderr.strip()[-2000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def measure_open(quick: bool) -> dict:
    """A 513² scene with 16 layers saved twice, with 2,048² albedo maps and without; each opened in
    fresh editors taken turn about: the best first-frame time of each, and what the textured runs saw."""
    from model.formats.scene_file import save_scene

    with tempfile.TemporaryDirectory(prefix="boscage-bench-") as name:
        folder = Path(name)
        terrain = layered_terrain(513, OPEN_LAYERS)
        plain = folder / "plain" / "scene.boscage"
        save_scene(Scene(terrain=terrain, name="plain"), plain)
        for k, layer in enumerate(terrain.layers):
            layer.material = write_layer_maps(folder / "textured", k, OPEN_SIDE, ("albedo",))
        textured = folder / "textured" / "scene.boscage"
        save_scene(Scene(terrain=terrain, name="textured"), textured)
        runs: dict[str, list[dict]] = {"plain": [], "textured": []}
        for _ in range(OPEN_RUNS[quick]):
            runs["plain"].append(_first_frame(plain))
            runs["textured"].append(_first_frame(textured))
    best = {k: min(r["first_frame_s"] for r in v) for k, v in runs.items()}
    return {"plain_s": best["plain"], "textured_s": best["textured"],
            "extra_s": best["textured"] - best["plain"],
            "all_in_s": min(r["all_in_s"] for r in runs["textured"]), "runs": runs}


_OPEN: dict[bool, dict] = {}


def _open_extra_seconds(quick: bool) -> float:
    from app.gui_entry import display_available

    if not display_available():
        print("terrain_materials bench: needs a display (run under xvfb-run)", file=sys.stderr)
        return float("nan")
    if quick not in _OPEN:
        try:
            _OPEN[quick] = measure_open(quick)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            print(f"terrain_materials bench: {e}", file=sys.stderr)
            return float("nan")
        print(json.dumps(_OPEN[quick]), file=sys.stderr)
    figures = _OPEN[quick]
    seen = figures["runs"]["textured"]
    assert all(r["pending_at_first_frame"] for r in seen), "the textures should arrive after the first frame"
    assert all(r["progress_hidden_after"] for r in seen)
    return figures["extra_s"]


CASES = [
    BenchCase("viewport.terrain_8_textured_layers_vs_flat_colours", budget=1.5, run=_textured_vs_flat,
              description="a frame of 513² with 8 textured, height-blended layers (albedo, normal, "
                          "roughness, height) costs at most 1.5 times the same terrain in flat colours"),
    BenchCase("viewport.terrain_8_textured_layers_stroke_frame_cached_vs_full", budget=1.0,
              run=_stroke_vs_full,
              description="a frame drawn right after a paint stamp on the textured terrain (its mesh and "
                          "base colour re-made under the brush) costs no more than the same frame drawn "
                          "with the full per-layer blend everywhere"),
    BenchCase("terrain_materials.open_16_textures_2048_extra_s", budget=0.5, run=_open_extra_seconds,
              description="seconds a scene with 16 layer textures of 2,048² adds to the editor's first "
                          "frame over the same scene without them (fresh processes, best of each)"),
]
