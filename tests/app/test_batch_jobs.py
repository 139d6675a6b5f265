"""Batch jobs through the command line (trn bake, spawn, scatter --whole, plants grow over many
zones): a real scheduler and workers on localhost, local clusters of 2 and 3 workers, two tile
sizes, and a resume after SIGKILL — the same bytes every time."""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from model.scene_lock import lock_path
from tests.app.dask_cluster import ROOT, fresh_mmaps, local_cluster, square
from tests.app.test_cli_spawn import RECIPE as FOREST

RECIPE = FOREST  # the same two-species forest the spawn command's own tests run


def boscage(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


def digest(folder: Path) -> dict[str, str]:
    """The scene's files by name; a killed writer's lock file (free, taken over by the next) is not one."""
    files = sorted(p for p in folder.iterdir() if p.is_file() and p != lock_path(folder / "demo.boscage"))
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("demo")
    assert boscage("scene", "new-demo", str(folder / "demo.boscage")).returncode == 0
    (folder.parent / "forest.toml").write_text(RECIPE)
    return folder


def spawned(demo: Path, where: Path, *flags: str) -> dict[str, str]:
    shutil.copytree(demo, where)
    r = boscage("spawn", str(where / "demo.boscage"), "--recipe", str(demo.parent / "forest.toml"), "--save",
                *flags)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return digest(where)


def scattered(demo: Path, where: Path, *flags: str) -> dict[str, str]:
    """`scatter --whole` of the demo's conifers (spacing 4 m, on its forest floor) over the whole demo."""
    shutil.copytree(demo, where)
    r = boscage("scatter", str(where / "demo.boscage"), "--type", "conifer", "--whole", "--seed", "3",
                "--save", *flags)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return digest(where)


@pytest.fixture(scope="module")
def scatter_one(demo, tmp_path_factory) -> dict[str, str]:
    """The demo after `scatter --whole` in this process (tiles of 256 m, the default)."""
    one = scattered(demo, tmp_path_factory.mktemp("scatter") / "one")
    assert one != digest(demo)  # it placed something
    return one


def test_spawn_and_scatter_on_a_real_scheduler_match_one_process(demo, scatter_one, tmp_path):
    one = spawned(demo, tmp_path / "one", "--workers", "1")
    with local_cluster(2) as address:
        cluster = spawned(demo, tmp_path / "cluster", "--scheduler", address, "--tile", "200")
        scatter_cluster = scattered(demo, tmp_path / "scatter_cluster", "--scheduler", address, "--tile",
                                    "200")
    assert cluster == one
    assert scatter_cluster == scatter_one


@pytest.mark.parametrize("workers, tile", [("2", "150"), ("3", "333")])
def test_spawn_on_local_workers_and_tile_sizes_matches_one_process(demo, tmp_path, workers, tile):
    one = spawned(demo, tmp_path / "one")
    assert spawned(demo, tmp_path / "many", "--workers", workers, "--tile", tile) == one


@pytest.mark.parametrize("workers, tile", [("2", "150"), ("3", "333")])
def test_scatter_on_local_workers_and_tile_sizes_matches_one_process(demo, scatter_one, tmp_path, workers,
                                                                     tile):
    assert scattered(demo, tmp_path / "many", "--workers", workers, "--tile", tile) == scatter_one


def test_scatter_resumes_after_sigkill(demo, scatter_one, tmp_path):
    work, tiles = tmp_path / "killed", tmp_path / "tiles"
    shutil.copytree(demo, work)
    flags = ["--type", "conifer", "--whole", "--seed", "3", "--save", "--workers", "1", "--tile", "40",
             "--tiles-dir", str(tiles)]
    proc = subprocess.Popen([sys.executable, "-m", "app", "scatter", str(work / "demo.boscage"), *flags],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(list(tiles.glob("tile_*.npz"))) < 20 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert len(list(tiles.glob("tile_*.npz"))) >= 20, "the scatter finished before it could be killed"
    assert digest(work) == digest(demo)  # nothing was saved by the killed run
    # the scene edited in between (one stamp of bushes saved): its resume is refused, nothing mixed
    edited = tmp_path / "edited"
    shutil.copytree(work, edited)
    stamp = boscage("scatter", str(edited / "demo.boscage"), "--type", "bush", "--at=100,100", "--radius",
                    "60", "--save", "--json")
    assert stamp.returncode == 0 and json.loads(stamp.stdout)["placed"] > 0
    r = boscage("scatter", str(edited / "demo.boscage"), *flags, "--resume")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "the foliage changed since the stopped run" in r.stderr and "without --resume" in r.stderr
    r = boscage("scatter", str(work / "demo.boscage"), *flags, "--resume", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["placed"] > 0  # the final report
    assert digest(work) == scatter_one
    assert not tiles.exists()


def test_resume_after_sigkill_ends_with_the_same_bytes(demo, tmp_path):
    one = spawned(demo, tmp_path / "one")
    work = tmp_path / "killed"
    shutil.copytree(demo, work)
    tiles = tmp_path / "tiles"
    args = [sys.executable, "-m", "app", "spawn", str(work / "demo.boscage"), "--recipe",
            str(demo.parent / "forest.toml"), "--save", "--workers", "1", "--tile", "40",
            "--tiles-dir", str(tiles)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(list(tiles.glob("tile_*.npz"))) < 20 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    done_before = len(list(tiles.glob("tile_*.npz")))
    assert done_before >= 20, "the job finished before it could be killed: make the tiles smaller"
    assert digest(work) == digest(demo)  # nothing was saved by the killed run
    # the terrain sculpted in between (one tile of heights saved again): refused, nothing mixed
    from model.formats.scene_file import load_scene, save_scene

    edited = tmp_path / "edited"
    shutil.copytree(work, edited)
    scene = load_scene(edited / "demo.boscage")
    window = (slice(10, 12), slice(10, 12))
    scene.terrain.heights_grid()[window] = scene.terrain.read_heights(*window) + 1.0
    save_scene(scene, edited / "demo.boscage")
    r = boscage("spawn", str(edited / "demo.boscage"), *args[5:], "--resume")
    assert r.returncode == 1 and "the terrain's heights changed since the stopped run" in r.stderr
    assert len(list(tiles.glob("tile_*.npz"))) == done_before  # the refusal keeps the stopped run's tiles
    r = boscage("spawn", str(work / "demo.boscage"), "--recipe", str(demo.parent / "forest.toml"), "--save",
                "--workers", "1", "--tile", "40", "--tiles-dir", str(tiles), "--resume")
    assert r.returncode == 0, r.stderr
    assert digest(work) == one
    assert not tiles.exists()


# ---- trn bake ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def planet(tmp_path_factory) -> Path:
    from model.trn.synthetic import realistic_stack

    path = tmp_path_factory.mktemp("trn") / "planet.trn"
    path.write_bytes(realistic_stack(24, seed=5, extent=1500.0).to_bytes())
    return path


def baked(planet: Path, out: Path, *flags: str, spacing: str = "4") -> dict[str, str]:
    r = boscage("trn", "bake", str(planet), "--region=-600,-600,600,600", "--spacing", spacing,
                "--out", str(out), *flags)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return digest(out)


def test_bake_on_a_real_scheduler_and_local_workers_matches_one_process(planet, tmp_path):
    one = baked(planet, tmp_path / "one")
    assert baked(planet, tmp_path / "w1", "--workers", "1", "--tile", "77") == one
    assert baked(planet, tmp_path / "w3", "--workers", "3", "--tile", "128") == one
    with local_cluster(2) as address:
        assert baked(planet, tmp_path / "cluster", "--scheduler", address, "--tile", "100") == one


def test_bake_resumes_after_sigkill(planet, tmp_path):
    one = baked(planet, tmp_path / "one", spacing="3")
    out, tiles = tmp_path / "killed", tmp_path / "tiles"
    args = [sys.executable, "-m", "app", "trn", "bake", str(planet), "--region=-600,-600,600,600",
            "--spacing", "3", "--out", str(out), "--workers", "1", "--tile", "40", "--tiles-dir", str(tiles)]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(list(tiles.glob("tile_*.npz"))) < 10 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert len(list(tiles.glob("tile_*.npz"))) >= 10, "the bake finished before it could be killed"
    assert not out.exists() or not any(out.iterdir())
    # another TRN file under the same name: refused, naming the file
    from model.trn.synthetic import realistic_stack

    other = tmp_path / "other" / planet.name
    other.parent.mkdir()
    other.write_bytes(realistic_stack(24, seed=6, extent=1500.0).to_bytes())
    r = boscage("trn", "bake", str(other), *args[6:], "--resume")
    assert r.returncode == 1 and "different: file" in r.stderr and "Traceback" not in r.stderr
    assert baked(planet, out, "--workers", "1", "--tile", "40", "--tiles-dir", str(tiles), "--resume",
                 spacing="3") == one
    assert not tiles.exists()


# ---- plants grow over many zones ---------------------------------------------------------------
@pytest.fixture(scope="module")
def zones(tmp_path_factory) -> Path:
    from model.zones import write_zone
    from model.zones.sample import sample_zone

    folder = tmp_path_factory.mktemp("zones")
    for zone_id, seed in ((3, 1), (7, 2), (12, 3)):
        write_zone(sample_zone(zone_id, 96, seed=seed), folder)
    return folder


def grown(zones: Path, out: Path, *flags: str) -> dict[str, str]:
    from tests.app.test_cli_plants import SAMPLE

    r = boscage("plants", "grow", "--zones", str(zones), "--rules", str(SAMPLE), "--passes", "3",
                "--seed", "9", "--out", str(out), *flags)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    return digest(out)


def test_grow_many_zones_on_a_real_scheduler_matches_one_process(zones, tmp_path):
    one = grown(zones, tmp_path / "one", "--all", "--workers", "1")
    assert sorted(one) == sorted(p.name for p in zones.iterdir())  # every layer of the three zones
    single = grown(zones, tmp_path / "single", "--id", "7")
    assert {k: v for k, v in one.items() if ".0007." in k} == single  # a zone grows alike alone
    assert grown(zones, tmp_path / "two", "--ids", "12,3,7", "--workers", "2") == one
    with local_cluster(2) as address:
        assert grown(zones, tmp_path / "cluster", "--all", "--scheduler", address) == one


# ---- workers someone else started ----------------------------------------------------------------
def test_workers_of_an_existing_cluster_stop_mapping_every_numpy_temporary():
    """`dask worker`'s nanny sets MALLOC_TRIM_THRESHOLD_: each 1 MiB array is then its own mmap. A
    job through --scheduler gives the workers glibc's large thresholds back (and so do later ones)."""
    from distributed import Client

    from model.batch import Task, run_tasks

    with local_cluster(1) as address, Client(address, timeout=20) as client:
        [(env, mapped)] = client.run(fresh_mmaps).values()
        assert env == "65536" and mapped == 8
        assert run_tasks(square, [Task("a", (3,))], scheduler=address)["a"]["y"] == 9
        [(env, mapped)] = client.run(fresh_mmaps).values()
        assert env == "65536" and mapped == 0


def test_grow_on_three_local_workers_matches_one_process(zones, tmp_path):
    one = grown(zones, tmp_path / "one", "--all")
    assert grown(zones, tmp_path / "three", "--all", "--workers", "3") == one


@pytest.fixture(scope="module")
def slow_zones(tmp_path_factory) -> Path:
    """Six 512² zones: at 40 passes each takes about half a second to grow, long enough to kill a
    job between two of them and for a terminal bar to show a rate."""
    from model.zones import write_zone
    from model.zones.sample import sample_zone

    folder = tmp_path_factory.mktemp("slow_zones")
    for zone_id in range(1, 7):
        write_zone(sample_zone(zone_id, 512, seed=zone_id), folder)
    return folder


def _grow_args(zones: Path, out: Path, *flags: str, which: str = "--all") -> list[str]:
    from tests.app.test_cli_plants import SAMPLE

    return ["plants", "grow", "--zones", str(zones), which, "--rules", str(SAMPLE), "--passes", "40",
            "--seed", "5", "--out", str(out), *flags]


def test_grow_resumes_after_sigkill(slow_zones, tmp_path):
    slow_zones = shutil.copytree(slow_zones, tmp_path / "zones")  # one of them is edited below
    r = boscage(*_grow_args(slow_zones, tmp_path / "one", "--workers", "1"))
    assert r.returncode == 0, r.stderr
    one = digest(tmp_path / "one")
    out, tiles = tmp_path / "killed", tmp_path / "tiles"
    args = _grow_args(slow_zones, out, "--workers", "1", "--tiles-dir", str(tiles))
    proc = subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while len(list(tiles.glob("zone_*.npz"))) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert 2 <= len(list(tiles.glob("zone_*.npz"))) < 6, "the grow finished before it could be killed"
    assert not out.exists() or not any(out.iterdir())  # zones are written once all are grown
    # a zone file edited in between (same size, one byte): refused, naming the zone
    altitude = slow_zones / "altitude.0002.bin"
    original = altitude.read_bytes()
    altitude.write_bytes(bytes([original[0] ^ 1]) + original[1:])
    r = boscage(*args, "--resume")
    assert r.returncode == 1 and "zone 2 changed since the stopped run" in r.stderr
    altitude.write_bytes(original)
    r = boscage(*args, "--resume", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["zones"] == [1, 2, 3, 4, 5, 6]
    assert digest(out) == one
    assert not tiles.exists()


# ---- what a terminal shows ---------------------------------------------------------------------
def on_a_terminal(*args: str) -> tuple[str, str]:
    """Run with stderr on a pseudo-terminal (the bar draws only there): (stdout, what the bar drew)."""
    import os
    import pty

    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "app", *args], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=slave, text=True)
        os.close(slave)
        drawn = bytearray()
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed its end
                break
            if not chunk:
                break
            drawn += chunk
        out, _ = proc.communicate(timeout=300)
    finally:
        os.close(master)
    assert proc.returncode == 0, drawn.decode(errors="replace")
    return out, drawn.decode(errors="replace")


def test_every_batch_command_draws_tiles_rate_and_time_left_and_reports_json(demo, planet, slow_zones,
                                                                              tmp_path):
    import re

    work = tmp_path / "demo"
    shutil.copytree(demo, work)
    runs = {
        "tiles": [("trn", "bake", str(planet), "--region=-600,-600,600,600", "--spacing", "4", "--out",
                   str(tmp_path / "bake"), "--workers", "1", "--tile", "50"),
                  ("spawn", str(work / "demo.boscage"), "--recipe", str(demo.parent / "forest.toml"),
                   "--workers", "1", "--tile", "100"),
                  ("scatter", str(work / "demo.boscage"), "--type", "conifer", "--whole", "--workers", "1",
                   "--tile", "100")],
        "zones": [tuple(_grow_args(slow_zones, tmp_path / "grown", "--workers", "1", which="--ids=1,2,3"))],
    }
    for unit, commands in runs.items():
        for command in commands:
            out, drawn = on_a_terminal(*command, "--json")
            frames = [f for f in drawn.replace("\n", "\r").split("\r") if "] " in f]
            assert any(re.search(rf"\] \d+/(\d+) {unit}  [\d.]+/s, \d+ s left", f) for f in frames), \
                (command[0], frames[:3])
            assert re.search(rf"\] (\d+)/\1 {unit}", frames[-1]), (command[0], frames[-1])  # all done
            json.loads(out)  # one JSON document: the final report


def test_many_zones_say_which_plants_have_no_rule_before_growing(zones, tmp_path):
    """As one zone does: on stderr before the bar, and in the JSON report, in the same words."""
    from model.zones import read_zone
    from tests.app.test_cli_plants import SAMPLE

    base = ["plants", "grow", "--zones", str(zones), "--ids", "3,7", "--rules", str(SAMPLE), "--passes", "1",
            "--seed", "1", "--workers", "1"]
    r = boscage(*base, "--out", str(tmp_path / "a"))
    assert r.returncode == 0, r.stderr
    tiles = int((read_zone(zones, 3).plants["type"] == 2).sum())  # GrassB (2): no rule in the sample set
    said = (f"boscage: warning: zone 3: {SAMPLE}: no rule for 1 plant type on the zone: GrassB {tiles:,} "
            "tiles; kept as they are (--drop-unknown-plants removes them)")
    assert said in r.stderr.splitlines() and "zone 7: " in r.stderr
    r = boscage(*base, "--out", str(tmp_path / "b"), "--drop-unknown-plants", "--json")
    doc = json.loads(r.stdout)
    assert doc["missing_rules"]["3"] == {"GrassB": tiles} and doc["unknown_plants"] == "dropped"
    assert "removed (--drop-unknown-plants)" in doc["warnings"]["3"][-1]
