"""The nature pass as a plain per-tile loop, cube by cube, as the game server runs it.

Deliberately naive (Python lists, one tile at a time): the reference the vectorised simulator is
checked against (statistically: its random draws differ; validation draws nothing and agrees
exactly), and the baseline the growth bench measures it against.
Each cube works on a copy of its plant and block tiles and commits it when done; neighbour counts
read the committed map, kill-distance scans read the cube's copy inside it and the map outside.
"""

from __future__ import annotations

import random

import numpy as np

from model.plants.growth import (
    CONCRETE,
    CUBE,
    DEVRINOL,
    DEVRINOL_FORBIDDING,
    KILL_DRAWS_PER_TILE,
    NEIGHBOUR_RADIUS,
    NON_NATURAL,
    PLANT,
    PLANT_FORBIDDING,
    RENEW_CHANCE,
    WATER_LEVEL,
    GrowthField,
    GrowthOptions,
)
from model.plants.rule import PlantRule

KEYS = ("type", "state", "time", "spawn", "health", "material", "ground", "flags", "height")


class ReferenceZone:
    """Layers as flat Python lists; `run_pass` mutates them."""

    def __init__(self, f: GrowthField, rules: dict[int, PlantRule], options: GrowthOptions,
                 seed: int) -> None:
        self.h, self.w = f.shape
        self.map = {k: getattr(f, k).reshape(-1).tolist() for k in KEYS}
        self.control = f.control.reshape(-1).tolist()
        self.altitude = f.altitude.reshape(-1).tolist()
        self.slope = f.slope.reshape(-1).tolist()
        self.rules = {i: r for i, r in rules.items() if 0 < i < 256}
        self.options = options
        self.rnd = random.Random(seed)
        self.player_seeded = {i for i, r in self.rules.items() if r.player_seeded}

    def field(self, like: GrowthField) -> GrowthField:
        out = like.copy()
        for k in KEYS:
            getattr(out, k)[...] = np.array(self.map[k], np.uint8).reshape(self.h, self.w)
        out.control[...] = np.array(self.control, np.uint16).reshape(self.h, self.w)
        return out

    def run_pass(self) -> None:
        for y0 in range(0, self.h, CUBE):
            for x0 in range(0, self.w, CUBE):
                Cube(self, x0, y0).process()


