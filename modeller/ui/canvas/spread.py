"""Cards spread apart so that none covers another (the Documents view's wider collection cards), near their own
spots and in the diagram's order, so that a change moves only the cards near it.

Pure geometry, no Qt: boxes are ``(left, top, width, height)`` in scene units, keyed by entity id.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping

Box = tuple[float, float, float, float]  # left, top, width, height
Spot = tuple[float, float]  # left, top

#: scene units kept free between two cards that had to make room for each other: a line with its badge fits
CARD_GAP = 96.0
#: cards whose tops lie within this many scene units of each other share a row: they keep side by side (a header
#: and a row or two: the rows of a grid or of a layered layout, not the card below that a tall card reaches)
ROW_BAND = 60.0
#: the sweeps' middle is rounded to this (scene units): a card that grows at the diagram's edge leaves it in place
MIDDLE_STEP = 2048.0


class Skyline:
    """The highest value raised over each part of a line (a sweep's front): ``raise_to`` a range with a value
    above every value there now, ``highest`` over a range. Breakpoints in a sorted list: a card costs two
    bisections and one slice, not a scan of the cards placed before it."""

    def __init__(self) -> None:
        self._at: list[float] = [-math.inf]
        self._values: list[float] = [-math.inf]

    def highest(self, start: float, end: float) -> float:
        """The highest value over ``[start, end)``."""
        if end <= start:
            return -math.inf
        first = bisect.bisect_right(self._at, start) - 1
        last = bisect.bisect_left(self._at, end)
        return max(self._values[first:last])

    def raise_to(self, start: float, end: float, value: float) -> None:
        """``[start, end)`` holds ``value`` (not below any value there: a sweep's new front)."""
        if end <= start:
            return
        at, values = self._at, self._values
        first = bisect.bisect_left(at, start)
        last = bisect.bisect_right(at, end)
        after = values[last - 1]
        at[first:last] = [start, end]
        values[first:last] = [value, after]


#: one card on one axis of a sweep: where it starts and how long it is, and the stretch of the other axis it holds
Span = tuple[float, float, float, float]  # start, length, band start, band end


def full_spread(boxes: Mapping[str, Box], gap: float = CARD_GAP) -> dict[str, Spot]:
    """Spots for ``boxes`` from nothing, in two sweeps that keep the diagram's rows and columns in their order.

    First across: cards whose tops lie within :data:`ROW_BAND` of each other (a row) keep side by side. Then
    down: cards whose left-right spans meet keep one above the other. Each sweep starts at the diagram's middle
    and goes outwards: a card that covers one nearer the middle moves away from the middle, ``gap`` past it, and
    a card in nobody's way keeps its spot. A sweep keeps its front in a :class:`Skyline`: linear in the cards,
    where pushing each card past the cards in its way one at a time was superlinear (seconds at 10,000 cards)
    and, moving each card right or down by the shorter way, pushed the diagram into a wedge four times wider
    (at 2,000 cards in a grid, 9,600 scene units from their entities' spots on average; now about 3,000).
    """
    lefts = _sweep({key: (x, w, y, y + min(h, ROW_BAND)) for key, (x, y, w, h) in boxes.items()}, gap)
    tops = _sweep({key: (y, h, lefts[key], lefts[key] + w) for key, (_x, y, w, h) in boxes.items()}, gap)
    return {key: (lefts[key], tops[key]) for key in boxes}


def _sweep(spans: Mapping[str, Span], gap: float) -> dict[str, float]:
    """New starts for ``spans`` so that two whose bands meet keep ``gap`` apart where they would cover: from the
    middle outwards, the far side first, then the near side mirrored (it starts from the far side's front)."""
    if not spans:
        return {}
    middle = (min(s[0] for s in spans.values()) + max(s[0] + s[1] for s in spans.values())) / 2
    middle = round(middle / MIDDLE_STEP) * MIDDLE_STEP
    far = {key: span for key, span in spans.items() if span[0] + span[1] / 2 >= middle}
    starts = _apart(far, gap, Skyline())
    front = Skyline()  # how far back the far side reaches, per band (whole bands: only ever more room)
    for key, (_start, _length, low, high) in far.items():
        front.raise_to(low, high, max(-starts[key], front.highest(low, high)))
    near = {key: (-start - length, length, low, high) for key, (start, length, low, high) in spans.items()}
    for key, start in _apart({key: near[key] for key in spans if key not in far}, gap, front).items():
        starts[key] = -start - spans[key][1]
    return starts


def _apart(spans: Mapping[str, Span], gap: float, front: Skyline) -> dict[str, float]:
    """Starts for ``spans`` in their order on the axis: a span that begins before the ``front`` of its band moves
    ``gap`` past it."""
    starts: dict[str, float] = {}
    for key in sorted(spans, key=lambda k: (spans[k][0], spans[k][2], k)):
        start, length, low, high = spans[key]
        reach = front.highest(low, high)
        if start < reach:
            start = reach + gap
        front.raise_to(low, high, start + length)
        starts[key] = start
    return starts


class Spread:
    """Where each card goes, kept between changes: the spots of :func:`full_spread` for the boxes as they are now.

    The spread is a function of the boxes alone, so undoing an edit brings every card back to where it was, and
    a change moves only the cards whose spot the sweeps give otherwise: those beyond it in its row and what they
    push (a one-card edit at 2,000 cards moves a few dozen; the sweeps cost ~90 ms at 10,000 cards).
    """

    def __init__(self, gap: float = CARD_GAP) -> None:
        self.gap = gap
        self.boxes: dict[str, Box] = {}
        self.spots: dict[str, Spot] = {}

    def update(self, boxes: Mapping[str, Box | None], every: bool = True) -> set[str]:
        """Spread ``boxes``: every card shown now, or (``every`` False) only those that may have changed, None for
        a card no longer shown. Returns the keys whose spot is new (the others kept theirs)."""
        gone = [key for key, box in boxes.items() if box is None]
        if every:
            gone += [key for key in self.boxes if key not in boxes]
        changed = bool(gone)
        for key in gone:
            self.boxes.pop(key, None)
            self.spots.pop(key, None)
        for key, box in boxes.items():
            if box is not None and self.boxes.get(key) != box:
                self.boxes[key] = box
                changed = True
        if not changed:
            return set()
        spots = full_spread(self.boxes, self.gap)
        old, self.spots = self.spots, spots
        return {key for key, spot in spots.items() if old.get(key) != spot}


def spread(boxes: Mapping[str, Box], gap: float = CARD_GAP) -> dict[str, Spot]:
    """Top-left corners for ``boxes`` so that no two overlap, spread from nothing (see :func:`full_spread`)."""
    return full_spread(boxes, gap)
