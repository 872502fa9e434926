"""How tall each row of the findings list is: measured for the rows shown, guessed for the others.

A row is as wide as the list and as tall as its wrapped text, so each finding's first sentence shows
whole. A list view with rows of different heights asks every row for its height before it can place
any, and measuring one means its text (the subject's label) and a font layout: after the first analysis
of a 10,000-entity project that was 12,000 To-do rows, about 2 s of the UI thread's CPU in 50-row batches
while the user saw twenty of them (issue 16). So only the rows at the top (where a new list opens) and
the rows actually painted are measured; the others take the height most measured rows have, without
asking the model for their text. A painted row whose guess was wrong has the list laid out again. The
rows measured at another height than the guess are found once per change of the rows (their few findings
placed by the model's binary search), so laying out 40,000 rows asks no row for its finding: a lookup per
row held the UI thread 72 ms right after the open's hand-over at 10,000 entities. Speed-only design
serving "open -> findings" and "no UI stall over 100 ms" (DESIGN.md "Performance targets").
"""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    QSortFilterProxyModel,
    Qt,
)
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
        #: rows given the guessed height so far (tests read it: a row shown is measured, the others need not be)
        self.guessed = 0
        #: the view's proxy and the findings model behind it (see _odd_rows_now)
        self._models: tuple[object, FindingsModel | None] = (None, None)
        #: view row -> height of the rows measured at another height than the guess (None: found when next asked;
        #: dropped whenever the view's rows change or the guess does)
        self._odd_rows: dict[int, int] | None = None
        #: findings looked up to place the rows (tests count them: bounded by the rows measured, not by all rows)
        self.lookups = 0

    def sizeHint(self, option: QStyleOptionViewItem, index: AnyIndex) -> QSize:
        if index.row() >= MEASURED_TOP and self._guess:
            # the list lays out every row again after each inserted or removed one (12,000 at 10,000 entities,
            # once per edit, 40,000 at the open's hand-over): a guessed row asks only the width and the rows measured
            # at another height (the font is checked where rows are measured; edit -> findings <= 200 ms, issue 16)
            width = max(50, self._view.viewport().width() - 2)
            if width == self._room[0] and self._follow(index.model()):
                odd = self._odd_rows if self._odd_rows is not None else self._odd_rows_now()
                height = odd.get(index.row())
                if height is None:
                    self.guessed += 1
                    return QSize(width, self._guess)
                if height:
                    return QSize(width, height)
                # 0: a section's header, measured below
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

    def _follow(self, proxy: object) -> bool:
        """Is ``proxy`` the findings filter (or model) the odd rows are kept for? A new one is followed: its rows
        changing drops them. False for another model (its rows are asked one by one)."""
        if proxy is not self._models[0]:
            source = proxy.sourceModel() if isinstance(proxy, QSortFilterProxyModel) else proxy
            self._models = (proxy, source if isinstance(source, FindingsModel) else None)
            self._odd_rows = None
            if isinstance(proxy, QAbstractItemModel):
                for signal in (
                    proxy.rowsAboutToBeInserted,
                    proxy.rowsInserted,
                    proxy.rowsAboutToBeRemoved,
                    proxy.rowsRemoved,
                    proxy.rowsMoved,
                    proxy.modelAboutToBeReset,
                    proxy.modelReset,
                    proxy.layoutAboutToBeChanged,
                    proxy.layoutChanged,
                    proxy.dataChanged,
                ):
                    signal.connect(self._rows_changed)
        return self._models[1] is not None

    def _rows_changed(self, *_args: object) -> None:
        self._odd_rows = None

    def _odd_rows_now(self) -> dict[int, int]:
        """The view rows of the findings measured at another height than the guess (and of the sections' headers,
        0: measured as they come): each placed by the model's row lookup (a binary search) and the proxy's map,
        not by asking every row for its finding."""
        source = self._models[1]
        assert source is not None
        odd: dict[int, int] = {}
        for g in range(len(source.groups)):
            self._place(odd, source.start(g), 0)
        for finding, height in self._measured.values():
            if height == self._guess:
                continue
            self.lookups += 1
            row = source.row_of(finding)  # type: ignore[arg-type]
            if row >= 0:  # else no longer listed
                self._place(odd, row, height)
        self._odd_rows = odd
        return odd

    def _place(self, odd: dict[int, int], source_row: int, height: int) -> None:
        """Note ``height`` for the view row showing ``source_row`` (none while the filter hides it)."""
        proxy, source = self._models
        assert source is not None
        if proxy is source:
            odd[source_row] = height
        else:
            at = proxy.mapFromSource(source.index(source_row))  # type: ignore[attr-defined]
            if at.isValid():
                odd[at.row()] = height

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
            self._odd_rows = None
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
                self._odd_rows = None  # other rows are odd now
            elif self._odd_rows is not None and height != self._guess:
                self._odd_rows[index.row()] = height
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
