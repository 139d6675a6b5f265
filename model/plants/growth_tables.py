"""What growth works on: the zone's layers as plain arrays, the rules as lookup tables, the constants."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from model.plants.rule import PlantRule

CUBE = 32
NEIGHBOUR_RADIUS = 4
WATER_LEVEL = 13  # 55 units / 4, in integer maths: the game's constant water level
KILL_DRAWS_PER_TILE = 2
# Kill distances are scanned tile by tile; beyond this the scan would dwarf the pass (a lint says so).
MAX_KILL_DISTANCE = 64
RENEW_CHANCE = 0.3
# Bits of `RuleTables.state_code` above the block height byte.
STATE_KNOWN, STATE_VALID, STATE_FRUITS = 1 << 8, 1 << 9, 1 << 10

# Block flags and control bits (the zone layers' meanings).
OBSTACLE, PLANT, DECOR, ISLAND = 1, 2, 4, 8
NON_NATURAL = OBSTACLE | DECOR | ISLAND
ANTI_PLANT, CONCRETE_A, CONCRETE_B, ROAMING, HIGHWAY, PBS_HIGHWAY = 1, 8, 16, 64, 128, 256
CONCRETE = CONCRETE_A | CONCRETE_B
PLANT_FORBIDDING = ANTI_PLANT | ROAMING | HIGHWAY | PBS_HIGHWAY | CONCRETE
DEVRINOL_FORBIDDING = ANTI_PLANT
DEVRINOL = 19


@dataclass
class GrowthField:
    """The layers growth reads and writes, as separate (height, width) arrays.

    Plant bytes (`type` … `ground`) and blocks (`flags`, `height`) are uint8, `control` uint16;
    `altitude` (uint16 raw) and `slope` (uint8) are read only.
    """

    type: np.ndarray
    state: np.ndarray
    time: np.ndarray
    spawn: np.ndarray
    health: np.ndarray
    material: np.ndarray
    ground: np.ndarray
    flags: np.ndarray
    height: np.ndarray
    control: np.ndarray
    altitude: np.ndarray
    slope: np.ndarray

    PLANT_BYTES = ("type", "state", "time", "spawn", "health", "material", "ground")

    def __post_init__(self) -> None:
        # Steps write through flat views, so every layer must be one contiguous block.
        for k in self.__dataclass_fields__:
            setattr(self, k, np.ascontiguousarray(getattr(self, k)))

    @property
    def shape(self) -> tuple[int, int]:
        return self.type.shape  # type: ignore[return-value]

    def copy(self) -> GrowthField:
        return GrowthField(**{k: np.array(getattr(self, k), copy=True) for k in self.__dataclass_fields__})

    @classmethod
    def from_arrays(cls, plants: np.ndarray, blocks: np.ndarray, control: np.ndarray,
                    altitude: np.ndarray, slope: np.ndarray) -> GrowthField:
        """From a zone's structured plant (7 × u1) and block (2 × u1) layers; copies everything."""
        names = plants.dtype.names or ()
        p = [np.array(plants[n], np.uint8) for n in names]
        b = [np.array(blocks[n], np.uint8) for n in (blocks.dtype.names or ())]
        return cls(*p, *b, np.array(control, np.uint16), np.asarray(altitude, np.uint16),
                   np.asarray(slope, np.uint8))

    def plants_into(self, plants: np.ndarray) -> None:
        """Write the plant bytes back into a structured plant layer."""
        for name, key in zip(plants.dtype.names or (), self.PLANT_BYTES, strict=True):
            plants[name] = getattr(self, key)

    def blocks_into(self, blocks: np.ndarray) -> None:
        flags_name, height_name = blocks.dtype.names or ("flags", "height")
        blocks[flags_name] = self.flags
        blocks[height_name] = self.height


