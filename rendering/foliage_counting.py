"""Frame statistics of the stored foliage: instances drawn per level of detail."""

from __future__ import annotations

import numpy as np

from model.foliage.volume import ChunkKey
from rendering.renderer import FrameContext


class LevelCounting:
    """Counts for `FoliageRenderer`: instances per level, by chunk, or by instance where a chunk
    straddles an edge."""

    @staticmethod
    def _runs(keys: list[ChunkKey]) -> list[tuple[str, int, int]]:
        """(type, first, end) of each run of one type in `keys` (draw order groups by type)."""
        runs: list[tuple[str, int, int]] = []
        for i, key in enumerate(keys):
            if not runs or runs[-1][0] != key[1]:
                runs.append((key[1], i, i + 1))
            else:
                runs[-1] = (key[1], runs[-1][1], i + 1)
        return runs

    def _count_levels(self, frame: FrameContext, near: np.ndarray, far: np.ndarray, eye) -> None:
        """Instances drawn per level: a chunk wholly inside one level's share counts whole; one
        that straddles an edge counts its instances by their own distance. Cards whose atlas a
        later frame bakes (the editor's first frames) are not drawn, so not counted: called after
        the frame's draws, which bake what they may."""
        eye = np.asarray(eye, np.float64)
        counts = np.array([self._gpu[k].count for k in self.visible], np.int64)
        for type_name, a, b in self._runs(self.visible):
            plan = self.plan(type_name)
            names: list[str | None] = list(plan.names())
            cards = plan.drawn_impostor
            if cards is not None and not all(name in self.impostors for name in cards.meshes):
                names[-1] = None
            edges, rows = plan.owner_edges(), np.arange(a, b)
            drawn, left_out = self._count_rows(frame, rows, edges, names, near, far, counts, eye)
            if type_name in self._proxies:  # counted with its proxies
                self.chunk_counted[type_name] = drawn
            else:
                frame.stats.instances -= left_out

    def _count_rows(self, frame: FrameContext, rows, edges, names, near, far, counts,
                    eye) -> tuple[int, int]:
        """Instances per level of visible chunks `rows`, with these owner edges; a level named None
        is not drawn this frame. (instances counted, instances in levels named None)."""
        drawn = left_out = 0
        lo = np.searchsorted(edges, near[rows], side="right") - 1
        hi = np.searchsorted(edges, far[rows], side="right") - 1
        whole = lo == hi
        inside = whole & (lo >= 0) & (lo < len(names))
        per_level = np.bincount(lo[inside], counts[rows][inside], minlength=len(names))
        for i in rows[~whole]:
            rec = self.volume.chunk(*self.visible[i]).records
            d = np.sqrt(((rec[:, :3].astype(np.float64) - eye) ** 2).sum(axis=1))
            which = np.searchsorted(edges, d, side="right") - 1
            per_level[:len(names)] += np.bincount(which[(which >= 0) & (which < len(names))],
                                                  minlength=len(names))[:len(names)]
        for name, n in zip(names, per_level, strict=False):
            if name is None:
                left_out += int(n)
            else:
                frame.stats.count_level(name, int(n))
                drawn += int(n)
        return drawn, left_out
