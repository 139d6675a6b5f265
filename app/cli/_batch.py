"""Options every batch command shares: --workers, --scheduler, --tile, --tiles-dir, --resume (a
helper: the leading underscore keeps it out of the command list)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {n}")
    return n


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not v > 0 or v != v or v == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return v


def add_batch_flags(p: argparse.ArgumentParser, tile_help: str, poles: bool = False) -> None:
    """The shared flags; `poles`: --tile counts grid poles a side (a whole number), else metres."""
    g = p.add_argument_group("batch (tiles on Dask; the output is the same bytes however it runs)")
    g.add_argument("--workers", type=_positive_int, metavar="N",
                   help="workers on this machine: threads of this process for a TRN bake, else a "
                        "Dask LocalCluster's processes; 1 runs in this process")
    g.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                   help="use a running Dask cluster (started with `dask scheduler` and `dask worker`)")
    g.add_argument("--tile", type=_positive_int if poles else _positive_float, metavar="SIZE", help=tile_help)
    g.add_argument("--tiles-dir", type=Path, metavar="DIR",
                   help="where finished tiles are kept for --resume (default: a hidden folder beside "
                        "the output; removed once the job is done)")
    g.add_argument("--resume", action="store_true",
                   help="skip the tiles a stopped run already finished (checked by CRC-32)")


@dataclass(frozen=True)
class Batch:
    workers: int | None
    scheduler: str | None


def batch_options(args: argparse.Namespace) -> Batch | None:
    """The batch the flags ask for, or None when none of them was given (run as before)."""
    if args.workers is None and args.scheduler is None and args.tile is None and not args.resume \
            and args.tiles_dir is None:
        return None
    if args.workers is not None and args.scheduler is not None:
        from app.cli import UsageError

        raise UsageError("--workers and --scheduler exclude each other (a cluster has its own workers)")
    return Batch(args.workers, args.scheduler)
