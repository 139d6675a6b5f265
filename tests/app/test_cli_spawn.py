import json
import subprocess
import sys
from pathlib import Path

import pytest

RECIPE = (Path(__file__).resolve().parents[2] / "resources" / "spawners" / "forest.toml").read_text()


def boscage(*args: str) -> subprocess.CompletedProcess:
    root = Path(__file__).resolve().parents[2]
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, cwd=root,
                          timeout=120)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("spawn") / "demo.boscage"
    assert boscage("scene", "new-demo", str(out)).returncode == 0
    return out


def test_spawn_reports_per_species_and_saves_what_it_owns(demo, tmp_path):
    recipe = tmp_path / "forest.toml"
    recipe.write_text(RECIPE)
    first = boscage("spawn", str(demo), "--recipe", str(recipe), "--save", "--json")
    assert first.returncode == 0, first.stderr
    doc = json.loads(first.stdout)
    report = doc["spawners"][0]
    assert report["spawner"] == "forest" and report["placed"] > 100 and report["added"] == report["placed"]
    for species in report["species"]:
        assert sum(r["count"] for r in species["refused"]) + species["placed"] == species["candidates"]
    reasons = {r["reason"] for r in report["species"][1]["refused"]}
    assert "condition 1 `near conifer within 8 m`" in reasons
    assert "[[spawners]]" in demo.read_text()
    again = boscage("spawn", str(demo), "--json")  # the saved scene knows its spawner's instances
    assert again.returncode == 0, again.stderr
    report2 = json.loads(again.stdout)["spawners"][0]
    assert (report2["added"], report2["removed"], report2["placed"]) == (0, 0, report["placed"])
    human = boscage("spawn", str(demo), "--name", "forest")
    assert human.returncode == 0 and "conifer:" in human.stdout and "placed" in human.stdout


def test_spawn_errors_are_one_line(demo, tmp_path):
    plain = tmp_path / "plain.boscage"
    assert boscage("scene", "new-demo", str(plain)).returncode == 0
    none = boscage("spawn", str(plain))
    assert none.returncode == 1 and "has no spawners" in none.stderr and "Traceback" not in none.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text('[[spawners]]\nname = "x"\n[[spawners.species]]\ntype = "conifer"\n'
                   'conditions = [{ wet = 1 }]\n')
    r = boscage("spawn", str(plain), "--recipe", str(bad))
    assert r.returncode == 1 and "bad.toml" in r.stderr and "unknown condition 'wet'" in r.stderr
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('[[spawners]]\nname = "x"\n[[spawners.species]]\ntype = "baobab"\n')
    r = boscage("spawn", str(plain), "--recipe", str(unknown))
    assert r.returncode == 1 and "baobab" in r.stderr and "Traceback" not in r.stderr
    r = boscage("spawn", str(demo), "--name", "nope")
    assert r.returncode == 2 and "no spawner named 'nope'" in r.stderr


def test_a_save_that_changes_nothing_writes_nothing(tmp_path):
    scene = tmp_path / "demo.boscage"
    assert boscage("scene", "new-demo", str(scene)).returncode == 0
    recipe = tmp_path / "forest.toml"
    recipe.write_text(RECIPE)
    first = boscage("spawn", str(scene), "--recipe", str(recipe), "--save", "--json")
    assert first.returncode == 0 and json.loads(first.stdout)["saved"] is True, first.stderr

    def files() -> dict:
        return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns, p.read_bytes())
                for p in tmp_path.iterdir() if p.is_file() and p.name != "forest.toml"}

    before = files()
    again = boscage("spawn", str(scene), "--save", "--json")
    assert again.returncode == 0, again.stderr
    doc = json.loads(again.stdout)
    assert doc["saved"] is False and doc["spawners"][0]["added"] == 0 and doc["spawners"][0]["removed"] == 0
    assert doc["spawners"][0]["placed"] > 100
    assert files() == before  # no file rewritten, none left behind
    human = boscage("spawn", str(scene), "--save")
    assert human.returncode == 0 and "nothing changed" in human.stdout and files() == before
