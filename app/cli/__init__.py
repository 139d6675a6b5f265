"""Headless command families. Each module here registers one family with `register(sub)`.

Exit codes: 0 success, 1 bad input (the message names the file and the place), 2 usage.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pkgutil
import sys
from collections.abc import Callable
from typing import Any

from model.errors import FormatError

EXIT_OK, EXIT_BAD_INPUT, EXIT_USAGE = 0, 1, 2


def family_names() -> list[str]:
    # module import_foliage is the command import-foliage
    return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(__path__)
                  if not m.name.startswith("_"))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boscage",
        description="Boscage foliage and terrain editor. Without a subcommand, opens the editor.",
    )
    sub = parser.add_subparsers(dest="family", metavar="COMMAND", required=True)
    for name in family_names():
        importlib.import_module(f"{__name__}.{name.replace('-', '_')}").register(sub)
    return parser


def run_cli(argv: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse: usage errors exit 2, --help exits 0
        return int(e.code or 0)
    handler: Callable[[argparse.Namespace], int] | None = getattr(args, "func", None)
    if handler is None:
        parser.print_usage(sys.stderr)
        return EXIT_USAGE
    try:
        return int(handler(args) or 0)
    except FormatError as e:
        fail(args, str(e))
        return EXIT_BAD_INPUT
    except UsageError as e:
        print(f"boscage: {e}", file=sys.stderr)
        return EXIT_USAGE


class UsageError(Exception):
    """The command line itself is wrong (exit 2)."""


def fail(args: argparse.Namespace, message: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps({"error": message}))
    print(f"boscage: error: {message}", file=sys.stderr)


def emit(args: argparse.Namespace, human: str | Callable[[], str], document: Any) -> None:
    """Print one JSON document with --json, else the human text."""
    if getattr(args, "json", False):
        print(json.dumps(document, indent=2, sort_keys=False))
    else:
        print(human() if callable(human) else human)


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def parse_xz(text: str) -> tuple[float, float]:
    """'X,Z' → (x, z) for --at options."""
    try:
        x, z = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X,Z, got {text!r}") from None
    return x, z
