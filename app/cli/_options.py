"""Option types shared by commands: each accepts exactly what the model accepts, so a value that
passes the parser never fails later in the model (a helper: the underscore keeps it out of the
command list)."""

from __future__ import annotations

import argparse

from model.extent import spacing_problem


def spacing_option(text: str) -> float:
    """--spacing: metres between samples, in the range every terrain keeps (`model.extent`)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of metres, got {text!r}") from None
    problem = spacing_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value
