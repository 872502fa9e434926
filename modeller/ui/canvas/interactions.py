"""Mouse modes of the canvas, one class each (Orange's ``document/interactions.py``).

The scene forwards mouse events to its current :class:`Interaction`; a mode
that consumes an event returns True (and accepts it, or leaves it ignored so
the view starts a rubber band). :class:`SelectMoveInteraction` is the
default (select, rubber band, move cards); pressing on a card's handle (or
Alt+press on a card) switches to :class:`ConnectInteraction`.
:class:`PanInteraction` belongs to the view (middle button or Space+drag).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QLineF, QPoint, QPointF, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsLineItem, QGraphicsScene, QGraphicsSceneMouseEvent, QGraphicsView

from modeller.ui.canvas.items.entity_item import EntityItem
from modeller.ui.canvas.picking import pick, press_area
from modeller.ui.commands.layout import MoveCommand

if TYPE_CHECKING:
    from modeller.ui.canvas.scene import CanvasScene

_LEFT = Qt.MouseButton.LeftButton
_MOVABLE = QGraphicsItem.GraphicsItemFlag.ItemIsMovable
_SELECTABLE = QGraphicsItem.GraphicsItemFlag.ItemIsSelectable


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
    """Select, rubber-band and move cards; a finished drag becomes one ``Move`` command.

    A left press picks its card or line through the grids (``picking.py``: Qt's own press tested thousands of
    lines' shapes at 10,000 cards, issue 16) and selects and drags it as Qt's items would: the press selects
    an unselected item alone, a drag moves the pressed card with the other selected ones, and a release where
    the press was selects the item alone (with Ctrl: toggles it).
    """

    def __init__(self, scene: CanvasScene) -> None:
        super().__init__(scene)
        #: the cards a drag started by the last press may move
        self.dragged: set[str] = set()
        #: the pressed item, where it was pressed (scene) and where the dragged items were then (set at the first move)
        self._pressed: tuple[QGraphicsItem, QPointF, dict[QGraphicsItem, QPointF] | None] | None = None

    def mouse_press(self, event: QGraphicsSceneMouseEvent) -> bool:
        if event.button() != _LEFT or event.type() != QGraphicsSceneMouseEvent.Type.GraphicsSceneMousePress:
            return False  # another button, or a double click (the view renames a card first): Qt's own handling
        scene = self.scene
        if scene.mouseGrabberItem() is not None:
            return False
        item = pick(scene, press_area(event))
        if isinstance(item, EntityItem):
            wants_connect = item.handle_rect().contains(item.mapFromScene(event.scenePos()))
            if wants_connect or event.modifiers() & Qt.KeyboardModifier.AltModifier:
                connect = ConnectInteraction(scene, item)
                scene.set_interaction(connect)
                return connect.mouse_press(event)
        if scene.focusItem() is not None:
            scene.setFocusItem(None, Qt.FocusReason.MouseFocusReason)  # as Qt's press: no card or line takes focus
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        if item is None:
            event.ignore()  # empty canvas: the view starts a rubber band
            if not ctrl:
                QGraphicsScene.clearSelection(scene)
            return True
        if item.flags() & _SELECTABLE and not ctrl and not item.isSelected():
            QGraphicsScene.clearSelection(scene)
            item.setSelected(True)
        event.accept()
        self._pressed = (item, event.scenePos(), None)
        if isinstance(item, EntityItem):
            scene.user_moving = True
            # the pressed card and, if it is selected, the other selected ones: only those can move (a look at
            # every card after each click cost ~100 ms at 10,000 cards, issue 16)
            self.dragged = {key for i in scene.selectedItems() if (key := getattr(i, "entity_id", None))}
            self.dragged.add(item.entity_id)
        return True

    def mouse_move(self, event: QGraphicsSceneMouseEvent) -> bool:
        """A drag from the pressed card moves it and the other selected movable items by the pointer's way."""
        if self._pressed is None:
            return False
        item, down, start = self._pressed
        event.accept()
        if not event.buttons() & _LEFT or not item.flags() & _MOVABLE:
            return True
        if start is None:
            start = {i: i.pos() for i in self.scene.selectedItems() if i.flags() & _MOVABLE}
            start[item] = item.pos()
            self._pressed = (item, down, start)
        way = event.scenePos() - down
        for moving, was in start.items():
            moving.setPos(was + way)
        return True

    def mouse_release(self, event: QGraphicsSceneMouseEvent) -> bool:
        """A release where the press was (no drag) selects the item alone, or with Ctrl toggles it."""
        if self._pressed is None:
            return False
        item, down, _start = self._pressed
        event.accept()
        if event.button() != _LEFT:
            return True
        self._pressed = None
        if item.flags() & _SELECTABLE and event.scenePos() == down and item.scene() is self.scene:
            if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
                item.setSelected(not item.isSelected())
            else:
                for other in self.scene.selectedItems():
                    if other is not item:
                        other.setSelected(False)
                item.setSelected(True)
        return True

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
        self._pressed = None


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
        event.accept()  # the view must not start a rubber band
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
