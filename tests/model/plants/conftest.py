"""Rules folders written by the tests themselves."""

from __future__ import annotations

from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[3] / "resources" / "plants"


def write_rules(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def simple_rule(index: int, *, states: int = 2, extra: str = "") -> str:
    """A valid rule of `states` states that advances and dies in its last state."""
    lines = [f"index=n{index}", "health=N" + ",".join(["10"] * states),
             "blockingHeight=N" + ",".join(["1"] * states)]
    for s in range(states):
        nxt = min(s + 1, states - 1)
        lines += [f"state_{s}=N{s},{nxt}", f"action_{s}=N{index}" + (",0" if s == states - 1 else "")]
    return "\n".join(lines) + "\n" + extra


@pytest.fixture
def sample_folder() -> Path:
    return SAMPLE
