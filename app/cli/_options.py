"""Option types shared by commands: each accepts exactly what the model accepts, so a value that
passes the parser never fails later in the model (a helper: the underscore keeps it out of the
command list)."""

from __future__ import annotations

import argparse

from model.extent import MAX_EXTENT, height_problem, spacing_problem


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


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of metres, got {text!r}") from None


def height_option(text: str) -> float:
    """A height (--offset): finite, within the range every terrain keeps (`model.extent`)."""
    value = _number(text)
    problem = height_problem(value)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return value


def height_scale_option(text: str) -> float:
    """A height span (--scale): positive, at most twice the range every terrain keeps (from its
    lowest to its highest height); the offset and scale together are checked by the model."""
    value = _number(text)
    if height_problem(value / 2) is not None or not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of metres up to {2 * MAX_EXTENT:g}, "
                                         f"got {text!r}")
    return value
