"""How tall each row of the findings list is: measured for the rows shown, guessed for the others.

A row is as wide as the list and as tall as its wrapped text, so each finding's first sentence shows
whole. A list view with rows of different heights asks every row for its height before it can place
any, and measuring one means its text (the subject's label) and a font layout: after the first analysis
of a 10,000-entity project that was 12,000 To-do rows, about 2 s of the UI thread's CPU in 50-row batches
while the user saw twenty of them (issue 16). So only the rows at the top (where a new list opens) and
the rows actually painted are measured; the others take the height most measured rows have, without
asking the model for their text. A painted row whose guess was wrong has the list laid out again, at
the cost of a lookup per row. Speed-only design serving "open -> findings" and "no UI stall over
100 ms" (DESIGN.md "Performance targets").
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, QSortFilterProxyModel, Qt
from PySide6.QtGui import QFontMetrics, QPainter
from PySide6.QtWidgets import QListView, QStyledItemDelegate, QStyleOptionViewItem

from modeller.ui.panels.findings_model import FINDING_ROLE, FindingsModel

AnyIndex = QModelIndex | QPersistentModelIndex

#: rows above this are always measured: a list just filled shows its top (a tall list shows about 30 rows), so it
#: opens with true heights; the hand-over of the findings lays out the first batch, and each measured row costs
#: about 0.15 ms there (200 made it a 100 ms stall at 1,000 entities)
MEASURED_TOP = 50
#: rows laid out per event-loop turn: a guessed row costs a lookup (about 15 µs), so a batch stays a few ms
BATCH = 300


class WrappedRows(QStyledItemDelegate):
    """Rows as wide as the list and as tall as their wrapped text (guessed until shown, see the module)."""

    #: room for the icon and the margins left of the text
    INDENT = 30

    #: heights remembered before the memo starts over (a few per finding text; texts repeat across analyses)
    KEEP = 100_000

    def __init__(self, view: QListView) -> None:
        super().__init__(view)
        self._view = view
        self._room: tuple[int, str] = (0, "")
        #: row text -> height at this width and font (``_room``); a header's text never reads like a finding's
        self._heights: dict[str, int] = {}
        self._one_line: dict[str, int] = {}
        #: id(finding) -> (finding, its measured height): what a row's guess is replaced with once measured
        self._measured: dict[int, tuple[object, int]] = {}
        #: how many measured rows have each height; the most common is the guess for the others
        self._seen: Counter[int] = Counter()
        self._guess = 0
        #: rows guessed so far (tests read it: a row shown is measured, the others need not be)
        self.guessed = 0
        #: the view's proxy and the findings model behind it (asked per row, see _finding)
        self._models: tuple[object, FindingsModel | None] = (None, None)

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        if index.row() >= MEASURED_TOP and self._guess:
            # the list lays out every row again after each inserted or removed one (12,000 at 10,000 entities,
            # once per edit): a guessed row asks only the width and its finding, straight from the source model
            # (the font is checked where rows are measured; edit -> findings <= 200 ms, issue 16)
            width = max(50, self._view.viewport().width() - 2)
            if width == self._room[0]:
                finding = self._finding(index)
                if finding is not None:
                    known = self._measured.get(id(finding))
                    if known is not None and known[0] is finding:
                        return QSize(width, known[1])
                    self.guessed += 1
                    return QSize(width, self._guess)
        width = self._width(option)
        if index.row() >= MEASURED_TOP:
            finding = index.data(FINDING_ROLE)
            if finding is not None:
                known = self._measured.get(id(finding))
                if known is not None and known[0] is finding:
                    return QSize(width, known[1])
                if self._guess:
                    self.guessed += 1
                    return QSize(width, self._guess)
        return QSize(width, self._measure(option, index, width))

    def _finding(self, index: AnyIndex) -> object:
        """The row's finding: through the proxy's map to the source model, not through both models' ``data``."""
        proxy = index.model()
        if proxy is not self._models[0]:
            source = proxy.sourceModel() if isinstance(proxy, QSortFilterProxyModel) else None
            self._models = (proxy, source if isinstance(source, FindingsModel) else None)
        source = self._models[1]
        if source is None:
            return index.data(FINDING_ROLE)
        g, i = source.locate(proxy.mapToSource(index).row())  # type: ignore[attr-defined]
        return source.groups[g][i] if i >= 0 else None

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: AnyIndex) -> None:
        """Paint the row; a row laid out with a guessed height has the list laid out again with its own."""
        height = self._measure(option, index, self._width(option))
        if height != option.rect.height():  # type: ignore[attr-defined]
            self.sizeHintChanged.emit(index)  # the view lays out again from the event loop (coalesced)
        super().paint(painter, option, index)

    def is_measured(self, index: AnyIndex) -> bool:
        """Has the row's own height been measured (not guessed)?"""
        finding = index.data(FINDING_ROLE)
        known = self._measured.get(id(finding)) if finding is not None else None
        return finding is None or index.row() < MEASURED_TOP or (known is not None and known[0] is finding)

    def _width(self, option: QStyleOptionViewItem) -> int:
        width = max(50, self._view.viewport().width() - 2)
        room = (width, option.font.key())  # type: ignore[attr-defined]
        if room != self._room or len(self._heights) + len(self._measured) > self.KEEP:
            self._room = room
            self._heights.clear()
            self._one_line.clear()
            self._measured.clear()
            self._seen.clear()
            self._guess = 0
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
        finding = index.data(FINDING_ROLE)
        if finding is not None and id(finding) not in self._measured:
            self._measured[id(finding)] = (finding, height)
            self._seen[height] += 1
            if self._seen[height] > self._seen[self._guess]:
                self._guess = height
        return height


def lay_out_lazily(view: QListView) -> WrappedRows:
    """Give ``view`` wrapped rows whose heights are measured when shown (see the module)."""
    view.setUniformItemSizes(False)
    view.setWordWrap(True)
    view.setLayoutMode(QListView.LayoutMode.Batched)
    view.setBatchSize(BATCH)
    view.setResizeMode(QListView.ResizeMode.Adjust)
    view.setTextElideMode(Qt.TextElideMode.ElideNone)
    delegate = WrappedRows(view)
    view.setItemDelegate(delegate)
    return delegate
