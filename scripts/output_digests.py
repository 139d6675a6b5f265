"""Print a SHA-256 of every file the byte-promised commands write, as one JSON document.

`scripts/portability.sh` runs this twice — as the machine is, and with numpy's SIMD narrowed to the
baseline and numba compiling for a generic CPU — and fails on any difference: a TRN bake, a spawner
run, a whole-scene scatter, a growth, the demo scene, the terrain's edit layers (erosion, terraces,
stamps, road and river splines) and holes, every export and its import back.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from app.cli import run_cli  # noqa: E402

RECIPE = ROOT / "resources" / "spawners" / "forest.toml"
EXPORTS = (("glb", ()), ("gltf", ("--engine", "Unreal")), ("usda", ()), ("usdc", ("--engine", "Blender")),
           ("usdz", ()), ("csv", ("--engine", "Unity", "--matrix")), ("json", ("--engine", "Houdini")))


def cli(*args: str) -> None:
    """Run one subcommand in this process; its output is not part of the digest."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        code = run_cli([str(a) for a in args])
    if code != 0:
        raise SystemExit(f"boscage {' '.join(map(str, args))} exited {code}: {err.getvalue().strip()}")


def digests(folder: Path, prefix: str) -> dict[str, str]:
    """name → sha256 of every file under `folder` (names relative to it)."""
    return {f"{prefix}/{p.relative_to(folder).as_posix()}": hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def cone() -> np.ndarray:
    """A stamp: a cone with a notch, in + - * / and sqrt only."""
    v, u = np.mgrid[-1:1:65j, -1:1:65j]
    cone = np.maximum(0.0, 1.0 - np.sqrt(u * u + v * v))
    cone[40:45, 32:] *= 0.5
    return cone.astype(np.float32)


def fresh_demo(work: Path, name: str) -> Path:
    folder = work / name
    folder.mkdir()
    cli("scene", "new-demo", folder / "demo.boscage")
    return folder / "demo.boscage"


def main() -> int:
    out: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="boscage-digests-") as tmp:
        os.chdir(tmp)  # relative paths only: some outputs name their input (a bake's legend)
        work = Path(".")
        demo = fresh_demo(work, "demo")
        out.update(digests(demo.parent, "new-demo"))

        spawned = fresh_demo(work, "spawn")
        cli("spawn", spawned, "--recipe", RECIPE, "--save")
        out.update(digests(spawned.parent, "spawn"))

        scattered = fresh_demo(work, "scatter")
        cli("scatter", scattered, "--type", "conifer", "--whole", "--seed", "11", "--save")
        out.update(digests(scattered.parent, "scatter-whole"))

        eroded = fresh_demo(work, "terrain")
        cli("terrain", "erode", eroded, "--thermal", "--iterations", "30", "--save")
        cli("terrain", "erode", eroded, "--hydraulic", "--seed", "5", "--outputs", "flow,deposition,wear",
            "--save")
        cli("terrain", "terrace", eroded, "--step", "6", "--sharpness", "0.6", "--region=200,200,800,700",
            "--save")
        np.save(work / "cone.npy", cone())
        cli("terrain", "stamp", eroded, work / "cone.npy", "--at", "100,-140", "--radius", "90",
            "--rotation", "30", "--height", "25", "--mode", "max", "--save")
        out.update(digests(eroded.parent, "terrain-edit-layers"))

        paths = fresh_demo(work, "splines")
        road = {"points": [[-300, -200], [-100, -60], [100, 40], [300, 220]], "widths": [8, 8, 10, 8]}
        (work / "road.json").write_text(json.dumps(road))
        (work / "river.json").write_text(json.dumps([[-420, 30.5, 300], [0, 21.25, 350], [420, 12, 320]]))
        cli("terrain", "spline", paths, work / "road.json", "--width", "8", "--max-grade", "8",
            "--paint", "road", "--clear-foliage", "--name", "road", "--save")
        cli("terrain", "spline", paths, work / "river.json", "--width", "14", "--falloff", "6", "--kind",
            "river", "--depth", "2.5", "--paint", "water", "--polyline", "--clear-foliage", "--name", "river",
            "--save")
        cli("terrain", "holes", paths, "--paint", "60,-300", "--paint", "66,-302", "--radius", "5", "--save")
        cli("heightmap", "export", paths, paths.parent / "heights.png")
        cli("export", paths, paths.parent / "holes.glb", "--terrain-step", "2")
        out.update(digests(paths.parent, "terrain-splines-holes"))

        exports = work / "exports"
        exports.mkdir()
        for suffix, options in EXPORTS:
            target = exports / f"forest.{suffix}"
            cli("export", spawned, target, *options)
            back = fresh_demo(work, f"import-{suffix}")
            cli("import-foliage", back, target, "--save")
            out.update(digests(back.parent, f"import-{suffix}"))
        out.update(digests(exports, "export"))

        from model.trn.synthetic import planet_stack
        from model.zones import write_zone
        from model.zones.sample import sample_zone

        trn = work / "planet.trn"
        trn.write_bytes(planet_stack(scale=0.25).to_bytes())
        cli("trn", "bake", trn, "--region=-4096,-4096,4096,4096", "--spacing", "32", "--out", work / "bake")
        cli("trn", "bake", trn, "--region=-300,-200,340,260", "--spacing", "2", "--out", work / "bake-near")
        out.update(digests(work / "bake", "trn-bake"))
        out.update(digests(work / "bake-near", "trn-bake-near"))

        write_zone(sample_zone(5, 128, seed=1), work / "zone")
        out.update(digests(work / "zone", "sample-zone"))
        rules = ROOT / "resources" / "plants"
        cli("plants", "grow", "--zone", work / "zone", "--id", "5", "--rules", rules, "--passes", "3",
            "--seed", "9", "--fertility", "15", "--out", work / "grown")
        out.update(digests(work / "grown", "plants-grow"))
        shutil.rmtree(work / "zone")
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
