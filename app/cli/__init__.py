"""Headless command families. Each module here registers one family with `register(sub)`.

Exit codes: 0 success, 1 bad input (the message names the file and the place), 2 usage.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import os
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


EXIT_CODES = ("exit codes: 0 success; 1 bad input (the message names the file and the place); "
              "2 usage error; 130 interrupted with Ctrl+C (an import removes what it wrote).")


class HelpFormatter(argparse.HelpFormatter):
    """Prose paragraphs are filled to the terminal's width; a paragraph with indented lines (the
    examples) is kept as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        paragraphs = []
        for para in text.split("\n\n"):
            lines = para.splitlines()
            if any(line.startswith(" ") for line in lines):
                paragraphs.append("\n".join(indent + line for line in lines))
            else:
                paragraphs.append(super()._fill_text(para, width, indent))
        return "\n\n".join(paragraphs)


def examples(*commands: str, notes: str = "") -> str:
    """An epilog: NOTES as prose (paragraphs split by blank lines), then each command indented."""
    block = "examples:\n" + "\n".join(f"  {c}" for c in commands)
    return f"{notes}\n\n{block}" if notes else block


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, one-line summary, parser) of each subcommand directly under `parser`, in order."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            return [(name, helps.get(name, ""), p) for name, p in action.choices.items()]
    return []


def _finish_help(parser: argparse.ArgumentParser) -> None:
    """Every parser below `parser`: our formatter, its summary as its description, and for a family
    its actions' first examples as its own."""
    for _name, summary, child in subcommands(parser):
        child.formatter_class = HelpFormatter
        if not child.description and summary:
            child.description = summary[0].upper() + summary[1:] + "."
        _finish_help(child)
        actions = subcommands(child)
        if actions and not child.epilog:
            firsts = [_first_example(p) for _n, _s, p in actions]
            child.epilog = examples(*(e for e in firsts if e))


def _first_example(parser: argparse.ArgumentParser) -> str | None:
    lines = (parser.epilog or "").split("examples:\n", 1)
    return lines[1].splitlines()[0].strip() if len(lines) == 2 else None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="boscage", formatter_class=HelpFormatter,
        description="Boscage foliage and terrain editor. Without a subcommand, opens the editor.",
        epilog=EXIT_CODES,
    )
    sub = parser.add_subparsers(dest="family", metavar="COMMAND", required=True)
    for name in family_names():
        importlib.import_module(f"{__name__}.{name.replace('-', '_')}").register(sub)
    _finish_help(parser)
    return parser


def command_summaries() -> list[tuple[str, str]]:
    """(command, one-line summary) for every subcommand family, for the editor's --help."""
    return [(name, summary) for name, summary, _p in subcommands(build_parser())]


def run_cli(argv: list[str]) -> int:
    """Run one subcommand; a reader that closed our stdout early (`| head`) ends it quietly."""
    try:
        code = _run(argv)
        sys.stdout.flush()  # inside the try: a pipe closed early fails here, not at exit
        return code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BAD_INPUT  # what Python itself exits with on EPIPE


def _silence_stdout() -> None:
    """Point stdout at the null device, so the flush at exit cannot fail a second time (see the
    Python docs on SIGPIPE)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # a stdout with no file behind it (tests)
        pass


def _run(argv: list[str]) -> int:
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
    except OSError as e:
        if e.filename is None or isinstance(e, BrokenPipeError):
            raise
        # The OS refused a path a reader did not vet (too long a name, a link loop, no permission):
        # its own sentence names the file, and it is bad input like any other.
        fail(args, f"{e.filename}: {e.strerror or e}")
        return EXIT_BAD_INPUT
    except UsageError as e:
        print(f"boscage: {e}", file=sys.stderr)
        return EXIT_USAGE


class UsageError(Exception):
    """The command line itself is wrong (exit 2)."""


def fail(args: argparse.Namespace, message: str) -> None:
    """The error as one line on stderr (and as `{"error": …}` with --json)."""
    message = " ".join(message.split("\n"))
    if getattr(args, "json", False):
        print(strict_json({"error": message}))
    print(f"boscage: error: {message}", file=sys.stderr)


def emit_report(args: argparse.Namespace, human: str | Callable[[], str], document: dict, path: object,
                errors: int, where: str) -> int:
    """A report that may have found errors: with errors, the document carries an `error` line like a
    refused input's, and stderr says it once, naming the input; returns the exit code."""
    message = f"{path}: {errors:,} error{'s' if errors != 1 else ''} {where}"
    if errors:
        document["error"] = message
    emit(args, human, document)
    if errors:
        print(f"boscage: error: {message}", file=sys.stderr)
    return EXIT_BAD_INPUT if errors else EXIT_OK


def emit(args: argparse.Namespace, human: str | Callable[[], str], document: Any) -> None:
    """Print one JSON document with --json, else the human text."""
    if getattr(args, "json", False):
        print(strict_json(document, indent=2))
    else:
        _print_text(human() if callable(human) else human)


def _print_text(text: str) -> None:
    """Print `text`; what stdout's encoding cannot hold (a lone surrogate from a game's file)
    is printed as its escape, `\\ud800`, rather than ending the command with a traceback."""
    try:
        print(text)
    except UnicodeEncodeError:  # raised before anything is written
        encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
        print(text.encode(encoding, "backslashreplace").decode(encoding))


def strict_json(document: Any, indent: int | None = None) -> str:
    """RFC 8259 JSON: a NaN or infinite number becomes null (the human output says which it was);
    `allow_nan=False` makes anything that slipped past a hard error rather than bare `NaN`."""
    return json.dumps(finite_or_null(document), indent=indent, sort_keys=False, allow_nan=False)


def finite_or_null(value: Any) -> Any:
    """`value` with every non-finite float (at any depth of dicts, lists and tuples) as None, and
    every string that is not Unicode (a lone surrogate: a game's file name that is not UTF-8) as
    its escapes, `bad\\xff`, so any JSON reader can read the document."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return value if value.isascii() else unicode_text(value)
    if isinstance(value, dict):
        return {finite_or_null(k): finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(v) for v in value]
    return value


def unicode_text(text: str) -> str:
    """`text`, with the undecodable bytes of a file name (surrogate escapes) written as `\\xff`."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:  # the bytes Python's file-name decoding could not read
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # another lone surrogate, from a document
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def number_text(value: float, spec: str = "g") -> str:
    """`value` formatted with `spec`, or in plain words when it is not a finite number."""
    if isinstance(value, float) and not math.isfinite(value):
        if math.isnan(value):
            return "NaN (not a number)"
        return "+infinity (not finite)" if value > 0 else "-infinity (not finite)"
    return format(value, spec)


def non_finite_note(value: Any) -> str:
    """'' when every number in `value` (any depth) is finite, else '  — holds …' saying what is not."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            return f"  — holds {number_text(v)}"
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return ""


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def parse_xz(text: str) -> tuple[float, float]:
    """'X,Z' → (x, z) for --at options."""
    try:
        x, z = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected X,Z, got {text!r}") from None
    return x, z
