"""`boscage [SCENE]` and `boscage --screenshot PNG [SCENE] [--frame-all | --camera EYE,TARGET]
[--stats JSON]`: start the editor window."""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from model.demo import demo_resource_path
from model.errors import FormatError

SCREENSHOT_TIMEOUT_MS = 60000
MIN_SIZE = (640, 480)  # smaller, and the docks leave the viewport no room to draw a frame
MAX_SIDE = 16384
MAX_CAMERA_METRES = 1.0e7  # as far as a scene may reach (scene_file.MAX_EXTENT)


class _EditorParser(argparse.ArgumentParser):
    """The editor's parser; its help ends with every headless command, read from their parsers only
    when help is asked for (importing them all would slow every start)."""

    def format_help(self) -> str:
        from app.cli import EXIT_CODES, HelpFormatter, command_summaries, examples

        self.formatter_class = HelpFormatter
        summaries = command_summaries()
        width = max(len(name) for name, _ in summaries)
        commands = "\n".join(f"  {name:<{width}}  {summary}" for name, summary in summaries)
        self.epilog = (
            "commands (headless; `boscage COMMAND -h` gives its options and examples):\n"
            f"{commands}\n\n{EXIT_CODES}\n\n"
            + examples("boscage", "boscage forest.boscage",
                       "boscage --screenshot shot.png --size 1200x750 --camera 0,120,-420,0,20,0 "
                       "forest.boscage",
                       "boscage scene info forest.boscage --json",
                       "boscage export forest.boscage forest.glb"))
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    p = _EditorParser(prog="boscage", description="Boscage foliage and terrain editor: opens SCENE (or "
                      "the bundled demo scene) in the editor; the commands below run headless.")
    p.add_argument("scene", nargs="?", type=Path, metavar="SCENE",
                   help="a .boscage scene to open (default: the bundled demo scene)")
    p.add_argument("--screenshot", type=Path, metavar="PNG",
                   help="render the first full frame, save the whole window as PNG and exit")
    p.add_argument("--size", default="1400x900", metavar="WxH", help="window size for --screenshot")
    p.add_argument("--frame-all", action="store_true",
                   help="with --screenshot: frame the whole scene (as F does) before the shot")
    p.add_argument("--camera", metavar="EX,EY,EZ,TX,TY,TZ",
                   help="with --screenshot: stand the camera at the eye (EX, EY, EZ) looking at the target "
                        "(TX, TY, TZ), metres in the scene frame (Y up); write --camera=-10,... when the "
                        "first value is negative")
    p.add_argument("--wind", action="store_true",
                   help="with --screenshot: show the wind preview's sway, held at one moment "
                        "(screenshots are still otherwise, so their pixels repeat)")
    p.add_argument("--wind-strength", type=float, default=1.0, metavar="S",
                   help="with --wind: the sway's strength, 0 to 10 (default 1)")
    p.add_argument("--no-terrain-cache", action="store_true",
                   help="with --screenshot: blend every textured layer per pixel at any distance instead of "
                        "drawing far ground from its baked base colour (to compare the two)")
    p.add_argument("--stats", type=Path, metavar="FILE.json",
                   help="with --screenshot: write the shot frame's statistics (instances drawn per "
                        "level, chunks drawn and culled, frame time) as JSON")
    return p


def parse_camera(text: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """(eye, target) from "EX,EY,EZ,TX,TY,TZ"; ValueError saying what is wrong."""
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 6:
        raise ValueError(f"--camera takes six numbers EX,EY,EZ,TX,TY,TZ, got {len(parts)} in {text!r}")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"--camera takes six numbers EX,EY,EZ,TX,TY,TZ, got {text!r}") from None
    if not all(math.isfinite(v) and abs(v) <= MAX_CAMERA_METRES for v in values):
        raise ValueError(f"--camera values must be finite and within {MAX_CAMERA_METRES:g} m, got {text!r}")
    eye, target = tuple(values[:3]), tuple(values[3:])
    if math.dist(eye, target) < 1e-3:
        raise ValueError(f"--camera: the eye and the target are the same point ({text!r})")
    return eye, target


