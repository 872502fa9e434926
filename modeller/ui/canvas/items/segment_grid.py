"""Which relationship lines pass through which part of the scene: a grid of square cells over the segments.

The scene's own index knows only bounding boxes; on a 10,000-card diagram a long line's box meets
nearly every exposed area although the line itself crosses few of them. This grid files each line
under the cells its segment really passes through, so "the lines in this rectangle" costs the
lines near it, not every line whose box happens to cover it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import repeat

from PySide6.QtCore import QRectF

#: side of one cell in scene units: a viewport at 100 % spans a handful of cells, a line a few dozen
CELL = 512.0


def clip_segment(x1: float, y1: float, x2: float, y2: float, rect: QRectF) -> tuple[float, float] | None:
    """The part of the segment (x1, y1)-(x2, y2) inside ``rect`` as (t0, t1) along it, or None (Liang-Barsky)."""
    t0, t1 = 0.0, 1.0
    dx, dy = x2 - x1, y2 - y1
    for p, q in ((-dx, x1 - rect.left()), (dx, rect.right() - x1), (-dy, y1 - rect.top()), (dy, rect.bottom() - y1)):
        if p == 0:
            if q < 0:
                return None
            continue
        t = q / p
        if p < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return None
    return t0, t1


def segment_meets_rect(x1: float, y1: float, x2: float, y2: float, rect: QRectF) -> bool:
    """Whether the segment (x1, y1)-(x2, y2) passes through ``rect``."""
    return clip_segment(x1, y1, x2, y2, rect) is not None


def segment_cells(x1: float, y1: float, x2: float, y2: float, cell: float = CELL) -> Iterator[tuple[int, int]]:
    """The cells a segment passes through: per row of cells, the columns its x range spans there."""
    return iter(_segment_cells(x1, y1, x2, y2, cell))


def _segment_cells(x1: float, y1: float, x2: float, y2: float, cell: float) -> list[tuple[int, int]]:
    # one list per line, its tuples made by zip in C, each row border's x worked out once (it ends one row and
    # starts the next): the 15,000 lines of a 10,000-card open were filed one cell at a time in Python, a third of
    # "built" (DESIGN.md "Performance targets")
    floor = math.floor
    top, bottom = floor(min(y1, y2) / cell), floor(max(y1, y2) / cell)
    dx, dy = x2 - x1, y2 - y1
    if dy == 0:
        borders = [x1, x2]
    else:
        # where the segment crosses each row's upper border (clamped to its ends), and the last row's lower one
        borders = [x1 + min(max((row * cell - y1) / dy, 0.0), 1.0) * dx for row in range(top, bottom + 2)]
    cells: list[tuple[int, int]] = []
    for row, xa, xb in zip(range(top, bottom + 1), borders, borders[1:], strict=False):  # borders: one more
        first, last = (floor(xa / cell), floor(xb / cell)) if xa <= xb else (floor(xb / cell), floor(xa / cell))
        cells.extend(zip(range(first, last + 1), repeat(row, last - first + 1), strict=True))
    return cells


def rect_cells(rect: QRectF, cell: float = CELL) -> Iterator[tuple[int, int]]:
    for row in range(math.floor(rect.top() / cell), math.floor(rect.bottom() / cell) + 1):
        for col in range(math.floor(rect.left() / cell), math.floor(rect.right() / cell) + 1):
            yield col, row


#: what a key is filed by: a segment (x1, y1, x2, y2, False) or a box (x, y, width, height, True)
Filed = tuple[float, float, float, float, bool]


class SegmentGrid:
    """Keys (relationship ids) filed under the cells of their segment, or of a box for a curved line.

    Per key it keeps the segment or box, not the list of its cells (worked out again when the key moves or
    leaves), and a cell holds its keys in a list, not a set: at 10,000 cards the lines are filed ~450,000 times,
    and the cell lists of each line and the cells' sets took 50 MiB (issue 16 "Memory"). A key is in a cell's
    list once (its cells are distinct), so leaving it is a ``list.remove``.
    """

    def __init__(self, cell: float = CELL) -> None:
        self.cell = cell
        self._cells: dict[tuple[int, int], list[str]] = {}
        self._of: dict[str, Filed] = {}

    def __len__(self) -> int:
        return len(self._of)

    def put_segment(self, key: str, x1: float, y1: float, x2: float, y2: float) -> None:
        self._put(key, (x1, y1, x2, y2, False))

    def put_box(self, key: str, rect: QRectF) -> None:
        self._put(key, (rect.x(), rect.y(), rect.width(), rect.height(), True))

    def drop(self, key: str) -> None:
        filed = self._of.pop(key, None)
        if filed is not None:
            self._remove(key, self._cells_of(filed))

    def _put(self, key: str, filed: Filed) -> None:
        """File ``key`` by ``filed``; a key filed before leaves and joins only the cells that differ.

        A moved card's lines keep most of their cells, and a cell of a 10,000-card diagram lists hundreds of
        lines: leaving every cell and joining them again was a third of a move (speed-only, bench_canvas
        move_redraw)."""
        old = self._of.get(key)
        self._of[key] = filed
        cells = self._cells_of(filed)
        if old is None:
            self._add(key, cells)
            return
        if old == filed:
            return
        before = self._cells_of(old)
        if before == cells:
            return
        kept = set(before).intersection(cells)
        self._remove(key, [at for at in before if at not in kept])
        self._add(key, [at for at in cells if at not in kept])

    def _remove(self, key: str, at_cells: list[tuple[int, int]]) -> None:
        cells = self._cells
        for at in at_cells:
            keys = cells.get(at)
            if keys is not None:
                keys.remove(key)
                if not keys:
                    del cells[at]

    def near(self, rect: QRectF) -> set[str]:
        """Every key filed in a cell ``rect`` touches (a superset of those whose segment meets ``rect``)."""
        found: set[str] = set()
        cells = self._cells
        c = self.cell
        spanned = (math.floor(rect.right() / c) - math.floor(rect.left() / c) + 1) * (
            math.floor(rect.bottom() / c) - math.floor(rect.top() / c) + 1
        )
        if spanned > len(cells):  # a rectangle larger than the diagram (a whole-scene render): the filed cells
            left, top, right, bottom = rect.left(), rect.top(), rect.right(), rect.bottom()
            for (col, row), keys in cells.items():
                if (col + 1) * c >= left and col * c <= right and (row + 1) * c >= top and row * c <= bottom:
                    found.update(keys)
            return found
        for at in rect_cells(rect, c):
            keys = cells.get(at)
            if keys:
                found.update(keys)
        return found

    def cells_of(self, key: str) -> list[tuple[int, int]]:
        """The cells ``key`` is filed under."""
        filed = self._of.get(key)
        return [] if filed is None else self._cells_of(filed)

    def in_cells(self, cells: set[tuple[int, int]]) -> set[str]:
        """Every key filed in one of ``cells``."""
        found: set[str] = set()
        filed = self._cells
        for at in cells:
            keys = filed.get(at)
            if keys:
                found.update(keys)
        return found

    def cell_rect(self, at: tuple[int, int]) -> QRectF:
        return QRectF(at[0] * self.cell, at[1] * self.cell, self.cell, self.cell)

    def _cells_of(self, filed: Filed) -> list[tuple[int, int]]:
        a, b, c, d, box = filed
        return list(rect_cells(QRectF(a, b, c, d), self.cell)) if box else _segment_cells(a, b, c, d, self.cell)

    def _add(self, key: str, at_cells: list[tuple[int, int]]) -> None:
        cells = self._cells
        for at in at_cells:
            keys = cells.get(at)
            if keys is None:
                cells[at] = [key]
            else:
                keys.append(key)
