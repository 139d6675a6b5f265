"""The command line explains itself: `boscage --help` lists every subcommand, every command's help
shows an example, and the reference page written from the parsers has a section for every command
and a row for every option (a command or option added later is covered without touching this file)."""

from __future__ import annotations

import argparse
import re

import pytest

from app.__main__ import main
from app.cli import HelpFormatter, build_parser, family_names, run_cli, subcommands
from app.cli._reference import commands, options, reference_markdown
from app.gui_entry import build_parser as editor_parser

COMMANDS = commands(build_parser())
LEAVES = [(path, p) for path, _s, p in COMMANDS if not subcommands(p)]


def test_the_parser_knows_many_commands():
    # guards the walk below: a broken walk would make every per-command test vacuous
    assert len(COMMANDS) >= 30 and len(LEAVES) >= 20
    assert {path[0] for path, _p in LEAVES} == set(family_names())


def test_editor_help_lists_every_subcommand_with_its_summary(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name, summary, _p in subcommands(build_parser()):
        assert summary, f"{name} has no one-line summary"
        assert re.search(rf"^  {re.escape(name)} +{re.escape(summary)}$", out, re.M), name
    assert "exit codes:" in out and "examples:" in out


@pytest.mark.parametrize("path", [p for p, _s, _c in COMMANDS], ids=" ".join)
def test_every_command_help_has_an_example_of_itself(path, capsys):
    assert run_cli([*path, "--help"]) == 0
    out = capsys.readouterr().out
    block = out.split("\nexamples:\n", 1)
    assert len(block) == 2, f"boscage {' '.join(path)} -h shows no example"
    first = block[1].splitlines()[0].strip()
    assert first.startswith(f"boscage {' '.join(path)} "), first


def test_examples_parse():
    """Each example in a leaf's help is a command line its parser accepts."""
    parser = build_parser()
    for path, leaf in LEAVES:
        for line in leaf.epilog.split("examples:\n", 1)[1].splitlines():
            argv = line.split()[1:]
            assert argv[: len(path)] == list(path), line
            try:
                parser.parse_args(argv)
            except SystemExit:
                pytest.fail(f"example does not parse: {line}")


def _sections(markdown: str) -> dict[str, str]:
    parts = re.split(r"^#+ `(boscage[^`]*)`.*$", markdown, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def test_reference_has_a_section_per_command_and_a_row_per_option():
    sections = _sections(reference_markdown())
    assert "boscage" in sections
    for path, _s, parser in COMMANDS:
        title = "boscage " + " ".join(path)
        assert title in sections, f"no section for {title}"
        for action in options(parser):
            names = action.option_strings or [str(action.metavar or action.dest)]
            for name in names:
                assert f"`{name}" in sections[title], f"{title}: {name} missing"
    for action in options(editor_parser()):
        for name in action.option_strings or [action.metavar]:
            assert f"`{name}" in sections["boscage"], name


def test_reference_lists_no_command_the_parser_does_not_know():
    known = {"boscage"} | {"boscage " + " ".join(p) for p, _s, _c in COMMANDS}
    assert set(_sections(reference_markdown())) == known


def test_help_formatter_keeps_examples_and_fills_prose():
    parser = argparse.ArgumentParser(prog="x", formatter_class=HelpFormatter,
                                     epilog="one two three " * 20 + "\n\nexamples:\n  x --a   --b")
    out = parser.format_help()
    assert "  x --a   --b" in out
    prose = out.split("examples:")[0]
    assert "one two three" in prose and prose.count("\n") > 3  # filled over several lines
