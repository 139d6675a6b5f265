"""What the zone viewer can show: each view layer's values, colour map and legend (numpy only).

One table maps a view layer's key to how it is read and coloured, so the viewer has no per-layer
branches: a continuous layer is scaled through a gradient, a categorical one indexes a palette,
and a bit layer is one colour where the bit is set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from model.zones import BLOCK_FLAGS, CONTROL_BITS, GROUND_TYPES, Zone, devrinol_allowed, plant_allowed
from model.zones.names import flag_names

Window = tuple[slice, slice]
FULL: Window = (slice(None), slice(None))


def gradient(stops: list[tuple[float, tuple[int, int, int]]], n: int = 256) -> np.ndarray:
    """An (n, 4) uint8 RGBA table through the given (position 0..1, colour) stops."""
    pos = np.array([p for p, _ in stops])
    cols = np.array([c for _, c in stops], np.float64)
    t = np.linspace(0.0, 1.0, n)
    rgb = np.stack([np.interp(t, pos, cols[:, k]) for k in range(3)], axis=1)
    return np.concatenate([np.round(rgb), np.full((n, 1), 255.0)], axis=1).astype(np.uint8)


TERRAIN = gradient([(0.0, (24, 72, 40)), (0.3, (88, 140, 60)), (0.55, (206, 196, 110)),
                    (0.8, (140, 100, 70)), (1.0, (250, 250, 250))])
HEAT = gradient([(0.0, (20, 20, 60)), (0.25, (40, 90, 170)), (0.5, (60, 170, 120)),
                 (0.75, (240, 200, 50)), (1.0, (220, 40, 30))])
GREY = gradient([(0.0, (0, 0, 0)), (1.0, (255, 255, 255))])
# Distinct colours for named values (tab20 order); value 0 of plant types (empty) is dark.
PALETTE = np.array([
    (31, 119, 180), (255, 127, 14), (44, 160, 44), (214, 39, 40), (148, 103, 189), (140, 86, 75),
    (227, 119, 194), (127, 127, 127), (188, 189, 34), (23, 190, 207), (174, 199, 232), (255, 187, 120),
    (152, 223, 138), (255, 152, 150), (197, 176, 213), (196, 156, 148), (247, 182, 210),
    (199, 199, 199), (219, 219, 141), (158, 218, 229)], np.uint8)
EMPTY = (30, 30, 30)

BIT_COLORS: dict[str, tuple[int, int, int]] = {
    "Obstacle": (230, 60, 50), "Plant": (60, 200, 70), "Decor": (240, 170, 40), "Island": (70, 140, 240),
    "AntiPlant": (220, 40, 120), "TerraformProtected": (150, 110, 220), "SyndicateArea": (250, 230, 60),
    "ConcreteA": (180, 180, 180), "ConcreteB": (120, 120, 120), "Roaming": (250, 140, 60),
    "Highway": (250, 250, 250), "PBSHighway": (90, 230, 230), "PBSTerraformProtected": (200, 120, 250),
    "NpcRestricted": (250, 90, 90), "PlantAllowed": (70, 210, 90), "DevrinolAllowed": (190, 230, 70),
}


@dataclass(frozen=True, eq=False)  # identity hash: colour tables are cached per layer
class ViewLayer:
    """One choice in the viewer's layer list."""

    key: str
    title: str
    needs: str  # the zone layer it reads
    kind: str  # "continuous", "categorical" or "bit"
    values: Callable[[Zone, Window], np.ndarray]
    unit: str = ""
    colors: np.ndarray | None = None  # gradient for continuous layers
    names: Callable[[Zone], dict[int, str]] | None = None  # categorical value names

    def available(self, zone: Zone) -> bool:
        return zone.has(self.needs)


def _field(layer: str, name: str) -> Callable[[Zone, Window], np.ndarray]:
    return lambda z, w: z.layer(layer)[w][name]


def _plain(layer: str) -> Callable[[Zone, Window], np.ndarray]:
    return lambda z, w: z.layer(layer)[w]


