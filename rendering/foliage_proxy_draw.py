"""Far stored foliage drawn from its proxy trees (`rendering.foliage_proxy_tree`) and counted."""

from __future__ import annotations

import numpy as np
from OpenGL import GL

from model.foliage.lods import BAND, Level
from model.foliage.volume import ChunkKey
from rendering.culling import box_distance, box_far_distance, boxes_in_frustum, frustum_planes
from rendering.foliage_chunks import SELECTED_LOCATION
from rendering.foliage_plan import TypePlan
from rendering.foliage_proxies import kept_share, presence
from rendering.foliage_proxy_tree import ProxyTree
from rendering.impostors import set_card_uniforms, unbind_cards
from rendering.renderer import FrameContext
from rendering.terrain_renderer import foliage_fog, set_lit_uniforms


class ProxyDrawing:
    """The proxy half of `FoliageRenderer`: keeps the trees in step with the volume, walks and draws them."""

    def _sync_proxies(self) -> None:
        """The proxy tables of the types with impostors follow the volume: a changed chunk's row
        is refreshed and its proxy rebuilt on its next far draw; nothing else is touched."""
        v = self.volume
        if self._proxy_all_dirty:
            for ps in self._proxies.values():
                ps.release()
            self._proxies = {}
            # in the volume's own order, not a set's: a first build reads every chunk, and in that
            # order its reads follow memory (four times faster on 216,000 chunks)
            dirty = v.keys()
            self._proxy_all_dirty = False
        else:
            dirty = self._proxy_dirty
            for name in self._proxy_stale_types:  # an edited type: its proxies afresh
                ps = self._proxies.pop(name, None)
                if ps is not None:
                    ps.release()
                    dirty = dirty | {k for k in v.keys() if k[1] == name}
        self._proxy_dirty = set()
        self._proxy_stale_types = set()
        if not dirty:
            return
        by_type: dict[str, list[ChunkKey]] = {}
        for key in dirty:
            by_type.setdefault(key[1], []).append(key)
        for type_name, keys in by_type.items():
            ps = self._proxies.get(type_name)
            if ps is None:
                plan = self.plan(type_name)
                if plan.impostor is None:
                    continue
                ps = self._proxies[type_name] = ProxyTree(type_name, plan.card_area, v.cell_size,
                                                          self.proxy_budget_mb)
            ps.apply(v, keys)
            if not len(ps):
                ps.release()
                del self._proxies[type_name]

    def proxy_levels(self, plan: TypePlan, count: int) -> list[Level]:
        """The proxy levels of a type whose tree has `count` levels: level 0 (chunks) dissolves in
        where a cell spans `proxy_pixels`, each next level twice as far (where its node spans as
        many), the last to the impostors' end."""
        base = plan.proxy
        if base is None:
            return []
        centre = sum(base.fade_in) / 2
        levels, fade_in = [], base.fade_in
        for level in range(count):
            d = centre * 2.0 ** (level + 1)
            w = max(1.0, d * BAND) / 2.0
            nxt = (d - w, d + w)
            if level == count - 1 or nxt[1] >= base.fade_out[0]:
                levels.append(Level(base.meshes, fade_in, base.fade_out))
                break
            levels.append(Level(base.meshes, fade_in, nxt))
            fade_in = nxt
        return levels

    @staticmethod
    def proxy_level_name(level: int) -> str:
        return "proxy" if level == 0 else f"proxy {level}"

    def _draw_proxies(self, frame: FrameContext, eye: np.ndarray) -> None:
        """Each proxied type's far foliage from its proxy tree: per level, the nodes whose distance
        meets the level's band, one multi-draw per variant; far chunks with a selection get their
        own proxy again, amber, on top. Counts every chunk of those types as drawn or culled."""
        self.proxy_visible = []
        self.proxy_nodes = []
        self.proxy_selected = []
        if not self._proxies:
            return
        planes = frustum_planes(frame.view_projection)
        full_cells: dict[str, list] = {}
        for key in self.visible:
            if key[1] in self._proxies:
                full_cells.setdefault(key[1], []).append(key[0])
        jobs = []
        share = int(self.proxy_budget_mb * 1e6 / len(self._proxies))
        for type_name, ps in self._proxies.items():
            plan = self.plan(type_name)
            ps.budget_bytes = share
            ps.begin_frame()
            levels = self.proxy_levels(plan, min(len(ps.levels), self.proxy_max_level + 1))
            codes: list[set] = [set() for _ in ps.levels]
            placed = []
            before = ps.builds
            full = np.unique(ps.rows_of(full_cells.get(type_name, [])))
            chunks_drawn, instances = len(full), int(ps.count[full].sum())
            # its cards need their atlases (baked here, as many as this frame may): a type whose
            # atlas waits for a later frame draws no proxies in this one, nor counts them
            meshes = dict.fromkeys(m for lv in levels for m in (*plan.proxy.meshes, *lv.meshes))
            ready = not levels or self._atlases_ready(meshes)
            if levels:
                walk = self._walk(ps, levels, planes, eye)
                rows0, near0, far0 = walk["chunks"]
                far_chunks = rows0[(far0 >= levels[0].fade_in[0]) & (near0 <= levels[-1].fade_out[1])]
                extra = np.setdiff1d(far_chunks, full)
                if ready:
                    chunks_drawn += len(extra) + walk["settled_chunks"]
                    instances += int(ps.count[extra].sum()) + walk["settled_instances"]
                    self._count_proxy(frame, ps, levels, walk, eye)
                selected = self._far_selected(ps, levels, planes, eye)
                for lv, level in enumerate(levels):
                    rows, n_near = walk["drawn"][lv]
                    if lv == 0:
                        self.proxy_visible += ps.keys(rows)
                    if not len(rows) and not (lv == 0 and len(selected)):
                        continue
                    rows = rows[np.argsort(n_near, kind="stable")]  # near first: the depth test then
                    n_near = np.sort(n_near, kind="stable")           # skips the cards behind
                    both = np.r_[rows, selected].astype(np.int64) if lv == 0 else rows
                    reps = ps.place(self.volume, lv, both)
                    t = ps.levels[lv]
                    codes[lv] = {int(t.codes[r]) for r in both}
                    placed.append((lv, level, rows, n_near, reps[:len(rows)], False))
                    if lv == 0 and len(selected):
                        whole = Level(level.meshes, levels[0].fade_in, levels[-1].fade_out)
                        sel_near = box_distance(ps.lo[selected], ps.hi[selected], eye)
                        placed.append((0, whole, selected, sel_near, reps[len(rows):], True))
                        self.proxy_selected += ps.keys(selected)
            if not ready:  # only what its chunks drew
                instances = self.chunk_counted.get(type_name, 0)
            ps.end_frame(codes)
            if ps.builds > before:
                frame.stats.count_upload("foliage proxies", ps.builds - before)
            for lv, level, rows, n_near, reps, amber in (placed if ready else []):
                start = level.fade_in[0] if not amber else levels[0].fade_in[0]
                n = np.array([len(r) for r in reps], np.int64)
                counts = np.minimum(n, np.floor(n * kept_share(n_near, start)).astype(np.int64) + 1)
                if not amber:
                    self._count_cards(frame, lv, levels, reps, counts, eye)
                jobs.append((plan, ps.gpu[lv].vertex_array(), level, start,
                             ps.firsts(lv, rows).astype(np.int32), counts.astype(np.int32), amber))
            while len(self.proxy_nodes) < len(ps.levels):
                self.proxy_nodes.append(0)
            for lv, c in enumerate(codes):
                self.proxy_nodes[lv] += len(c)
            frame.stats.chunks_drawn += chunks_drawn
            frame.stats.chunks_culled += len(ps) - chunks_drawn
            frame.stats.instances += instances
        if jobs:
            self._draw_proxy_jobs(frame, jobs)

    @staticmethod
    def _walk(ps: ProxyTree, levels: list[Level], planes, eye) -> dict:
        """The tree from its root down: a node outside the view is dropped with what it holds, one
        wholly past the levels below it stops the descent (its chunks count as drawn, whole), so a
        frame tests the nodes near the cut, not every chunk. Returns per drawn level (rows, near);
        the chunks reached (rows, near, far); what the stopped nodes hold (chunks, instances) and
        the stopped nodes themselves per level (for the statistics)."""
        count = len(levels)
        top = len(ps.levels) - 1
        cand = np.arange(len(ps.levels[top]))
        drawn: list = [(np.zeros(0, np.int64), np.zeros(0))] * count
        stopped: list = []
        settled_chunks = settled_instances = 0
        chunks = (np.zeros(0, np.int64), np.zeros(0), np.zeros(0))
        for lv in range(top, -1, -1):
            t = ps.levels[lv]
            rows = cand[boxes_in_frustum(t.lo[cand], t.hi[cand], planes)]
            near = box_distance(t.lo[rows], t.hi[rows], eye)
            far = box_far_distance(t.lo[rows], t.hi[rows], eye)
            if lv < count:
                mine = (far >= levels[lv].fade_in[0]) & (near <= levels[lv].fade_out[1])
                drawn[lv] = (rows[mine], near[mine])
            if lv == 0:
                chunks = (rows, near, far)
                break
            finer = near <= levels[lv - 1].fade_out[1] if lv - 1 < count else np.ones(len(rows), bool)
            done = rows[~finer & (near <= levels[-1].fade_out[1])]  # beyond: nothing is drawn
            stopped.append((lv, done))
            settled_chunks += int((t.chunk_end[done] - t.chunk_first[done]).sum())
            settled_instances += int(t.count[done].sum())
            go = rows[finer & (near <= levels[-1].fade_out[1])]  # past the cards' end: nothing below
            first, end = t.child_first[go], t.child_end[go]
            cand = np.repeat(first - np.r_[0, np.cumsum(end - first)[:-1]], end - first) + np.arange(
                int((end - first).sum())) if len(go) else np.zeros(0, np.int64)
        return {"drawn": drawn, "chunks": chunks, "stopped": stopped,
                "settled_chunks": settled_chunks, "settled_instances": settled_instances}

    def _far_selected(self, ps: ProxyTree, levels: list[Level], planes, eye) -> np.ndarray:
        """Level-0 rows of far chunks of this tree with a selection (drawn amber from their proxy)."""
        cells = [key[0] for key in self._selection if key[1] == ps.type_name and key not in self._gpu]
        rows = np.unique(ps.rows_of(cells))
        rows = rows[rows >= 0]
        if not len(rows):
            return rows
        far = box_far_distance(ps.lo[rows], ps.hi[rows], eye)
        return rows[boxes_in_frustum(ps.lo[rows], ps.hi[rows], planes) & (far >= levels[0].fade_in[0])]

    def _draw_proxy_jobs(self, frame: FrameContext, jobs) -> None:
        # bake before the program is in use (baking switches programs); a type whose atlas waits
        # for a later frame is left out of this one
        jobs = [job for job in jobs if self._atlases_ready((*job[0].proxy.meshes, *job[2].meshes))]
        if not jobs:
            return
        p = self.impostor_program
        p.use()
        set_lit_uniforms(p, frame, foliage_fog(frame))
        set_card_uniforms(p, frame, self.point_pixels)
        p.set_uniform("u_points", True)
        p.set_uniform("u_proxy", True)
        for plan, vao, level, start, firsts, counts, amber in jobs:
            GL.glVertexAttrib1f(SELECTED_LOCATION, 1.0 if amber else 0.0)
            self._set_type_uniforms(p.id, plan)
            p.set_uniform("u_varied", bool(plan.hue != (0.0, 0.0) or plan.value != (0.0, 0.0)))
            p.set_uniform("u_band", np.array(level.band(), np.float32))
            p.set_uniform("u_proxy_start", float(start))
            GL.glBindVertexArray(vao)
            for v, name in enumerate(level.meshes):
                self._bind_card(p, name, v)
                GL.glMultiDrawArrays(GL.GL_POINTS, firsts, counts, len(firsts))
        GL.glVertexAttrib1f(SELECTED_LOCATION, 0.0)
        p.set_uniform("u_proxy", False)
        unbind_cards()
        GL.glBindVertexArray(0)

    def _count_proxy(self, frame: FrameContext, ps: ProxyTree, levels: list[Level], walk: dict,
                     eye) -> None:
        """The instances the proxies stand for: those past the middle of level 0's dissolve band
        (by their own distance where a chunk straddles it), counted for the level that holds
        their chunk's centre, or their stopped node's (the middle of that level's dissolve-in band
        and the next one's; no finer than the node's own level)."""
        mids = np.array([sum(lv.fade_in) / 2 for lv in levels])
        per = np.zeros(len(mids), np.int64)

        def owners(lo, hi, at_least: int) -> np.ndarray:
            centre = np.sqrt((((lo + hi) / 2 - eye) ** 2).sum(axis=1))
            return np.clip(np.searchsorted(mids, centre, side="right") - 1, at_least, len(mids) - 1)

        rows, near, far = walk["chunks"]
        keep = far >= mids[0]
        rows, near = rows[keep], near[keep]
        stands = ps.count[rows].astype(np.int64)
        for j in np.flatnonzero(near < mids[0]):
            rec = self.volume.chunk(*ps.key(int(rows[j]))).records
            d = np.sqrt(((rec[:, :3].astype(np.float64) - eye) ** 2).sum(axis=1))
            stands[j] = int((d >= mids[0]).sum())
        per += np.bincount(owners(ps.lo[rows], ps.hi[rows], 0), stands, len(mids)).astype(np.int64)
        for lv, done in walk["stopped"]:
            if len(done):
                t = ps.levels[lv]
                per += np.bincount(owners(t.lo[done], t.hi[done], min(lv, len(mids) - 1)),
                                   t.count[done], len(mids)).astype(np.int64)
        for lv, n in enumerate(per):
            frame.stats.count_level(self.proxy_level_name(lv), int(n))

    def _count_cards(self, frame: FrameContext, lv: int, levels: list[Level], reps, counts, eye) -> None:
        """Cards a level's nodes drew, where that level holds most of them (past the middle of its
        dissolve-in band, before the middle of its dissolve-out band)."""
        parts = [r[:c] for r, c in zip(reps, counts, strict=True) if c]
        if not parts:
            return
        rows = np.concatenate(parts)
        level = levels[lv]
        d = np.sqrt(((rows[:, :3].astype(np.float64) - eye) ** 2).sum(axis=1))
        shows = (presence(rows, kept_share(d, level.fade_in[0])) > 0) & (d >= sum(level.fade_in) / 2) \
            & (d < sum(level.fade_out) / 2)
        frame.stats.count_proxy_cards(self.proxy_level_name(lv), int(shows.sum()))