def display_available() -> bool:
    """On Linux a window needs X11 or Wayland, unless Qt is told to use another platform."""
    import os

    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def load_demo():
    from model.formats.scene_file import load_scene

    scene = load_scene(demo_resource_path())
    scene.path = None  # the bundled copy is never overwritten: Save asks where
    return scene


def _opened_demo():
    """The demo scene ready to show (on a helper thread): read, its opening view found, and the
    built-in meshes its types draw generated with their images' mip levels."""
    from model.foliage.meshes import generate_builtin_meshes
    from rendering.foliage_materials import prepare_textures
    from widgets.viewport import prepare_opening

    scene = load_demo()
    prepare_opening(scene)
    foliage = scene.sections.get("foliage")
    if foliage is not None and foliage.palette is not None:
        for mesh in generate_builtin_meshes(foliage.palette):
            prepare_textures(mesh)
    return scene


def run_gui(argv: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        print(f"boscage: error: --size must be WxH, got {args.size!r}", file=sys.stderr)
        return 2
    if not (MIN_SIZE[0] <= width <= MAX_SIDE and MIN_SIZE[1] <= height <= MAX_SIDE):
        print(f"boscage: error: --size must be at least {MIN_SIZE[0]}x{MIN_SIZE[1]} and at most "
              f"{MAX_SIDE}x{MAX_SIDE}, got {args.size!r}", file=sys.stderr)
        return 2

    if (args.frame_all or args.stats is not None or args.camera is not None or args.wind
            or args.no_terrain_cache) and args.screenshot is None:
        print("boscage: error: --frame-all, --camera, --stats, --wind and --no-terrain-cache go with "
              "--screenshot PNG",
              file=sys.stderr)
        return 2
    if not 0.0 <= args.wind_strength <= 10.0:
        print(f"boscage: error: --wind-strength must be between 0 and 10, got {args.wind_strength:g}",
              file=sys.stderr)
        return 2
    camera = None
    if args.camera is not None:
        if args.frame_all:
            print("boscage: error: --camera and --frame-all each place the camera: give one", file=sys.stderr)
            return 2
        try:
            camera = parse_camera(args.camera)
        except ValueError as e:
            print(f"boscage: error: {e}", file=sys.stderr)
            return 2
    if not display_available():
        print("boscage: error: no display to open a window on (set DISPLAY, or run under xvfb-run)",
              file=sys.stderr)
        return 1
    from app.gl_format import install_default_format

    install_default_format()
    from model.scene_lock import set_process_command

    set_process_command("Boscage editor")  # how a CLI refused by the editor's save names it
    from PySide6.QtWidgets import QApplication

    own_process = QApplication.instance() is None  # the command itself, not a caller's application
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setOrganizationName("Boscage")
    app.setApplicationName("Boscage")

    from app.main_window import MainWindow
    from model.formats.scene_file import load_scene

    if args.screenshot is not None:
        try:
            scene = load_scene(args.scene) if args.scene is not None else load_demo()
        except FormatError as e:
            print(f"boscage: error: {e}", file=sys.stderr)
            return 1
        window = MainWindow(scene, restore_layout=False)
        # still unless asked, so screenshots repeat pixel for pixel
        window.viewport.set_wind(args.wind_strength if args.wind else 0.0, animate=False)
        # no one to close a dialog: a warning goes to the terminal and the shot goes on
        window.warning_hook = lambda _p, _t, text: print(f"boscage: warning: {text}", file=sys.stderr)
        window.viewport.use_terrain_cache(not args.no_terrain_cache)
        code = take_screenshot(app, window, args.screenshot, (width, height), frame_all=args.frame_all,
                               stats_path=args.stats, camera=camera)
        if own_process:
            exit_now(code, window)
        return code

    window = start_window(args.scene)
    from PySide6.QtCore import QTimer

    QTimer.singleShot(0, window.offer_recovery)  # once the window is up: a crashed session's work
    return app.exec()


def exit_now(code: int, window) -> None:
    """End the screenshot command once its PNG is written and its window closed, without tearing
    down the interpreter: freeing a big scene's hundreds of thousands of objects, then Qt's, cost
    half a second after the picture was done. What outlives the process is flushed first (the
    settings, the terminal's output); file locks end with the process."""
    window.settings.qsettings.sync()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def start_window(path: Path | None, restore_layout: bool = True):
    """The editor's window, shown with its panels at once (on an empty scene, the viewport saying
    what it opens), then the scene opened: `path`, or the bundled demo (also when `path` cannot be
    opened). A big scene opens with its progress (and Cancel), a bad one is one error dialog over
    the window; the demo's loading and its opening view (a second of sight lines) run on a helper
    thread, the window drawn meanwhile."""
    from PySide6.QtWidgets import QApplication

    from widgets.progress import Background, in_background

    # the demo is read while the window's modules load and the window is built (the helper thread
    # touches no widget)
    demo = Background(_opened_demo) if path is None else None
    from app.document import new_scene
    from app.main_window import MainWindow

    window = MainWindow(new_scene(), restore_layout=restore_layout, first_frame_first=True)
    window.viewport.hold(f"Opening {path.name if path is not None else 'the demo scene'}…")
    window.show()
    QApplication.processEvents()
    try:
        if path is None or not window.open_file(path):
            window.open_scene(demo.result() if demo is not None else in_background(_opened_demo))
    finally:
        window.viewport.release()
    return window


def _wait_for_frame(app, viewport, after: int) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    viewport.frame_rendered.connect(loop.quit)
    QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, loop.quit)
    if viewport.frames_rendered <= after:
        loop.exec()
    viewport.frame_rendered.disconnect(loop.quit)


