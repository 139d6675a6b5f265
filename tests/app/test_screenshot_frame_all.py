"""`boscage --screenshot PNG --frame-all --stats JSON`: the whole demo framed, every instance drawn
(itself, or by its chunk's proxy)."""

from __future__ import annotations

import json

from model.demo import demo_resource_path
from model.formats.scene_file import load_scene
from tests.app.test_screenshot import run_app


def test_frame_all_on_the_demo_draws_every_stored_instance_and_writes_its_statistics(tmp_path) -> None:
    out, stats = tmp_path / "all.png", tmp_path / "all.json"
    result = run_app("--screenshot", str(out), "--frame-all", "--stats", str(stats), "--size", "1000x700")
    assert result.returncode == 0, result.stderr
    assert out.stat().st_size > 10_000
    doc = json.loads(stats.read_text(encoding="utf-8"))
    volume = load_scene(demo_resource_path()).sections["foliage"].volume
    stored = sum(len(volume.chunk(*k)) for k in volume.keys())
    assert stored > 1000
    per_level = doc["instances_per_level"]
    assert sum(per_level.values()) == stored  # every stored instance: a mesh, a card or by proxy
    by_proxy = sum(n for k, n in per_level.items() if k.startswith("proxy"))  # chunk and group levels
    assert per_level.get("impostor", 0) + by_proxy > stored // 2  # from that far, most as cards or proxies
    assert 0 < doc["proxy_cards"] <= by_proxy  # a proxy draws fewer cards than it stands for
    assert sum(doc["proxy_cards_per_level"].values()) == doc["proxy_cards"]
    assert doc["chunks_drawn"] == len(volume.keys()) and doc["chunks_culled"] == 0
    assert doc["frame_ms"] > 0


def test_the_frame_flags_need_a_screenshot(tmp_path) -> None:
    result = run_app("--frame-all")
    assert result.returncode == 2 and "--screenshot" in result.stderr
