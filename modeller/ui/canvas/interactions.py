"""Mouse modes of the canvas, one class each (Orange's ``document/interactions.py``).

The scene forwards mouse events to its current :class:`Interaction`; a mode
that consumes an event returns True. :class:`SelectMoveInteraction` is the
default (select, rubber band, move cards); pressing on a card's handle (or
Alt+press on a card) switches to :class:`ConnectInteraction`.
:class:`PanInteraction` belongs to the view (middle button or Space+drag).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QPoint, QPointF, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPen
from PySide6.QtWidgets import QGraphicsLineItem, QGraphicsSceneMouseEvent, QGraphicsView

from modeller.ui.commands.layout import MoveCommand

if TYPE_CHECKING:
    from modeller.ui.canvas.items.entity_item import EntityItem
    from modeller.ui.canvas.scene import CanvasScene


class Interaction:
    """Base mode: consumes nothing."""

    def __init__(self, scene: CanvasScene) -> None:
        self.scene = scene

    def mouse_press(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False

    def mouse_move(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False

    def mouse_release(self, event: QGraphicsSceneMouseEvent) -> bool:
        return False

    def after_release(self, event: QGraphicsSceneMouseEvent) -> None:
        """Called after Qt handled the release (moves are final by then)."""

    def key_press(self, event: QKeyEvent) -> bool:
        return False

    def cancel(self) -> None:
        """Leave the mode without changing anything."""


class SelectMoveInteraction(Interaction):
    """Select, rubber-band and move cards; a finished drag becomes one ``Move`` command."""

    def __init__(self, scene: CanvasScene) -> None:
        super().__init__(scene)
        #: the cards a drag started by the last press may move
        self.dragged: set[str] = set()

    def mouse_press(self, event: QGraphicsSceneMouseEvent) -> bool:
        if event.button() != Qt.MouseButton.LeftButton:
            return False
        item = self.scene.entity_item_at(event.scenePos())
        if item is None:
            return False
        local = item.mapFromScene(event.scenePos())
        wants_connect = item.handle_rect().contains(local)
        if wants_connect or event.modifiers() & Qt.KeyboardModifier.AltModifier:
            connect = ConnectInteraction(self.scene, item)
            self.scene.set_interaction(connect)
            return connect.mouse_press(event)
        self.scene.user_moving = True
        # Qt drags the pressed card and, if it is selected, the other selected ones: only those can move (a
        # look at every card after each click cost ~100 ms at 10,000 cards, issue 16)
        self.dragged = {key for i in self.scene.selectedItems() if (key := getattr(i, "entity_id", None))}
        self.dragged.add(item.entity_id)
        return False

    def after_release(self, event: QGraphicsSceneMouseEvent) -> None:
        if not self.scene.user_moving:
            return
        self.scene.user_moving = False
        moved = self.scene.moved_positions(self.dragged)
        if moved:
            n = len(moved)
            text = "Move " + (self.scene.document.entity(next(iter(moved))).name if n == 1 else f"{n} entities")  # type: ignore[union-attr]
            self.scene.document.push(MoveCommand(self.scene.document, moved, text))

    def cancel(self) -> None:
        self.scene.user_moving = False


class ConnectInteraction(Interaction):
    """Drag from one card to another to create a one-to-many relationship (source = the One).

    Releasing over empty canvas (or Escape) cancels; releasing on the source
    card's body makes a self-relationship (a tree).
    """

    def __init__(self, scene: CanvasScene, source: EntityItem) -> None:
        super().__init__(scene)
        self.source = source
        self.line: QGraphicsLineItem | None = None
        self.moved = False

    def mouse_press(self, event: QGraphicsSceneMouseEvent) -> bool:
        start = self.source.mapToScene(self.source.handle_center())
        self.line = QGraphicsLineItem(QLineF(start, event.scenePos()))
        pen = QPen(self.scene.style.colors.handle, 2, Qt.PenStyle.DashLine)
        self.line.setPen(pen)
        self.line.setZValue(10)
        self.scene.addItem(self.line)
        return True

    def mouse_move(self, event: QGraphicsSceneMouseEvent) -> bool:
        if self.line is None:
            return True
        self.moved = True
        line = self.line.line()
        line.setP2(event.scenePos())
        self.line.setLine(line)
        return True

    def mouse_release(self, event: QGraphicsSceneMouseEvent) -> bool:
        target = self.scene.entity_item_at(event.scenePos())
        on_handle = target is self.source and self.source.handle_rect().contains(
            self.source.mapFromScene(event.scenePos())
        )
        self._remove_line()
        self.scene.interaction = SelectMoveInteraction(self.scene)
        if target is None or on_handle or not self.moved:
            return True
        self.scene.connect_entities(self.source.entity_id, target.entity_id)
        return True

    def key_press(self, event: QKeyEvent) -> bool:
        if event.key() == Qt.Key.Key_Escape:
            self.scene.set_interaction(None)
            return True
        return False

    def cancel(self) -> None:
        self._remove_line()

    def _remove_line(self) -> None:
        if self.line is not None:
            self.scene.removeItem(self.line)
            self.line = None


class PanInteraction:
    """Scroll the view by dragging (middle button, or left button while Space is held)."""

    def __init__(self, view: QGraphicsView, start: QPoint) -> None:
        self.view = view
        self.last = start
        view.viewport().setCursor(Qt.CursorShape.ClosedHandCursor)

    def move(self, event: QMouseEvent) -> None:
        delta = event.position().toPoint() - self.last
        self.last = event.position().toPoint()
        h, v = self.view.horizontalScrollBar(), self.view.verticalScrollBar()
        h.setValue(h.value() - delta.x())
        v.setValue(v.value() - delta.y())

    def finish(self) -> None:
        self.view.viewport().unsetCursor()


def scene_point(view: QGraphicsView, event: QMouseEvent) -> QPointF:
    return view.mapToScene(event.position().toPoint())
