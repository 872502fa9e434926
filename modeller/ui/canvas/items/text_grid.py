"""Where the lines' badges and labels lie: a coarse grid of their boxes, asked which lines' texts lie near
a box (a line's texts slide along it off another's; the scene's own index answers too slowly for that
while a large project's lines are being placed)."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import QRectF

#: scene units per cell: a little more than a badge is wide
CELL = 200.0


def _cells(box: QRectF) -> list[tuple[int, int]]:
    # asked ~80,000 times while a 10,000-card diagram is built (issue 16): most boxes lie in one cell
    left, top = int(box.left() // CELL), int(box.top() // CELL)
    right, bottom = int(box.right() // CELL), int(box.bottom() // CELL)
    if left == right and top == bottom:
        return [(left, top)]
    return [(x, y) for x in range(left, right + 1) for y in range(top, bottom + 1)]


class TextGrid:
    """Line id -> its text boxes, and cell -> the lines with a text there.

    The boxes are kept here (the scene files a line's boxes anew whenever they change): checking a spot against
    the ~17 lines filed near it is then a rectangle test each, not a call into each line (issue 16: a third of
    placing a line while a 10,000-card diagram is built).
    """

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], list[str]] = {}  # a key once per cell (see SegmentGrid)
        self._boxes: dict[str, tuple[QRectF, ...]] = {}

    def __contains__(self, key: object) -> bool:
        return key in self._boxes

    def file(self, key: str, boxes: Iterable[QRectF]) -> None:
        """Record where ``key``'s texts are now (replacing where they were)."""
        self.forget(key)
        held = self._boxes[key] = tuple(boxes)  # the line's own rectangles: it replaces them, never changes them
        cells = self._cells
        for at in {cell for box in held for cell in _cells(box)}:
            keys = cells.get(at)
            if keys is None:
                cells[at] = [key]
            else:
                keys.append(key)

    def forget(self, key: str) -> None:
        boxes = self._boxes.pop(key, None)
        if boxes is None:
            return
        for cell in {cell for box in boxes for cell in _cells(box)}:
            keys = self._cells.get(cell)
            if keys is not None:
                keys.remove(key)
                if not keys:
                    del self._cells[cell]

    def near(self, boxes: Iterable[QRectF]) -> set[str]:
        """The lines whose texts share a cell with one of ``boxes``."""
        found: set[str] = set()
        filed = self._cells
        for box in boxes:
            for cell in _cells(box):
                keys = filed.get(cell)
                if keys:
                    found.update(keys)
        return found

    def covered(self, boxes: list[QRectF], but: str) -> bool:
        """Whether a text of a line other than ``but`` meets one of ``boxes``."""
        held = self._boxes
        for key in self.near(boxes):
            if key != but:
                for theirs in held[key]:
                    for mine in boxes:
                        if mine.intersects(theirs):
                            return True
        return False
