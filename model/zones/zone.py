"""A zone: its layers as (height, width) numpy arrays, with the derived slope and masks at hand."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from model.errors import FormatError
from model.zones.gzip_codec import GzipSource
from model.zones.layers import LAYERS, layer_filename
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
    # The folder the layers were read from (errors name it), and what reading left out and why.
    folder: Path | None = None
    warnings: list[str] = field(default_factory=list)

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
            raise MissingLayer(self, name) from None

    def require(self, *names: str) -> None:
        """Raise MissingLayer (a FormatError naming the folder and the files) unless every layer is here."""
        missing = [n for n in names if n not in self.layers]
        if missing:
            raise MissingLayer(self, *missing)

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


class MissingLayer(FormatError, KeyError):
    """A layer the zone does not have: names the folder and the file names it would have."""

    def __init__(self, zone: Zone, *names: str) -> None:
        files = ", ".join(layer_filename(n, zone.zone_id) + "[.gz]" for n in names)
        has = f"; it has {', '.join(sorted(zone.layers))}" if zone.layers else ""
        left_out = [w for w in zone.warnings if any(layer_filename(n, zone.zone_id) in w for n in names)]
        why = f" ({'; '.join(left_out)})" if left_out else ""
        super().__init__(zone.folder, None, f"zone {zone.zone_id} has no {' or '.join(names)} layer "
                                            f"({files}){has}{why}")
        self.names = names

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message