def _wait_for_textures(app, viewport) -> None:
    """Frames until the terrain's layer textures are all in (they load in the background)."""
    from PySide6.QtCore import QElapsedTimer

    clock = QElapsedTimer()
    clock.start()
    while (viewport.frames_rendered > 0 and viewport.textures_pending()
           and clock.elapsed() < SCREENSHOT_TIMEOUT_MS):
        before = viewport.frames_rendered
        viewport.update()
        _wait_for_frame(app, viewport, before)
    app.processEvents()  # the warnings the last frames queued


def take_screenshot(app, window, path: Path, size: tuple[int, int], frame_all: bool = False,
                    stats_path: Path | None = None, camera: tuple | None = None) -> int:
    """Show the window, wait for the viewport's first frame (with `frame_all`, the first after
    framing the whole scene; with `camera` (eye, target), the first from there), save the whole
    window and the frame's statistics, exit."""
    window.resize(*size)
    window.show()
    viewport = window.viewport
    _wait_for_frame(app, viewport, 0)
    for _ in range(5):  # let docks and menus finish laying out
        app.processEvents()
    if frame_all and viewport.frames_rendered > 0:
        before = viewport.frames_rendered
        viewport.frame_all()
        _wait_for_frame(app, viewport, before)
        app.processEvents()
    if camera is not None and viewport.frames_rendered > 0:
        before = viewport.frames_rendered
        viewport.look_from(*camera)
        _wait_for_frame(app, viewport, before)
        app.processEvents()
    _wait_for_textures(app, viewport)
    ok = viewport.frames_rendered > 0
    if ok and stats_path is not None:
        import json

        from model.atomic import atomic_write_text

        try:
            atomic_write_text(stats_path, json.dumps(viewport.stats.to_dict(), indent=2) + "\n")
        except OSError as e:
            print(f"boscage: error: {stats_path}: could not write the statistics ({e.strerror or e})",
                  file=sys.stderr)
            ok = False
    if ok:
        image = window.grab().toImage()
        ok = image.save(str(path), "PNG")
        if not ok:
            print(f"boscage: error: {path}: could not write the PNG", file=sys.stderr)
    else:
        print("boscage: error: the viewport rendered no frame (is there an OpenGL 3.3 display?)",
              file=sys.stderr)
    window.document.undo_stack.setClean()
    window.close()
    return 0 if ok else 1
