"""A species' conditions: where a candidate may grow, each a vectorised test with a readable text.

Every condition answers `passes(context, xz) -> bool (n,)` for candidate positions (n, 2). The
ones that look at other instances (`near`, `far`) also say how far they look (`reach`), which
bounds how much of a spawner a local re-run must recompute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from model.errors import FormatError, is_finite_number
from model.foliage import hashing
from model.foliage.neighbours import any_within
from model.terrain import Terrain

MAX_DEPTH = 16  # nested any/not: deeper is a mistake, and would recurse without bound
MAX_ANY = 64  # items in one `any` list, as a species' own list of conditions
MAX_NODES = 256  # conditions in one species, nested ones counted: each is a pass over its candidates


class SpawnContext(Protocol):
    terrain: Terrain

    def positions_of(self, type_name: str, reach: float) -> np.ndarray: ...  # (m, 2), reach m around the run
    def missing_layer(self, name: str) -> None: ...  # note that a condition named an absent layer


@dataclass(frozen=True)
class Slope:
    low: float
    high: float

    @property
    def text(self) -> str:
        return f"slope {self.low:g}–{self.high:g}°"

    def passes(self, ctx: SpawnContext, xz: np.ndarray) -> np.ndarray:
        s = ctx.terrain.slope_at(xz[:, 0], xz[:, 1])
        return (s >= self.low) & (s <= self.high)


@dataclass(frozen=True)
class Altitude:
    low: float
    high: float

    @property
    def text(self) -> str:
        return f"altitude {self.low:g}–{self.high:g} m"

    def passes(self, ctx: SpawnContext, xz: np.ndarray) -> np.ndarray:
        h = ctx.terrain.height_at(xz[:, 0], xz[:, 1])
        return (h >= self.low) & (h <= self.high)


@dataclass(frozen=True)
class Layer:
    name: str
    min_weight: float | None = None
    max_weight: float | None = None

    @property
    def text(self) -> str:
        parts = []
        if self.min_weight is not None:
            parts.append(f"≥ {self.min_weight:g}")
        if self.max_weight is not None:
            parts.append(f"≤ {self.max_weight:g}")
        return f"layer '{self.name}' " + " and ".join(parts)

    def passes(self, ctx: SpawnContext, xz: np.ndarray) -> np.ndarray:
        w = ctx.terrain.layer_weight_at(self.name, xz[:, 0], xz[:, 1])
        if w is None:  # an absent layer is painted nowhere: weight 0 everywhere, and it is said
            ctx.missing_layer(self.name)
            w = np.zeros(len(xz))
        ok = np.ones(len(xz), bool)
        if self.min_weight is not None:
            ok &= w >= self.min_weight
        if self.max_weight is not None:
            ok &= w <= self.max_weight
        return ok


@dataclass(frozen=True)
class Noise:
    """Passes where smooth value noise (one lattice point per `scale` metres) is ≥ `threshold`."""

    scale: float
    threshold: float
    seed: int = 0

    @property
    def text(self) -> str:
        return f"noise {self.scale:g} m ≥ {self.threshold:g}"

    def values(self, xz: np.ndarray) -> np.ndarray:
        """Noise 0..1 at points: hashed lattice values, smoothstep-interpolated (exact in float64)."""
        u = np.asarray(xz[:, 0], np.float64) / self.scale
        v = np.asarray(xz[:, 1], np.float64) / self.scale
        iu, iv = np.floor(u), np.floor(v)
        fu, fv = u - iu, v - iv
        fu, fv = fu * fu * (3 - 2 * fu), fv * fv * (3 - 2 * fv)
        base = np.uint32(hashing.pcg(np.uint32(self.seed & 0xFFFFFFFF)))
        iu = iu.astype(np.int64)
        iv = iv.astype(np.int64)

        def lattice(a, b):
            ua = (a & 0xFFFFFFFF).astype(np.uint32)
            ub = (b & 0xFFFFFFFF).astype(np.uint32)
            h = hashing.pcg(hashing.pcg(ua ^ base) ^ ub)
            return hashing.draw(h, 0)

        n00, n10 = lattice(iu, iv), lattice(iu + 1, iv)
        n01, n11 = lattice(iu, iv + 1), lattice(iu + 1, iv + 1)
        return (n00 * (1 - fu) + n10 * fu) * (1 - fv) + (n01 * (1 - fu) + n11 * fu) * fv

    def passes(self, ctx: SpawnContext, xz: np.ndarray) -> np.ndarray:
        return self.values(xz) >= self.threshold


@dataclass(frozen=True)
class Near:
    """Within `within` metres of an instance of `type` (stored, or placed by an earlier species)."""

    type: str
    within: float

    @property
    def text(self) -> str:
        return f"near {self.type} within {self.within:g} m"

    @property
    def reach(self) -> float:
        return self.within

    def passes(self, ctx: SpawnContext, xz: np.ndarray) -> np.ndarray:
        return any_within(xz, ctx.positions_of(self.type, self.within), self.within)


@dataclass(frozen=True)
class Far:
    """No instance of `type` within `beyond` metres."""

    type: str
    beyond: float

    @property
    def text(self) -> str:
        return f"far from {self.type} beyond {self.beyond:g} m"

    @property
    def reach(self) -> float:
        return self.beyond

    def passes(self, ctx: SpawnContext, xz: np.ndarray) -> np.ndarray:
        return ~any_within(xz, ctx.positions_of(self.type, self.beyond), self.beyond)


@dataclass(frozen=True)
class AnyOf:
    items: tuple[Condition, ...]

    @property
    def text(self) -> str:
        return "any(" + ", ".join(c.text for c in self.items) + ")"

    def passes(self, ctx: SpawnContext, xz: np.ndarray) -> np.ndarray:
        ok = np.zeros(len(xz), bool)
        for c in self.items:  # each item asked only about the candidates no earlier one passed
            rest = np.flatnonzero(~ok)
            ok[rest] = c.passes(ctx, xz[rest])
        return ok


@dataclass(frozen=True)
class Not:
    item: Condition

    @property
    def text(self) -> str:
        return f"not {self.item.text}"

    def passes(self, ctx: SpawnContext, xz: np.ndarray) -> np.ndarray:
        return ~self.item.passes(ctx, xz)


Condition = Slope | Altitude | Layer | Noise | Near | Far | AnyOf | Not


def reach_of(condition: Condition) -> float:
    """How far (m) a condition looks at other instances: what a local re-run must include."""
    if isinstance(condition, (Near, Far)):
        return condition.reach
    if isinstance(condition, AnyOf):
        return max((reach_of(c) for c in condition.items), default=0.0)
    if isinstance(condition, Not):
        return reach_of(condition.item)
    return 0.0


def types_named(condition: Condition) -> set[str]:
    if isinstance(condition, (Near, Far)):
        return {condition.type}
    if isinstance(condition, AnyOf):
        return set().union(*(types_named(c) for c in condition.items)) if condition.items else set()
    if isinstance(condition, Not):
        return types_named(condition.item)
    return set()


# ---- TOML form -------------------------------------------------------------------------------
def number(path, where: str, value: Any, lo: float = -1e9, hi: float = 1e9) -> float:
    """A finite number within lo..hi (an integer past the float range is refused, not raised on)."""
    if not is_finite_number(value):
        raise FormatError(path, where, f"expected a finite number, got {str(value)[:40]}")
    if not lo <= value <= hi:
        raise FormatError(path, where, f"must be within {lo:g}..{hi:g}, got {value:g}")
    return float(value)


def _band(path, where, value, lo, hi) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise FormatError(path, where, f"expected [min, max], got {value!r}")
    a, b = (number(path, f"{where}[{i}]", v, lo, hi) for i, v in enumerate(value))
    if a > b:
        raise FormatError(path, where, f"min {a:g} is above max {b:g}")
    return a, b


def table(path, where: str, value: Any, keys: tuple[str, ...], required: tuple[str, ...] = ()) -> dict:
    """A TOML table holding only `keys` and every one of `required`."""
    if not isinstance(value, dict):
        raise FormatError(path, where, f"expected a table, got {value!r}")
    for key in value:
        if key not in keys:
            raise FormatError(path, f"{where}.{key}", f"unknown key '{key}' (expected one of "
                              f"{', '.join(keys)})")
    for key in required:
        if key not in value:
            raise FormatError(path, where, f"missing key '{key}'")
    return value


def _type_name(path, where, value) -> str:
    if not isinstance(value, str) or not value:
        raise FormatError(path, where, f"expected a foliage type name, got {value!r}")
    return value


KINDS = ("slope", "altitude", "layer", "noise", "near", "far", "any", "not")


class NodeBudget:
    """How many more conditions (nested ones included) a species may still hold."""

    def __init__(self, left: int = MAX_NODES) -> None:
        self.left = left

    def take(self, path, where: str) -> None:
        self.left -= 1
        if self.left < 0:
            raise FormatError(path, where, f"more than {MAX_NODES} conditions in one species "
                              "(nested any/not items counted)")


def condition_from_toml(value: Any, path=None, where: str = "conditions[0]", depth: int = 0,
                        budget: NodeBudget | None = None) -> Condition:
    """One `{ kind = … }` table; unknown kinds and keys are errors naming their place."""
    if depth > MAX_DEPTH:
        raise FormatError(path, where, f"conditions nest deeper than {MAX_DEPTH} levels")
    budget = budget if budget is not None else NodeBudget()
    budget.take(path, where)
    if isinstance(value, dict) and "layer" in value:  # { layer = "rock", max_weight = 0.2 }
        return _layer_condition(value, path, where)
    if not isinstance(value, dict) or len(value) != 1:
        raise FormatError(path, where, f"expected one condition like {{ slope = [0, 30] }}, got {value!r}")
    (kind, arg), = value.items()
    at = f"{where}.{kind}"
    if kind == "slope":
        return Slope(*_band(path, at, arg, 0.0, 90.0))
    if kind == "altitude":
        return Altitude(*_band(path, at, arg, -1e7, 1e7))
    if kind == "noise":
        t = table(path, at, arg, ("scale", "threshold", "seed"), ("scale", "threshold"))
        seed = t.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 0xFFFFFFFF:
            raise FormatError(path, f"{at}.seed", f"expected an integer 0..4294967295, got {seed!r}")
        return Noise(number(path, f"{at}.scale", t["scale"], 1e-3, 1e6),
                     number(path, f"{at}.threshold", t["threshold"], 0.0, 1.0), seed)
    if kind == "near":
        t = table(path, at, arg, ("type", "within"), ("type", "within"))
        return Near(_type_name(path, f"{at}.type", t["type"]),
                    number(path, f"{at}.within", t["within"], 0.0, 1e4))
    if kind == "far":
        t = table(path, at, arg, ("type", "beyond"), ("type", "beyond"))
        return Far(_type_name(path, f"{at}.type", t["type"]),
                   number(path, f"{at}.beyond", t["beyond"], 0.0, 1e4))
    if kind == "any":
        if not isinstance(arg, list) or not 1 <= len(arg) <= MAX_ANY:
            raise FormatError(path, at, f"expected a list of 1 to {MAX_ANY} conditions"
                              + (f", got {len(arg):,}" if isinstance(arg, list) and arg else ""))
        return AnyOf(tuple(condition_from_toml(c, path, f"{at}[{i}]", depth + 1, budget)
                           for i, c in enumerate(arg)))
    if kind == "not":
        return Not(condition_from_toml(arg, path, at, depth + 1, budget))
    raise FormatError(path, where, f"unknown condition '{kind}' (expected one of {', '.join(KINDS)})")


def _layer_condition(value: dict, path, where: str) -> Layer:
    t = table(path, where, value, ("layer", "min_weight", "max_weight"), ("layer",))
    name = t["layer"]
    if not isinstance(name, str) or not name:
        raise FormatError(path, f"{where}.layer", f"expected a layer name, got {name!r}")
    if "min_weight" not in t and "max_weight" not in t:
        raise FormatError(path, where, "a layer condition needs min_weight or max_weight")
    lo = number(path, f"{where}.min_weight", t["min_weight"], 0.0, 1.0) if "min_weight" in t else None
    hi = number(path, f"{where}.max_weight", t["max_weight"], 0.0, 1.0) if "max_weight" in t else None
    return Layer(name, lo, hi)


def condition_to_toml(c: Condition) -> dict:
    if isinstance(c, Slope):
        return {"slope": [c.low, c.high]}
    if isinstance(c, Altitude):
        return {"altitude": [c.low, c.high]}
    if isinstance(c, Layer):
        t: dict[str, Any] = {"layer": c.name}
        if c.min_weight is not None:
            t["min_weight"] = c.min_weight
        if c.max_weight is not None:
            t["max_weight"] = c.max_weight
        return t
    if isinstance(c, Noise):
        return {"noise": {"scale": c.scale, "threshold": c.threshold, "seed": c.seed}}
    if isinstance(c, Near):
        return {"near": {"type": c.type, "within": c.within}}
    if isinstance(c, Far):
        return {"far": {"type": c.type, "beyond": c.beyond}}
    if isinstance(c, AnyOf):
        return {"any": [condition_to_toml(i) for i in c.items]}
    return {"not": condition_to_toml(c.item)}
