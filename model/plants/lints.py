"""Lints for rule files: likely mistakes the game would silently accept, and ones it would refuse."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from model.plants.genxy import TOKENS, Entry
from model.plants.growth_tables import MAX_KILL_DISTANCE
from model.plants.loader import FolderLoad
from model.plants.rule import STATE_KEY, PlantRule, Setting, field_spec
from model.plants.types import PLANT_TYPES

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Lint:
    """One finding: where (file, line, key), how bad, and what."""

    path: Path | None
    line: int | None
    key: str
    severity: str
    message: str

    def as_dict(self) -> dict:
        return {"file": str(self.path) if self.path else None, "line": self.line, "key": self.key,
                "severity": self.severity, "message": self.message}

    def __str__(self) -> str:
        where = f"{self.path.name if self.path else '<rule>'}:{self.line or '-'}"
        return f"{where}: {self.severity}: {self.key + ': ' if self.key else ''}{self.message}"


def lint_entries(path: Path, entries: list[Entry]) -> list[Lint]:
    """Per-line lints of one file's own text (not inherited keys)."""
    out: list[Lint] = []
    counts = Counter(e.key for e in entries)
    seen: set[str] = set()
    for e in entries:
        spec = field_spec(e.key)
        v = e.value
        if spec is None:
            out.append(Lint(path, e.line, e.key, WARNING, "unknown key: the game ignores it"))
        elif v.kind not in spec.kinds:
            out.append(Lint(path, e.line, e.key, ERROR,
                            f"wrong type: expected {' or '.join(spec.kinds)}, got {v.kind} ({v.raw!r})"))
        if v.token not in TOKENS:
            out.append(Lint(path, e.line, e.key, WARNING,
                            f"no type token: {v.token!r} is dropped and the rest read as the string "
                            f"{v.data!r}"))
        if v.bare and (re.search(r"[A-Fa-f]", v.raw[1:]) or any(abs(x) >= 10 for x in v.data)):
            out.append(Lint(path, e.line, e.key, WARNING,
                            f"bare array {v.raw!r} is hex and reads as {v.data}; "
                            f"write N{','.join(str(x) for x in v.data)} or the decimal you meant with N"))
        if counts[e.key] > 1 and e.key not in seen:
            seen.add(e.key)
        elif counts[e.key] > 1:
            out.append(Lint(path, e.line, e.key, WARNING, "duplicate key: this later line wins"))
    return out


def _at(settings: dict[str, Setting], key: str, rule: PlantRule) -> tuple[Path | None, int | None]:
    s = settings.get(key)
    return (s.path, s.line) if s else (rule.path, None)


def reachable_states(rule: PlantRule, entries: set[int] | None = None) -> set[int]:
    """States reachable from the entry states (default: 0) while the plant stays this type."""
    todo = sorted(entries if entries is not None else {0})
    seen: set[int] = set()
    while todo:
        s = todo.pop()
        if s in seen or not 0 <= s < rule.state_count:
            continue
        seen.add(s)
        nexts, acts = rule.choices(s)
        if rule.index in acts:
            todo.extend(n for n in nexts if n not in seen)
    return seen


def entry_table(rules: list[PlantRule]) -> dict[int, set[int]]:
    """Plant type → the states other species turn into it at (one pass over the folder's rules)."""
    into: dict[int, set[int]] = {}
    for other in rules:
        for s in range(other.state_count):
            nexts, actions = other.choices(s)
            for target in set(actions):
                if target != other.index:
                    into.setdefault(target, set()).update(nexts)
    return into


def entry_states(rule: PlantRule, others: list[PlantRule],
                 table: dict[int, set[int]] | None = None) -> set[int]:
    """State 0 (spawned or planted) plus states other species turn into this one at."""
    table = entry_table(others) if table is None else table
    return {0} | table.get(rule.index, set())


