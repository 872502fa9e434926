"""Cards spread apart so that none covers another (the Documents view's wider collection cards), kept between
changes so that a change moves only the cards it touches.

Pure geometry, no Qt: boxes are ``(left, top, width, height)`` in scene units, keyed by entity id.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Iterable, Mapping

Box = tuple[float, float, float, float]  # left, top, width, height
Spot = tuple[float, float]  # left, top

#: scene units kept free between two cards that had to make room for each other: a line with its badge fits
CARD_GAP = 96.0
#: side of a cell of the grid that finds the cards already placed near a card (scene units)
_CELL = 512.0


def _order(key: str, box: Box) -> tuple[float, float, str]:
    """Who keeps its spot first: the top row first, left to right (the key breaks ties)."""
    return box[1], box[0], key


def _cells(left: float, top: float, right: float, bottom: float) -> Iterable[tuple[int, int]]:
    for cx in range(math.floor(left / _CELL), math.floor(right / _CELL) + 1):
        for cy in range(math.floor(top / _CELL), math.floor(bottom / _CELL) + 1):
            yield cx, cy


#: how many times the search for a free spot near a covered card doubles its reach (from two box sizes) before
#: the whole diagram is spread anew instead
NEAR_REACHES = 3


class Spread:
    """Where each card goes: its own spot if it is free, else ``gap`` right of or below the cards before it
    (top row first) that are in its way, whichever is the shorter move.

    :meth:`update` with the boxes as they are now places anew only the cards whose box changed (or that are new),
    in that order; a card one of them then covers moves the least (right or down) to free room, and every other
    card keeps its place: a one-card edit on a 10,000-card diagram moves a handful of cards, not all of them (each
    spread walked every card: about 2 s CPU). From nothing, or with every box changed, it gives exactly a full
    spread (:func:`spread`).
    """

    def __init__(self, gap: float = CARD_GAP) -> None:
        self.gap = gap
        self.boxes: dict[str, Box] = {}
        self.spots: dict[str, Spot] = {}
        #: key -> left, top, right, bottom of the cards placed, and the grid cells that hold them
        self._placed: dict[str, tuple[float, float, float, float]] = {}
        self._grid: dict[tuple[int, int], set[str]] = {}

    def update(self, boxes: Mapping[str, Box | None], every: bool = True) -> set[str]:
        """Spread ``boxes``: every card shown now, or (``every`` False) only those that may have changed, None for
        a card no longer shown. Returns the keys placed anew (the others kept their spots)."""
        gone = [key for key, box in boxes.items() if box is None]
        if every:
            gone += [key for key in self.boxes if key not in boxes]
        for key in gone:
            self._lift(key)
            self.boxes.pop(key, None)
            self.spots.pop(key, None)
        due: list[tuple[tuple[float, float, str], str]] = []
        for key, box in boxes.items():
            if box is not None and self.boxes.get(key) != box:
                self.boxes[key] = box
                self._lift(key)
                due.append((_order(key, box), key))
        heapq.heapify(due)
        placed: set[str] = set()
        while due:
            order, key = heapq.heappop(due)
            left, top, width, height = self.boxes[key]
            # only the cards before this one have a say (a full spread has placed just those when it gets here)
            x, y = self._clear(left, top, width, height, order)
            self._put(key, x, y, width, height)
            placed.add(key)
            # a card it now covers (not due itself) moves to the nearest free room: it pushes no third card, so a
            # change moves only the changed cards and those they cover
            for other, _box in self._in_way(x, y, width, height):
                if other != key:
                    self._lift(other)
                    ox, oy = self.spots[other]
                    _l, _t, owidth, oheight = self.boxes[other]
                    spot = self._nearest_free(ox, oy, owidth, oheight)
                    if spot is None:  # no room near it (cards packed closer than the gap): spread all, as new
                        return self._spread_anew()
                    self._put(other, *spot, owidth, oheight)
                    placed.add(other)
        return placed

    def _spread_anew(self) -> set[str]:
        """Every card placed again from its own box: the full spread (a covered card pushed far from its spot
        lands away from its lines, and undoing the edit would not bring it back)."""
        boxes = dict(self.boxes)
        self.boxes.clear()
        self.spots.clear()
        self._placed.clear()
        self._grid.clear()
        return self.update(boxes)

    def _nearest_free(self, x: float, y: float, width: float, height: float) -> Spot | None:
        """The free spot nearest ``(x, y)`` for the box, ``gap`` clear of every placed card; None when there is
        none within :data:`NEAR_REACHES` doublings of two box sizes (the card would land far from its lines).

        Such a spot keeps ``x`` or sits ``gap`` beside a card near it, and the same for ``y``: the candidates are
        those within a reach that doubles until one is free.
        """
        gap = self.gap
        reach = 2 * max(width, height) + gap
        for _ in range(NEAR_REACHES):
            near = [b for _k, b in self._in_way(x - reach, y - reach, width + 2 * reach, height + 2 * reach)]
            xs = {x, *(b[2] + gap for b in near), *(b[0] - gap - width for b in near)}
            ys = {y, *(b[3] + gap for b in near), *(b[1] - gap - height for b in near)}
            spots = sorted(
                ((cx - x) ** 2 + (cy - y) ** 2, cx, cy)
                for cx in xs
                for cy in ys
                if abs(cx - x) <= reach and abs(cy - y) <= reach
            )
            for _distance, cx, cy in spots:
                if not self._in_way(cx - gap, cy - gap, width + 2 * gap, height + 2 * gap):
                    return cx, cy
            reach *= 2
        return None

    def _clear(
        self, x: float, y: float, width: float, height: float, before: tuple[float, float, str] | None = None
    ) -> tuple[float, float]:
        """The spot nearest ``(x, y)``, right or down, where the box covers no placed card (that comes ``before``
        in the order, when given). Each step passes every card in the way, and the spots tried only grow: it ends."""
        boxes = self.boxes
        for _ in range(2 * len(self._placed) + 2):
            blockers = [
                b for k, b in self._in_way(x, y, width, height) if before is None or _order(k, boxes[k]) < before
            ]
            if not blockers:
                return x, y
            right = max(b[2] for b in blockers)
            below = max(b[3] for b in blockers)
            if right - x <= below - y:
                x = right + self.gap
            else:
                y = below + self.gap
        return x, y

    def _in_way(self, left: float, top: float, width: float, height: float) -> list[tuple[str, tuple[float, ...]]]:
        right, bottom = left + width, top + height
        found: dict[str, tuple[float, float, float, float]] = {}
        for cell in _cells(left, top, right, bottom):
            for key in self._grid.get(cell, ()):
                l2, t2, r2, b2 = placed = self._placed[key]
                if l2 < right and left < r2 and t2 < bottom and top < b2:
                    found[key] = placed
        return list(found.items())

    def _put(self, key: str, x: float, y: float, width: float, height: float) -> None:
        self.spots[key] = (x, y)
        self._placed[key] = (x, y, x + width, y + height)
        for cell in _cells(x, y, x + width, y + height):
            self._grid.setdefault(cell, set()).add(key)

    def _lift(self, key: str) -> None:
        """Take a card off the grid (it is placed anew, or gone)."""
        spot = self._placed.pop(key, None)
        if spot is None:
            return
        for cell in _cells(*spot):
            keys = self._grid.get(cell)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._grid[cell]


def spread(boxes: dict[str, Box], gap: float = CARD_GAP) -> dict[str, Spot]:
    """Top-left corners for ``boxes`` so that no two overlap, spread from nothing (see :class:`Spread`)."""
    whole = Spread(gap)
    whole.update(boxes)
    return dict(whole.spots)