class Cube:
    def __init__(self, zone: ReferenceZone, x0: int, y0: int) -> None:
        self.z = zone
        self.x0, self.y0 = x0, y0
        self.cw, self.ch = min(CUBE, zone.w - x0), min(CUBE, zone.h - y0)
        self.tiles = [(y0 + y) * zone.w + x0 + x for y in range(self.ch) for x in range(self.cw)]
        self.own = set(self.tiles)
        self.p = {k: {i: zone.map[k][i] for i in self.tiles} for k in KEYS}  # the cube's copy
        self.rnd = zone.rnd

    # ---- helpers --------------------------------------------------------------------------------
    def rule(self, plant_type: int) -> PlantRule | None:
        return None if plant_type == 0 else self.z.rules.get(plant_type)

    def clean(self, i: int, keep_height: bool = False) -> None:
        p = self.p
        old = p["type"][i]
        for k in ("type", "state", "time", "health", "material"):
            p[k][i] = 0
        p["flags"][i] &= ~PLANT & 0xFF
        if not keep_height:
            p["height"][i] = 0
        if old == DEVRINOL:
            self.z.control[i] &= ~CONCRETE & 0xFFFF

    def type_at(self, i: int) -> int:
        return self.p["type"][i] if i in self.own else self.z.map["type"][i]

    # ---- steps ----------------------------------------------------------------------------------
    def process(self) -> None:
        for i in self.tiles:
            self.validate_tile(i, dead_only=True)
        for i in self.tiles:
            self.grow_tile(i)
        self.spawn()
        for i in self.tiles:
            self.validate_tile(i, dead_only=False)
        if self.z.options.damage_walls:
            for i in self.tiles:
                self.damage_wall(i)
        self.kill_on_distance()
        for i in self.tiles:
            self.renew(i)
        for k in KEYS:
            for i in self.tiles:
                self.z.map[k][i] = self.p[k][i]

    def validate_tile(self, i: int, dead_only: bool) -> None:
        p = self.p
        if p["flags"][i] & NON_NATURAL:
            self.clean(i, keep_height=True)
            return
        if p["height"][i] > 0 and p["flags"][i] == 0:
            p["height"][i] = 0
        ty, st, mat = p["type"][i], p["state"][i], p["material"][i]
        if dead_only:
            if ty == 0 and st != 0:
                self.clean(i)
            return
        if mat > 0 and ty == 0:
            self.clean(i)
            return
        if ty == 0 and p["flags"][i] & PLANT:
            self.clean(i)
            return
        if p["spawn"][i] == 0:
            self.clean(i)
            return
        if ty == 0:
            return
        rule = self.rule(ty)
        if rule is None:
            if self.z.options.drop_unknown:
                self.clean(i)
            return
        if not rule.allowed_on_non_natural:
            forbidding = DEVRINOL_FORBIDDING if rule.places_concrete else PLANT_FORBIDDING
            if self.z.control[i] & forbidding:
                self.clean(i)
                return
        bh = rule.blocking_height_at(st)
        if bh > 0 and p["height"][i] != bh:
            p["height"][i] = bh
        if st >= rule.state_count:
            self.clean(i)
            return
        alt = self.z.altitude[i] >> 7
        if not rule.altitude_low <= alt <= rule.altitude_high:
            self.clean(i)
            return
        if not rule.water_low <= alt - WATER_LEVEL <= rule.water_high:
            self.clean(i)
            return
        if not rule.allowed_on_non_natural and p["ground"][i] not in rule.allowed_terrain_types:
            self.clean(i)
            return
        if bh > 0 and not p["flags"][i] & PLANT:
            p["flags"][i] |= PLANT
            p["height"][i] = bh
        if bh <= 0 and p["flags"][i] & PLANT:
            p["flags"][i] &= ~PLANT & 0xFF
            p["height"][i] = 0
        if not rule.allowed_on_non_natural and not rule.min_slope <= self.z.slope[i] <= rule.slope:
            self.clean(i)
            return
        if not rule.fruits or st < rule.fruiting_state:
            p["material"][i] = 0
        if rule.fruits and p["material"][i] == 0 and rule.fruiting_state <= st:
            self.clean(i)

    def grow_tile(self, i: int) -> None:
        p = self.p
        rule = self.rule(p["type"][i])
        if rule is None:
            return
        if p["time"][i] < rule.grow_rate:
            p["time"][i] = min(p["time"][i] + 1, 255)
            return
        st = p["state"][i]
        if st >= rule.state_count:
            return
        p["time"][i] = 0
        nexts, acts = rule.choices(st)
        nxt = self.rnd.choice(nexts)
        act = self.rnd.choice(acts)
        if act == 0:
            for k in ("type", "time", "health", "material", "height"):
                p[k][i] = 0
            p["state"][i] = 1
            p["flags"][i] &= ~PLANT & 0xFF
            if rule.places_concrete:
                self.z.control[i] &= ~CONCRETE & 0xFFFF
            return
        cfg = rule.health[st] or 40
        ratio = min(max(p["health"][i] / cfg, 0.0), 1.0)
        new_health = rule.health[nxt] if nxt < len(rule.health) else 0
        p["type"][i] = act
        p["state"][i] = nxt
        p["health"][i] = int(min(max(ratio * new_health, 1), 255))
        amount = rule.fruit_amount
        if rule.fruits and nxt == rule.fruiting_state:
            p["material"][i] = min(int(min(max(self.rnd.uniform(0.05, 0.15) * amount, 0), 255)), amount)
        elif rule.fruits and nxt > rule.fruiting_state:
            more = min(p["material"][i] + self.rnd.uniform(0.15, 0.25) * amount, amount)
            p["material"][i] = int(min(max(more, 0), 255))
        else:
            p["material"][i] = 0
        bh = rule.blocking_height_at(nxt)
        p["height"][i] = min(max(bh, 0), 255)
        if bh > 0:
            p["flags"][i] |= PLANT
        else:
            p["flags"][i] &= ~PLANT & 0xFF

    def neighbour_counts(self, i: int) -> dict[int, int]:
        """Plant types in the 9×9 square of the committed map, clamped to the zone."""
        y, x = divmod(i, self.z.w)
        r = NEIGHBOUR_RADIUS
        counts: dict[int, int] = {}
        for yy in range(max(0, y - r), min(self.z.h, y + r + 1)):
            for xx in range(max(0, x - r), min(self.z.w, x + r + 1)):
                ty = self.z.map["type"][yy * self.z.w + xx]
                if ty != 0 and ty not in self.z.player_seeded:
                    counts[ty] = counts.get(ty, 0) + 1
        return counts

    def new_rule(self, i: int) -> PlantRule | None:
        counts = self.neighbour_counts(i)
        rules = self.z.rules
        if not counts:
            tickets = [ty for ty in sorted(rules) if not rules[ty].player_seeded
                       for _ in range(max(rules[ty].fertility, 0))]
            chosen = self.rnd.choice(tickets) if tickets else 0
        else:
            best = max(counts.values())
            ruling = max(ty for ty, c in counts.items() if c == best)
            tickets = [ty for ty in sorted(counts) if ty in rules and not rules[ty].player_seeded
                       and rules[ty].spreading > 0 for _ in range(counts[ty] * rules[ty].spreading)]
            spread = self.rnd.choice(tickets) if tickets else 0
            chosen = ruling if self.rnd.random() < 0.5 else spread
        return self.rule(chosen)

    def too_close(self, i: int, plant_type: int, kd: int, skip_self: bool) -> bool:
        y, x = divmod(i, self.z.w)
        for yy in range(y - kd, y + kd):
            for xx in range(x - kd, x + kd):
                if not (0 <= yy < self.z.h and 0 <= xx < self.z.w):
                    continue
                if skip_self and (yy, xx) == (y, x):
                    continue
                if (yy - y) ** 2 + (xx - x) ** 2 >= kd * kd:
                    continue
                if self.type_at(yy * self.z.w + xx) == plant_type:
                    return True
        return False

    def spawn(self) -> None:
        p = self.p
        counts: dict[int, int] = {}
        for i in self.tiles:
            if p["type"][i]:
                counts[p["type"][i]] = counts.get(p["type"][i], 0) + 1
        in_cube = sum(c for ty, c in counts.items() if ty in self.z.rules and self.z.rules[ty].blocks)
        ground = len(self.tiles)
        factor = self.z.options.fertility / 100.0
        avail = int(ground * factor) - in_cube
        if in_cube / ground > factor:
            return
        for _ in range(ground):
            i = (self.y0 + self.rnd.randrange(self.ch)) * self.z.w + self.x0 + self.rnd.randrange(self.cw)
            if p["type"][i] != 0 or p["flags"][i] != 0:
                continue
            if self.rnd.randrange(256) >= p["spawn"][i]:
                continue
            rule = self.new_rule(i)
            if rule is None:
                continue
            if rule.max_amount > 0 and counts.get(rule.index, 0) > rule.max_amount:
                continue
            if rule.kill_distance > 0 and self.too_close(i, rule.index, rule.kill_distance, False):
                continue
            p["type"][i] = rule.index
            p["state"][i] = 0
            p["material"][i] = 0
            p["health"][i] = rule.health[0]
            bh = rule.blocking_height_at(0)
            p["height"][i] = min(max(bh, 0), 255)
            if bh > 0:
                p["flags"][i] |= PLANT
            avail -= 1
            if avail <= 0:
                return

    def damage_wall(self, i: int) -> None:
        p = self.p
        rule = self.rule(p["type"][i])
        if rule is None or not rule.allowed_on_non_natural:
            return
        if rule.state_count - p["state"][i] >= 4:
            return
        p["health"][i] = max(p["health"][i] - self.rnd.randrange(3, 5), 0)
        if p["health"][i] > 0:
            return
        for k in ("type", "time", "material", "height"):
            p[k][i] = 0
        p["state"][i] = 1
        p["flags"][i] &= ~PLANT & 0xFF

    def kill_on_distance(self) -> None:
        p = self.p
        for _ in range(KILL_DRAWS_PER_TILE * len(self.tiles)):
            i = (self.y0 + self.rnd.randrange(self.ch)) * self.z.w + self.x0 + self.rnd.randrange(self.cw)
            rule = self.rule(p["type"][i])
            if rule is None or rule.kill_distance <= 0:
                continue
            if self.too_close(i, rule.index, rule.kill_distance, True):
                for k in ("type", "state", "time", "health", "material", "height"):
                    p[k][i] = 0
                p["flags"][i] &= ~PLANT & 0xFF

    def renew(self, i: int) -> None:
        p = self.p
        rule = self.rule(p["type"][i])
        if rule is None or not rule.fruits or rule.blocking_height_at(p["state"][i]) <= 0:
            return
        if rule.fruiting_state > p["state"][i] or p["material"][i] >= rule.fruit_amount:
            return
        if self.rnd.random() >= RENEW_CHANCE:
            return
        add = int(min(max(self.rnd.uniform(0.05, 0.15) * rule.fruit_amount, 0), 255))
        p["material"][i] = min(p["material"][i] + add, rule.fruit_amount)


def reference_growth(f: GrowthField, rules: dict[int, PlantRule], passes: int, seed: int,
                     options: GrowthOptions | None = None) -> GrowthField:
    """`passes` nature passes, tile by tile; returns a new field."""
    zone = ReferenceZone(f, rules, options or GrowthOptions(), seed)
    for _ in range(passes):
        zone.run_pass()
    return zone.field(f)


def reference_validate(f: GrowthField, rules: dict[int, PlantRule],
                       options: GrowthOptions | None = None) -> GrowthField:
    """Full validation only, tile by tile (deterministic: no random draws)."""
    zone = ReferenceZone(f, rules, options or GrowthOptions(), 0)
    for y0 in range(0, zone.h, CUBE):
        for x0 in range(0, zone.w, CUBE):
            cube = Cube(zone, x0, y0)
            for i in cube.tiles:
                cube.validate_tile(i, dead_only=False)
            for k in KEYS:
                for i in cube.tiles:
                    zone.map[k][i] = cube.p[k][i]
    return zone.field(f)
