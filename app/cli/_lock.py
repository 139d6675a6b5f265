"""`--wait` and the scene lock for commands that read a scene, change it and save it back (a
helper: the leading underscore keeps it out of the command list)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from contextlib import ExitStack
from functools import wraps

from app.cli import UsageError


def add_wait_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--wait", action="store_true",
                   help="when another process is writing SCENE, wait for it to finish instead of "
                        "refusing (with --save)")


def saving_locked(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """`run` with SCENE locked from before it is read until after it is saved, when --save is
    given: a second writer is refused with the holder's name (or waits, with --wait), so neither
    overwrites the other's work."""

    @wraps(run)
    def locked(args: argparse.Namespace) -> int:
        if not args.save:
            if args.wait:
                raise UsageError("--wait goes with --save (only a save waits for another writer)")
            return run(args)
        from model.scene_lock import SceneLocked, scene_lock

        def waiting(holder) -> None:
            who = holder.describe() if holder is not None else "another process"
            print(f"boscage: waiting for {who} to finish writing {args.scene}…", file=sys.stderr, flush=True)

        with ExitStack() as stack:
            try:
                stack.enter_context(scene_lock(args.scene, wait=args.wait, on_wait=waiting))
            except SceneLocked as e:
                raise SceneLocked(e.path, e.holder, " (or pass --wait to wait for it)") from None
            return run(args)

    return locked
