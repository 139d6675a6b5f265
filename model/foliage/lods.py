"""Levels of detail of a foliage type: which mesh each variant draws from which distance.

A level starts at a distance and dissolves in over a band around it while the finer level
dissolves out over the same band (complementary dither in the shader, so no pixel is lost or
doubled). Built-in meshes get generated levels (`meshes.simplified`), named `builtin:NAME#lodK`;
a type's `lods` list may name its own meshes (file meshes) and distances. Beyond the last mesh
level, over `cull`, the type dissolves into its impostor (or into nothing with `impostor = false`).
Further still, where a chunk is small on screen, the impostors dissolve into the chunk's far proxy
(`proxy_level`: a few of its instances standing for all of them), to the impostors' own end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from model.foliage.foliage_type import FoliageType

GENERATED_AT = (0.3, 0.6)  # generated levels start at these shares of the mesh's end (cull start)
BAND = 0.12  # a level's dissolve band, as a share of its start distance


@dataclass(frozen=True)
class Level:
    """One level: per variant, the mesh key; its dissolve-in band and dissolve-out band."""

    meshes: tuple[str, ...]
    fade_in: tuple[float, float]
    fade_out: tuple[float, float]

    def band(self) -> tuple[float, float, float, float]:
        return (*self.fade_in, *self.fade_out)


def _band(d: float) -> tuple[float, float]:
    w = max(1.0, d * BAND) / 2.0
    return (max(d - w, 0.0), d + w)


def level_starts(ftype: FoliageType) -> list[tuple[float, tuple[str, ...]]]:
    """(start distance, mesh key per variant) of each coarser level, in order."""
    out = []
    if ftype.lods is None:
        end = float(ftype.cull[0])
        for k, share in enumerate(GENERATED_AT, start=1):
            keys = tuple(f"{m}#lod{k}" if m.startswith("builtin:") else m for m in ftype.meshes)
            out.append((end * share, keys))
        return out
    for lod in ftype.lods:
        if lod.distance >= ftype.cull[0]:
            break  # a level that would start past the mesh end is never seen
        keys = tuple(lod.mesh if lod.mesh is not None and len(ftype.meshes) == 1 else
                     (f"{m}#lod{len(out) + 1}" if m.startswith("builtin:") else m) for m in ftype.meshes)
        out.append((lod.distance, keys))
    return out


def mesh_levels(ftype: FoliageType) -> list[Level]:
    """Every mesh level of a type, finest first; the last dissolves out over `cull`."""
    starts = [(0.0, ftype.meshes)] + level_starts(ftype)
    fade_start, fade_end = float(ftype.cull[0]), float(max(ftype.cull[1], ftype.cull[0] + 1e-3))
    levels = []
    for i, (d, keys) in enumerate(starts):
        fade_in = (-2.0, -1.0) if i == 0 else _band(d)
        fade_out = _band(starts[i + 1][0]) if i + 1 < len(starts) else (fade_start, fade_end)
        levels.append(Level(keys, fade_in, fade_out))
    return levels


def impostor_level(ftype: FoliageType) -> Level | None:
    """The billboard level beyond the meshes, or None (a type with `impostor = false`)."""
    if not ftype.impostor:
        return None
    fade_start, fade_end = float(ftype.cull[0]), float(max(ftype.cull[1], ftype.cull[0] + 1e-3))
    if ftype.impostor_cull is None:
        out = (1e30, 2e30)  # to the horizon
    else:
        end = max(float(ftype.impostor_cull), fade_end + 1e-3)
        out = (end - max(1.0, end * 0.05), end)
    return Level(ftype.meshes, (fade_start, fade_end), out)


def proxy_level(ftype: FoliageType, start: float) -> Level | None:
    """The chunk-proxy level dissolving in from `start` (no nearer than where the impostors are
    whole), to the impostors' end; None where the type has no impostors or they end first."""
    level = impostor_level(ftype)
    if level is None:
        return None
    fade_in = _band(max(float(start), level.fade_in[1] * (1.0 + BAND)))
    if fade_in[1] >= level.fade_out[0]:
        return None
    return Level(ftype.meshes, fade_in, level.fade_out)


def far_end(ftype: FoliageType) -> float:
    """Beyond this distance nothing of the type is drawn (inf: to the horizon)."""
    level = impostor_level(ftype)
    if level is None:
        return float(max(ftype.cull[1], ftype.cull[0] + 1e-3))
    return math.inf if ftype.impostor_cull is None else level.fade_out[1]
