"""`boscage bench [--quick] [--json] [NAME…]`: every performance budget as a measured ratio."""

from __future__ import annotations

import argparse

from app.cli import add_json_flag, emit


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="run the performance cases and compare with their budgets")
    p.add_argument("--quick", action="store_true", help="smaller sizes, for smoke tests")
    p.add_argument("names", nargs="*", metavar="NAME",
                   help="only the cases of family NAME (e.g. foliage), or whose name contains NAME")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from app.bench import all_cases

    rows = []
    for case in all_cases():
        if args.names and not any(_matches(case.name, n) for n in args.names):
            continue
        ratio = float(case.run(args.quick))
        rows.append({"name": case.name, "ratio": round(ratio, 4), "budget": case.budget,
                     "ok": case.ok(ratio)})
        if not args.json:
            sign = ">=" if case.at_least else "<="
            mark = "ok  " if rows[-1]["ok"] else "FAIL"
            print(f"{mark} {case.name:<44} {ratio:10.3f}  (budget {sign} {case.budget})"
                  + (f"  {case.description}" if case.description else ""), flush=True)
    if args.json:
        emit(args, "", rows)
    return 0 if all(r["ok"] for r in rows) else 1


def _matches(name: str, wanted: str) -> bool:
    """A family name selects that family alone; anything else is a substring of the case name."""
    family = name.split(".", 1)[0]
    return family == wanted if "." not in wanted and _is_family(wanted) else wanted in name


def _is_family(word: str) -> bool:
    from app.bench import all_cases

    return any(c.name.split(".", 1)[0] == word for c in all_cases())