def lint_rule(rule: PlantRule, settings: dict[str, Setting], others: list[PlantRule],
              table: dict[int, set[int]] | None = None, indices: set[int] | None = None) -> list[Lint]:
    """Semantic lints of a merged rule in the context of its folder's other rules (`table` and
    `indices`: the folder's entry table and plant types, when the caller has them at hand)."""
    out: list[Lint] = []
    known = (indices if indices is not None else {r.index for r in others}) | {rule.index}
    n = rule.state_count
    if rule.index == 0:
        out.append(Lint(*_at(settings, "index", rule), "index", WARNING,
                        "index is 0 (NotDefined): the plant cannot exist on a tile"))
    elif rule.index >= len(PLANT_TYPES):
        out.append(Lint(*_at(settings, "index", rule), "index", WARNING,
                        f"index {rule.index} is not a known PlantType (1-{len(PLANT_TYPES) - 1})"))
    if rule.kill_distance > MAX_KILL_DISTANCE:
        out.append(Lint(*_at(settings, "killDistance", rule), "killDistance", WARNING,
                        f"killDistance {rule.kill_distance} is more than {MAX_KILL_DISTANCE} tiles; "
                        f"the growth simulator uses {MAX_KILL_DISTANCE}"))
    # States are read from state_0 up until the first missing state_i: keys past the gap are ignored.
    for key in sorted(settings, key=lambda k: (str(settings[k].path), settings[k].line)):
        m = STATE_KEY.fullmatch(key)
        if m and int(m.group(2)) >= n:
            out.append(Lint(*_at(settings, key, rule), key, WARNING,
                            f"never read: states are read from state_0 up to the first missing state_i "
                            f"(state_{n} is missing)"))
    if n == 0:
        out.append(Lint(*_at(settings, "state_0", rule), "state_0", ERROR, "the rule has no states"))
        return out
    for s in range(n):
        for key, given in ((f"state_{s}", rule.states[s]), (f"action_{s}", rule.actions[s])):
            if not given:
                out.append(Lint(*_at(settings, key, rule), key, ERROR,
                                "empty list: the game fails when a plant rolls in this state "
                                "(the simulator keeps the plant as it is)"))
        bad = sorted({x for x in rule.states[s] if not 0 <= x < n})
        if bad:
            out.append(Lint(*_at(settings, f"state_{s}", rule), f"state_{s}", ERROR,
                            f"next state {bad} does not exist (states are 0-{n - 1})"))
        unknown = sorted({a for a in rule.actions[s] if a != 0 and a not in known})
        if unknown:
            names = ", ".join(f"{a} ({PLANT_TYPES[a] if a < len(PLANT_TYPES) else '?'})" for a in unknown)
            out.append(Lint(*_at(settings, f"action_{s}", rule), f"action_{s}", ERROR,
                            f"action names plant type {names} that no rule in the folder defines"))
    reach = reachable_states(rule, entry_states(rule, others, table))
    for s in sorted(set(range(n)) - reach):
        out.append(Lint(*_at(settings, f"state_{s}", rule), f"state_{s}", WARNING,
                        "state can never be reached"))
    dies = any(0 in rule.choices(s)[1] for s in reach)
    leaves = any(a not in (0, rule.index) for s in reach for a in rule.choices(s)[1])
    if not dies and not leaves:
        out.append(Lint(*_at(settings, f"action_{n - 1}", rule), "action", WARNING,
                        "no path to death: no reachable state has action 0, the plant lives forever"))
    if rule.fruits:
        key = "fruitingState"
        if rule.fruiting_state >= n:
            out.append(Lint(*_at(settings, key, rule), key, ERROR,
                            f"fruitingState {rule.fruiting_state} but the rule has {n} states"))
        elif not any(s >= rule.fruiting_state for s in reach):
            out.append(Lint(*_at(settings, key, rule), key, WARNING,
                            f"no path to fruit: no reachable state is >= {rule.fruiting_state}"))
        if rule.fruit_amount == 0:
            out.append(Lint(*_at(settings, "fruitAmount", rule), "fruitAmount", WARNING,
                            "fruiting is declared but fruitAmount is 0"))
    for key in ("fruitAmount", "health"):
        s = settings.get(key)
        raw = s.value.data if s else None
        values = raw if isinstance(raw, list) else [raw] if isinstance(raw, int) else []
        if any(not 0 <= v <= 255 for v in values):
            out.append(Lint(s.path, s.line, key, WARNING, "values outside 0-255 are clamped"))
    return out


def lint_folder(load: FolderLoad) -> dict[str, list[Lint]]:
    """Every rule's lints: its own lines, load errors, and semantic lints of the merged rule."""
    others = list(load.rules.values())
    table, indices = entry_table(others), {r.index for r in others}  # once per folder, not per rule
    out: dict[str, list[Lint]] = {}
    by_index: dict[int, list[str]] = {}
    for name, rule in load.rules.items():
        by_index.setdefault(rule.index, []).append(name)
    for name in sorted(set(load.files) | set(load.errors)):
        lints: list[Lint] = []
        rf = load.files.get(name)
        if rf is not None:
            lints += [Lint(rf.path, _line_of(e.place), "", ERROR, e.reason) for e in rf.errors]
            lints += lint_entries(rf.path, rf.entries)
        err = load.errors.get(name)
        if err is not None and not (rf is not None and err in rf.errors):
            lints.append(Lint(Path(err.path) if err.path else None, _line_of(err.place), "", ERROR,
                              err.reason))
        rule = load.rules.get(name)
        if rule is not None:
            lints += lint_rule(rule, load.settings[name], others, table, indices)
            claims = by_index[rule.index]
            if len(claims) > 1 and rule.index:
                twins = [n for n in claims[:6] if n != name][:5]
                more = len(claims) - 1 - len(twins)
                lints.append(Lint(*_at(load.settings[name], "index", rule), "index", WARNING,
                                  f"index {rule.index} is also claimed by {', '.join(twins)}"
                                  f"{f' and {more} more' if more else ''}; "
                                  "a zone's rule set uses only one of them"))
        out[name] = lints
    return out


def _line_of(place: object) -> int | None:
    if isinstance(place, str) and place.startswith("line "):
        try:
            return int(place[5:])
        except ValueError:
            return None
    return None
