"""Where the lines' badges and labels lie: a coarse grid of their boxes, asked which lines' texts lie near
a box (a line's texts slide along it off another's; the scene's own index answers too slowly for that
while a large project's lines are being placed)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from PySide6.QtCore import QRectF

#: scene units per cell: a little more than a badge is wide
CELL = 200.0


def _cells(box: QRectF) -> Iterator[tuple[int, int]]:
    for x in range(int(box.left() // CELL), int(box.right() // CELL) + 1):
        for y in range(int(box.top() // CELL), int(box.bottom() // CELL) + 1):
            yield x, y


class TextGrid:
    """Line id -> the cells its texts lie in, and cell -> the lines there."""

    def __init__(self) -> None:
        self._cells: dict[tuple[int, int], set[str]] = {}
        self._filed: dict[str, set[tuple[int, int]]] = {}

    def file(self, key: str, boxes: Iterable[QRectF]) -> None:
        """Record where ``key``'s texts are now (replacing where they were)."""
        self.forget(key)
        cells = {cell for box in boxes for cell in _cells(box)}
        self._filed[key] = cells
        for cell in cells:
            self._cells.setdefault(cell, set()).add(key)

    def forget(self, key: str) -> None:
        for cell in self._filed.pop(key, ()):
            keys = self._cells.get(cell)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._cells[cell]

    def near(self, boxes: Iterable[QRectF]) -> set[str]:
        """The lines whose texts share a cell with one of ``boxes``."""
        return {key for box in boxes for cell in _cells(box) for key in self._cells.get(cell, ())}
