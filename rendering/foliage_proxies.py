"""Far proxies of foliage chunks: a fixed-size, hash-ordered subset of each chunk's instances.

Stochastic simplification of aggregate detail (Cook, Halstead et al., Pixar 2007): far away a
chunk is drawn from at most `PROXY_CAP` of its own instances, the ones with the lowest proxy hash
(so the subset is the same on every machine and keeps each instance's variant and colour shift),
each enlarged so the chunk covers the area all of them covered. The shader keeps fewer of them
as the chunk shrinks on screen (about one per `PROXY_PIXELS`² / `PROXY_CAP` pixels) and grows the
rest to match, so far foliage costs what its pixels cost, not what its instance count costs.
A proxy is built once per chunk version; an edit rebuilds only the chunks it touched.

Why a subset rather than a baked card per chunk (HLOD): real instances keep their variants, colour
shifts, lighting and the impostor atlas as they are, and rebuilding one after a stroke is a hash
and a partition (microseconds), not an offscreen render. Written here: no library simplifies
instanced foliage in our chunk buffers.

`proxy_of` and `proxies_of_many` (one chunk, or many in one pass) and `merged` (a group's proxy
from its children's) are numpy only (tests need no GL); `rendering.foliage_proxy_tree` holds a
type's chunk and group proxies, their memory budget and their GPU buffers.
"""

from __future__ import annotations

import numpy as np

from model.foliage.variants import draw24, instance_hashes

PROXY_CHANNEL = 0x103  # the proxy order's hash channel (variants and colours use 0x100..0x102)
PROXY_CAP = 64  # representatives kept per chunk at most
PROXY_PIXELS = 16.0  # a chunk's proxy takes over when its cell spans this many pixels
SATURATION = 4.0  # past this many card areas per cell area, more trees add no cover from afar
FLOATS = 10  # per representative: the 7 record floats, then rank, reps, stands for
STRIDE = FLOATS * 4


def proxy_of(records: np.ndarray, type_name: str, card_area: float, cell_area: float,
             cap: int = PROXY_CAP) -> np.ndarray:
    """float32 (R, FLOATS): the chunk's first R = min(n, cap) instances in proxy order, each with
    its rank, R, and how many instances the R together stand for (at least R: never shrunk)."""
    rec = np.asarray(records, np.float32).reshape(-1, 7)
    n = len(rec)
    if n == 0:
        return np.zeros((0, FLOATS), np.float32)
    u = draw24(instance_hashes(rec, type_name), PROXY_CHANNEL).astype(np.int64)
    key = (u << np.int64(32)) | np.arange(n, dtype=np.int64)  # a total order: ties by index
    reps = min(n, cap)
    idx = np.argpartition(key, reps - 1)[:reps] if reps < n else np.arange(n)
    idx = idx[np.argsort(key[idx])]
    mean_area = float(card_area) * float(np.mean(rec[:, 6].astype(np.float64) ** 2))
    saturated = SATURATION * float(cell_area) / max(mean_area, 1e-6)
    out = np.empty((reps, FLOATS), np.float32)
    out[:, :7] = rec[idx]
    out[:, 7] = np.arange(reps)
    out[:, 8] = reps
    out[:, 9] = max(float(reps), min(float(n), saturated))
    return out


def kept_share(distance, start: float) -> np.ndarray:
    """Share of a proxy's representatives kept at `distance` (all of them up to `start`), as the
    shader computes it: the chunk's screen area shrinks with the square of the distance."""
    d = np.maximum(np.asarray(distance, np.float64), 1e-3)
    return np.minimum(1.0, (start / d) ** 2)


def presence(proxy: np.ndarray, share) -> np.ndarray:
    """How much of each representative (rows of `proxy_of`) shows when `share` of them is kept
    (`kept_share`, per row): 1 whole, 0 gone, between for the one dissolving. A representative's
    area is its instance's times presence × stands for / kept, so the kept ones together cover
    what the chunk's instances covered, and nothing pops as the share changes."""
    kept = proxy[:, 8] * np.asarray(share, np.float64)
    return np.clip(kept - proxy[:, 7], 0.0, 1.0)


