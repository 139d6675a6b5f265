"""The command-line reference page, written from the argparse parsers themselves (the docs build
runs it), so every command and option the parsers know is in it and nothing else is."""

from __future__ import annotations

import argparse

USAGE_WIDTH = 100  # fixed, so the page is the same whatever terminal builds it


def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
             ) -> list[tuple[tuple[str, ...], str, argparse.ArgumentParser]]:
    """(path, summary, parser) of `parser`'s every subcommand at any depth, in the parser's order."""
    from app.cli import subcommands

    found = []
    for name, summary, child in subcommands(parser):
        found.append((path + (name,), summary, child))
        found += commands(child, path + (name,))
    return found


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments a user writes (not -h, not the subcommand slot)."""
    return [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def reference_markdown() -> str:
    from app.cli import EXIT_CODES, build_parser
    from app.gui_entry import build_parser as editor_parser

    editor = editor_parser()
    lines = [
        "# Command line",
        "",
        "<!-- Written by app/cli/_reference.py from the parsers when the docs are built: edit the "
        "parsers' help, not this page. -->",
        "",
        "`boscage` (or `python -m app`) opens the editor; `boscage COMMAND …` runs headless. Every "
        "command prints human output by default and one JSON document with `--json`: strict RFC 8259 "
        "JSON, where a NaN or infinite number is `null` (the human output says it in words). An error "
        "is one line on stderr (with `--json`, also `{\"error\": …}` on stdout). A reader that closes the "
        "output early (`| head -1`) ends the command quietly.",
        "",
        "## Exit codes",
        "",
        "| code | meaning |",
        "|---|---|",
        "| 0 | success |",
        "| 1 | bad input: the message names the file and the place (some reports also exit 1 when they "
        "find errors, as noted below) |",
        "| 2 | usage error: the command line itself is wrong |",
        "| 130 | interrupted with Ctrl+C; an import removes every file it wrote |",
        "",
        f"`boscage --help` says the same: *{EXIT_CODES}*",
        "",
        "## `boscage` — the editor",
        "",
    ]
    lines += _section_body(editor, editor.description or "")
    cli = build_parser()
    for path, summary, parser in commands(cli):
        level = "#" * (len(path) + 1)
        lines += [f"{level} `boscage {' '.join(path)}`", ""]
        lines += _section_body(parser, parser.description or summary)
    return "\n".join(lines).rstrip() + "\n"


def _section_body(parser: argparse.ArgumentParser, description: str) -> list[str]:
    from app.cli import subcommands

    out = [_sentence(description), "", "```text", _usage(parser), "```", ""]
    children = subcommands(parser)
    if children:
        out += ["| command | what it does |", "|---|---|"]
        out += [f"| `{name}` | {_cell(summary)} |" for name, summary, _p in children]
        out.append("")
    rows = [_option_row(a) for a in options(parser)]
    if rows:
        out += ["| argument | meaning |", "|---|---|", *rows, ""]
    out += _epilog(parser.epilog or "")
    return out


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(prog=parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _option_row(action: argparse.Action) -> str:
    if action.option_strings:
        metavar = "" if action.nargs == 0 else " " + _metavar(action)
        name = ", ".join(f"`{s}{metavar}`" for s in action.option_strings)
    else:
        name = f"`{_metavar(action)}`"
    notes = []
    if action.required and action.option_strings:
        notes.append("required")
    if action.choices and action.metavar is not None and not isinstance(action.choices, dict):
        notes.append("one of " + ", ".join(f"`{c}`" for c in action.choices))
    if action.nargs in ("*", "+") or isinstance(action, argparse._AppendAction):
        notes.append("repeatable" if action.option_strings else "one or more" if action.nargs == "+"
                     else "any number")
    text = _cell(action.help or "")
    if notes:
        text = f"{text} ({'; '.join(notes)})" if text else "; ".join(notes)
    return f"| {name} | {text} |"


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar)
    if action.choices:
        return "{" + ",".join(map(str, action.choices)) + "}"
    return action.dest.upper() if action.option_strings else action.dest


def _epilog(text: str) -> list[str]:
    """The epilog's prose as paragraphs and its examples as a shell block."""
    out = []
    for para in text.split("\n\n"):
        lines = para.splitlines()
        if lines and lines[0].strip().endswith(":") and any(line.startswith(" ") for line in lines):
            out += [f"**{lines[0].strip().rstrip(':').capitalize()}**", "", "```bash"]
            out += [line.strip() for line in lines[1:]]
            out += ["```", ""]
        elif para.strip():
            out += [_sentence(" ".join(para.split())), ""]
    return out


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] if text else text


def _cell(text: str) -> str:
    """Text for a table cell: one line, pipes escaped, argparse's %% unescaped."""
    return " ".join(text.split()).replace("|", "\\|").replace("%%", "%")