def _bit(layer: str, field: str | None, bit: int) -> Callable[[Zone, Window], np.ndarray]:
    def values(z: Zone, w: Window) -> np.ndarray:
        v = z.layer(layer)[w]
        return ((v[field] if field else v) & bit) != 0
    return values


def _block_flag_names(zone: Zone) -> dict[int, str]:
    return {v: "|".join(flag_names(v, BLOCK_FLAGS)) or "none" for v in range(16)}


def _state_names(zone: Zone) -> dict[int, str]:
    return {v: f"state {v}" for v in range(16)}


def catalogue() -> dict[str, ViewLayer]:
    """Every view layer, in menu order."""
    layers = [
        ViewLayer("altitude", "Altitude", "altitude", "continuous", _plain("altitude"), "units", TERRAIN),
        ViewLayer("altitude_original", "Altitude (original)", "altitude_original", "continuous",
                  _plain("altitude_original"), "units", TERRAIN),
        ViewLayer("altitude_blend", "Altitude blend", "altitude_blend", "continuous",
                  _plain("altitude_blend"), "", GREY),
        ViewLayer("slope", "Slope (derived)", "altitude", "continuous",
                  lambda z, w: z.slope()[w], "", HEAT),
        ViewLayer("blocks.flags", "Block flags", "blocks", "categorical", _field("blocks", "flags"),
                  names=_block_flag_names),
        ViewLayer("blocks.height", "Block height", "blocks", "continuous", _field("blocks", "height"),
                  colors=HEAT),
    ]
    layers += [ViewLayer(f"control.{n}", f"Control: {n}", "control", "bit", _bit("control", None, b))
               for n, b in CONTROL_BITS.items()]
    layers += [
        ViewLayer("mask.PlantAllowed", "Mask: PlantAllowed", "control", "bit",
                  lambda z, w: plant_allowed(z.control[w])),
        ViewLayer("mask.DevrinolAllowed", "Mask: DevrinolAllowed", "control", "bit",
                  lambda z, w: devrinol_allowed(z.control[w])),
        ViewLayer("plants.type", "Plant type", "plants", "categorical", _field("plants", "type"),
                  names=lambda z: dict(z.plant_names)),
        ViewLayer("plants.state", "Plant state", "plants", "categorical", _field("plants", "state"),
                  names=_state_names),
        ViewLayer("plants.time", "Plant time", "plants", "continuous", _field("plants", "time"), "ticks",
                  HEAT),
        ViewLayer("plants.spawn", "Spawn byte", "plants", "continuous", _field("plants", "spawn"), "/256",
                  HEAT),
        ViewLayer("plants.health", "Health", "plants", "continuous", _field("plants", "health"), "hp", HEAT),
        ViewLayer("plants.material", "Material (fruit)", "plants", "continuous", _field("plants", "material"),
                  "", HEAT),
        ViewLayer("plants.groundType", "Ground type", "plants", "categorical",
                  _field("plants", "groundType"), names=lambda z: dict(GROUND_TYPES)),
    ]
    return {layer.key: layer for layer in layers}


CATALOGUE = catalogue()

# Bits that can be laid over any layer: block flags, control bits, masks.
OVERLAYS: dict[str, tuple[str, Callable[[Zone, Window], np.ndarray]]] = {
    **{f"blocks.{n}": ("blocks", _bit("blocks", "flags", b)) for n, b in BLOCK_FLAGS.items()},
    **{f"control.{n}": ("control", _bit("control", None, b)) for n, b in CONTROL_BITS.items()},
    "mask.PlantAllowed": ("control", lambda z, w: plant_allowed(z.control[w])),
    "mask.DevrinolAllowed": ("control", lambda z, w: devrinol_allowed(z.control[w])),
}


def overlay_color(key: str) -> tuple[int, int, int]:
    return BIT_COLORS[key.split(".", 1)[1]]


def value_range(layer: ViewLayer, zone: Zone) -> tuple[int, int]:
    """Colour range of a continuous layer: the zone's min and max (never an empty range)."""
    values = layer.values(zone, FULL)
    lo, hi = int(values.min()), int(values.max())
    return lo, max(hi, lo + 1)