@dataclass
class RuleTables:
    """Rules as lookup tables indexed by the plant type byte (0-255) and state."""

    rules: dict[int, PlantRule]
    known: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        rules = {i: r for i, r in self.rules.items() if 0 < i < 256}
        self.rules = rules
        t = 256
        s = max([r.state_count for r in rules.values()] + [1])
        k = max([len(c) for r in rules.values() for c in (*r.states, *r.actions)] + [1])
        self.max_states = s
        self.known = np.zeros(t, bool)
        self.n_states = np.zeros(t, np.int64)
        self.grow_rate = np.zeros(t, np.int64)
        self.health = np.zeros((t, s + 1), np.int64)  # the extra column answers out-of-range states
        self.block = np.zeros((t, s + 1), np.int64)
        self.next = np.zeros((t, s, k), np.int64)
        self.next_len = np.ones((t, s), np.int64)
        self.act = np.zeros((t, s, k), np.int64)
        self.act_len = np.ones((t, s), np.int64)
        self.fruiting = np.full(t, -1, np.int64)
        self.fruit_amount = np.zeros(t, np.int64)
        self.alt_lo, self.alt_hi = np.zeros(t, np.int64), np.zeros(t, np.int64)
        self.wat_lo, self.wat_hi = np.zeros(t, np.int64), np.zeros(t, np.int64)
        self.slope_lo, self.slope_hi = np.zeros(t, np.int64), np.zeros(t, np.int64)
        self.non_natural = np.zeros(t, bool)
        self.concrete = np.zeros(t, bool)
        self.ground_ok = np.zeros((t, 256), bool)
        self.fertility = np.zeros(t, np.int64)
        self.spreading = np.zeros(t, np.int64)
        self.kill_distance = np.zeros(t, np.int64)
        self.max_amount = np.full(t, -1, np.int64)
        self.player_seeded = np.zeros(t, bool)
        self.blocks_any = np.zeros(t, bool)
        for i, r in rules.items():
            n = r.state_count
            self.known[i] = True
            self.n_states[i] = n
            self.grow_rate[i] = r.grow_rate
            self.health[i, :n] = r.health[:n]
            self.block[i, :n] = [r.blocking_height_at(x) for x in range(n)]
            for x in range(n):
                nexts, acts = r.choices(x)
                self.next[i, x, :len(nexts)] = nexts
                self.next_len[i, x] = len(nexts)
                self.act[i, x, :len(acts)] = acts
                self.act_len[i, x] = len(acts)
            self.fruiting[i] = r.fruiting_state
            self.fruit_amount[i] = r.fruit_amount
            self.alt_lo[i], self.alt_hi[i] = r.altitude_low, r.altitude_high
            self.wat_lo[i], self.wat_hi[i] = r.water_low, r.water_high
            self.slope_lo[i], self.slope_hi[i] = r.min_slope, r.slope
            self.non_natural[i] = r.allowed_on_non_natural
            self.concrete[i] = r.places_concrete
            self.ground_ok[i, [g for g in r.allowed_terrain_types if 0 <= g < 256]] = True
            self.fertility[i] = max(r.fertility, 0)
            self.spreading[i] = max(r.spreading, 0)
            self.kill_distance[i] = min(r.kill_distance, MAX_KILL_DISTANCE)
            self.max_amount[i] = r.max_amount
            self.player_seeded[i] = r.player_seeded
            self.blocks_any[i] = r.blocks
        # The no-neighbour draw: one ticket per fertility point of each natural species.
        natural = [i for i in sorted(rules) if not rules[i].player_seeded and self.fertility[i] > 0]
        self.fertile_types = np.array(natural, np.int64)
        self.fertile_cum = np.cumsum(self.fertility[natural]) if natural else np.zeros(0, np.int64)
        # The same draw as a table of tickets (ticket i → its species) while the tickets are few.
        total = int(self.fertile_cum[-1]) if natural else 0
        self.fertile_tickets = (np.repeat(self.fertile_types, self.fertility[natural])
                                if 0 < total <= 1 << 16 else None)
        # Spreading draw weights: player-seeded or non-spreading species never win it.
        self.spread_weight = np.where(self.player_seeded, 0, self.spreading)
        # Neighbour counting ignores empty tiles and player-seeded species (unknown types count).
        self.counts_as_neighbour = ~self.player_seeded
        self.counts_as_neighbour[0] = False
        self._validation_tables()

    def _validation_tables(self) -> None:
        """Each validation rule as one table lookup per tile: by (type, state), (type, altitude >> 7),
        (type, ground type) and (type, slope). Rules allowed on non-natural tiles skip the last two."""
        t = 256
        states = np.arange(256)[None, :]
        self.state_ok = self.known[:, None] & (states < self.n_states[:, None])
        self.fruit_needed = (self.fruiting[:, None] >= 0) & (states >= self.fruiting[:, None])
        self.block_at = np.zeros((t, 256), np.int64)
        n = min(self.block.shape[1] - 1, 256)  # the state byte tops out at 255
        self.block_at[:, :n] = self.block[:, :n]
        # The three (type, state) answers validation needs, in one 16-bit word per entry: the block
        # height (clipped to its byte), whether the type is known, the state valid, fruit needed.
        self.state_code = (np.clip(self.block_at, 0, 255)
                           | np.where(self.known[:, None], STATE_KNOWN, 0)
                           | np.where(self.state_ok, STATE_VALID, 0)
                           | np.where(self.fruit_needed, STATE_FRUITS, 0)).astype(np.uint16).reshape(-1)
        alt = np.arange(512)[None, :]
        water = alt - WATER_LEVEL
        self.band_ok = ((alt >= self.alt_lo[:, None]) & (alt <= self.alt_hi[:, None])
                        & (water >= self.wat_lo[:, None]) & (water <= self.wat_hi[:, None]))
        self.ground_any = self.ground_ok | self.non_natural[:, None]
        slope = np.arange(256)[None, :]
        self.slope_ok = ((slope >= self.slope_lo[:, None]) & (slope <= self.slope_hi[:, None])
                         | self.non_natural[:, None])
        forbid = np.where(self.concrete, DEVRINOL_FORBIDDING, PLANT_FORBIDDING)
        self.forbid = np.where(self.non_natural, 0, forbid).astype(np.uint16)
