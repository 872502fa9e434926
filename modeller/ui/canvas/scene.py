"""The diagram scene: one item per model object, redrawn from document signals only.

Like Orange's ``CanvasScene`` it keeps explicit model-id -> item maps and
never stores real state in items: positions come from ``project.layout``
(entities without a position get a derived default spot) and a drag only
changes the model through a ``MoveCommand`` on release.
"""

from __future__ import annotations

import itertools
import math
import operator
import time
from collections.abc import Generator, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from PySide6.QtCore import QLineF, QObject, QPointF, QRectF, QSignalBlocker, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent, QPainter, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsScene,
    QGraphicsSceneHelpEvent,
    QGraphicsSceneMouseEvent,
    QToolTip,
    QWidget,
)

from modeller.model import Position, Relationship
from modeller.runtime.gc_pause import collector_paused
from modeller.ui.canvas.arrange import Arrangement
from modeller.ui.canvas.interactions import Interaction, SelectMoveInteraction
from modeller.ui.canvas.items.entity_item import EntityItem, entity_card_size
from modeller.ui.canvas.items.line_layer import TEXT_REACH, LineLayer
from modeller.ui.canvas.items.relationship_item import RelationshipItem
from modeller.ui.canvas.items.segment_grid import SegmentGrid
from modeller.ui.canvas.items.style import CanvasStyle
from modeller.ui.canvas.items.text_grid import TextGrid
from modeller.ui.canvas.line_pairs import LinePairs
from modeller.ui.canvas.overview import Overview
from modeller.ui.canvas.spread import Spread
from modeller.ui.commands.relationship import connect_command, describe
from modeller.ui.document import ProjectDocument

DEFAULT_COLUMNS = 6
DEFAULT_STEP = (320.0, 300.0)
#: up to this many entities a rebuild (or badges to redraw) is one step, as before; more are done in slices
SYNC_BUILD_MAX = 500
#: up to this many badges to redraw after an analysis are one step; more: those in sight at once, the rest in
#: slices (a redrawn badge costs 0.1-0.2 ms: 500 at once were half the findings' hand-over at 1,000 entities)
BADGES_AT_ONCE = 100
#: how long one slice of a progressive build may hold the UI thread
SLICE_S = 0.04
#: entities a step of the build's "which cards are in sight?" looks at (~5 ms of the UI thread)
NEAR_VIEW_STEP = 2500
#: lines of the cards out of sight are built this many between two looks at the view (a card scrolled into
#: sight meanwhile is built next; the lanes between the same two cards are built together)
LINES_PER_LOOK = 64
#: lines placed per step of a progressive build (about a millisecond each): the line layer files them together;
#: speed-only, issue 16's open of 10,000 entities (bench_open built / to_findings)
LINES_PER_STEP = 8
#: how far around the view a card counts as in sight for the build's first part (scene units)
SIGHT_MARGIN = 400.0
#: the deepest scene index (2**depth cells). Qt picks log2(items): 15 at 10,000 cards, where a long line's
#: bounding box spans thousands of cells and re-indexing one moved line took ~8 ms (100 ms for a card's lines).
#: Speed only, for "redraw after a move <= 16 ms" (DESIGN.md "Performance targets"; bench_canvas)
MAX_INDEX_DEPTH = 10
#: where along its line a badge and label may sit, tried in this order when the middle is taken
TEXT_SPOTS = (0.5, 0.35, 0.65, 0.25, 0.75)


