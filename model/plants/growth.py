"""The growth simulator: the game's per-cube nature pass over a zone's layers, vectorised with numpy.

Per 32×32 cube, in order: validate (clean dead only) → grow → spawn → validate (full) → damage walls →
kill on distance → renew fruit. Each step here runs over every cube at once, on the list of tiles
that hold anything (so a pass costs in proportion to the plants, not the tiles). Where the game's
steps are sequential inside a cube (spawn draws, kill-distance draws) the order is resolved in
vectorised rounds, so the result matches the per-tile loop statistically; validation, which draws
nothing, matches it exactly (see the tests and `model.plants.reference_growth`).

Spawning decides per zone, not per draw, what it can: where each species is refused (capped in its
cube, within kill distance of its kind) and which tiles have any neighbour, as bit maps
(`tile_bits`); tiles where every choosable species is refused are closed to the draws, so the draws
that are tried are mostly accepted. Kill-distance conflicts among a round's new plants are found by
bucketing them in cells as wide as the distance.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from model.plants import tile_bits
from model.plants.growth_tables import (  # noqa: F401 (re-exported: the simulator's vocabulary)
    ANTI_PLANT,
    CONCRETE,
    CONCRETE_A,
    CONCRETE_B,
    CUBE,
    DECOR,
    DEVRINOL,
    DEVRINOL_FORBIDDING,
    HIGHWAY,
    ISLAND,
    KILL_DRAWS_PER_TILE,
    MAX_KILL_DISTANCE,
    NEIGHBOUR_RADIUS,
    NON_NATURAL,
    OBSTACLE,
    PBS_HIGHWAY,
    PLANT,
    PLANT_FORBIDDING,
    RENEW_CHANCE,
    ROAMING,
    STATE_FRUITS,
    STATE_KNOWN,
    STATE_VALID,
    WATER_LEVEL,
    GrowthField,
    RuleTables,
)
from model.plants.rule import PlantRule


class Cancelled(Exception):
    """Growth was cancelled; the input layers are untouched."""


Progress = Callable[[float], None]


_NOT_PLANT = np.uint8(~PLANT & 0xFF)
_NOT_CONCRETE = np.uint16(~CONCRETE & 0xFFFF)
_PLANT_KEYS = ("type", "state", "time", "health", "material")
_READ_ONLY = ("altitude", "slope", "spawn", "ground")


@dataclass(frozen=True)
class GrowthOptions:
    """Zone settings growth needs: fertility percentage, whether walls decay (not on alpha zones), and
    whether plants of a type the rule set has no rule for are removed (the game's validation) or, by
    default, left as they are (a rule set that does not cover a zone must not wipe its plants)."""

    fertility: float = 10.0
    damage_walls: bool = True
    drop_unknown: bool = False


def _offsets(kd: int) -> tuple[np.ndarray, np.ndarray]:
    """The game's kill-distance scan: the square [-kd, kd)² clipped to distance < kd."""
    d = np.arange(-kd, kd)
    dy, dx = np.meshgrid(d, d, indexing="ij")
    keep = dy * dy + dx * dx < kd * kd
    return dy[keep], dx[keep]


class Grower:
    """Runs nature passes over one field in place.

    It keeps the list of tiles that hold anything (a plant or leftovers of one, or a Plant bit), so
    after one scan of the zone a pass costs time in proportion to its plants, not its tiles.
    """

    def __init__(self, f: GrowthField, t: RuleTables, options: GrowthOptions | None = None,
                 shared_control: bool = False) -> None:
        """`shared_control`: `f.control` belongs to someone else; it is copied before the first write."""
        self.f, self.t = f, t
        self._shared_control = shared_control
        self.options = options or GrowthOptions()
        self.v = {k: getattr(f, k).reshape(-1) for k in f.__dataclass_fields__}
        v = self.v
        self.h, self.w = f.shape
        # Growth never sets Obstacle, Decor or Island, and never writes the spawn byte.
        self.nonnat = np.flatnonzero((v["flags"] & NON_NATURAL) != 0)  # nonzero is fastest on booleans
        self.non_natural_tile = (f.flags & NON_NATURAL) != 0
        ys, xs = np.arange(0, self.h, CUBE), np.arange(0, self.w, CUBE)
        y0, x0 = np.meshgrid(ys, xs, indexing="ij")
        self.x0, self.y0 = x0.reshape(-1), y0.reshape(-1)
        self.cw, self.ch = np.minimum(CUBE, self.w - self.x0), np.minimum(CUBE, self.h - self.y0)
        self.ground = self.cw * self.ch
        # Whole cubes only, and tile indices that fit the spawn draws' 32-bit maths.
        self.full_cubes = bool(np.all(self.ground == CUBE * CUBE)) and self.h * self.w < 1 << 32
        self.origin = self.y0 * self.w + self.x0
        stray = (v["flags"] == 0) & (v["height"] > 0)
        v["height"][stray] = 0  # a block height without any flag is the first thing validation fixes
        self.live = np.flatnonzero((v["type"] | v["state"] | v["time"] | v["health"] | v["material"]
                                    | (v["flags"] & PLANT)) != 0)
        self._mark = np.zeros(self.h * self.w, bool)
        self.margin = int(max(NEIGHBOUR_RADIUS, t.kill_distance.max(initial=0)))
        self.stride = self.w + 2 * self.margin
        self.pad_origin = (self.y0 + self.margin) * self.stride + self.x0 + self.margin
        d = np.arange(-NEIGHBOUR_RADIUS, NEIGHBOUR_RADIUS + 1)
        dy, dx = np.meshgrid(d, d, indexing="ij")
        self._neighbourhood = self._pad_offsets(dy.reshape(-1), dx.reshape(-1))
        # A full cube's tile offsets from its first tile in the padded layers.
        local = np.arange(CUBE * CUBE)
        self._pad_cube_offsets = (local // CUBE) * self.stride + local % CUBE
        self._kill_offsets: dict[tuple[int, bool], np.ndarray] = {}
        self._standing: tuple[np.ndarray, np.ndarray] | None = None  # validated plants: (tiles, types)
        self._kinds_at_start = np.zeros(0, np.intp)  # types standing as the pass began (validate_dead)
        self._prune = False  # whether `live` may list tiles emptied since it was taken

    # ---- geometry -------------------------------------------------------------------------------
    def _per_cube_sum(self, values: np.ndarray, per_cube: int = CUBE) -> np.ndarray:
        """Per-cube sums of a zone-wide layer (of `per_cube` rows a cube: fewer for sampled rows)."""
        h, w = values.shape
        ph, pw = -h % per_cube, -w % CUBE
        if ph or pw:
            values = np.pad(values, ((0, ph), (0, pw)))
        hh, ww = values.shape
        # A cube's rows added together first (whole rows at a time), then each cube's columns.
        wide = np.uint16 if values.dtype == np.uint8 and per_cube <= 256 else np.int64  # 32 bytes fit 16 bits
        sums = values.reshape(hh // per_cube, per_cube, ww).sum(axis=1, dtype=wide)
        return sums.reshape(hh // per_cube, ww // CUBE, CUBE).sum(axis=2, dtype=np.int64).reshape(-1)

    def cube_of(self, idx: np.ndarray) -> np.ndarray:
        if self.w % CUBE == 0 and self.w & (self.w - 1) == 0:  # a power of two: shifts and a mask
            shift, c = self.w.bit_length() - 1, CUBE.bit_length() - 1
            return ((idx >> (shift + c)) << (shift - c)) + ((idx & (self.w - 1)) >> c)
        ys, xs = np.divmod(idx, self.w)
        return (ys // CUBE) * (-(-self.w // CUBE)) + xs // CUBE

    # Neighbourhood look-ups run on copies of the type layer padded with empty tiles, so offsets
    # never need clamping: a tile's padded index plus an offset's padded stride is its neighbour.
    def _padded(self, types: np.ndarray) -> np.ndarray:
        r = self.margin
        out = np.zeros((self.h + 2 * r, self.w + 2 * r), np.uint8)
        out[r:r + self.h, r:r + self.w] = types
        return out.reshape(-1)

    def _pad_index(self, tiles: np.ndarray) -> np.ndarray:
        ys, xs = np.divmod(tiles, self.w)
        return (ys + self.margin) * self.stride + xs + self.margin

    def _pad_offsets(self, dy: np.ndarray, dx: np.ndarray) -> np.ndarray:
        return dy * self.stride + dx

    # ---- tile edits -----------------------------------------------------------------------------
    def _clean(self, idx: np.ndarray, keep_height: bool = False) -> None:
        """Clear the plant on tiles `idx`; a Devrinol's death takes the concrete under it."""
        if idx.size == 0:
            return
        v = self.v
        devrinol = idx[v["type"][idx] == DEVRINOL]
        if devrinol.size:
            self._writable_control()[devrinol] &= _NOT_CONCRETE
        for k in _PLANT_KEYS:
            v[k][idx] = 0
        v["flags"][idx] &= _NOT_PLANT
        if not keep_height:
            v["height"][idx] = 0

    def _writable_control(self) -> np.ndarray:
        if self._shared_control:  # deaths that take concrete are rare: copy the layer only then
            self.f.control = self.f.control.copy()
            self.v["control"] = self.f.control.reshape(-1)
            self._shared_control = False
        return self.v["control"]

    def _plants(self, where: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Live tiles holding a known plant whose type satisfies the per-type mask `where`."""
        if self._standing is not None:
            # After validation the steps only ever kill (type 0): the plants it kept, less the dead.
            idx, ty = self._standing
            sel = np.flatnonzero(_type_mask(ty, where))
            idx, ty = idx[sel], ty[sel]
            alive = self.v["type"][idx] == ty
            return idx[alive], ty[alive].astype(np.intp)
        idx = self.live
        ty = self.v["type"][idx]
        sel = np.take(self.t.known & where, ty)
        return idx[sel], ty[sel].astype(np.intp)

    # ---- the steps ------------------------------------------------------------------------------
    def validate_dead(self) -> None:
        """The pass's first, light validation: non-natural tiles and last pass's kill signals."""
        v = self.v
        idx = self.live
        types = v["type"][idx]
        self._kinds_at_start = _kinds(types)  # the types standing as the pass begins
        at = self.nonnat
        left = (v["type"][at] | v["state"][at] | v["time"][at] | v["health"][at] | v["material"][at]
                | (v["flags"][at] & PLANT)) != 0
        self._clean(at[left], keep_height=True)  # growth never plants there: usually nothing to clear
        dead = (types == 0) & (v["state"][idx] != 0) & ~self.non_natural_tile.reshape(-1)[idx]
        self._clean(idx[dead])

    def validate(self, non_natural_clean: bool = False) -> None:
        """Full validation: every rule the tile breaks clears its plant (see the spec's list).

        `non_natural_clean`: the pass already cleared the non-natural tiles (growth never plants there).
        """
        t, v = self.t, self.v
        if not non_natural_clean:
            self._clean(self.nonnat, keep_height=True)
        idx = self.live[~self.non_natural_tile.reshape(-1)[self.live]]
        ty = v["type"][idx].astype(np.intp)
        base = ty << 8  # the row of the type in the 256-wide tables
        code = t.state_code[base + v["state"][idx]]  # block height, known, valid state, fruit needed
        mat = v["material"][idx]
        bit = (v["flags"][idx] & PLANT) != 0
        empty = ty == 0
        drop = (empty & ((mat > 0) | bit)) | (v["spawn"][idx] == 0)
        known = (code & STATE_KNOWN) != 0
        if self.options.drop_unknown:
            drop |= ~empty & ~known
        # else a plant without a rule is neither validated nor grown: it stays as it is
        bad = (v["control"][idx] & t.forbid[ty]) != 0
        bad |= (code & STATE_VALID) == 0
        bad |= ~t.band_ok.reshape(-1)[(base << 1) + (v["altitude"][idx] >> 7)]
        bad |= ~t.ground_any.reshape(-1)[base + v["ground"][idx]]
        bad |= ~t.slope_ok.reshape(-1)[base + v["slope"][idx]]
        fruiting = (code & STATE_FRUITS) != 0
        bad |= fruiting & (mat == 0)  # a fruiting state without fruit
        drop |= known & bad
        keep = known & ~drop
        # Survivors: the Plant bit and block height follow the state; fruit only in fruiting states.
        bh = (code & 0xFF).astype(np.uint8)
        on = np.flatnonzero(keep & (bh > 0))
        at = idx[on]
        v["flags"][at] |= PLANT
        v["height"][at] = bh[on]
        off = idx[keep & (bh == 0) & bit]
        v["flags"][off] &= _NOT_PLANT
        v["height"][off] = 0
        v["material"][idx[keep & ~fruiting & (mat > 0)]] = 0
        self._clean(idx[drop])
        kept = np.flatnonzero(keep)
        self._standing = idx[kept], ty[kept].astype(np.uint8)

    def grow(self, rng: np.random.Generator) -> None:
        """Advance every plant's clock; plants whose clock ran out roll their state machine."""
        t, v = self.t, self.v
        idx, ty = self._plants(t.known)
        time = v["time"][idx]
        waiting = time < np.take(t.grow_rate, ty)
        at = np.flatnonzero(waiting)
        tw = time[at]
        v["time"][idx[at]] = tw + (tw != 255)  # the byte saturates
        st = v["state"][idx].astype(np.intp)
        roll = np.flatnonzero(~waiting & (st < np.take(t.n_states, ty)))
        rolls, rt, rs = idx[roll], ty[roll], st[roll]
        if rolls.size == 0:
            return
        s1, k = t.max_states + 1, t.next.shape[2]
        key = rt * t.max_states + rs  # (type, state) in the choice tables
        # One 32-bit draw per roll: its halves pick the next state and the next action (16 bits each).
        u = rng.integers(0, 1 << 32, rolls.size, dtype=np.uint32).astype(np.int64)
        pick = ((u & 0xFFFF) * np.take(t.next_len.reshape(-1), key)) >> 16
        nxt = np.take(t.next.reshape(-1), key * k + pick)
        pick = ((u >> 16) * np.take(t.act_len.reshape(-1), key)) >> 16
        act = np.take(t.act.reshape(-1), key * k + pick)
        v["time"][rolls] = 0
        dies = act == 0
        d = rolls[dies]
        for name in ("type", "health", "material", "height"):
            v[name][d] = 0
        v["state"][d] = 1  # the kill signal the client animates; cleaned next pass
        v["flags"][d] &= _NOT_PLANT
        concrete = d[t.concrete[rt[dies]]]
        if concrete.size:
            self._writable_control()[concrete] &= _NOT_CONCRETE

        live = np.flatnonzero(~dies)
        idx, rt, rs, nxt, act = rolls[live], rt[live], rs[live], nxt[live], act[live]
        health_table = t.health.reshape(-1)
        cfg = np.take(health_table, rt * s1 + rs)
        cfg = np.where(cfg == 0, 40, cfg)
        ratio = np.minimum(v["health"][idx] / cfg, 1.0)
        # The old rule's tables answer for the new state (out of range: the zero column).
        new_key = rt * s1 + np.where((nxt >= 0) & (nxt < t.max_states), nxt, t.max_states)
        health = np.clip(ratio * np.take(health_table, new_key), 1, 255).astype(np.uint8)
        fs = np.take(t.fruiting, rt)
        fruiting = (fs >= 0) & (nxt >= fs)
        material = np.zeros(idx.size, np.uint8)
        if fruiting.any():
            f_at = np.flatnonzero(fruiting)
            amount = t.fruit_amount[rt[f_at]]
            u2 = rng.random(f_at.size)
            mat = v["material"][idx[f_at]].astype(np.float64)
            enter = np.minimum(np.clip(amount * (0.05 + 0.10 * u2), 0, 255).astype(np.int64), amount)
            more = np.clip(np.minimum(mat + amount * (0.15 + 0.10 * u2), amount), 0, 255).astype(np.int64)
            material[f_at] = np.where(nxt[f_at] == fs[f_at], enter, more).astype(np.uint8)
        bh = np.take(t.block.reshape(-1), new_key)
        v["type"][idx] = act.astype(np.uint8)
        v["state"][idx] = nxt.astype(np.uint8)
        v["health"][idx] = health
        v["material"][idx] = material
        v["height"][idx] = np.clip(bh, 0, 255).astype(np.uint8)
        flags = v["flags"][idx]
        v["flags"][idx] = np.where(bh > 0, flags | PLANT, flags & _NOT_PLANT)

    def spawn(self, rng: np.random.Generator, snapshot: np.ndarray) -> np.ndarray:
        """New plants per cube until it holds the zone's fertility share of blocking plants.

        Each cube makes up to one random draw per tile, in order, and stops once it has placed what
        was available. Draws are independent, so a cube makes them in rounds sized by how many it
        still needs and how often its draws have been accepted; within a round the accepted spawns
        are taken in draw order up to the need. Returns the planted tiles.
        """
        t, v = self.t, self.v
        n_cubes = self.ground.size
        idx = self.live
        ty_live = v["type"][idx]
        cube_live = self.cube_of(idx)
        cap_count = None
        if ((t.max_amount > 0) & t.known).any():  # per-cube species counts, taken before the loop
            cap_count = np.bincount(cube_live * 256 + ty_live, minlength=n_cubes * 256).reshape(n_cubes, 256)
            plants_in_cube = cap_count[:, np.flatnonzero(t.blocks_any)].sum(axis=1)
        else:
            plants_in_cube = np.bincount(cube_live, weights=np.take(t.blocks_any, ty_live), minlength=n_cubes)
        factor = self.options.fertility / 100.0
        avail = (self.ground * factor).astype(np.int64) - plants_in_cube.astype(np.int64)
        active = ~(plants_in_cube / self.ground > factor)
        # With nothing available the cube still plants one (the game decrements, then tests).
        need = np.where(active, np.maximum(avail, 1), 0)
        if not need.any():
            return np.zeros(0, np.int64)
        # Neighbours are counted in the map as it was; player-seeded species never count.
        in_map = self._kinds_at_start[self._kinds_at_start > 0]  # as the pass began (validate_dead)
        present = in_map[t.counts_as_neighbour[in_map]]
        neighbours = self._padded(snapshot)
        for k in in_map[~t.counts_as_neighbour[in_map]]:  # a compare per species beats a 256-entry lookup
            np.multiply(neighbours, neighbours != int(k), out=neighbours)
        refused = self._refusals(present, cap_count)
        fresh = _Fresh((self.h + 2 * self.margin) * self.stride)  # this pass's new plants, for kill distances
        boxes: dict[int, np.ndarray] | None = None
        tried_total = 0
        used = np.zeros(n_cubes, np.int64)
        tried = np.zeros(n_cubes, np.int64)
        accepted = np.zeros(n_cubes, np.int64)
        # A draw needs an empty tile without block flags; its spawn byte is the gate. Tiles where every
        # species a draw could pick is refused (capped in the cube, or within kill distance of its
        # kind) are closed too: refusals only grow during the pass, so a draw there always fails; it
        # is consumed without being tried.
        stuck, near = self._hopeless(snapshot, present, refused)
        stuck = tile_bits.unpack(stuck, self.w).reshape(-1)
        open_spawn = v["spawn"] * (((v["type"] | v["flags"]) == 0) > stuck)
        # How often a draw passes the gate, per cube (it sizes the batches of draws). A cube where
        # nothing is open can pass no draw: its draws are all spent at once, without drawing them.
        gate_share = self._per_cube_sum(open_spawn.reshape(self.h, self.w)) / (256.0 * self.ground)
        used[gate_share == 0] = self.ground[gate_share == 0]
        planted: list[np.ndarray] = []
        while True:
            cubes = np.flatnonzero((need > 0) & (used < self.ground))
            if cubes.size == 0:
                break
            # Passing draws are mostly accepted (the hopeless tiles are closed): a prior of 3 in 4.
            rate = (accepted[cubes] + 3.0) / (tried[cubes] + 4.0)
            limit = (need[cubes] / rate * 1.2).astype(np.int64) + 2  # passing draws to try this round
            p = np.maximum(gate_share[cubes], 1.0 / 1024)
            batch = np.minimum(self.ground[cubes] - used[cubes], (limit / p * 1.25).astype(np.int64) + 4)
            n_draws = int(batch.sum())
            if self.full_cubes:
                # One 32-bit draw per attempt: the top 10 bits pick the tile (5 its row in the cube, 5 its
                # column: CUBE is 32), the low 8 are the gate. Raw generator words, two draws each.
                r = rng.bit_generator.random_raw((n_draws + 1) // 2).view(np.uint32)[:n_draws]
                tile = np.repeat(self.origin[cubes].astype(np.uint32), batch)
                tile += (r >> np.uint32(27)) * np.uint32(self.w)
                tile += (r >> np.uint32(22)) & np.uint32(CUBE - 1)
                tile = tile.astype(np.intp)
            else:
                cube = np.repeat(cubes, batch)
                r = rng.integers(0, 1 << 32, n_draws, dtype=np.uint64)
                local = ((r >> 8) * self.ground[cube].astype(np.uint64) >> 24).astype(np.int64)
                ys = self.y0[cube] + local // self.cw[cube]
                tile = ys * self.w + self.x0[cube] + local % self.cw[cube]
            passing = np.flatnonzero(r.astype(np.uint8) < open_spawn[tile])  # the low byte is the gate
            pseg = np.searchsorted(np.cumsum(batch), passing, "right")  # each passing draw's place in `cubes`
            prank = np.arange(passing.size) - np.searchsorted(pseg, np.arange(cubes.size))[pseg]
            keep = prank < limit[pseg]
            pick, seg_t = passing[keep], pseg[keep]
            start = np.cumsum(batch) - batch
            rank_t = pick - start[seg_t]  # each tried draw's place in its cube's batch
            tile, cube = tile[pick], cubes[seg_t]
            if self.full_cubes:  # the padded index straight from the cube and the draw, no division
                local = (r[pick] >> np.uint32(22)).astype(np.intp)
                pidx = self.pad_origin[cube] + self._pad_cube_offsets[local]
            else:
                pidx = self._pad_index(tile)
            tried_total += pidx.size
            if boxes is None and tried_total * self._neighbourhood.size > neighbours.size:
                boxes = self._box_counts(neighbours, present)  # cheaper from here on
            ty = self._choose_types(neighbours, present, pidx, tile, rng, boxes, near)
            ok = (ty != 0) & t.known[ty]
            if cap_count is not None:
                ok &= ~((t.max_amount[ty] > 0) & (cap_count[cube, ty] > t.max_amount[ty]))
            kd = np.where(ok, t.kill_distance[ty], 0)
            ok &= ~self._in_reach(refused, fresh, pidx, tile, ty, kd)
            ok = _first_per_tile(ok, tile, open_spawn)
            ok &= ~self._earlier_conflict(ok, pidx, ty, kd)
            tried[cubes] += np.bincount(seg_t, minlength=cubes.size)
            accepted[cubes] += np.bincount(seg_t, weights=ok, minlength=cubes.size).astype(np.int64)
            # Accept in draw order up to the need; the cube's draws are consumed up to the last
            # accepted one (need met), the last tried one (try limit hit), or the whole batch.
            seg_start = np.searchsorted(seg_t, np.arange(cubes.size))
            ok_rank = _rank_in_segments(ok, seg_t, seg_start)
            accept = ok & (ok_rank < need[cube])
            n_acc = np.bincount(seg_t, weights=accept, minlength=cubes.size).astype(np.int64)
            n_try = np.bincount(seg_t, minlength=cubes.size)
            last_acc = _last_per_segment(seg_t[accept], rank_t[accept], cubes.size)
            last_try = _last_per_segment(seg_t, rank_t, cubes.size)
            used[cubes] += np.where(n_acc >= need[cubes], last_acc + 1,
                                    np.where(n_try >= limit, last_try + 1, batch))
            placed, pt = tile[accept], ty[accept]
            v["type"][placed] = pt.astype(np.uint8)
            open_spawn[placed] = 0
            far = t.kill_distance[pt] > 0
            fresh.add(pidx[accept][far], pt[far])
            v["state"][placed] = 0
            v["material"][placed] = 0
            v["health"][placed] = np.clip(t.health[pt, 0], 0, 255).astype(np.uint8)
            bh = t.block[pt, 0]
            v["height"][placed] = np.clip(bh, 0, 255).astype(np.uint8)
            v["flags"][placed] |= np.where(bh > 0, PLANT, 0).astype(np.uint8)
            need[cubes] -= n_acc
            planted.append(placed)
        return np.concatenate(planted) if planted else np.zeros(0, np.int64)

    def _choose_types(self, neighbours: np.ndarray, present: np.ndarray, pidx: np.ndarray, tile: np.ndarray,
                      rng: np.random.Generator, boxes: dict[int, np.ndarray] | None = None,
                      near: np.ndarray | None = None) -> np.ndarray:
        """The species a spawn attempt picks from its 9×9 neighbourhood (0 = none).

        Counts come from the 81 neighbours of each attempt, or from `boxes` (9×9 counts per type for
        every tile), which is cheaper once a pass makes many attempts; `near` (bits: tiles with any
        counted neighbour) spares counting around attempts that have none.
        """
        t = self.t
        n = pidx.size
        out = np.zeros(n, np.int64)
        if n == 0:
            return out
        u = rng.random((3, n))
        has = np.zeros(n, bool)
        if present.size:
            crowd = np.arange(n)
            if near is not None:
                ys, xs = np.divmod(tile, self.w)
                crowd = np.flatnonzero(tile_bits.test(near, ys, xs))
            at = pidx[crowd]
            if boxes is not None:
                at = at - self._box_shift
                cols = [boxes[int(k)][at].astype(np.int32) for k in present]
            else:
                window = neighbours[at[:, None] + self._neighbourhood[None, :]]
                cols = [np.count_nonzero(window == int(k), axis=1).astype(np.int32) for k in present]
            # Column by column (few species, many attempts): the most numerous neighbour, a tie
            # going to the highest type, and the spreading draw weighted by count × spreading.
            n = crowd.size
            best = cols[-1].copy()
            ruling = np.full(n, present[-1], np.int64)
            for j in range(present.size - 2, -1, -1):
                more = cols[j] > best
                best[more] = cols[j][more]
                ruling[more] = present[j]
            weights = [c * np.int32(t.spread_weight[k]) for c, k in zip(cols, present, strict=True)]
            total = np.sum(weights, axis=0) if len(weights) > 1 else weights[0]
            target = u[0][crowd] * total
            spread = np.zeros(n, np.int64)
            running = np.zeros(n, np.int64)
            for w, k in zip(weights, present, strict=True):
                running += w
                spread[(spread == 0) & (running > target)] = k
            has[crowd] = best > 0
            out[crowd] = np.where(best > 0, np.where(u[1][crowd] < 0.5, ruling, spread), 0)
        lonely = np.flatnonzero(~has)
        if t.fertile_types.size and lonely.size:
            tickets = u[2][lonely] * t.fertile_cum[-1]
            if t.fertile_tickets is not None:  # one entry per ticket: a look-up instead of a search
                out[lonely] = t.fertile_tickets[tickets.astype(np.intp)]
            else:
                out[lonely] = t.fertile_types[np.searchsorted(t.fertile_cum, tickets, side="right")]
        return out

    def _refusals(self, present: np.ndarray, cap_count: np.ndarray | None) -> dict[int, np.ndarray | None]:
        """Per species a spawn draw could pick: the tiles (bits) where the zone as it stands refuses it
        (capped in its cube, or within kill distance of its kind); None: refused nowhere."""
        t, h, w = self.t, self.h, self.w
        cy, cx = -(-h // CUBE), -(-w // CUBE)
        out: dict[int, np.ndarray | None] = {}
        for k in sorted({int(k) for k in present} | {int(k) for k in t.fertile_types}):
            if not t.known[k]:
                out[k] = tile_bits.words_for(h, w, fill=True)
                continue
            bits: np.ndarray | None = None
            if t.kill_distance[k] > 0:
                stands = self.f.type == k
                if stands.any():
                    bits = tile_bits.dilate_disc(tile_bits.pack(stands), int(t.kill_distance[k]), w)
            if cap_count is not None and t.max_amount[k] > 0:
                capped = (cap_count[:, k] > t.max_amount[k]).reshape(cy, cx)
                if capped.any():  # each cube's flag over its columns, then over its rows
                    row = tile_bits.pack(np.repeat(capped, CUBE, axis=1)[:, :w])
                    cap_bits = np.ascontiguousarray(np.repeat(row, CUBE, axis=0)[:h])
                    bits = cap_bits if bits is None else bits | cap_bits
            out[k] = bits
        return out

    def _hopeless(self, snapshot: np.ndarray, present: np.ndarray,
                  refused: dict[int, np.ndarray | None]) -> tuple[np.ndarray, np.ndarray]:
        """Tiles (bits) where no species a spawn draw could choose would be accepted, and those with
        any counted neighbour in their 9×9 square.

        A draw picks the most numerous neighbour or one drawn among the neighbours, so it can only
        pick a species standing in its 9×9 square; with no neighbours, a fertile species. Taking every
        species in the square as choosable is safe: a tile is only closed when all of them are refused.
        """
        t, h, w = self.t, self.h, self.w
        nowhere = tile_bits.words_for(h, w)
        lonely_ok = nowhere.copy()
        for k in (int(k) for k in t.fertile_types):
            if refused[k] is None:
                lonely_ok = ~nowhere
                break
            lonely_ok |= ~refused[k]
        near = nowhere.copy()
        near_ok = nowhere.copy()
        for k in (int(k) for k in present):
            around = tile_bits.dilate_square(tile_bits.pack(snapshot == k), NEIGHBOUR_RADIUS, w)
            near |= around
            near_ok |= around if refused[k] is None else around & ~refused[k]
        return tile_bits.clear_tail((near & ~near_ok) | (~near & ~lonely_ok), w), near

    def _box_counts(self, neighbours: np.ndarray, present: np.ndarray) -> dict[int, np.ndarray]:
        """For each type, how many of it stand in the 9×9 square around every zone tile.

        Indexed by a tile's padded index less `_box_shift`. The sums run along the flat padded
        layer: a row's window never reaches the next row (the margin is at least the radius), and a
        column's window steps a padded row at a time, so every sum is over contiguous memory.
        """
        n = 2 * NEIGHBOUR_RADIUS + 1
        out = {}
        for k in present:
            # A Python int keeps the compare in bytes (a numpy int64 would widen every tile).
            one = (neighbours == int(k)).view(np.uint8)  # uint8 holds any 9×9 count (at most 81)
            out[int(k)] = _flat_run_sums(_flat_run_sums(one, n, 1), n, self.stride)
        return out

    @property
    def _box_shift(self) -> int:
        return NEIGHBOUR_RADIUS * (self.stride + 1)

    def _offsets_of(self, kd: int, skip_self: bool) -> np.ndarray:
        key = (kd, skip_self)
        if key not in self._kill_offsets:
            dy, dx = _offsets(kd)
            if skip_self:
                keep = (dy != 0) | (dx != 0)
                dy, dx = dy[keep], dx[keep]
            self._kill_offsets[key] = self._pad_offsets(dy, dx)
        return self._kill_offsets[key]

    def _in_reach(self, refused: dict[int, np.ndarray | None], fresh: _Fresh, pidx: np.ndarray,
                  tile: np.ndarray, ty: np.ndarray, kd: np.ndarray) -> np.ndarray:
        """The spawn's kill-distance check: within reach of a plant of the chosen kind that stood when
        the spawn began (the refusal bits), or of one planted since (`fresh`)."""
        out = np.zeros(pidx.size, bool)
        for k in _kinds(ty[kd > 0]):
            sel = np.flatnonzero((ty == k) & (kd > 0))
            bits = refused.get(int(k))
            if bits is not None:
                ys, xs = np.divmod(tile[sel], self.w)
                out[sel] = tile_bits.test(bits, ys, xs)
            out[sel] |= fresh.near(int(k), pidx[sel], self._offsets_of(int(self.t.kill_distance[k]), False))
        return out

    def _too_close(self, types: np.ndarray, pidx: np.ndarray, want: np.ndarray, kd: np.ndarray,
                   skip_self: bool) -> np.ndarray:
        """Whether a tile of type `want` lies closer than `kd` (in the padded type layer `types`)."""
        out = np.zeros(pidx.size, bool)
        for k in np.unique(kd[kd > 0]):
            sel = np.flatnonzero(kd == k)
            off = self._offsets_of(int(k), skip_self)
            out[sel] = (types[pidx[sel, None] + off[None, :]] == want[sel, None].astype(np.uint8)).any(axis=1)
        return out

    def _crowded(self, tiles: np.ndarray, ty: np.ndarray, kd: np.ndarray) -> np.ndarray:
        """Whether another plant of the tile's type stands closer than `kd` (in the zone's type layer)."""
        out = np.zeros(tiles.size, bool)
        for k in _kinds(ty[kd > 0]):
            sel = np.flatnonzero(ty == k)
            stands = tile_bits.pack(self.f.type == int(k))
            around = tile_bits.dilate_disc(stands, int(self.t.kill_distance[k]), self.w, punctured=True)
            ys, xs = np.divmod(tiles[sel], self.w)
            out[sel] = tile_bits.test(around, ys, xs)
        return out

    def _earlier_conflict(self, ok: np.ndarray, pidx: np.ndarray, ty: np.ndarray, kd: np.ndarray,
                          when: np.ndarray | None = None) -> np.ndarray:
        """Which `ok` entries have an earlier `ok` entry of the same type closer than their kill distance.

        Earlier: smaller `when` (ties and no `when`: the entry's place in the arrays).

        Entries are bucketed in square cells as wide as the distance, so each is compared only with
        the entries of its own and the eight cells around it (a disc of that radius fits in them).
        """
        out = np.zeros(ok.size, bool)
        idx = np.flatnonzero(ok & (kd > 0))
        if idx.size < 2:
            return out
        kinds = ty[idx]
        for k in _kinds(kinds):
            sel = idx[kinds == k]  # increasing: earlier entries first
            if sel.size < 2:
                continue
            r = int(self.t.kill_distance[k])
            c = max(r, 4)  # cells no smaller than 4 tiles keep the cell table small
            py, px = np.divmod(pidx[sel], self.stride)
            cols = self.stride // c + 3
            cell = (py // c + 1) * cols + px // c + 1
            n_cells = ((self.h + 2 * self.margin) // c + 3) * cols
            order = np.argsort(cell, kind="stable")  # by cell, earlier first within one
            # The three cells of a row of cells are consecutive in the order: one run per row.
            row_of_cells = cell[:, None] + np.array([-cols, 0, cols])
            if sel.size * 16 < n_cells:  # few entries: search the sorted cells, no table of all cells
                cells = cell[order]
                lo = np.searchsorted(cells, row_of_cells - 1, "left")
                count = (np.searchsorted(cells, row_of_cells + 1, "right") - lo).ravel()
            else:
                start = np.zeros(n_cells + 1, np.int64)
                np.cumsum(np.bincount(cell, minlength=n_cells), out=start[1:])
                lo = start[row_of_cells - 1]
                count = (start[row_of_cells + 2] - lo).ravel()
            owner = np.repeat(np.arange(sel.size), count.reshape(-1, 3).sum(axis=1))
            first = np.cumsum(count) - count
            other = order[np.repeat(lo.ravel() - first, count) + np.arange(owner.size)]
            if when is None:
                hit = np.flatnonzero(other < owner)  # earlier ones only (never an entry itself)
            else:
                w = when[sel]
                hit = np.flatnonzero((w[other] < w[owner]) | ((w[other] == w[owner]) & (other < owner)))
            owner, other = owner[hit], other[hit]
            d2 = (py[other] - py[owner]) ** 2 + (px[other] - px[owner]) ** 2
            out[sel[owner[d2 < r * r]]] = True
        return out

    def damage_walls(self, rng: np.random.Generator) -> None:
        """Walls (rules allowed on non-natural tiles) in their last three states lose 3-4 health."""
        v = self.v
        idx, ty = self._plants(self.t.non_natural)
        idx = idx[self.t.n_states[ty] - v["state"][idx] < 4]
        if idx.size == 0:
            return
        new = np.maximum(v["health"][idx].astype(np.int64) - rng.integers(3, 5, idx.size), 0)
        v["health"][idx] = new.astype(np.uint8)
        gone = idx[new == 0]
        for k in ("type", "time", "material", "height"):
            v[k][gone] = 0
        v["state"][gone] = 1
        v["flags"][gone] &= _NOT_PLANT

    def kill_on_distance(self, rng: np.random.Generator) -> None:
        """Two random draws per tile of each cube; a drawn plant with a same-type plant closer than
        its kill distance dies. A plant killed earlier no longer condemns a later-drawn neighbour.

        Only a tile's first draw matters, so each such plant draws the index of its first draw
        directly (geometric, one chance in the cube's tile count per draw) and undrawn ones are skipped.
        """
        t, v = self.t, self.v
        idx, _ = self._plants(t.kill_distance > 0)
        if idx.size == 0:
            return
        cube = self.cube_of(idx)
        ground = self.ground[cube]
        first = rng.geometric(1.0 / ground) - 1
        drawn = np.flatnonzero(first < KILL_DRAWS_PER_TILE * ground)
        when = cube[drawn] * (KILL_DRAWS_PER_TILE * CUBE * CUBE) + first[drawn]  # cube by cube, draw by draw
        tiles = idx[drawn]
        pidx = self._pad_index(tiles)
        current = self._padded(self.f.type)
        pending = np.ones(tiles.size, bool)
        first_look = True  # over the zone as it stands: from bit maps, one per species
        while pending.any():
            sel = np.flatnonzero(pending)
            ty = v["type"][tiles[sel]].astype(np.intp)
            kd = np.where(ty != 0, t.kill_distance[ty], 0)
            if first_look:
                close, first_look = self._crowded(tiles[sel], ty, kd), False
            else:
                close = self._too_close(current, pidx[sel], ty, kd, skip_self=True)
            pending[sel[~close]] = False
            sel, ty, kd = sel[close], ty[close], kd[close]
            if sel.size == 0:
                break
            # Kill those with no earlier condemned draw of the same type in reach; the rest wait.
            blocked = self._earlier_conflict(np.ones(sel.size, bool), pidx[sel], ty, kd, when[sel])
            kill = sel[~blocked]
            for k in (*_PLANT_KEYS, "height"):
                v[k][tiles[kill]] = 0
            v["flags"][tiles[kill]] &= _NOT_PLANT
            current[pidx[kill]] = 0
            pending[kill] = False

    def renew_fruit(self, rng: np.random.Generator) -> None:
        """Blocking plants in a fruiting state regrow fruit: 30 % chance of +5-15 % of fruitAmount."""
        t, v = self.t, self.v
        idx, ty = self._plants(t.fruiting >= 0)
        st = v["state"][idx].astype(np.intp)
        amount = t.fruit_amount[ty]
        mat = v["material"][idx].astype(np.int64)
        sel = (t.block[ty, np.minimum(st, t.max_states)] > 0) & (st >= t.fruiting[ty]) & (mat < amount)
        idx, amount, mat = idx[sel], amount[sel], mat[sel]
        if idx.size == 0:
            return
        u = rng.random((2, idx.size))
        add = np.clip(amount * (0.05 + 0.10 * u[1]), 0, 255).astype(np.int64)
        new = np.where(u[0] < RENEW_CHANCE, np.minimum(mat + add, amount), mat)
        v["material"][idx] = new.astype(np.uint8)

    # ---- a pass ---------------------------------------------------------------------------------
    def run_pass(self, rng: np.random.Generator) -> None:
        """One nature pass over every cube of the zone."""
        v = self.v
        if self._prune:  # drop the tiles the last pass emptied (left till now: the last pass needs none)
            idx = self.live
            keep = (v["type"][idx] | v["state"][idx] | v["time"][idx] | v["health"][idx] | v["material"][idx]
                    | (v["flags"][idx] & PLANT)) != 0
            self.live = idx[keep]
        snapshot = self.f.type.copy()
        self._standing = None
        self.validate_dead()
        self.grow(rng)
        planted = self.spawn(rng, snapshot)
        self._mark[planted] = True
        old = self.live[~self._mark[self.live]]  # a planted tile may still be listed as last pass's dead
        self._mark[planted] = False
        self.live = np.concatenate([old, planted])
        self.validate(non_natural_clean=True)
        if self.options.damage_walls:
            self.damage_walls(rng)
        self.kill_on_distance(rng)
        self.renew_fruit(rng)
        self._prune = True


class _Fresh:
    """Plants placed during a spawn, for the kill-distance check of later draws.

    Each species' reach is marked around its new plants only once enough draws ask about it; until
    then a draw scans its own disc in the layer of new plants. Either way costs the smaller side.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self.types: np.ndarray | None = None  # padded layer of new plants' types
        self.reach: dict[int, np.ndarray] = {}
        self.unmarked: dict[int, list[np.ndarray]] = {}

    def add(self, pidx: np.ndarray, types: np.ndarray) -> None:
        if pidx.size == 0:
            return
        if self.types is None:
            self.types = np.zeros(self.size, np.uint8)
        self.types[pidx] = types.astype(np.uint8)
        for k in _kinds(types):
            self.unmarked.setdefault(int(k), []).append(pidx[types == k])

    def near(self, k: int, pidx: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """Whether a new plant of type `k` lies within `offsets` of each of `pidx`."""
        pending = self.unmarked.get(k)
        if pending:
            waiting = np.concatenate(pending)
            if pidx.size < waiting.size:
                assert self.types is not None
                return (self.types[pidx[:, None] + offsets[None, :]] == k).any(axis=1)
            if k not in self.reach:
                self.reach[k] = np.zeros(self.size, bool)
            _mark_reach(self.reach[k], waiting, offsets)
            self.unmarked[k] = []
        if k in self.reach:
            return self.reach[k][pidx]
        return np.zeros(pidx.size, bool)


def _first_per_tile(ok: np.ndarray, tile: np.ndarray, scratch: np.ndarray) -> np.ndarray:
    """Only the earliest accepted draw of a tile plants there.

    Each entry writes its place in the arrays into `scratch` (a byte layer, restored on return) a
    byte at a time, latest entry first so the earliest of a tile writes last: an entry is its
    tile's first when every byte read back is its own. No layer-sized map of places is needed.
    """
    idx = np.flatnonzero(ok)
    if idx.size < 2:
        return ok
    at = tile[idx]
    kept = scratch[at]
    first = np.ones(idx.size, bool)
    shift = 0
    while shift == 0 or int(idx[-1]) >> shift:
        byte = ((idx >> shift) & 0xFF).astype(np.uint8)
        scratch[at[::-1]] = byte[::-1]
        first &= scratch[at] == byte
        shift += 8
    scratch[at] = kept
    out = np.zeros_like(ok)
    out[idx[first]] = True
    return out


def _kinds(types: np.ndarray) -> np.ndarray:
    """The distinct values of an array of plant types (0-255), ascending: a count, not a sort."""
    return np.flatnonzero(np.bincount(types, minlength=256)) if types.size else np.zeros(0, np.intp)


def _type_mask(ty: np.ndarray, where: np.ndarray) -> np.ndarray:
    """`where[ty]` for uint8 types: a compare per type when few types qualify (no index widening)."""
    kinds = np.flatnonzero(where)
    if kinds.size > 4:
        return np.take(where, ty)
    out = np.zeros(ty.shape, bool)
    for k in kinds:
        out |= ty == int(k)  # a Python int keeps the compare in bytes
    return out


def _flat_run_sums(a: np.ndarray, n: int, step: int) -> np.ndarray:
    """out[i] = a[i] + a[i + step] + … + a[i + (n - 1) step] (1-D; shorter by (n - 1) step), by doubling."""
    length = a.size - (n - 1) * step
    total: np.ndarray | None = None
    power, size, start = a, 1, 0  # power[i]: the sum of `size` entries from i
    while n:
        if n & 1:
            piece = power[start * step: start * step + length]
            total = piece if total is None else total + piece  # a view is fine: read only
            start += size
        n >>= 1
        if n:
            power = power[:power.size - size * step] + power[size * step:]
            size *= 2
    assert total is not None
    return total


def _mark_reach(reach: np.ndarray, pidx: np.ndarray, offsets: np.ndarray) -> None:
    """Mark every tile closer than the kill distance (`offsets`) to the plants at `pidx`."""
    for chunk in range(0, pidx.size, 65536):
        reach[(pidx[chunk:chunk + 65536, None] + offsets[None, :]).reshape(-1)] = True


def _last_per_segment(seg: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """The last value of each of `n` segments (`seg` sorted), -1 for an empty segment."""
    out = np.full(n, -1, np.int64)
    if seg.size:
        ends = np.flatnonzero(np.r_[seg[1:] != seg[:-1], True])
        out[seg[ends]] = values[ends]
    return out


def _rank_in_segments(mask: np.ndarray, seg: np.ndarray, start: np.ndarray) -> np.ndarray:
    """For each element, how many `mask` elements precede it in its segment (segments contiguous)."""
    before = np.cumsum(mask, dtype=np.int32)
    before -= mask
    return before - before[start[seg]]



def validate_field(f: GrowthField, rules: Mapping[int, PlantRule] | RuleTables,
                   options: GrowthOptions | None = None) -> None:
    """Full validation only, in place: clears every plant the rules forbid where it stands."""
    tables = rules if isinstance(rules, RuleTables) else RuleTables(dict(rules))
    Grower(f, tables, options).validate()


def run_growth(f: GrowthField, rules: Mapping[int, PlantRule] | RuleTables, passes: int, seed: int,
               options: GrowthOptions | None = None, progress: Progress | None = None,
               cancelled: Callable[[], bool] | None = None) -> GrowthField:
    """`passes` nature passes on a copy of `f`; the same inputs and seed give identical bytes.

    Raises Cancelled (leaving `f` untouched) when `cancelled()` turns true between passes.
    """
    tables = rules if isinstance(rules, RuleTables) else RuleTables(dict(rules))
    # Growth never writes altitude, slope, the spawn byte or the ground type: the copy shares them,
    # and the control layer until a death takes concrete away.
    out = GrowthField(**{k: getattr(f, k) if k in (*_READ_ONLY, "control") else getattr(f, k).copy()
                         for k in f.__dataclass_fields__})
    grower = Grower(out, tables, options, shared_control=True)
    for i in range(passes):
        if cancelled is not None and cancelled():
            raise Cancelled(f"growth cancelled after {i} of {passes} passes")
        grower.run_pass(np.random.default_rng([int(seed) & 0xFFFFFFFF, i]))
        if progress is not None:
            progress((i + 1) / passes)
    return out
