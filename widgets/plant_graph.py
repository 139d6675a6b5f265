"""A plant rule's growth state machine drawn as a graph: states, roll probabilities, type changes, death."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import (
    QGraphicsEllipseItem,
    QGraphicsPathItem,
    QGraphicsScene,
    QGraphicsSimpleTextItem,
    QGraphicsView,
)

from model.plants.markov import chain_of
from model.plants.rule import PlantRule
from model.plants.types import plant_type_name

NODE_R = 26.0
SPACING = 120.0
PER_ROW = 6
STATE_COLOR = QColor(110, 170, 90)
BLOCKING_COLOR = QColor(60, 120, 60)
FRUIT_COLOR = QColor(220, 150, 50)
DEATH_COLOR = QColor(150, 60, 60)
CHANGE_COLOR = QColor(90, 110, 170)
EDGE_COLOR = QColor(200, 200, 200)


class StateGraphView(QGraphicsView):
    """Shows one rule's states as nodes; each edge is labelled with its probability per roll."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.Antialiasing)
        self.setDragMode(QGraphicsView.ScrollHandDrag)
        self.setBackgroundBrush(QColor(35, 35, 38))
        self.setToolTip("Growth state machine: each roll picks the next state and the next plant type "
                        "independently; numbers are probabilities per roll (a roll every growRate + 1 ticks)")
        self.nodes: dict[str, QGraphicsEllipseItem] = {}
        self.edges: list[tuple[str, str, float]] = []

    def set_rule(self, rule: PlantRule | None) -> None:
        scene = self.scene()
        scene.clear()
        self.nodes, self.edges = {}, []
        if rule is None or rule.state_count == 0:
            text = scene.addSimpleText("no states" if rule is not None else "no rule selected")
            text.setBrush(QColor(200, 200, 200))
            return
        chain = chain_of(rule)
        n = chain.n
        pos = {f"S{s}": QPointF((s % PER_ROW) * SPACING, (s // PER_ROW) * SPACING * 1.3) for s in range(n)}
        right = min(n, PER_ROW) * SPACING
        rows = (n - 1) // PER_ROW + 1
        extra = ["death"] if chain.death.any() else []
        extra += [f"T{a}" for a in sorted(chain.change)]
        for i, key in enumerate(extra):
            pos[key] = QPointF(right + SPACING * 0.3, (i + 0.5) * SPACING * 1.3 * rows / max(1, len(extra)))
        for s in range(n):
            color = FRUIT_COLOR if rule.fruits and s >= rule.fruiting_state else (
                BLOCKING_COLOR if rule.blocking_height_at(s) > 0 else STATE_COLOR)
            tip = (f"state {s}: health {rule.health[s]}, blocking height {rule.blocking_height_at(s)}"
                   f"\nnext state from {list(rule.states[s])}, next type from {list(rule.actions[s])}")
            self._node(f"S{s}", pos[f"S{s}"], f"{s}\nh{rule.blocking_height_at(s)}", color, tip)
        if extra and extra[0] == "death":
            self._node("death", pos["death"], "death", DEATH_COLOR, "action 0: the plant dies")
        for a in sorted(chain.change):
            self._node(f"T{a}", pos[f"T{a}"], plant_type_name(a), CHANGE_COLOR,
                       f"becomes plant type {a} ({plant_type_name(a)})")
        for s in range(n):
            for t in range(n):
                if chain.stay[s, t] > 0:
                    self._edge(f"S{s}", f"S{t}", chain.stay[s, t], pos)
            if chain.death[s] > 0:
                self._edge(f"S{s}", "death", chain.death[s], pos)
            for a, m in chain.change.items():
                if m[s].sum() > 0:
                    self._edge(f"S{s}", f"T{a}", float(m[s].sum()), pos)
        self.setSceneRect(scene.itemsBoundingRect().adjusted(-30, -30, 30, 30))
        self.fitInView(self.sceneRect(), Qt.KeepAspectRatio)

    def _node(self, key: str, at: QPointF, label: str, color: QColor, tip: str) -> None:
        item = self.scene().addEllipse(QRectF(at.x() - NODE_R, at.y() - NODE_R, 2 * NODE_R, 2 * NODE_R),
                                       QPen(color.lighter(150), 2), QBrush(color))
        item.setToolTip(tip)
        item.setZValue(2)
        text = QGraphicsSimpleTextItem(label, item)
        text.setBrush(QColor(250, 250, 250))
        text.setFont(QFont("Sans", 8))
        r = text.boundingRect()
        text.setPos(at.x() - r.width() / 2, at.y() - r.height() / 2)
        self.nodes[key] = item

    def _edge(self, a: str, b: str, p: float, pos: dict[str, QPointF]) -> None:
        self.edges.append((a, b, float(p)))
        pen = QPen(EDGE_COLOR, 1.0 + 2.0 * p)
        path = QPainterPath()
        start, end = pos[a], pos[b]
        if a == b:  # a loop above the node
            path.moveTo(start + QPointF(-10, -NODE_R + 2))
            path.cubicTo(start + QPointF(-35, -NODE_R - 45), start + QPointF(35, -NODE_R - 45),
                         start + QPointF(10, -NODE_R + 2))
            label_at = start + QPointF(-12, -NODE_R - 48)
            tip, direction = start + QPointF(10, -NODE_R + 2), QPointF(-0.3, 1.0)
        else:
            d = end - start
            length = math.hypot(d.x(), d.y()) or 1.0
            u = QPointF(d.x() / length, d.y() / length)
            normal = QPointF(-u.y(), u.x())
            bend = 0.18 * length  # forward and backward edges curve to opposite sides
            p0, p1 = start + u * NODE_R, end - u * NODE_R
            control = (p0 + p1) / 2 + normal * bend
            path.moveTo(p0)
            path.quadTo(control, p1)
            label_at = (p0 + p1) / 2 + normal * (bend * 0.55)
            tip, direction = p1, p1 - control
        item = QGraphicsPathItem(path)
        item.setPen(pen)
        item.setZValue(1)
        self.scene().addItem(item)
        self._arrow(tip, direction, pen)
        label = self.scene().addSimpleText(f"{p:.2f}".rstrip("0").rstrip(".") if p < 1 else "1")
        label.setBrush(QColor(230, 230, 160))
        label.setFont(QFont("Sans", 7))
        label.setPos(label_at)
        label.setZValue(3)

    def _arrow(self, tip: QPointF, direction: QPointF, pen: QPen) -> None:
        length = math.hypot(direction.x(), direction.y()) or 1.0
        u = QPointF(direction.x() / length, direction.y() / length)
        normal = QPointF(-u.y(), u.x())
        head = QPolygonF([tip, tip - u * 9 + normal * 4, tip - u * 9 - normal * 4])
        self.scene().addPolygon(head, QPen(pen.color(), 1), QBrush(pen.color())).setZValue(1)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt override)
        super().resizeEvent(event)
        if self.scene().items():
            self.fitInView(self.sceneRect(), Qt.KeepAspectRatio)