def default_spot(index: int) -> tuple[float, float]:
    """Where the ``index``-th entity goes when the layout has no position for it: a grid, row by row."""
    return (index % DEFAULT_COLUMNS) * DEFAULT_STEP[0], (index // DEFAULT_COLUMNS) * DEFAULT_STEP[1]


def index_depth(items: int) -> int:
    """Qt's own depth for ``items`` (at least 5), capped at :data:`MAX_INDEX_DEPTH`."""
    return max(5, min(MAX_INDEX_DEPTH, math.ceil(math.log2(max(items, 1)))))


class CanvasScene(QGraphicsScene):
    #: a relationship was created by a connect gesture (the window opens its properties)
    relationship_created = Signal(str)
    #: a (progressive) rebuild has put every item in the scene
    built = Signal()
    #: a progressive rebuild has put the cards in sight (and their lines) in the scene; the others follow
    in_view_built = Signal()
    #: the selection changed: once per user action, however many items joined or left it (see settle_selection)
    selection_settled = Signal()
    #: cards of the Documents view took new places or sizes (the area they cover now): the view keeps room to
    #: scroll to them (a spread can push cards past the scene rect)
    cards_spread = Signal(QRectF)
    #: the view turns (Documents view on or off) in steps: how far, in cards, of how many; (0, 0) when it ends
    arrange_progress = Signal(int, int)

    def __init__(
        self, document: ProjectDocument, style: CanvasStyle | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.document = document
        self.style = style or CanvasStyle()
        self.entity_items: dict[str, EntityItem] = {}
        self.relationship_items: dict[str, RelationshipItem] = {}
        self._attached: dict[str, set[str]] = {}
        self._ends: dict[str, tuple[str, str]] = {}
        #: every relationship of the model by its two cards, made or not (a line's lane counts them all); filed
        #: from the model when the first line is placed (not in the first frame), then kept up to date by the edits
        self._pairs: LinePairs | None = None
        self._order: dict[str, int] = {}
        self._building = False
        #: the steps of a progressive rebuild still to run (None: the scene is complete)
        self._build_steps: Iterator[None] | None = None
        #: the rebuild is past the cards in sight (the rest waits for a background analysis, see set_background_busy)
        self.in_view_done = True
        #: an analysis runs in the background (the window says so); the out-of-sight build then waits
        self.background_busy = False
        #: a view moved during the rebuild: the cards now in sight are built next (see sight_changed)
        self._sight_moved = False
        self._build_timer = QTimer(self)
        self._build_timer.setSingleShot(True)
        self._build_timer.timeout.connect(self._build_slice)
        self._designs: dict[str, Any] = {}
        #: the relationship designs of the last analysis, in order (compared by identity with the next)
        self._design_list: list[Any] = []
        #: the ids of the cards and lines the selected query marks (highlight_query touches only what changes)
        self._query_marked: tuple[set[str], set[str]] = (set(), set())
        #: lines whose badge still shows an earlier analysis (redrawn in slices, see set_analysis)
        self._badges_due: set[str] = set()
        # owned by the scene, so a slice never runs after the scene (and its items) are gone
        self._badge_timer = QTimer(self)
        self._badge_timer.setSingleShot(True)
        self._badge_timer.setInterval(0)
        self._badge_timer.timeout.connect(self._refresh_badges_slice)
        self.snap_to_grid = True
        #: Documents view: cards show their collection as stored (see canvas/documents.py)
        self.documents_view = False
        self._design: Any = None
        self._shapes: Any = None
        #: what the cards show now (None: entities), compared with the next analysis's (see _documents_changed)
        self.shown_shapes: Any = None
        #: where the Documents view's cards went, kept so a change moves only what it touches (canvas/spread.py)
        self.card_spread = Spread()
        #: a turn of the view running in steps (a large diagram: canvas/arrange.py)
        self._arrangement: Arrangement | None = None
        self._arrange_timer = QTimer(self)
        self._arrange_timer.setSingleShot(True)
        self._arrange_timer.timeout.connect(self._arrange_slice)
        self.user_moving = False
        #: the card under the pointer (see hover_at)
        self._hovered: str | None = None
        #: the cards filed by their boxes, for hit tests (see entity_item_at); None after an edit
        self._card_grid: tuple[SegmentGrid, dict[str, int]] | None = None
        #: the cards moved inside ``cards_moving_together`` (None: outside it)
        self._moving_together: dict[str, None] | None = None
        self._card_ranks = itertools.count()
        #: far zoomed out: items paint nothing and the view draws all cards and lines in one batch
        self.overview = False
        self._overview_cache: tuple[list[QLineF], list[QRectF], list[QRectF]] | None = None
        self._overview_lines: dict[str, QLineF] = {}
        self._overview_boxes: dict[str, QRectF] = {}
        self._overview_heads: dict[str, QRectF] = {}
        #: the three dicts above hold every item (only the packed lists are missing)
        self._overview_current = False
        #: the overview's picture of what did not move, and the cards that moved lately (drawn over it)
        self._overview_painter = Overview(self.style)
        #: a move changed the draw dicts since they were packed into ``_overview_cache`` (packed when asked)
        self._overview_repack = False
        #: draws every relationship line (made anew by each rebuild: clear() deletes it with the other items)
        self.lines = LineLayer(self.style)
        #: where the lines' badges and labels are (see _keep_texts_apart)
        self._texts = TextGrid()
        #: lines selected as of the last selection change (their look changes when they leave or join it)
        self._selected_lines: set[str] = set()
        self.setBackgroundBrush(self.style.colors.background)
        self.interaction: Interaction = SelectMoveInteraction(self)
        # Qt signals each item that joins or leaves the selection (Select All, a delete of many selected cards):
        # the panels listen to selection_settled, sent once when the event loop next runs
        self._selection_timer = QTimer(self)
        self._selection_timer.setSingleShot(True)
        self._selection_timer.setInterval(0)
        self._selection_timer.timeout.connect(self._fan_out_selection)
        self.selectionChanged.connect(self._selection_pending)
        #: Select All ran during a progressive build: the cards and lines it makes from now on join the selection,
        #: which fans out once more when the build ends (until the user selects otherwise)
        self._select_built = False
        # an edit during a progressive build touches its own items (making those the build has not made yet) and
        # lets the build go on: the build makes the rest from the model as it is when it gets to them
        document.entity_added.connect(self._entity_added)
        document.entity_removed.connect(self._entity_removed)
        document.entity_changed.connect(self._entity_changed)
        document.relationship_added.connect(self._relationship_added)
        document.relationship_removed.connect(self._relationship_removed)
        document.relationship_changed.connect(self._relationship_changed)
        document.layout_changed.connect(self._layout_changed)
        document.project_reset.connect(self.rebuild)
        self.rebuild()

    # ------------------------------------------------------------ interactions
    def set_interaction(self, interaction: Interaction | None) -> None:
        """Switch the mouse mode (one class per mode); None returns to select/move."""
        self.interaction.cancel()
        self.interaction = interaction or SelectMoveInteraction(self)

    def mousePressEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        self._select_built = False  # the user selects otherwise: the cards still to be built stay out of it
        if not self.interaction.mouse_press(event):  # a mode that takes the press accepts it (or leaves it ignored)
            super().mousePressEvent(event)
        self.settle_selection()  # a click's selection reaches the panels before the click returns

    def mouseMoveEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if not self.interaction.mouse_move(event):
            super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QGraphicsSceneMouseEvent) -> None:
        if not self.interaction.mouse_release(event):
            super().mouseReleaseEvent(event)
        self.interaction.after_release(event)
        self.settle_selection()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self.interaction.key_press(event):
            super().keyPressEvent(event)

    def connect_entities(self, one: str, many: str) -> str:
        """Add a one-to-many relationship (one undo entry), select it and say so; returns its id."""
        command = connect_command(self.document, one, many)
        self.document.push(command)
        self.select_only(rel_ids=[command.rel.id])
        self.relationship_created.emit(command.rel.id)
        return command.rel.id

    def _selection_pending(self) -> None:
        if not self._selection_timer.isActive():
            self._selection_timer.start()

    def settle_selection(self) -> None:
        """Fan out a pending selection change now, at the end of a click or a programmatic selection (the event
        loop does it otherwise, e.g. after a delete of many selected cards); nothing pending: no-op."""
        if self._selection_timer.isActive():
            self._selection_timer.stop()
            self._fan_out_selection()

    def _fan_out_selection(self) -> None:
        self._selection_changed()
        self.selection_settled.emit()

    def clearSelection(self) -> None:
        """Clear, and fan the change out before returning, as a programmatic selection does."""
        self._select_built = False
        super().clearSelection()
        self.settle_selection()

    def select_all(self) -> None:
        """Select every card and line in one step (their selection changes fan out once).

        During a progressive build, the cards and lines made so far now and the others as the build makes them
        (finishing the build first held the window for seconds at 10,000 cards); the selection fans out now and
        again when the build ends."""
        self._select_built = False
        for item in (*self.entity_items.values(), *self.relationship_items.values()):
            if item.scene() is self and item.flags() & QGraphicsItem.GraphicsItemFlag.ItemIsSelectable:
                item.setSelected(True)
        self.settle_selection()
        self._select_built = self.building

    def _join_selection(self, item: EntityItem | RelationshipItem) -> None:
        """A card or line the build just put in the scene after a Select All joins the selection."""
        if item.flags() & QGraphicsItem.GraphicsItemFlag.ItemIsSelectable:
            # the build's cards join one by one, silently: the change fans out once, at the build's end (_build_done;
            # any other change, e.g. a selected card deleted, fans out as always)
            with QSignalBlocker(self):
                item.setSelected(True)
            if isinstance(item, RelationshipItem):
                self._selected_lines.add(item.rel_id)  # drawn selected from the start: no second repaint

    def _selection_changed(self) -> None:
        """Lines have no contents of their own: the layer repaints those that joined or left the selection."""
        if self.overview:
            self.update()
        now = {item.rel_id for item in self.selectedItems() if isinstance(item, RelationshipItem)}
        for rel_id in now ^ self._selected_lines:
            item = self.relationship_items.get(rel_id)
            if item is not None:
                self.lines.refresh(item)
        self._selected_lines = now

    # ------------------------------------------------------------ queries
    def entity_item_at(self, pos: QPointF) -> EntityItem | None:
        """The topmost card at ``pos``, from the cards a grid files near it: Qt's index would hand back every line
        whose box holds the point (thousands at 10,000 cards, issue 16) to find the one card there."""
        grid, rank = self._cards_near()
        found = [
            item
            for key in grid.near(QRectF(pos, pos))
            if (item := self.entity_items.get(key)) is not None
            and item.isVisible()
            and item.sceneBoundingRect().contains(pos)
            and item.contains(item.mapFromScene(pos))
        ]
        return max(found, key=lambda item: (item.zValue(), rank.get(item.entity_id, 0)), default=None)

    def cards_in(self, area: QRectF) -> list[EntityItem]:
        """The shown cards whose box meets ``area`` (in no particular order), from the grid of the cards: Qt's
        index would hand back every line whose box meets it too (thousands at 10,000 cards, issue 16)."""
        grid, _rank = self._cards_near()
        return [
            item
            for key in grid.near(area)
            if (item := self.entity_items.get(key)) is not None
            and item.isVisible()
            and item.sceneBoundingRect().intersects(area)
        ]

    def _cards_near(self) -> tuple[SegmentGrid, dict[str, int]]:
        """The cards filed by their boxes, and their stacking rank (made when first asked after an edit)."""
        if self._card_grid is None:
            grid = SegmentGrid()
            for key, item in self.entity_items.items():
                grid.put_box(key, item.sceneBoundingRect())
            self._card_ranks = itertools.count()
            self._card_grid = grid, {key: next(self._card_ranks) for key in self.entity_items}
        return self._card_grid

    def line_at(self, pos: QPointF) -> RelationshipItem | None:
        """The topmost line (or badge) at ``pos``, from the lines the segment grid files near it (not the index,
        where thousands of long lines' boxes hold any point of a 10,000-card diagram)."""
        near = self.lines.grid.near(QRectF(pos.x() - TEXT_REACH, pos.y() - TEXT_REACH, 2 * TEXT_REACH, 2 * TEXT_REACH))
        order = self.lines.order
        for key in sorted(near, key=lambda k: order.get(k, 0), reverse=True):
            item = self.relationship_items.get(key)
            if item is not None and item.isVisible() and item.contains(item.mapFromScene(pos)):
                return item
        return None

    def hover_at(self, pos: QPointF | None) -> EntityItem | None:
        """The pointer is at ``pos`` (None: it left): the card there shows its handle, the one before no longer."""
        card = None if pos is None else self.entity_item_at(pos)
        key = card.entity_id if card is not None else None
        if key != self._hovered:
            before = self.entity_items.get(self._hovered) if self._hovered is not None else None
            if before is not None:
                before.set_hovered(False)
            if card is not None:
                card.set_hovered(True)
            self._hovered = key
        return card

    def selected_entity_ids(self) -> list[str]:
        """In model order; one selected card needs no order (the panels ask after every click: ranking 10,000
        entities each time cost ~15 ms; speed-only, bench_canvas click)."""
        ids = [i.entity_id for i in self.selectedItems() if isinstance(i, EntityItem)]
        if len(ids) < 2:
            return ids
        order = {e.id: i for i, e in enumerate(self.document.project.entities)}
        return sorted(ids, key=lambda k: order.get(k, 0))

    def selected_relationship_ids(self) -> list[str]:
        return [i.rel_id for i in self.selectedItems() if isinstance(i, RelationshipItem)]

    def select_only(self, entity_ids: list[str] = (), rel_ids: list[str] = ()) -> None:  # type: ignore[assignment]
        """Select exactly these (one fan-out of the change, not one for the clear and one per item)."""
        if self.building:
            # a finding's subject the build has not made yet (a card out of sight): just it is made now
            for key in entity_ids:
                self._build_card(key)
            for key in rel_ids:
                self._build_line(key)
        self._select_built = False
        super().clearSelection()
        for key in entity_ids:
            if key in self.entity_items:
                self.entity_items[key].setSelected(True)
        for key in rel_ids:
            if key in self.relationship_items:
                self.relationship_items[key].setSelected(True)
        self.settle_selection()

    def model_position(self, entity_id: str) -> QPointF:
        """Where the model puts a card: its layout entry, or a derived default spot."""
        position = self.document.position(entity_id)
        if position is not None:
            return QPointF(position.x, position.y)
        index = next((i for i, e in enumerate(self.document.project.entities) if e.id == entity_id), 0)
        return QPointF(*default_spot(index))

    def moved_positions(self, among: Iterable[str] | None = None) -> dict[str, Position]:
        """Cards (of ``among``; None: all) whose on-screen position differs from the model (a drag in progress or
        just released)."""
        out: dict[str, Position] = {}
        for key in self.entity_items if among is None else among:
            item = self.entity_items.get(key)
            if item is not None and item.pos() != self.model_position(key):
                out[key] = Position(x=round(item.pos().x(), 1), y=round(item.pos().y(), 1))
        return out

    def card_sizes(self) -> dict[str, tuple[float, float]]:
        """Every card's size: as drawn, and (a progressive build) those not made yet as the build will make them (an
        auto-layout during the build laid them out at a default size, and they overlapped once built)."""
        sizes = {key: (item.rect().width(), item.rect().height()) for key, item in self.entity_items.items()}
        if self.building:
            for entity in self.document.project.entities:
                if entity.id not in sizes:
                    sizes[entity.id] = entity_card_size(self.style, entity)
        return sizes

    def content_rect(self) -> QRectF:
        """What the diagram covers; while a progressive build runs, where its cards will be."""
        if self.building:
            return self._planned_rect()
        rect = QRectF()
        for item in self.entity_items.values():
            rect = rect.united(item.sceneBoundingRect())
        for item in self.relationship_items.values():
            rect = rect.united(item.sceneBoundingRect())
        return rect

    def _planned_rect(self) -> QRectF:
        """The cards' model positions with the widest card's size: no item needed (they may not exist yet)."""
        layout = self.document.project.layout
        xs: list[float] = []
        ys: list[float] = []
        for index, entity in enumerate(self.document.project.entities):
            position = layout.get(entity.id)
            x, y = default_spot(index) if position is None else (position.x, position.y)
            xs.append(x)
            ys.append(y)
        if not xs:
            return QRectF()
        # plain numbers, not a QRectF per card: at 10,000 entities the unions took 0.3 s of the first frame
        left, top = min(xs), min(ys)
        width = max(xs) - left + self.style.max_width
        return QRectF(left, top, width, max(ys) - top + self.style.header_height * 3)

    # ------------------------------------------------------------ analysis
    def set_analysis(self, analysis: Any) -> None:
        """Show the engine's resolved strategies in the badges of ``auto`` relationships.

        Only lines whose badge or tooltip changed are redrawn: those in sight at once, the others in
        slices from the event loop when there are many (the first analysis of a 10,000-entity project changes all 15,000
        badges, about two seconds of text layout that held the window when done in one go).
        """
        self.finish_arranging()  # the turn shows the design it started with, then this one's changes
        design = getattr(analysis, "design", None)
        self._design, self._shapes = design, None
        old, old_list = self._designs, self._design_list
        new_list = list(getattr(design, "relationships", []))
        self._designs, self._design_list = {r.id: r for r in new_list}, new_list

        def shown(resolved: Any) -> tuple[Any, Any]:
            return getattr(resolved, "strategy", None), getattr(resolved, "why", None)

        if old and len(old) == len(old_list) == len(new_list):
            # edit -> findings <= 200 ms at 10,000 entities: an incremental analysis keeps the designs of the
            # relationships it did not touch (same objects), so only the replaced ones can show another badge
            replaced = list(map(operator.is_not, old_list, new_list))
            changed = [*itertools.compress(old_list, replaced), *itertools.compress(new_list, replaced)]
            candidates: Iterable[str] = {r.id for r in changed}
        else:
            candidates = self.relationship_items
        self._badges_due.update(
            rel_id
            for rel_id in candidates
            if rel_id in self.relationship_items and shown(old.get(rel_id)) != shown(self._designs.get(rel_id))
        )
        with collector_paused():
            now = self._badges_due if len(self._badges_due) <= BADGES_AT_ONCE else self._in_sight(self._badges_due)
            for rel_id in list(now):
                self._refresh_relationship(rel_id)
        if self._badges_due:
            self._badge_timer.start()
        if self.documents_view:
            self._show_documents(self._documents_changed())

    def _in_sight(self, rel_ids: set[str]) -> list[str]:
        """Those of ``rel_ids`` whose lines a view shows now (the scene's index finds them)."""
        found: list[str] = []
        for view in self.views():
            area = view.mapToScene(view.viewport().rect()).boundingRect()
            for item in self.items(area, Qt.ItemSelectionMode.IntersectsItemBoundingRect):
                if isinstance(item, RelationshipItem) and item.rel_id in rel_ids:
                    found.append(item.rel_id)
        return found

    def _refresh_badges_slice(self) -> None:
        """Redraw the badges still out of date, for at most :data:`SLICE_S`; the rest in the next slice."""
        deadline = time.perf_counter() + SLICE_S
        with collector_paused():
            while self._badges_due and time.perf_counter() < deadline:
                self._refresh_relationship(next(iter(self._badges_due)))
        if self._badges_due:
            self._badge_timer.start()

    @property
    def badges_pending(self) -> bool:
        """True while lines out of sight still show the badges of an earlier analysis."""
        return bool(self._badges_due)

    def finish_badges(self) -> None:
        """Redraw every badge still out of date now (a test or a screenshot needs them all)."""
        with collector_paused():
            while self._badges_due:
                self._refresh_relationship(next(iter(self._badges_due)))

    def highlight_query(self, entity_ids: Iterable[str] = (), rel_ids: Iterable[str] = ()) -> None:
        """Mark the cards and lines a selected query touches; empty arguments clear the marks.

        Separate from the selection: selecting a query does not change what is selected on the canvas.
        """
        entities, rels = set(entity_ids), set(rel_ids)
        # only the cards and lines marked before or now (a card or line is made unmarked)
        was_entities, was_rels = self._query_marked
        self._query_marked = (entities, rels)
        for entity_id in entities | was_entities:
            item = self.entity_items.get(entity_id)
            if item is not None:
                item.set_query_highlight(entity_id in entities)
        for rel_id in rels | was_rels:
            line = self.relationship_items.get(rel_id)
            if line is not None:
                line.set_query_highlight(rel_id in rels)

    def query_highlighted(self) -> tuple[set[str], set[str]]:
        """(entity ids, relationship ids) marked by ``highlight_query`` (tests and the status bar read this)."""
        return (
            {i for i, item in self.entity_items.items() if item.query_highlight},
            {i for i, line in self.relationship_items.items() if line.query_highlight},
        )

    def badge(self, rel: Relationship) -> tuple[str, bool]:
        """Badge text and whether the user chose it: ``embed`` (user) or ``auto → parent-ref`` (engine)."""
        if rel.strategy != "auto":
            return rel.strategy, True
        resolved = self._designs.get(rel.id)
        if resolved is not None and getattr(resolved, "strategy", None):
            return f"auto → {resolved.shown}", False
        return "auto", False

    # ------------------------------------------------------------ documents view
    def set_documents_view(self, on: bool) -> bool:
        """Show collections as stored (True) or entities (False); the model positions stay (documents.py).

        Returns False when there is no analysis yet to show documents from (the view stays as it was).
        """
        if on and self._design is None:
            return False
        self.cancel_arranging()  # a turn still running goes back first
        spread_before = self.card_spread
        self.documents_view = on
        if on:
            self.card_spread = Spread()  # the view turned on shows the full spread of the model as it is
        if self.building or len(self.entity_items) <= SYNC_BUILD_MAX:
            self._show_documents()
            return True
        self._arrangement = Arrangement(self, on, spread_before)
        # the views show the diagram as it was until the turn ends: repainted between the slices, the whole diagram
        # at fit zoom was drawn about 700 times at 10,000 cards (more CPU than the turn itself)
        for view in self.views():
            view.viewport().setUpdatesEnabled(False)
        self.arrange_progress.emit(0, self._arrangement.total)
        self._arrange_timer.start(0)
        return True

    def _arranged(self, arrangement: Arrangement) -> None:
        """A turn ended (done, finished, cancelled or dropped): the views paint again, the status bar hears it."""
        arrangement.release()
        self._arrangement = None
        self._arrange_timer.stop()
        for view in self.views():
            view.viewport().setUpdatesEnabled(True)
            view.viewport().update()
        self.arrange_progress.emit(0, 0)

    @property
    def arranging(self) -> bool:
        """True while the view turns in steps (see :meth:`set_documents_view`)."""
        return self._arrangement is not None

    def _arrange_slice(self) -> None:
        arrangement = self._arrangement
        if arrangement is None:
            return
        if arrangement.run_slice(SLICE_S):
            self._arranged(arrangement)
        else:
            self.arrange_progress.emit(arrangement.count, arrangement.total)
            self._arrange_timer.start(0)

    def finish_arranging(self) -> None:
        """Turn the rest of the view now: an edit (or a test) meets the view as the turn leaves it."""
        arrangement = self._arrangement
        if arrangement is not None:
            self._arrangement = None  # an edit the turn's own steps cause does not finish it again
            self._arrange_timer.stop()
            arrangement.finish()
            self._arranged(arrangement)

    def cancel_arranging(self) -> bool:
        """Esc or Cancel while the view turns: the cards turned so far take the old look and place again."""
        arrangement = self._arrangement
        if arrangement is None:
            return False
        self._arrangement = None
        self._arrange_timer.stop()
        arrangement.stop()
        self.documents_view = not arrangement.on
        self.card_spread = arrangement.spread_before
        self._show_documents(arrangement.applied)
        self._arranged(arrangement)
        return True

    def stored_shapes(self) -> Any:
        """What the Documents view's cards show for the latest design (None before the first analysis)."""
        from modeller.ui.canvas.documents import StoredShapes  # the exporters' words: loaded on first use

        if self._shapes is None and self._design is not None:
            names = {e.id: e.name for e in self.document.project.entities}
            self._shapes = StoredShapes(self._design, names)
        return self._shapes

    def _documents_changed(self) -> list[str] | None:
        """The cards that may show otherwise with the latest design and names than they do (None: all)."""
        shapes = self.stored_shapes()
        changed = shapes.changed_since(self.shown_shapes) if shapes is not None else None
        if changed is None:
            return None
        # a card made by an edit since (it shows its entity until now) or gone
        changed.update(key for key, item in self.entity_items.items() if item.isVisible() != shapes.shows(key))
        return list(changed)

    def _show_documents(self, entity_ids: list[str] | None = None) -> None:
        """Show the given cards (all by default) as the view wants them; only the cards that changed size, place or
        visibility move and have their lines placed anew (one edit at 10,000 cards placed every line: seconds)."""
        from modeller.ui.canvas.documents import place_cards, show_as_stored

        shapes = self.stored_shapes() if self.documents_view else None
        self.shown_shapes = shapes
        keys = list(self.entity_items) if entity_ids is None else entity_ids
        before = {key: (item.isVisible(), item.rect()) for key in keys if (item := self.entity_items.get(key))}
        with self.cards_moving_together():  # a moved card's lines are placed once, at the end
            show_as_stored(self, shapes, keys, place=False)
            moved = place_cards(self, shapes is not None, entity_ids)
            changed = [
                key
                for key, (visible, rect) in before.items()
                if key not in moved
                and (item := self.entity_items.get(key))
                and (visible, rect) != (item.isVisible(), item.rect())
            ]
            shown = entity_ids is None or any(  # moved cards too: one hidden or shown may also have moved
                visible != self.entity_items[key].isVisible() for key, (visible, _rect) in before.items()
            )
            if shown:
                self.overview_stale()  # cards came or went: the overview's draw lists are made anew
            for key in changed:
                self.entity_item_moved(key)  # the card changed size: its lines follow; lines to a hidden card hide
        if moved or changed:
            self.cards_spread.emit(self.cards_rect([*moved, *changed]))
        if shown and self.overview:
            self.update()

    def cards_rect(self, entity_ids: Iterable[str]) -> QRectF:
        """The scene area the shown cards of ``entity_ids`` cover (what ``cards_spread`` tells the view)."""
        rect = QRectF()
        for key in entity_ids:
            item = self.entity_items.get(key)
            if item is not None and item.isVisible():
                rect = rect.united(item.sceneBoundingRect())
        return rect

    # ------------------------------------------------------------ overview (far zoomed out)
    def set_overview(self, on: bool) -> None:
        """At tiny zoom, thousands of per-item Python paints cost more than a frame: draw in bulk instead."""
        if on == self.overview:
            return
        self.overview = on
        for item in [*self.entity_items.values(), self.lines]:
            item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, on)
        # the other mode's pictures are drawn anew when it returns (another zoom): free them now
        (self.lines.pictures if on else self._overview_painter).clear()
        self.update()

    def _overview_geometry(self) -> tuple[list[QLineF], list[QRectF], list[QRectF]]:
        """The draw lists as lists (tests read them); a moved card refreshes only its own entries."""
        self._overview_dicts()
        if self._overview_repack:
            self._pack_overview()
        assert self._overview_cache is not None
        return self._overview_cache

    def _overview_dicts(self) -> None:
        """Make the draw dicts hold every shown card and line (anew from the items after an edit).

        A move changes its card's entries only, and the overview draws that card over its picture: the
        pictures are drawn anew only when the dicts changed otherwise (``_overview_cache`` is None then).
        """
        if self._overview_cache is not None:
            return
        if self._overview_current:
            self._overview_painter.clear()  # the lists changed: so does what the pictures show
        else:
            self._overview_current = True
            self._overview_lines = {
                key: i.chord for key, i in self.relationship_items.items() if i.chord is not None and i.isVisible()
            }
            self._overview_boxes = {key: i.scene_rect() for key, i in self.entity_items.items() if i.isVisible()}
            head = self.style.header_height
            self._overview_heads = {
                key: QRectF(r.x(), r.y(), r.width(), head) for key, r in self._overview_boxes.items()
            }
            self._overview_painter.reset(self._overview_boxes)
        self._pack_overview()

    def overview_stale(self) -> None:
        """Cards or lines came or went: the overview's draw lists are made anew from the items."""
        self._overview_cache = None
        self._overview_current = False

    def _overview_grown(self, was_current: bool, entity_id: str | None = None, rel_id: str | None = None) -> None:
        """A build step added one card or placed one line: extend the draw lists instead of recomputing them."""
        if not was_current:
            return
        if entity_id is not None:
            rect = self.entity_items[entity_id].scene_rect()
            self._overview_boxes[entity_id] = rect
            self._overview_heads[entity_id] = QRectF(rect.x(), rect.y(), rect.width(), self.style.header_height)
            self._overview_painter.added(entity_id, rect)
        if rel_id is not None:
            item = self.relationship_items[rel_id]
            if item.chord is not None and item.isVisible():
                self._overview_lines[rel_id] = item.chord
        self._overview_cache = None
        self._overview_current = True

    def _pack_overview(self) -> None:
        self._overview_repack = False
        self._overview_cache = (
            list(self._overview_lines.values()),
            list(self._overview_boxes.values()),
            list(self._overview_heads.values()),
        )

    def _overview_moved(self, entity_id: str, attached: list[str]) -> None:
        if not self._overview_current:
            return  # the draw lists are rebuilt from the items when next painted
        item = self.entity_items.get(entity_id)
        if item is None:
            self.overview_stale()
            return
        if not item.isVisible():
            return
        rect = item.scene_rect()
        self._overview_boxes[entity_id] = rect
        self._overview_heads[entity_id] = QRectF(rect.x(), rect.y(), rect.width(), self.style.header_height)
        self._overview_painter.moved(entity_id, rect)
        for rel_id in attached:
            chord = self.relationship_items[rel_id].chord
            if chord is not None:
                self._overview_lines[rel_id] = chord
        self._overview_repack = True

    def paint_overview(self, painter: QPainter, exposed: QRectF, widget: QWidget | None = None) -> None:
        """Boxes, header bands and lines of the whole diagram: ``widget``'s picture of them (``overview.py``) and
        the cards moved lately over it, then the selection."""
        colors = self.style.colors
        self._overview_dicts()
        self._overview_painter.paint(
            painter, widget, self._overview_lines, self._overview_boxes, self.lines.grid, self._attached
        )
        selected = self.selectedItems()
        if selected:
            painter.save()
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(QPen(colors.selection, 0))
            for item in selected:
                if isinstance(item, EntityItem):
                    painter.drawRect(item.scene_rect())
                elif isinstance(item, RelationshipItem) and item.chord is not None:
                    painter.drawLine(item.chord)
            painter.restore()

    # ------------------------------------------------------------ snapping and moving
    def snap(self, item: QGraphicsItem, value: Any) -> Any:
        if self.user_moving and self.snap_to_grid and isinstance(value, QPointF):
            grid = self.style.grid
            return QPointF(round(value.x() / grid) * grid, round(value.y() / grid) * grid)
        return value

    @contextmanager
    def cards_moving_together(self) -> Iterator[None]:
        """Many cards change place or size at once (the Documents view turned on or off): each of their lines is
        placed once, at the end, not once per card at its ends as each card moves (turning the view on at 2,000
        cards placed lines 10,600 times for 3,000 lines: seconds)."""
        if self._moving_together is not None:
            yield
            return
        moved: dict[str, None] = {}
        try:
            with self.moves_collected(moved):
                yield
        finally:
            with self.lines.many_changing():  # filed once each, at the end (a fresh grid when most moved)
                for rel_id in self.lines_of(moved):
                    self.place_relationship(rel_id)
            for key in moved:
                self._overview_moved(key, list(self._attached.get(key, ())))
            if moved and self.overview:
                self.update()

    @contextmanager
    def moves_collected(self, moved: dict[str, None]) -> Iterator[None]:
        """The cards that move or change size inside are filed in ``moved``; their lines stay where they are until
        the caller places them (:meth:`lines_of`), once each."""
        self._moving_together = moved
        try:
            yield
        finally:
            self._moving_together = None

    def lines_of(self, entity_ids: Iterable[str]) -> list[str]:
        """The lines at the given cards, each once."""
        return list(dict.fromkeys(rel_id for key in entity_ids for rel_id in self._attached.get(key, ())))

    def entity_item_moved(self, entity_id: str) -> None:
        card = self.entity_items.get(entity_id)
        if self._card_grid is not None and card is not None:
            self._card_grid[0].put_box(entity_id, card.sceneBoundingRect())
        if self._moving_together is not None:
            self._moving_together[entity_id] = None
            return
        attached = list(self._attached.get(entity_id, ()))
        dirty = QRectF()
        if self.overview:
            # items without contents do not invalidate their area: name it ourselves, starting with where the
            # overview last drew the card (its draw list) and the lines
            dirty = self._overview_boxes.get(entity_id, QRectF())
            for rel_id in attached:
                dirty = dirty.united(self.relationship_items[rel_id].sceneBoundingRect())
        for rel_id in attached:
            self.place_relationship(rel_id, moving=True)
        self._overview_moved(entity_id, attached)
        item = self.entity_items.get(entity_id)
        if self.overview and item is not None:
            dirty = dirty.united(item.scene_rect())
            for rel_id in attached:
                dirty = dirty.united(self.relationship_items[rel_id].sceneBoundingRect())
            self.update(dirty.adjusted(-4, -4, 4, 4))

    # ------------------------------------------------------------ document signals
    def rebuild(self) -> None:
        """Recreate every item: at once for small projects, else in slices from the event loop.

        A slice holds the UI thread about :data:`SLICE_S`, so a 10,000-entity open keeps the window
        answering (pan, zoom, select what is there) while the cards arrive; ``built`` says when all are in.
        Geometry of the lines is computed before they enter the scene (one index update each).
        """
        self._build_steps = None
        self._build_timer.stop()
        if self._arrangement is not None:  # the items it turns go: it ends where it is
            self._arrangement.stop()
            self._arranged(self._arrangement)
        with collector_paused():
            self._building = False
            self._selected_lines = set()
            self._select_built = False
            self.clear()
            self.lines = LineLayer(self.style)
            self._texts = TextGrid()
            self.lines.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, self.overview)
            self.addItem(self.lines)
            self.entity_items.clear()
            self.relationship_items.clear()
            self._attached.clear()
            self._ends.clear()
            self._pairs = None
            self._designs.clear()
            self._badges_due.clear()
            self._order = {}
            self.overview_stale()
            self._card_grid = None  # filed anew when next asked (edits keep it up to date: see entity_item_moved)
            self.card_spread = Spread()
            self.shown_shapes = None
            project = self.document.project
            self.setBspTreeDepth(index_depth(len(project.entities) + len(project.relationships)))
        self._build_steps = self._build()
        self.in_view_done = False
        if len(self.document.project.entities) <= SYNC_BUILD_MAX:
            self.finish_build()
        else:
            self._build_timer.start(0)

    @property
    def building(self) -> bool:
        """True while a progressive rebuild is still adding items."""
        return self._build_steps is not None

    def finish_build(self) -> None:
        """Run what is left of a progressive rebuild now (Select All, a test or a benchmark needs every item)."""
        steps, self._build_steps = self._build_steps, None
        if steps is None:
            return
        self._build_timer.stop()
        with collector_paused():
            for _ in steps:
                pass
        self._build_done()

    def _build_done(self) -> None:
        """Every item is in: in the Documents view the collection cards are spread apart (once), then the lines
        settle and the window hears it."""
        if self.documents_view:
            self.card_spread = Spread()  # as a fresh open shows it, not as the cards built first were spread
            self._show_documents()
        self.lines.settle()
        if self._select_built:  # a Select All during the build: every card and line is in it now
            self._select_built = False
            self._fan_out_selection()
        self.built.emit()

    def set_background_busy(self, busy: bool) -> None:
        """An analysis started or ended in the background: the cards out of sight wait until it ends.

        Both share one interpreter, and the findings (DESIGN.md "Performance targets": open -> findings)
        wait for the analysis, not for cards nobody sees yet; a card scrolled into sight is built at once.
        """
        self.background_busy = busy
        if not busy and self.building and self.in_view_done:
            self._build_timer.start(0)

    def sight_changed(self) -> None:
        """A view scrolled or zoomed: during a rebuild the cards now in sight (and their lines) are built next."""
        if self.building and not self._sight_moved:
            self._sight_moved = True
            self.in_view_done = False
            self._build_timer.start(0)

    def _waiting(self) -> bool:
        """Is the build at its cards out of sight while an analysis runs (it waits for the analysis)?"""
        return self.in_view_done and self.background_busy

    def _build_slice(self) -> None:
        steps = self._build_steps
        if steps is None or self._waiting():
            return  # finished by an edit, replaced by another rebuild, or waiting for the findings
        deadline = time.perf_counter() + SLICE_S
        with collector_paused():
            for _ in steps:
                # the slice ends at its deadline, or as the cards in sight are done while an analysis runs
                if time.perf_counter() >= deadline or self._waiting():
                    if not self._waiting():
                        self._build_timer.start(0)
                    return
        if self._build_steps is steps:
            self._build_steps = None
            self._build_done()

    def _build(self) -> Iterator[None]:
        """The rebuild as small steps: first the cards in sight with their lines, then the others.

        Decided at the first step, when the window has placed the view (an open shows the top-left corner of a
        large model), and again whenever a view moves before the end (sight_changed). Each part adds its cards,
        then its lines, then places them; a line between two cards goes with the part of either card in sight, so
        the lanes of lines between the same cards are placed together. The parts name ids: what an edit changed
        meanwhile is made as the model is then, what it made is skipped.
        """
        project = self.document.project
        self._renumber()
        yield  # each pass over 10,000 entities or 15,000 lines is a step of its own: together they held the UI
        # thread 60-90 ms in one step at 10,000 entities (issue 16)
        self._sight_moved = False
        near = yield from self._near_view_steps(project)
        if near is None:
            yield from self._build_part([e.id for e in project.entities], [r.id for r in project.relationships])
            self._in_view_finished()
            return
        lines = {r.id: r for r in project.relationships}
        yield
        yield from self._build_in_sight(project, near, lines)
        yield
        # the others: a view moved meanwhile has the cards it shows built first (sight_changed)
        for entity in project.entities:
            yield from self._build_moved_sight(lines)
            yield from self._build_part([entity.id], ())
        # the lanes between the same two cards are placed together
        pairs: dict[frozenset[str], list[Relationship]] = {}
        for r in lines.values():
            pairs.setdefault(frozenset((r.one, r.many)), []).append(r)
        chunks: list[list[Relationship]] = [[]]
        for lanes in pairs.values():
            if len(chunks[-1]) >= LINES_PER_LOOK:
                chunks.append([])
            chunks[-1] += lanes
        for chunk in chunks:
            yield from self._build_moved_sight(lines)
            yield from self._build_part((), [r.id for r in chunk if lines.pop(r.id, None) is not None])

    def _build_in_sight(self, project: Any, near: set[str], lines: dict[str, Relationship]) -> Iterator[None]:
        """The cards of ``near`` not built yet and the lines touching them (taken from ``lines``), with the cards
        at their other ends, so what is in sight is whole."""
        first = [r for r in lines.values() if r.one in near or r.many in near]
        for r in first:
            del lines[r.id]
        yield
        ends = near.union(*((r.one, r.many) for r in first))
        cards = [e.id for e in project.entities if e.id in ends]
        yield
        yield from self._build_part(cards, [r.id for r in first])
        self._in_view_finished()

    def _build_moved_sight(self, lines: dict[str, Relationship]) -> Iterator[None]:
        """After a view moved (sight_changed): build what it now shows, before the others."""
        if not self._sight_moved:
            return
        self._sight_moved = False
        project = self.document.project
        near = yield from self._near_view_steps(project)
        yield from self._build_in_sight(project, near if near is not None else {e.id for e in project.entities}, lines)

    def _in_view_finished(self) -> None:
        self.in_view_done = True
        self.in_view_built.emit()

    def _near_view_steps(self, project: Any) -> Generator[None, None, set[str] | None]:
        """Ids of the cards whose model position is in or near what a view shows (None when that is all of them),
        worked out in steps of :data:`NEAR_VIEW_STEP` entities; the area is the views' as the first step began."""
        area = QRectF()
        for view in self.views():
            area = area.united(view.mapToScene(view.viewport().rect()).boundingRect())
        if area.isEmpty():
            return None
        area = area.adjusted(-self.style.max_width - SIGHT_MARGIN, -SIGHT_MARGIN, SIGHT_MARGIN, SIGHT_MARGIN)
        left, top, right, bottom = area.left(), area.top(), area.right(), area.bottom()
        layout = project.layout
        near: set[str] = set()
        entities = project.entities
        for start in range(0, len(entities), NEAR_VIEW_STEP):
            if start:
                yield
            for index, entity in enumerate(entities[start : start + NEAR_VIEW_STEP], start):
                position = layout.get(entity.id)
                x, y = default_spot(index) if position is None else (position.x, position.y)
                if left <= x <= right and top <= y <= bottom:
                    near.add(entity.id)
        return None if len(near) == len(entities) else near

    def _build_part(self, entity_ids: Iterable[str], rel_ids: Iterable[str]) -> Iterator[None]:
        """Cards (each enters the scene at once), then lines, then their places; those an edit made are skipped."""
        # a far zoomed-out view repaints after every slice: its draw lists grow with the items, never rebuilt
        for key in entity_ids:
            if key in self.entity_items:
                continue  # made by an edit that needed it (see _build_card)
            current = self._overview_current
            self._build_card(key)
            card = self.entity_items.get(key)
            if card is not None and card.isVisible():
                self._overview_grown(current, entity_id=key)
            yield
        added: list[str] = []
        for rel_id in rel_ids:
            if rel_id in self.relationship_items:
                continue  # made (and placed) by an edit
            current = self._overview_current
            self._building = True
            self._relationship_added(rel_id)
            self._building = False
            self._overview_current = current  # a line enters the lists once placed
            added.append(rel_id)
            yield
        for start in range(0, len(added), LINES_PER_STEP):
            # a few lines per step, filed by the line layer together (see LineLayer.add_placed)
            placed = [item for rel_id in added[start : start + LINES_PER_STEP] if (item := self._place_new(rel_id))]
            current = self._overview_current
            self.lines.add_placed(placed)
            for item in placed:
                self._overview_grown(current, rel_id=item.rel_id)
            yield

    def _place_new(self, rel_id: str) -> RelationshipItem | None:
        """Place a line made by the build and add it to the scene (the line layer files it next); None when an
        edit removed it, or made it anew and placed it, since."""
        item = self.relationship_items.get(rel_id)
        if item is None or item.scene() is not None:
            return None
        self.place_relationship(rel_id)
        self.addItem(item)
        if self._select_built:
            self._join_selection(item)
        return item

    def _build_card(self, entity_id: str) -> None:
        """Make the card of ``entity_id`` if a progressive build has not made it yet: the build's next card, or one
        an edit's line ends at or a finding names (that card now, not the rest of the build)."""
        if entity_id in self.entity_items:
            return
        self._entity_added(entity_id)
        card = self.entity_items.get(entity_id)
        if self._select_built and card is not None:
            self._join_selection(card)
        if self.documents_view and entity_id in self.entity_items:
            from modeller.ui.canvas.documents import show_as_stored

            # it shows its collection as stored (or hides inside another's), as the cards made before it do; the
            # cards are spread apart once, when the build ends (_build_done), not once per card
            show_as_stored(self, self.stored_shapes(), [entity_id], place=False)

    def _build_line(self, rel_id: str) -> None:
        """Make and show the line of ``rel_id`` (and its cards) now if a progressive build has not yet."""
        item = self.relationship_items.get(rel_id)
        if item is None:
            self._relationship_added(rel_id)
        elif self._place_new(rel_id) is not None:  # made by the build, waiting for its place
            self.lines.refresh(item)

    def _renumber(self) -> None:
        self._order = {r.id: i for i, r in enumerate(self.document.project.relationships)}
        self.lines.order = self._order

    def _entity_added(self, entity_id: str) -> None:
        self.finish_arranging()
        self.overview_stale()
        if self.overview:
            self.update()
        entity = self.document.entity(entity_id)
        if entity is None:
            return
        item = EntityItem(entity_id, self.style)
        if self.overview:
            item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        item.set_entity(entity)
        self.entity_items[entity_id] = item  # its set in _attached comes with its first line
        item.setPos(self.model_position(entity_id))
        if self._card_grid is not None:
            self._card_grid[0].put_box(entity_id, item.sceneBoundingRect())
            self._card_grid[1][entity_id] = next(self._card_ranks)  # on top of those added before it, as in Qt
        if not self._building:
            self.addItem(item)

    def _entity_removed(self, entity_id: str) -> None:
        self.finish_arranging()
        self.overview_stale()
        if self.overview:
            self.update()
        item = self.entity_items.pop(entity_id, None)
        if item is not None:
            self.removeItem(item)
        self.card_spread.update({entity_id: None}, every=False)  # its room in the Documents view is free
        if self._card_grid is not None:
            self._card_grid[0].drop(entity_id)
        for rel_id in list(self._attached.pop(entity_id, ())):
            self._detach(rel_id)
        # entities without a stored position take their spot from the list order
        for key, other in self.entity_items.items():
            if self.document.position(key) is None:
                other.setPos(self.model_position(key))

    def _entity_changed(self, entity_id: str) -> None:
        self.finish_arranging()
        self.overview_stale()
        item = self.entity_items.get(entity_id)
        entity = self.document.entity(entity_id)
        if item is None or entity is None:
            return
        item.set_entity(entity)
        if self.documents_view:
            self._shapes = None  # names may have changed: the cards showing its name too
            changed = self._documents_changed()  # as of the latest analysis; the next one brings it up to date
            self._show_documents(None if changed is None else [entity_id, *(k for k in changed if k != entity_id)])
        for rel_id in list(self._attached.get(entity_id, ())):
            self._refresh_relationship(rel_id)
        self.entity_item_moved(entity_id)  # the card may have changed size

    def _relationship_added(self, rel_id: str) -> None:
        self.finish_arranging()
        self.overview_stale()
        if self.overview:
            self.update()
        rel = self.document.relationship(rel_id)
        if rel is None:
            return
        if not self._building:  # an edit (the build's lines are filed from the model at its start)
            if self._pairs is not None:
                self._pairs.put(rel)
            self._build_card(rel.one)  # while a progressive build runs, a card it has not made yet
            self._build_card(rel.many)
        item = RelationshipItem(rel_id, self.style)
        self.relationship_items[rel_id] = item
        if not self._building:
            self.addItem(item)
        self._attach(rel)
        if self._building:
            item.set_relationship(rel, *self.badge(rel))
            return
        self._renumber()
        self._refresh_relationship(rel_id)
        self._place_siblings(rel.one, rel.many)

    def _attach(self, rel: Relationship) -> None:
        self._detach(rel.id)
        self._ends[rel.id] = (rel.one, rel.many)
        for end in (rel.one, rel.many):
            self._attached.setdefault(end, set()).add(rel.id)

    def _detach(self, rel_id: str) -> tuple[str, str] | None:
        ends = self._ends.pop(rel_id, None)
        if ends is not None:
            for end in ends:
                self._attached.get(end, set()).discard(rel_id)
        return ends

    def _relationship_removed(self, rel_id: str) -> None:
        self.finish_arranging()
        self.overview_stale()
        if self.overview:
            self.update()
        item = self.relationship_items.pop(rel_id, None)
        self.lines.forget(rel_id)
        self._texts.forget(rel_id)
        self._selected_lines.discard(rel_id)
        if item is not None and item.scene() is self:  # (one the build made but has not placed is not in it)
            self.removeItem(item)
        ends = self._detach(rel_id)
        if self._pairs is not None:
            ends = self._pairs.drop(rel_id) or ends  # a line not made yet leaves a gap among those beside it too
        self._renumber()
        if ends is not None:
            # the remaining relationships between the same cards close the gap
            self._place_siblings(*ends)

    def _relationship_changed(self, rel_id: str) -> None:
        self.finish_arranging()
        self.overview_stale()
        rel = self.document.relationship(rel_id)
        if rel is None:
            return
        old = self._pairs.put(rel) if self._pairs is not None else self._ends.get(rel_id)
        if rel_id not in self.relationship_items:
            self._relationship_added(rel_id)  # a line a progressive build has not made yet: made now, with its cards
        else:
            self._build_card(rel.one)  # re-pointed to a card the build has not made yet
            self._build_card(rel.many)
            self._attach(rel)
            self._refresh_relationship(rel_id)
        if old is not None:
            self._place_siblings(*old)
        self._place_siblings(rel.one, rel.many)

    def _layout_changed(self, entity_ids: list[str]) -> None:
        self.finish_arranging()
        if self.documents_view:
            from modeller.ui.canvas.documents import place_cards

            # the cards take their spread spots: they and the cards they now cover move, no other
            moved = place_cards(self, True, [key for key in entity_ids if key in self.entity_items])
            if moved:
                self.cards_spread.emit(self.cards_rect(moved))
            return
        for key in entity_ids:
            item = self.entity_items.get(key)
            if item is not None:
                item.setPos(self.model_position(key))

    # ------------------------------------------------------------ relationship drawing
    def relationship_tip(self, rel_id: str) -> str:
        """A line's tooltip, made when asked: which cards, cardinality, strategy and the engine's reason."""
        rel = self.document.relationship(rel_id)
        if rel is None:
            return ""
        badge, by_user = self.badge(rel)
        tip = f"{describe(self.document, rel)}: {rel.cardinality}\nstrategy: {badge}"
        why = getattr(self._designs.get(rel.id), "why", "")
        if why and not by_user:
            tip += f"\n{why}"
        return tip

    def helpEvent(self, event: QGraphicsSceneHelpEvent) -> None:
        """Cards and lines make their tooltips when the pointer rests on them (none is stored per item)."""
        pos = event.scenePos()
        item: EntityItem | RelationshipItem | None = self.entity_item_at(pos) or self.line_at(pos)
        text = item.toolTip() if item is not None else ""
        if text:
            QToolTip.showText(event.screenPos(), text, event.widget())
        else:
            QToolTip.hideText()
        event.setAccepted(bool(text))

    def _refresh_relationship(self, rel_id: str) -> None:
        self._badges_due.discard(rel_id)
        rel = self.document.relationship(rel_id)
        item = self.relationship_items.get(rel_id)
        if rel is None or item is None:
            return
        item.set_relationship(rel, *self.badge(rel))
        if rel_id in self._texts:
            # a new badge text: its box changed size where it is ("auto" became "auto → parent-ref" over the
            # label of a line beside it, a14 tryout); covering another's texts now, it slides off them
            if self._texts_covered(item, self._end_rects(item)):
                self._keep_texts_apart(item)
            else:
                self._texts.file(rel_id, item.text_boxes())

    def _siblings(self, one: str, many: str) -> list[str]:
        """Relationships between the same two cards (either direction), in model order, whether a progressive
        build has made their lines yet or not (a lane is placed once, among all of them)."""
        if self._pairs is None:
            self._pairs = LinePairs(self.document.project.relationships)
        return sorted(self._pairs.between(one, many), key=lambda key: self._order.get(key, 0))

    def _place_siblings(self, one: str, many: str) -> None:
        for rel_id in self._siblings(one, many):
            self.place_relationship(rel_id)

    def place_relationship(self, rel_id: str, moving: bool = False) -> None:
        item = self.relationship_items.get(rel_id)
        ends = self._ends.get(rel_id)
        if item is None or ends is None or self._building:
            return
        one, many = self.entity_items.get(ends[0]), self.entity_items.get(ends[1])
        if one is None or many is None or not (one.isVisible() and many.isVisible()):
            item.setVisible(False)  # a missing card, or (Documents view) one stored inside another
            self._texts.forget(rel_id)  # the text grid holds the lines shown only
            self.lines.refresh(item)
            return
        item.setVisible(True)
        siblings = self._siblings(*ends)
        index = siblings.index(rel_id) if rel_id in siblings else 0
        with item.changing(moving):  # the index and the layer hear of the line once, placed and its texts slid
            if ends[0] == ends[1]:
                item.set_geometry(one.scene_rect(), one.scene_rect(), 0.0, loop=index)
                return
            lane = index - (len(siblings) - 1) / 2
            if ends[0] > ends[1]:  # lanes are counted in one direction for both orientations
                lane = -lane
            item.set_geometry(one.scene_rect(), many.scene_rect(), lane)
            self._keep_texts_apart(item)

    def _keep_texts_apart(self, item: RelationshipItem) -> None:
        """Slide a line's badge and label along it to the first spot where they cover no other line's and
        neither end card (two lines crossing near their middles drew one's pill over the other's); none
        free: the middle. Lines' texts are found through a coarse grid of their own (the scene's index
        answers slower than the build places lines)."""
        self._texts.forget(item.rel_id)
        if not item.text_boxes():
            return
        ends = self._end_rects(item)
        for along in TEXT_SPOTS:
            if item.slide_texts(along) and not self._texts_covered(item, ends):
                break
        else:
            item.slide_texts(0.5)
        self._texts.file(item.rel_id, item.text_boxes())

    def _end_rects(self, item: RelationshipItem) -> list[QRectF]:
        return [
            self.entity_items[key].scene_rect() for key in self._ends.get(item.rel_id, ()) if key in self.entity_items
        ]

    def _texts_covered(self, item: RelationshipItem, cards: list[QRectF]) -> bool:
        boxes = item.text_boxes()
        if any(mine.intersects(card) for card in cards for mine in boxes):
            return True
        return self._texts.covered(boxes, item.rel_id)
