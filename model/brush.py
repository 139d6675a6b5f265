"""The brush shared by the sculpt, layer-paint and foliage tools: radius, strength and falloff."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum

import numpy as np


class FalloffCurve(StrEnum):
    """How the weight drops from the brush's solid core to its rim."""

    SMOOTH = "smooth"  # smoothstep: soft at both ends, the usual sculpting feel
    LINEAR = "linear"
    SPHERE = "sphere"  # round shoulder, steep rim
    TIP = "tip"  # sharp peak, long soft tail


MIN_RADIUS, MAX_RADIUS = 0.25, 2000.0
RADIUS_STEP = 1.25  # `[` / `]` multiply or divide the radius by this
STRENGTH_STEP = 0.05  # Shift+`[` / `]` add or subtract this


@dataclass(frozen=True)
class Brush:
    """Brush settings. `falloff` is the fraction of the radius over which the weight fades out.

    The weight is 1 inside `radius * (1 - falloff)`, 0 beyond `radius`, and follows `curve`
    between the two. `strength` (0..1) scales what each tool does per stamp.
    """

    radius: float = 10.0
    strength: float = 0.5
    falloff: float = 0.5
    curve: FalloffCurve = FalloffCurve.SMOOTH

    def __post_init__(self) -> None:
        object.__setattr__(self, "curve", FalloffCurve(self.curve))
        for name, value in (("radius", self.radius), ("strength", self.strength),
                            ("falloff", self.falloff)):
            if not math.isfinite(value):
                raise ValueError(f"brush {name} must be a finite number, got {value!r}")
        if not MIN_RADIUS <= self.radius <= MAX_RADIUS:
            raise ValueError(f"brush radius must be within {MIN_RADIUS}..{MAX_RADIUS} m, "
                             f"got {self.radius}")
        if not 0.0 <= self.strength <= 1.0:
            raise ValueError(f"brush strength must be within 0..1, got {self.strength}")
        if not 0.0 <= self.falloff <= 1.0:
            raise ValueError(f"brush falloff must be within 0..1, got {self.falloff}")

    # ---- the weight profile -------------------------------------------------------------
    def weight(self, distance) -> np.ndarray:
        """Weight 0..1 at `distance` metres from the centre (vectorised; strength not applied)."""
        d = np.asarray(distance, dtype=np.float64)
        inner = self.radius * (1.0 - self.falloff)
        span = self.radius - inner
        if span <= 0.0:
            return np.where(d <= self.radius, 1.0, 0.0)
        # t runs 0 at the rim to 1 at the solid core.
        t = np.clip((self.radius - d) / span, 0.0, 1.0)
        return np.where(d <= inner, 1.0, _CURVES[self.curve](t))

    def influence(self, distance) -> np.ndarray:
        """Weight × strength: how much of a tool's full effect lands at `distance`."""
        return self.weight(distance) * self.strength

    # ---- keyboard steps (`[` `]`, with Shift for strength) ------------------------------
    def resized(self, steps: int) -> Brush:
        """Radius scaled by RADIUS_STEP**steps, clamped to the allowed range."""
        radius = min(MAX_RADIUS, max(MIN_RADIUS, self.radius * RADIUS_STEP ** steps))
        return replace(self, radius=round(radius, 4))

    def strengthened(self, steps: int) -> Brush:
        """Strength moved by STRENGTH_STEP per step, clamped to 0.01..1."""
        strength = min(1.0, max(0.01, self.strength + STRENGTH_STEP * steps))
        return replace(self, strength=round(strength, 4))

    # ---- persistence ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, object]:
        return {"radius": self.radius, "strength": self.strength, "falloff": self.falloff,
                "curve": self.curve.value}

    @classmethod
    def from_dict(cls, data: object) -> Brush:
        """Settings read back from storage; missing or invalid values fall back to defaults."""
        default = cls()
        if not isinstance(data, dict):
            return default
        values = {}
        for key in ("radius", "strength", "falloff"):
            try:
                values[key] = float(data.get(key, getattr(default, key)))
            except (TypeError, ValueError):
                values[key] = getattr(default, key)
        try:
            values["curve"] = FalloffCurve(data.get("curve", default.curve.value))
        except ValueError:
            values["curve"] = default.curve
        try:
            return cls(**values)
        except ValueError:
            return default


def _smooth(t: np.ndarray) -> np.ndarray:
    return t * t * (3.0 - 2.0 * t)


def _linear(t: np.ndarray) -> np.ndarray:
    return t.copy()


def _sphere(t: np.ndarray) -> np.ndarray:
    return np.sqrt(1.0 - (1.0 - t) ** 2)


def _tip(t: np.ndarray) -> np.ndarray:
    return t * t


_CURVES = {FalloffCurve.SMOOTH: _smooth, FalloffCurve.LINEAR: _linear,
           FalloffCurve.SPHERE: _sphere, FalloffCurve.TIP: _tip}
