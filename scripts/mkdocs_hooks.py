"""MkDocs hooks: the command-line reference page is written from the argparse parsers at every build,
so it cannot fall behind them (`mkdocs build` runs this; see mkdocs.yml)."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
CLI_PAGE = "reference/cli.md"


def on_files(files, config):
    if str(ROOT) not in sys.path:  # the checkout's app/, whichever Boscage is installed
        sys.path.insert(0, str(ROOT))
    from app.cli._reference import reference_markdown

    files.append(File.generated(config, CLI_PAGE, content=reference_markdown()))
    return files