def category_color(value: int, empty_zero: bool) -> tuple[int, int, int]:
    if empty_zero and value == 0:
        return EMPTY
    return tuple(int(c) for c in PALETTE[value % len(PALETTE)])


def colorize(layer: ViewLayer, values: np.ndarray, value_range: tuple[int, int] | None) -> np.ndarray:
    """RGBA uint8 image of `values` for this layer."""
    lut = lookup_table(layer, value_range, values.dtype)
    if values.dtype == np.bool_:
        values = values.view(np.uint8)
    return lut.view(np.uint32)[values].view(np.uint8).reshape(*values.shape, 4)


@lru_cache(maxsize=32)
def lookup_table(layer: ViewLayer, value_range: tuple[int, int] | None, dtype: np.dtype) -> np.ndarray:
    """(n, 4) RGBA for every possible raw value of `dtype` (256 or 65536 entries)."""
    n = 2 if dtype == np.bool_ else 1 << (8 * np.dtype(dtype).itemsize)
    if layer.kind == "bit":
        color = BIT_COLORS[layer.key.split(".", 1)[1]]
        return np.array([(*EMPTY, 255), (*color, 255)], np.uint8)
    if layer.kind == "categorical":
        empty_zero = layer.key == "plants.type"
        return np.array([(*category_color(v, empty_zero), 255) for v in range(n)], np.uint8)
    lo, hi = value_range or (0, n - 1)
    scaled = np.clip((np.arange(n, dtype=np.float64) - lo) * (255.0 / (hi - lo)), 0, 255).astype(np.intp)
    return np.ascontiguousarray(layer.colors[scaled])


def blend_overlays(image: np.ndarray, zone: Zone, window: Window, keys: list[str],
                   alpha: float = 0.6) -> np.ndarray:
    """Lay each checked bit over `image` (in place) in its colour."""
    for key in keys:
        needs, values = OVERLAYS[key]
        if not zone.has(needs):
            continue
        mask = values(zone, window)
        color = np.array(overlay_color(key), np.float32)
        rgb = image[..., :3]
        rgb[mask] = (rgb[mask] * (1 - alpha) + color * alpha).astype(np.uint8)
    return image


def legend(layer: ViewLayer, zone: Zone, value_range: tuple[int, int] | None,
           counts: np.ndarray | None = None) -> list[tuple[tuple[int, int, int], str]]:
    """(colour, text) entries: names (with tile counts when known) or a scale with units."""
    if layer.kind == "bit":
        name = layer.key.split(".", 1)[1]
        on = f"{name}" + (f" — {int(counts[1]):,} tiles" if counts is not None and len(counts) > 1 else "")
        off = "not set" + (f" — {int(counts[0]):,} tiles" if counts is not None else "")
        return [(BIT_COLORS[name], on), (EMPTY, off)]
    if layer.kind == "categorical":
        names = layer.names(zone) if layer.names else {}
        values = sorted(names) if counts is None else [int(v) for v in np.flatnonzero(counts)]
        empty_zero = layer.key == "plants.type"
        out = []
        for v in values:
            text = f"{names.get(v, f'#{v}')} ({v})"
            if counts is not None:
                text += f" — {int(counts[v]):,} tiles"
            out.append((category_color(v, empty_zero), text))
        return out
    lo, hi = value_range or (0, 255)
    out = []
    for t in np.linspace(0.0, 1.0, 6):
        raw = lo + t * (hi - lo)
        color = tuple(int(c) for c in layer.colors[int(round(t * 255))][:3])
        if layer.unit == "units":
            text = f"{raw / 32:.1f} units (raw {raw:.0f})"
        else:
            text = f"{raw:.0f} {layer.unit}".rstrip()
        out.append((color, text))
    return out


def counts_of(layer: ViewLayer, zone: Zone) -> np.ndarray:
    """Tiles per raw value over the whole zone (for the histogram and legend counts)."""
    values = layer.values(zone, FULL)
    if values.dtype == np.bool_:
        values = values.view(np.uint8)
    return np.bincount(values.ravel(), minlength=2 if layer.kind == "bit" else 1)
