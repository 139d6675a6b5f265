"""`boscage bench [--quick] [--json] [NAME…]`: every performance budget as a measured ratio.

Each case runs in a fresh process by default, so one case's heap, caches and GL state cannot
skew the next one's ratio.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys

from app.cli import add_json_flag, emit, examples


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="run the performance cases and compare with their budgets",
                       epilog=examples(
        "boscage bench --quick",
        "boscage bench viewport scene_tiles",
        "boscage bench --json foliage.store_save_load_vs_raw_io",
        notes="Each budget is a ratio measured within one run, so it holds on any machine. NAME is a "
              "family (foliage, plants, viewport, ...), a case or part of a case's name. A target the "
              "product does not reach yet is measured and shown as PEND and does not fail the run.\n\n"
              "--json prints a list of {name, ratio, budget, ok, pending} (with --quick, a case's quick "
              "budget where it has one). Exit 1 when a budget fails."))
    p.add_argument("--quick", action="store_true", help="smaller sizes, for smoke tests")
    p.add_argument("--in-process", action="store_true",
                   help="run every case in this process instead of one fresh process each")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="only the cases of family NAME (e.g. foliage), or whose name contains NAME")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from app.bench import all_cases

    cases = all_cases()
    exact = {c.name.split(".", 1)[0] for c in cases} | {c.name for c in cases}
    rows = []
    for case in cases:
        if args.names and not any(_matches(case.name, n, exact) for n in args.names):
            continue
        ratio = _measure_here(case, args.quick) if args.in_process else _measure_apart(case, args.quick)
        ok = case.ok(ratio, args.quick)
        # a pending target that ran is reported as missed, not failed; one that did not run fails
        pending = bool(case.pending) and not ok and math.isfinite(ratio)
        rows.append({"name": case.name, "ratio": round(ratio, 4) if math.isfinite(ratio) else None,
                     "budget": case.budget_for(args.quick), "ok": ok,
                     "pending": case.pending if pending else None})
        if not args.json:
            sign = ">=" if case.at_least else "<="
            mark = "ok  " if ok else "PEND" if pending else "FAIL"
            note = f"  [not met yet: {case.pending}]" if pending else ""
            print(f"{mark} {case.name:<44} {ratio:10.3f}  (budget {sign} {case.budget_for(args.quick)})"
                  + (f"  {case.description}" if case.description else "") + note, flush=True)
    if args.json:
        emit(args, "", rows)
    return 0 if all(r["ok"] or r["pending"] for r in rows) else 1


def _measure_here(case, quick: bool) -> float:
    return float(case.run(quick))


def _measure_apart(case, quick: bool) -> float:
    """The case's ratio from a child process running it alone; NaN (a failure) if the child fails."""
    command = [sys.executable, "-m", "app", "bench", "--in-process", "--json", case.name]
    if quick:
        command.insert(4, "--quick")
    child = subprocess.run(command, capture_output=True, text=True)
    sys.stderr.write(child.stderr)  # what the case says of its figures, as when run here
    try:
        (row,) = [r for r in json.loads(child.stdout) if r["name"] == case.name]
        return float(row["ratio"])
    except (ValueError, KeyError, TypeError):
        print(f"boscage bench: {case.name} did not run (exit {child.returncode})", file=sys.stderr)
        return float("nan")


def _matches(name: str, wanted: str, exact: set[str]) -> bool:
    """A case or family name selects just that; anything else is a substring of the case name."""
    if wanted in exact:
        return name == wanted or name.split(".", 1)[0] == wanted
    return wanted in name
