"""The canvas view: zoom (Ctrl+wheel), pan (middle or Space+drag), grid, palette drops, legend."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QLineF, QMimeData, QPoint, QPointF, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QContextMenuEvent,
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QRegion,
    QResizeEvent,
    QTransform,
    QWheelEvent,
)
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsView,
    QMenu,
    QRubberBand,
    QStyle,
    QStyleOptionRubberBand,
    QWidget,
)

from modeller.model import Position
from modeller.model.vocabulary import FIELD_TYPES
from modeller.ui.canvas.inline_editor import InlineEditor
from modeller.ui.canvas.interactions import PanInteraction
from modeller.ui.canvas.items.entity_item import EntityItem
from modeller.ui.canvas.items.line_layer import TEXT_REACH
from modeller.ui.canvas.legend import LegendWidget, legend_corners
from modeller.ui.canvas.scene import CanvasScene
from modeller.ui.commands.entity import AddEntityCommand, add_field_command, rename_entity_command
from modeller.ui.edits import EditRefused
from modeller.ui.templates import TEMPLATE_KEYS, default_name, make_entity

if TYPE_CHECKING:
    from modeller.ui.canvas.menus import CanvasMenus

#: MIME type of a palette drag: the template key as UTF-8
TEMPLATE_MIME = "application/x-modeller-template"

#: Fit to Window shows a whole 10,000-card diagram (about 2.5 %; below OVERVIEW_ZOOM the cards draw in bulk)
MIN_ZOOM, MAX_ZOOM = 0.01, 4.0
#: below this zoom the scene switches to overview drawing (cards are unreadable anyway)
OVERVIEW_ZOOM = 0.3
#: an opened model fits the window but never below this (card text stays readable); zooming out still works
OPEN_ZOOM_FLOOR = 0.9
#: the legend looks for a free corner this long after the last scroll, zoom or scene change (ms)
LEGEND_REST_MS = 80


def project_file_in(mime: QMimeData) -> Path | None:
    """The first dropped local file that looks like a project (``*.modeller.json`` or ``*.json``)."""
    for url in mime.urls():
        if url.isLocalFile() and url.toLocalFile().endswith(".json"):
            return Path(url.toLocalFile())
    return None


class CanvasView(QGraphicsView):
    zoom_changed = Signal(float)
    #: a project file was dropped on the canvas
    file_dropped = Signal(Path)
    #: an opened model did not fit at the readable zoom: part of it lies outside the view (the window says so)
    opened_in_part = Signal()

    def __init__(self, scene: CanvasScene, parent: QWidget | None = None) -> None:
        super().__init__(scene, parent)
        self.canvas = scene
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        # the view draws its own rubber band: Qt's asked the scene's index for every item whose box met it, and
        # then each one's shape (thousands of long lines at 10,000 cards, issue 16); see _band_to
        self.setDragMode(QGraphicsView.DragMode.NoDrag)
        #: the rubber band being dragged: where it started (viewport) and what stays selected besides it (Ctrl)
        self._band: tuple[QPoint, set[QGraphicsItem]] | None = None
        self._band_rect = QRect()
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setAcceptDrops(True)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._show_grid = True
        # the grid is drawn once per viewport and blitted afterwards (a moved card's long lines exposed the whole
        # viewport, and redrawing the grid cost a fifth of that repaint); the overview draws in the background
        # layer what changes with every move, so it is not cached (see set_zoom)
        self.setCacheMode(QGraphicsView.CacheModeFlag.CacheBackground)
        self._pan: PanInteraction | None = None
        #: the zoom of the last Fit to Window: a diagram too large for MIN_ZOOM (the Documents view spreads 2,000
        #: cards over 47,000 scene units) may be zoomed out that far, so every card can be in sight
        self._fit_zoom = MIN_ZOOM
        #: paintEvent lets Qt paint one pixel after its own overview paint (see there)
        self._pixel_only = False
        self._space = False
        #: the open in-place editor (rename or add field), if any
        self.inline_editor: InlineEditor | None = None
        #: right-click menus (the window sets them up with what lives outside the canvas)
        self.menus: CanvasMenus | None = None
        scene.document.project_reset.connect(self.close_inline_editor)  # another project: nothing to edit
        # Documents view: cards pushed aside by a wider one may land past the scene rect; keep room to scroll there
        scene.cards_spread.connect(self.grow_scene_rect)
        self.legend = LegendWidget(scene.style, self)
        self.setToolTip("")
        # the legend takes a corner with no card under it: looked for again once a scroll, zoom or scene change
        # rests (a drag changes the scene on every mouse move; each frame of it must stay within 16 ms)
        self._legend_timer = QTimer(self)
        self._legend_timer.setSingleShot(True)
        self._legend_timer.setInterval(LEGEND_REST_MS)
        self._legend_timer.timeout.connect(self._place_legend)
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.valueChanged.connect(lambda _value: self._legend_timer.start())
        self.zoom_changed.connect(lambda _zoom: self._legend_timer.start())
        scene.changed.connect(lambda _areas: self._legend_timer.start())
        self._place_legend()

    @property
    def show_grid(self) -> bool:
        return self._show_grid

    @show_grid.setter
    def show_grid(self, on: bool) -> None:
        self._show_grid = on
        self.resetCachedContent()

    # ------------------------------------------------------------ zoom
    def zoom(self) -> float:
        return self.transform().m11()

    def set_zoom(self, factor: float) -> None:
        factor = max(min(MIN_ZOOM, self._fit_zoom), min(MAX_ZOOM, factor))
        scale = factor / self.zoom()
        self.scale(scale, scale)
        self.canvas.set_overview(self.zoom() < OVERVIEW_ZOOM)
        cache = (
            QGraphicsView.CacheModeFlag.CacheNone
            if self.canvas.overview
            else QGraphicsView.CacheModeFlag.CacheBackground
        )
        if self.cacheMode() != cache:
            self.setCacheMode(cache)
        self.zoom_changed.emit(self.zoom())

    def zoom_in(self) -> None:
        self.set_zoom(self.zoom() * 1.25)

    def zoom_out(self) -> None:
        self.set_zoom(self.zoom() / 1.25)

    def reset_zoom(self) -> None:
        self.set_zoom(1.0)

    def fit_on_open(self) -> None:
        """A model just opened: fit it, but never below :data:`OPEN_ZOOM_FLOOR`.

        A model too large for that shows its top-left corner at a readable size (where the layout starts);
        View > Fit to Window or zooming out shows the rest.
        """
        rect = self.canvas.content_rect()
        self._fit(rect)
        if rect.isEmpty() or self.zoom() >= OPEN_ZOOM_FLOOR:
            return
        self.set_zoom(OPEN_ZOOM_FLOOR)
        self.opened_in_part.emit()
        view = self.viewport().rect()
        margin = 40
        width, height = view.width() / OPEN_ZOOM_FLOOR, view.height() / OPEN_ZOOM_FLOOR
        # cards fill every corner: the cards start below the legend's room in the top-left one, which the legend
        # then takes (it covered the first card's title, where Fit to Window keeps the cards clear of it)
        room = (self.legend.sizeHint().height() + 12) / OPEN_ZOOM_FLOOR if self.legend.isVisible() else 0.0
        self.centerOn(rect.left() - margin + width / 2, rect.top() - margin - room + height / 2)

    def fit_to_window(self) -> None:
        """Show every card; a small diagram is magnified at most to 130 %."""
        self._fit(self.canvas.content_rect())

    def _fit(self, rect: QRectF) -> None:
        """Fit ``rect``, the diagram's (measured once per open: a 10,000-card plan is not free)."""
        if rect.isEmpty():
            self.reset_zoom()
            self.centerOn(0, 0)
            return
        rect = rect.adjusted(-40, -40, 40, 40)
        self.setSceneRect(_with_room(rect.united(self.canvas.itemsBoundingRect())))
        view = self.viewport().rect()
        factor = min(view.width() / rect.width(), view.height() / rect.height(), 1.3)
        self._fit_zoom = factor
        self.set_zoom(factor)
        self.centerOn(rect.center())
        # the legend goes back to its own corner first (it may sit in another, where the last view put it, until
        # its timer looks again): the fit keeps the cards clear of that corner
        self.legend.move(legend_corners(self.viewport().geometry(), self.legend.size(), margin=10)[0].topLeft())
        if not self.legend.isVisible() or not self._under_legend():
            return
        # a card lies under the legend (bottom-left corner): keep the cards beside it or above it,
        # whichever leaves them larger
        lw, lh = self.legend.width() + 12, self.legend.height() + 12
        beside = min((view.width() - lw) / rect.width(), view.height() / rect.height(), 1.3)
        above = min(view.width() / rect.width(), (view.height() - lh) / rect.height(), 1.3)
        factor = self._fit_zoom = max(beside, above, 0.001)
        self.set_zoom(factor)
        shift = QPointF(-lw / 2 / factor, 0) if beside >= above else QPointF(0, lh / 2 / factor)
        self.centerOn(rect.center() + shift)

    def _under_legend(self) -> bool:
        return self._cover(self.legend.geometry()) > 0

    def _cover(self, rect: QRect) -> float:
        """How much card area (viewport pixels) lies under ``rect`` of the view; the scene's grid of the cards
        finds the few there (its index also handed back every line whose box met the corner: 10-25 ms per corner
        at 10,000 cards, four corners after every move; "redraw after a move <= 16 ms", DESIGN.md)."""
        area = self.mapToScene(rect.translated(-self.viewport().pos())).boundingRect()
        covered = 0.0
        for item in self.canvas.cards_in(area):
            common = area.intersected(item.scene_rect())
            covered += max(common.width(), 0.0) * max(common.height(), 0.0)
        return covered * self.zoom() ** 2  # scene units to viewport pixels (the view is never rotated)

    def grow_scene_rect(self, around: QRectF | None = None) -> None:
        """Keep room to scroll around the content, or around ``around`` only (the scene rect never shrinks under
        the user)."""
        rect = self.canvas.content_rect() if around is None else around
        grown = self.sceneRect().united(_with_room(rect))
        if grown == self.sceneRect():
            return
        # what the view shows stays put: room added above or left of it moved the picture under the user (a card
        # the Documents view pushed up made the whole diagram jump)
        corner = self.mapToScene(QPoint(0, 0))
        self.setSceneRect(grown)
        self.pin(corner, QPoint(0, 0))

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = event.angleDelta().y() / 120
            if steps:
                self.set_zoom(self.zoom() * (1.15**steps))
            event.accept()
            return
        super().wheelEvent(event)

    # ------------------------------------------------------------ editing on the card
    def rename_card(self, entity_id: str) -> InlineEditor | None:
        """Open the name box over the card's title (double-click, F2); Enter renames as one undo entry."""
        item = self.canvas.entity_items.get(entity_id)
        entity = self.canvas.document.entity(entity_id)
        if item is None or entity is None:
            return None
        document = self.canvas.document

        def commit(name: str, _type: str | None) -> str | None:
            try:
                command = rename_entity_command(document, entity_id, name)
            except EditRefused as err:
                return str(err)
            if command is not None:
                document.push(command)
            return None

        return self._open_editor(item, item.title_rect(), InlineEditor(self.viewport(), commit, entity.name))

    def add_field_on_card(self, entity_id: str) -> InlineEditor | None:
        """Open a name and type row under the card (Enter on a selected card, "Add field" in its menu)."""
        item = self.canvas.entity_items.get(entity_id)
        entity = self.canvas.document.entity(entity_id)
        if item is None or entity is None:
            return None
        document = self.canvas.document
        taken = {f.name for f in entity.fields}
        n = 1
        while f"field{n}" in taken:
            n += 1

        def commit(name: str, type_: str | None) -> str | None:
            try:
                document.push(add_field_command(document, entity_id, name, type_ or "string"))
            except EditRefused as err:
                return str(err)
            return None

        editor = InlineEditor(self.viewport(), commit, f"field{n}", FIELD_TYPES, "string", "field name")
        return self._open_editor(item, item.footer_rect(), editor)

    def close_inline_editor(self) -> None:
        """Drop an open rename or add-field box without applying it."""
        if self.inline_editor is not None:
            self.inline_editor.cancel()

    def _open_editor(self, item: EntityItem, local: QRectF, editor: InlineEditor) -> InlineEditor:
        self.close_inline_editor()
        self.ensureVisible(item.mapRectToScene(local.united(item.rect())), 20, 20)
        rect = self.mapFromScene(item.mapRectToScene(local)).boundingRect()
        self.inline_editor = editor
        editor.closed.connect(lambda: self._editor_closed(editor))
        editor.open_at(rect)
        return editor

    def _editor_closed(self, editor: InlineEditor) -> None:
        if self.inline_editor is editor:
            self.inline_editor = None
            self.setFocus(Qt.FocusReason.OtherFocusReason)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        if self.menus is None:
            super().contextMenuEvent(event)
            return
        menu = self.menus.menu_at(self.mapToScene(event.pos()))
        self.popup(menu, event.globalPos())
        menu.deleteLater()
        event.accept()

    def popup(self, menu: QMenu, at: QPoint) -> None:
        """Run ``menu`` at screen point ``at`` until it closes."""
        menu.exec(at)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            item = self.canvas.entity_item_at(self.mapToScene(event.position().toPoint()))
            if item is not None:
                self.canvas.select_only(entity_ids=[item.entity_id])
                self.rename_card(item.entity_id)
                event.accept()
                return
        super().mouseDoubleClickEvent(event)

    # ------------------------------------------------------------ pan
    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.modifiers():
            selected = self.canvas.selected_entity_ids()
            if len(selected) == 1 and not self.canvas.selected_relationship_ids():
                self.add_field_on_card(selected[0])
                event.accept()
                return
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = True
            self.viewport().setCursor(Qt.CursorShape.OpenHandCursor)
            event.accept()
            return
        super().keyPressEvent(event)

    def keyReleaseEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Space and not event.isAutoRepeat():
            self._space = False
            if self._pan is None:
                self.viewport().unsetCursor()
            event.accept()
            return
        super().keyReleaseEvent(event)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        middle = event.button() == Qt.MouseButton.MiddleButton
        if middle or (self._space and event.button() == Qt.MouseButton.LeftButton):
            self._pan = PanInteraction(self, event.position().toPoint())
            event.accept()
            return
        super().mousePressEvent(event)
        if event.button() == Qt.MouseButton.LeftButton and not event.isAccepted():
            # empty canvas (the scene cleared the selection unless Ctrl is held): a rubber band starts
            keep = (
                set(self.canvas.selectedItems()) if event.modifiers() & Qt.KeyboardModifier.ControlModifier else set()
            )
            self._band = (event.position().toPoint(), keep)
            event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._pan is not None:
            self._pan.move(event)
            event.accept()
            return
        if self._band is not None:
            self._band_to(event.position().toPoint())
            event.accept()
            return
        super().mouseMoveEvent(event)
        if not event.buttons():
            self._hover(self.mapToScene(event.position().toPoint()))

    def _hover(self, at: QPointF) -> None:
        """The card under the pointer shows its handle; over the handle the pointer is a cross (connect)."""
        card = self.canvas.hover_at(at)
        if self._space:
            return  # the pan's open hand
        if card is not None and card.handle_rect().contains(card.mapFromScene(at)):
            self.viewport().setCursor(Qt.CursorShape.CrossCursor)
        else:
            self.viewport().unsetCursor()

    def leaveEvent(self, event: QEvent) -> None:
        self.canvas.hover_at(None)
        super().leaveEvent(event)

    def _band_to(self, pointer: QPoint) -> None:
        """The rubber band now reaches ``pointer``: select the cards and lines it meets (the grids find them)."""
        assert self._band is not None
        start, keep = self._band
        rect = QRect(start, pointer).normalized()
        self.viewport().update(QRegion(self._band_rect.adjusted(-2, -2, 2, 2)) + rect.adjusted(-2, -2, 2, 2))
        self._band_rect = rect
        area = self.mapToScene(rect).boundingRect()
        self.rubberBandChanged.emit(rect, self.mapToScene(start), self.mapToScene(pointer))
        scene = self.canvas
        wanted: set[QGraphicsItem] = set(keep)
        wanted.update(
            card
            for card in scene.cards_in(area)
            if card.scene_rect().intersects(area) or card.mapRectToScene(card.handle_rect()).intersects(area)
        )
        reach = area.adjusted(-TEXT_REACH, -TEXT_REACH, TEXT_REACH, TEXT_REACH)  # a badge sits off its line
        for key in scene.lines.grid.near(reach):
            line = scene.relationship_items.get(key)
            if line is not None and line.isVisible() and line.meets(area):
                wanted.add(line)
        now = set(scene.selectedItems())
        for item in now - wanted:
            item.setSelected(False)
        for item in wanted - now:
            item.setSelected(True)

    def _band_end(self) -> None:
        self._band = None
        self.viewport().update(self._band_rect.adjusted(-2, -2, 2, 2))
        self._band_rect = QRect()
        self.rubberBandChanged.emit(QRect(), QPointF(), QPointF())
        self.canvas.settle_selection()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._pan is not None:
            self._pan.finish()
            self._pan = None
            event.accept()
            return
        if self._band is not None:
            self._band_end()
        super().mouseReleaseEvent(event)
        # room to scroll around cards a drag moved (only selected ones move): measuring every card after each
        # click cost ~100 ms at 10,000 cards (speed-only, bench_canvas click and move_redraw)
        moved = QRectF()
        for item in self.canvas.selectedItems():
            if isinstance(item, EntityItem):
                moved = moved.united(item.sceneBoundingRect())
        if not moved.isEmpty():
            self.grow_scene_rect(moved)

    # ------------------------------------------------------------ drops
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(TEMPLATE_MIME) or project_file_in(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(TEMPLATE_MIME) or project_file_in(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        mime = event.mimeData()
        if mime.hasFormat(TEMPLATE_MIME):
            key = bytes(mime.data(TEMPLATE_MIME).data()).decode("utf-8")
            if key in TEMPLATE_KEYS:
                self.drop_template(key, event.position().toPoint())
                event.acceptProposedAction()
                return
        path = project_file_in(mime)
        if path is not None:
            event.acceptProposedAction()
            self.file_dropped.emit(path)
            return
        super().dropEvent(event)

    def drop_template(self, key: str, pointer: QPoint) -> str:
        """A palette drop: the new card's top-left corner lands exactly under ``pointer`` (a viewport point), or,
        when the card would stick out of the view there, moved in just far enough to be wholly in sight.

        The view must not scroll while the card is added: the scene rect is
        widened first to hold everything visible, so the new item cannot grow
        it, and any scroll Qt still makes is taken back. (A card dropped half
        outside was scrolled into sight later, by the rename on the card,
        pushing the first card out at the other side: a14 tryout.)
        """
        at = self.mapToScene(pointer)
        margin = DROP_MARGIN / self.zoom()
        sight = self.mapToScene(self.viewport().rect()).boundingRect().adjusted(margin, margin, -margin, -margin)
        self.hold_still()
        entity_id = self.add_template(key, at, snap=False, inside=sight)
        self.pin(at, pointer)
        return entity_id

    def hold_still(self) -> None:
        """Fix the scene rect to cover what is on screen and the content with room around it."""
        visible = self.mapToScene(self.viewport().rect()).boundingRect()
        self.grow_scene_rect(visible)
        self.grow_scene_rect()

    def pin(self, scene_point: QPointF, pointer: QPoint) -> None:
        """Scroll so ``scene_point`` shows at viewport point ``pointer`` again."""
        delta = self.mapFromScene(scene_point) - pointer
        if delta.isNull():
            return
        h, v = self.horizontalScrollBar(), self.verticalScrollBar()
        h.setValue(h.value() + delta.x())
        v.setValue(v.value() + delta.y())

    def add_template(self, key: str, at: QPointF | None = None, snap: bool = True, inside: QRectF | None = None) -> str:
        """Add a palette item with its top-left corner at ``at`` (near the view centre by default); returns its id.

        ``snap`` rounds the spot to the grid (a drop does not: the card goes where the pointer is); ``inside``
        (scene area) moves the card the least so that all of it lies there.
        """
        document = self.canvas.document
        if at is None:
            at = self.mapToScene(self.viewport().rect().center()) - QPointF(85, 40)
            # do not stack double-clicked items exactly on top of each other
            while any(
                abs(item.pos().x() - at.x()) < 10 and abs(item.pos().y() - at.y()) < 10
                for item in self.canvas.entity_items.values()
            ):
                at += QPointF(40, 40)
        grid = self.canvas.style.grid if snap else 0.0
        x, y = (
            (round(at.x() / grid) * grid, round(at.y() / grid) * grid) if grid else (round(at.x(), 1), round(at.y(), 1))
        )
        name = document.unique_entity_name(default_name(key))
        entity = make_entity(key, document.unique_id(name), name)
        if inside is not None:
            probe = EntityItem(entity.id, self.canvas.style)  # the card's size before it exists
            probe.set_entity(entity)
            x, y = (round(v, 1) for v in nudged_inside(x, y, probe.rect().width(), probe.rect().height(), inside))
        document.push(AddEntityCommand(document, entity, Position(x=x, y=y)))
        self.canvas.select_only(entity_ids=[entity.id])
        return entity.id

    # ------------------------------------------------------------ painting
    def paintEvent(self, event: QPaintEvent) -> None:
        """In the overview, paint the background (the whole diagram) without asking the scene for its items.

        Every item has no contents there, yet Qt still walked each one whose box met the repainted area: about
        20 ms at fit zoom on a 10,000-card diagram, more than a frame (issue 16). A connect gesture's line is an
        item with contents: while one is drawn, Qt paints as usual.
        """
        if not self.canvas.overview or getattr(self.canvas.interaction, "line", None) is not None:
            super().paintEvent(event)
            return
        painter = QPainter(self.viewport())
        painter.setRenderHints(self.renderHints())
        painter.setClipRegion(event.region())
        painter.setWorldTransform(self.viewportTransform())
        exposed = self.mapToScene(event.region().boundingRect().adjusted(-2, -2, 2, 2)).boundingRect()
        self.drawBackground(painter, exposed)
        self.drawForeground(painter, exposed)
        painter.end()
        # then Qt's own paint of one pixel: it resets what the view and the scene keep between paints (the scene
        # ignores every update after a whole-scene one until the items are drawn), walking only the items there
        self._pixel_only = True
        try:
            super().paintEvent(QPaintEvent(QRect(event.rect().topLeft(), QSize(1, 1))))
        finally:
            self._pixel_only = False

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:
        """The rubber band, over everything (the view draws its own, see _band_to)."""
        super().drawForeground(painter, rect)
        if self._band_rect.isEmpty() or self._pixel_only:
            return
        painter.save()
        painter.setWorldTransform(QTransform())
        option = QStyleOptionRubberBand()
        option.initFrom(self.viewport())
        option.rect = self._band_rect
        option.shape = QRubberBand.Shape.Rectangle
        self.style().drawControl(QStyle.ControlElement.CE_RubberBand, option, painter, self.viewport())
        painter.restore()

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        super().drawBackground(painter, rect)
        if self._pixel_only:
            return  # Qt's one-pixel paint after the overview's own (see paintEvent): that pixel is drawn
        if self.canvas.overview:
            # the viewport's picture, unless this paints somewhere else (QGraphicsView.render into an image)
            viewport = self.viewport()
            self.canvas.paint_overview(painter, rect, viewport if painter.device() is viewport else None)
            return
        if not self.show_grid or self.zoom() < 0.4:
            return
        grid = self.canvas.style.grid * 2
        painter.setPen(QPen(self.canvas.style.colors.grid, 0))
        left = int(rect.left() // grid) * grid
        top = int(rect.top() // grid) * grid
        x = left
        lines = []
        while x < rect.right():
            lines.append(QLineF(x, rect.top(), x, rect.bottom()))
            x += grid
        y = top
        while y < rect.bottom():
            lines.append(QLineF(rect.left(), y, rect.right(), y))
            y += grid
        painter.drawLines(lines)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_legend()

    def _place_legend(self) -> None:
        """Bottom-left, or the first other corner of the viewport with no card under the legend (a card
        dropped or scrolled under it stayed hidden); when every corner has one, the one hiding the least."""
        self.legend.resize(self.legend.sizeHint())
        corners = legend_corners(self.viewport().geometry(), self.legend.size(), margin=10)
        cover = [self._cover(c) for c in corners]
        spot = corners[cover.index(min(cover))]  # the first corner of the least cover
        if spot.topLeft() != self.legend.pos():
            self.legend.move(spot.topLeft())


#: scene units of room to scroll past the content on every side
SCROLL_ROOM = 2000
#: viewport pixels a dropped card keeps from the view's edges (the rename on the card scrolls within 20)
DROP_MARGIN = 24


def nudged_inside(x: float, y: float, width: float, height: float, area: QRectF) -> tuple[float, float]:
    """The top-left corner moved the least so that the box lies in ``area``; too big a box keeps its top left
    in the area (the title shows)."""
    x = max(area.left(), min(x, area.right() - width))
    y = max(area.top(), min(y, area.bottom() - height))
    return x, y


def _with_room(rect: QRectF) -> QRectF:
    return rect.adjusted(-SCROLL_ROOM, -SCROLL_ROOM, SCROLL_ROOM, SCROLL_ROOM)
