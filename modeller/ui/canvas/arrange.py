"""The Documents view turned on or off on a large diagram, in steps from the event loop (issue 16).

At 10,000 cards the turn held the window for seconds with nothing said. Here it runs in slices of about
``SLICE_S``, like the open's card build: first every card's new content and size (nothing shown changes yet), then
the spread, then the cards take their look and place, then their lines. The window answers meanwhile and the status
bar counts the cards; Esc or Cancel puts back the view there was.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from modeller.runtime.gc_pause import collector_paused, keep_long_lived
from modeller.ui.canvas.items.entity_item import content_rect
from modeller.ui.canvas.spread import Box, Spread

if TYPE_CHECKING:
    from modeller.ui.canvas.scene import CanvasScene


class Arrangement:
    """One turn of the view (``on``: to the Documents view) on ``scene``, run by :meth:`run_slice` until done."""

    def __init__(self, scene: CanvasScene, on: bool, spread_before: Spread) -> None:
        self.scene = scene
        self.on = on
        self.spread_before = spread_before
        self.total = len(scene.entity_items)
        #: the step running now (0: contents and sizes, 1: looks and places, 2: lines) and how far it is, in cards
        self.step = 0
        self.done = 0
        #: the cards that have taken the new look (Cancel gives them the old one back)
        self.applied: list[str] = []
        self._steps = self._run()
        # the collector stays off for the whole turn, slices and the event loop between them: on between the
        # slices, the turn's allocations set off full passes over the heap (10,000 cards: seconds of CPU more
        # than the turn); what the turn made leaves the collector's sight once, at its end (as the open's)
        self._paused = ExitStack()
        self._paused.enter_context(collector_paused())

    def release(self) -> None:
        """The turn is over (done or not): what it made is long-lived, and the collector runs again."""
        keep_long_lived()
        self._paused.close()

    @property
    def count(self) -> int:
        """How far the turn is, counted in cards (each of the three steps a third of them)."""
        return min(self.total, round((self.step * self.total + self.done) / 3))

    def run_slice(self, seconds: float) -> bool:
        """Run steps for about ``seconds``; True when the turn is done."""
        deadline = time.perf_counter() + seconds
        # each turn of the loop runs a step (``all()`` over the steps would hide that in a generator expression)
        for _ in self._steps:  # noqa: SIM110
            if time.perf_counter() >= deadline:
                return False
        return True

    def finish(self) -> None:
        """Run what is left now (an edit comes in: it meets the view as the turn leaves it)."""
        for _ in self._steps:
            pass

    def stop(self) -> None:
        """Leave the steps where they are (the cards and lines changed so far are filed: see ``_run``)."""
        self._steps.close()

    def _run(self) -> Iterator[None]:
        from modeller.ui.canvas.documents import DOCUMENT_CARD_WIDTH, card_box, card_place, show_as_stored

        scene = self.scene
        shapes = scene.stored_shapes() if self.on else None
        keys = list(scene.entity_items)
        # 1. the new content and size of each card, read without touching it
        boxes: dict[str, Box | None] = {}
        for index, key in enumerate(keys, 1):
            self.done = index
            content = shapes.content(key) if shapes is not None else None
            if content is not None:
                title, sub, rows, _tip = content
                rect = content_rect(scene.style, title, sub, rows, DOCUMENT_CARD_WIDTH)
                boxes[key] = card_box(scene, key, rect)
            else:
                boxes[key] = None
            yield
        # 2. where they go
        if self.on:
            scene.card_spread.update(boxes)
        scene.shown_shapes = shapes
        # 3. each card takes its look and place; its lines wait for step 4 (placed once, after every card moved)
        self.step, self.done = 1, 0
        moved: dict[str, None] = {}
        with scene.moves_collected(moved):
            for index, key in enumerate(keys, 1):
                self.done = index
                item = scene.entity_items.get(key)
                if item is None:
                    continue
                before = (item.isVisible(), item.rect())
                show_as_stored(scene, shapes, [key], place=False)
                at = card_place(scene, key, item.rect(), self.on)
                if item.pos() != at:
                    item.setPos(at)  # files the card in ``moved`` (CanvasScene.entity_item_moved)
                elif before != (item.isVisible(), item.rect()):
                    scene.entity_item_moved(key)  # another size, or hidden or shown: its lines follow
                self.applied.append(key)
                yield
        scene.overview_stale()  # cards came or went: the overview's draw lists are made anew
        # 4. the lines of the cards moved, filed in one go at the end
        self.step, self.done = 2, 0
        lines = scene.lines_of(moved)
        held = scene.lines.hold_many()
        filing: Iterator[None] | None = None
        try:
            for index, rel_id in enumerate(lines, 1):
                scene.place_relationship(rel_id)
                self.done = round(index * self.total / len(lines))
                yield
            if held:
                filing = scene.lines.file_held()
                for _ in filing:  # not ``yield from``: stopped here, the finally below files the rest
                    yield
        finally:  # stopped (Esc, a new project): what is placed is filed, so the layer draws it where it is
            if held:
                for _ in filing if filing is not None else scene.lines.file_held():
                    pass
        if scene.overview:
            scene.update()
        scene.cards_spread.emit(scene.cards_rect(moved))


class ArrangingStatus(QWidget):
    """``Arranging collection cards: 3,400 of 10,000…`` with a bar and Cancel (or Esc) while a turn runs."""

    #: Cancel or Esc put back the view there was
    cancelled = Signal()

    def __init__(self, scene: CanvasScene, window: QWidget) -> None:
        super().__init__(window)
        self.scene = scene
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setMaximumWidth(90)
        self.bar.setTextVisible(False)
        self.cancel_button = QToolButton()
        self.cancel_button.setText("Cancel")
        self.cancel_button.setToolTip("Stop and keep the view there was (Esc)")  # the window's one Esc calls cancel
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for widget in (self.label, self.bar, self.cancel_button):
            layout.addWidget(widget)
        scene.arrange_progress.connect(self.show_progress)
        self.hide()

    def show_progress(self, count: int, total: int) -> None:
        """The count of a turn running now; (0, 0): none runs."""
        if not total:
            self.hide()
            return
        what = "collection" if self.scene.documents_view else "entity"
        self.label.setText(f"Arranging {what} cards: {count:,} of {total:,}\u2026")
        self.bar.setRange(0, total)
        self.bar.setValue(count)
        self.show()

    def cancel(self) -> None:
        """Cancel or Esc: the view there was comes back (nothing when no turn runs)."""
        if self.scene.cancel_arranging():
            self.cancelled.emit()
