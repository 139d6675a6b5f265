"""A zone: its layers as (height, width) numpy arrays, with the derived slope and masks at hand."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from model.zones.gzip_codec import GzipSource
from model.zones.layers import LAYERS
from model.zones.names import PLANT_TYPES


@dataclass
class Zone:
    """Tiles are indexed `[y, x]` (row-major, as the files store them); each layer is optional."""

    zone_id: int
    width: int
    height: int
    layers: dict[str, np.ndarray] = field(default_factory=dict)
    # Plant type names; a rules folder may supply its species' names instead of the built-in ones.
    plant_names: dict[int, str] = field(default_factory=lambda: dict(PLANT_TYPES))
    # How each layer was stored when read (gzip header and bytes), so a write can reproduce it.
    sources: dict[str, GzipSource] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for name, array in self.layers.items():
            self._check(name, array)
        self._slope: np.ndarray | None = None

    @classmethod
    def blank(cls, zone_id: int, width: int, height: int,
              layers: tuple[str, ...] = ("altitude", "blocks", "control", "plants")) -> Zone:
        """A zone of zeroed layers."""
        return cls(zone_id, width, height,
                   {n: np.zeros((height, width), LAYERS[n].dtype) for n in layers})

    def _check(self, name: str, array: np.ndarray) -> None:
        if name not in LAYERS:
            raise ValueError(f"unknown zone layer {name!r}")
        if array.shape != (self.height, self.width) or array.dtype != LAYERS[name].dtype:
            raise ValueError(f"layer {name} must be {LAYERS[name].dtype} of shape "
                             f"{(self.height, self.width)}, got {array.dtype} {array.shape}")

    def set_layer(self, name: str, array: np.ndarray) -> None:
        self._check(name, array)
        self.layers[name] = array
        if name == "altitude":
            self._slope = None

    def has(self, name: str) -> bool:
        return name in self.layers

    def layer(self, name: str) -> np.ndarray:
        try:
            return self.layers[name]
        except KeyError:
            raise KeyError(f"zone {self.zone_id} has no {name} layer") from None

    @property
    def altitude(self) -> np.ndarray:
        return self.layer("altitude")

    @property
    def blocks(self) -> np.ndarray:
        return self.layer("blocks")

    @property
    def control(self) -> np.ndarray:
        return self.layer("control")

    @property
    def plants(self) -> np.ndarray:
        return self.layer("plants")

    def slope(self) -> np.ndarray:
        """The derived slope layer (uint8), computed once per altitude."""
        from model.zones.slope import derive_slope

        if self._slope is None:
            self._slope = derive_slope(self.altitude)
        return self._slope

    def invalidate(self) -> None:
        """Call after editing `altitude` in place."""
        self._slope = None
