"""`boscage` and `python -m app`: a subcommand runs headless, anything else opens the editor."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from app.cli import family_names, run_cli

    if argv and argv[0] in family_names():
        return run_cli(argv)
    from app.gui_entry import run_gui

    return run_gui(argv)


if __name__ == "__main__":
    sys.exit(main())
