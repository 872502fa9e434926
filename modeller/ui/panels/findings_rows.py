"""The findings list: a tree view of one level whose rows are as tall as their wrapped text, asked only in sight.

A row is as wide as the list and as tall as its wrapped text, so each finding's first sentence shows
whole. A list view with rows of different heights asks every row for its height whenever it lays out:
after an open, and after every row inserted or removed by an edit (12,000 To-do rows at 10,000 entities,
~110 ms of the UI thread per edit even with a guessed height per row; issue 16). A tree view that scrolls
per row places its rows by count and asks the heights of the rows in sight only (and of the last screenful,
for the scroll bar's range), so a layout costs what is shown. Heights are remembered per text at the
list's width and font; a painted row whose remembered height is stale has the list laid out again.
Speed-only design serving "open -> findings" and "edit -> findings <= 200 ms" (DESIGN.md "Performance
targets").
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QRect, QSize, Qt
from PySide6.QtGui import QFontMetrics, QPainter
from PySide6.QtWidgets import QAbstractItemView, QStyledItemDelegate, QStyleOptionViewItem, QTreeView

AnyIndex = QModelIndex | QPersistentModelIndex


class WrappedRows(QStyledItemDelegate):
    """Rows as wide as the list and as tall as their wrapped text (see the module)."""

    #: room for the icon and the margins left of the text
    INDENT = 30

    #: heights remembered before the memo starts over (a few per finding text; texts repeat across analyses)
    KEEP = 100_000

    def __init__(self, view: QTreeView) -> None:
        super().__init__(view)
        self._view = view
        self._room: tuple[int, str] = (0, "")
        #: row text -> height at this width and font (``_room``); a header's text never reads like a finding's
        self._heights: dict[str, int] = {}
        self._one_line: dict[str, int] = {}
        #: rows whose height the view asked (tests read it: a layout asks the rows in sight, not all)
        self.asked = 0

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        self.asked += 1
        width = self._width(option)
        return QSize(width, self._measure(option, index, width))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        """Paint the row; a row laid out with another height (the list's width changed) lays the list out again."""
        height = self._measure(option, index, self._width(option))
        if height != option.rect.height():  # type: ignore[attr-defined]
            self.sizeHintChanged.emit(index)  # the view lays out again from the event loop (coalesced)
        super().paint(painter, option, index)

    def _width(self, option: QStyleOptionViewItem) -> int:
        width = max(50, self._view.viewport().width() - 2)
        room = (width, option.font.key())  # type: ignore[attr-defined]
        if room != self._room or len(self._heights) > self.KEEP:
            self._room = room
            self._heights.clear()
            self._one_line.clear()
        return width

    def _measure(self, option: QStyleOptionViewItem, index: AnyIndex, width: int) -> int:
        """The row's height from its wrapped text (remembered per text at this width and font)."""
        text = str(index.data(Qt.ItemDataRole.DisplayRole) or "")
        height = self._heights.get(text)
        if height is None:
            font = index.data(Qt.ItemDataRole.FontRole) or option.font  # type: ignore[attr-defined]
            box = QFontMetrics(font).boundingRect(
                QRect(0, 0, max(20, width - self.INDENT), 100_000), int(Qt.TextFlag.TextWordWrap), text
            )
            # the one-line height (icon, margins) per font: a header is bold, an overridden finding italic;
            # asking the base class for every row asked the model ten more questions per row
            base = self._one_line.get(font.key())
            if base is None:
                base = self._one_line[font.key()] = super().sizeHint(option, index).height()
            height = self._heights[text] = max(base, box.height() + 6)
        return height


class FindingsView(QTreeView):
    """The tree view of the findings: a changed row out of sight is not placed (see ``dataChanged``)."""

    def dataChanged(self, top_left: AnyIndex, bottom_right: AnyIndex, roles: Sequence[int] = ()) -> None:
        """A tree view places a changed row to repaint it, and placing a row below the rows in sight asks the
        height of every row between (a section header's count at the end of 12,000 rows, after each edit): a
        change out of sight is only noted, and its row measured again when painted (``WrappedRows.paint``)."""
        viewport = self.viewport()
        first, last = self.indexAt(QPoint(0, 0)), self.indexAt(QPoint(0, viewport.height() - 1))
        if first.isValid() and (
            top_left.row() > (last.row() if last.isValid() else self.model().rowCount() - 1)
            or bottom_right.row() < first.row()
        ):
            return
        super().dataChanged(top_left, bottom_right, roles)


def findings_view() -> tuple[QTreeView, WrappedRows]:
    """A one-level tree view with wrapped rows whose heights are asked in sight only (see the module)."""
    view = FindingsView()
    view.setHeaderHidden(True)
    view.setRootIsDecorated(False)
    view.setItemsExpandable(False)
    view.setIndentation(0)
    view.setUniformRowHeights(False)
    # per row: the scroll range counts rows (per pixel would ask every row its height)
    view.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerItem)
    view.setWordWrap(True)
    view.setTextElideMode(Qt.TextElideMode.ElideNone)
    view.header().setStretchLastSection(True)
    delegate = WrappedRows(view)
    view.setItemDelegate(delegate)
    return view, delegate