def _lowest_per_group(group: np.ndarray, key: np.ndarray, tie: np.ndarray, cap: int):
    """Order of the rows sorted by (group, key, tie), and which of them are among the `cap`
    lowest of their group; also each kept row's rank in its group."""
    order = np.lexsort((tie, key, group))
    g = group[order]
    first = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if len(g) else np.zeros(0, np.int64)
    starts = np.repeat(first, np.diff(np.r_[first, len(g)]))
    rank = np.arange(len(g)) - starts
    keep = rank < cap
    return order[keep], g[keep], rank[keep]


def proxies_of_many(records: np.ndarray, group: np.ndarray, groups: int, type_name: str,
                    card_area: float, cell_area: float, cap: int = PROXY_CAP) -> np.ndarray:
    """The proxies of `groups` chunks at once: `records` (N, 7) of all of them, `group` (N,) the
    chunk of each (0..groups-1, each chunk's records in their own order). Returns float32
    (R, FLOATS + 1): each chunk's `proxy_of` rows, chunk by chunk, then the chunk's index."""
    rec = np.asarray(records, np.float32).reshape(-1, 7)
    group = np.asarray(group, np.int64)
    if not len(rec):
        return np.zeros((0, FLOATS + 1), np.float32)
    u = draw24(instance_hashes(rec, type_name), PROXY_CHANNEL).astype(np.int64)
    rows, g, rank = _lowest_per_group(group, u, np.arange(len(rec)), cap)  # ties by index, as proxy_of
    n = np.bincount(group, minlength=groups).astype(np.float64)
    reps = np.minimum(n, cap)
    squares = np.bincount(group, rec[:, 6].astype(np.float64) ** 2, groups)
    mean_area = float(card_area) * squares / np.maximum(n, 1)
    saturated = SATURATION * float(cell_area) / np.maximum(mean_area, 1e-6)
    stands = np.maximum(reps, np.minimum(n, saturated))
    out = np.empty((len(rows), FLOATS + 1), np.float32)
    out[:, :7] = rec[rows]
    out[:, 7] = rank
    out[:, 8] = reps[g]
    out[:, 9] = stands[g]
    out[:, 10] = g
    return out


def merged_many(children: list[np.ndarray], parent: np.ndarray, parents: int, type_name: str,
                cap: int = PROXY_CAP) -> list[np.ndarray]:
    """Groups' proxies from their children's (rows of `proxy_of`; `parent[i]` is child i's group,
    children in a fixed order): per group the `cap` lowest-hashed of its children's
    representatives — which are the group's own lowest-hashed instances, since each child kept its
    lowest — standing together for what the children stood for. One pass for all the groups."""
    sizes = np.array([len(c) for c in children], np.int64)
    parent = np.asarray(parent, np.int64)
    if not sizes.sum():
        return [np.zeros((0, FLOATS), np.float32) for _ in range(parents)]
    rows = np.concatenate([c for c in children if len(c)])
    group = np.repeat(parent, sizes)
    child = np.repeat(np.arange(len(children)), sizes)
    u = draw24(instance_hashes(rows[:, :7], type_name), PROXY_CHANNEL).astype(np.int64)
    tie = (child << 8) | rows[:, 7].astype(np.int64)  # ties: child order, then its own rank
    order, g, rank = _lowest_per_group(group, u, tie, cap)
    stands_child = np.array([float(c[0, 9]) if len(c) else 0.0 for c in children])
    stands = np.bincount(parent, stands_child, parents)
    reps = np.bincount(g, minlength=parents)
    out = np.empty((len(order), FLOATS), np.float32)
    out[:, :7] = rows[order, :7]
    out[:, 7] = rank
    out[:, 8] = reps[g]
    out[:, 9] = np.maximum(reps[g], stands[g])
    ends = np.cumsum(reps)
    return [out[e - n:e].copy() for e, n in zip(ends, reps, strict=True)]  # copies: each freed alone


def merged(children: list[np.ndarray], type_name: str, cap: int = PROXY_CAP) -> np.ndarray:
    """One group's proxy from its children's (see `merged_many`)."""
    return merged_many(children, np.zeros(len(children), np.int64), 1, type_name, cap)[0]
