"""`boscage terrain ACTION`: edits of a scene's terrain. Each action lives in its own module,
`app/cli/_terrain_<action>.py`, with `register(actions)`; this module only gathers them."""

from __future__ import annotations

import argparse
import importlib
import pkgutil

import app.cli


def action_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(app.cli.__path__) if m.name.startswith("_terrain_"))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("terrain", help="edit a scene's terrain from the command line (auto-paint a layer)")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    for name in action_modules():
        importlib.import_module(f"app.cli.{name}").register(actions)
