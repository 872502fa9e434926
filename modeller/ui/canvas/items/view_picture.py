"""A picture per view of what did not change, kept while the view scrolls and zooms.

Why (issue 16): on a 10,000-card diagram drawing every line costs tens of milliseconds, and a scroll changed
the view's transform, so the line layer's picture (and the overview's) was drawn anew on every scroll step.
A scroll moves the view by whole pixels at the same scale: the picture is shifted in place
(``QPixmap.scroll``) and only the strips it uncovers are drawn. A zoom shows the picture it has, scaled, and
draws it anew at the new scale once the zoom rests (:data:`ZOOM_REST_MS` after the last step), so a wheel
turned through several steps draws once. That drawing is done in :data:`BANDS` horizontal bands, one per
repaint (each asks for the next): the old picture, scaled, shows where the new one is not drawn yet, so no
repaint holds the UI thread for the whole picture (80 ms at fit zoom on 10,000 cards, "redraw <= 16 ms" in
DESIGN.md). A resize, another palette or a changed content (:meth:`ViewPictures.clear`) draws it anew whole,
when it is next painted.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QRect, QRectF, Qt, QTimer
from PySide6.QtGui import QPainter, QPixmap, QTransform
from PySide6.QtWidgets import QWidget

#: a zoom rests this long after its last step before the picture is drawn anew at the new scale (ms)
ZOOM_REST_MS = 150
#: after a zoom the new picture is drawn in this many horizontal bands, one per repaint
BANDS = 8

#: draws what lies in a scene area on a painter set to the view's transform (and clipped to the area)
Draw = Callable[[QPainter, QRectF], None]


@dataclass
class _Held:
    shape: tuple[object, ...]
    world: QTransform
    pixmap: QPixmap


@dataclass
class _Settling:
    """A picture being drawn band by band after a zoom: ``done`` rows (widget pixels) are drawn."""

    shape: tuple[object, ...]
    world: QTransform
    pixmap: QPixmap
    done: int = 0


#: what :meth:`ViewPictures.pictures` hands :meth:`ViewPictures.blit`: pixmap, its placement, and the widget
#: pixels it shows (None: all)
Piece = tuple[QPixmap, QTransform, QRect | None]


class ViewPictures:
    """One picture per widget (view's viewport); :meth:`blit` draws it, making or shifting it first."""

    def __init__(self) -> None:
        self._held: dict[int, _Held] = {}
        #: how the last :meth:`picture` came about: "kept", "shifted", "scaled" (a zoom not yet at rest),
        #: "settling" (a band of the new scale's picture drawn, more to come) or "drawn" (tests and benchmarks
        #: read it)
        self.last = ""
        #: per widget: the picture at the new scale while its bands are drawn
        self._settling: dict[int, _Settling] = {}
        #: per widget: the scale a zoom last asked for (the picture is drawn anew once it rests there)
        self._zoom: dict[int, tuple[float, ...]] = {}
        self._rested: set[int] = set()

    def clear(self) -> None:
        """The content changed: every picture is drawn anew when next painted."""
        self._held.clear()
        self._settling.clear()

    def blit(self, painter: QPainter, widget: QWidget, world: QTransform, draw: Draw, key: object) -> None:
        """Draw ``widget``'s picture of ``draw`` at ``world`` (the painter's transform) through ``painter``."""
        for picture, placed, shows in self.pictures(widget, painter.renderHints(), world, draw, key):
            painter.save()
            if shows is not None:
                painter.setWorldTransform(QTransform())
                painter.setClipRect(shows, Qt.ClipOperation.IntersectClip)
            painter.setWorldTransform(placed)
            painter.drawPixmap(0, 0, picture)
            painter.restore()

    def pictures(
        self, widget: QWidget, hints: QPainter.RenderHint, world: QTransform, draw: Draw, key: object
    ) -> list[Piece]:
        """What to show for ``world``: the picture (see :meth:`picture`), or while the picture at a rested zoom's
        scale is drawn band by band, the old one scaled where the new one is not drawn yet."""
        wid = id(widget)
        held = self._held.get(wid)
        size = widget.size()
        shape = (world.m11(), world.m12(), world.m21(), world.m22(), size, widget.devicePixelRatioF(), key)
        if held is None or held.shape == shape or held.shape[4:] != shape[4:] or wid not in self._rested:
            self._settling.pop(wid, None)
            return [(*self.picture(widget, hints, world, draw, key), None)]
        settling = self._settling.get(wid)
        if settling is None or settling.shape != shape or settling.world != world:
            ratio = widget.devicePixelRatioF()
            pixmap = QPixmap(size * ratio)
            pixmap.setDevicePixelRatio(ratio)
            pixmap.fill(Qt.GlobalColor.transparent)
            settling = self._settling[wid] = _Settling(shape, QTransform(world), pixmap)
        band = -(-size.height() // BANDS)
        _draw_in(settling.pixmap, QRect(0, settling.done, size.width(), band), hints, world, draw)
        settling.done += band
        if settling.done >= size.height():
            del self._settling[wid]
            self._rested.discard(wid)
            self._held[wid] = _Held(shape, settling.world, settling.pixmap)
            self.last = "drawn"
            return [(settling.pixmap, QTransform(), None)]
        QTimer.singleShot(0, widget, lambda: widget.update())  # the next band, once this repaint is shown
        self.last = "settling"
        inverse, _invertible = held.world.inverted()
        rest = QRect(0, settling.done, size.width(), size.height() - settling.done)
        return [
            (held.pixmap, inverse * world, rest),
            (settling.pixmap, QTransform(), QRect(0, 0, size.width(), settling.done)),
        ]

    def picture(
        self, widget: QWidget, hints: QPainter.RenderHint, world: QTransform, draw: Draw, key: object
    ) -> tuple[QPixmap, QTransform]:
        """The picture for ``world`` and where it goes on the widget: kept, shifted by a scroll (new strips
        drawn), scaled while a zoom has not rested, or drawn whole."""
        ratio = widget.devicePixelRatioF()
        size = widget.size()
        scale = (world.m11(), world.m12(), world.m21(), world.m22())
        shape = (*scale, size, ratio, key)
        wid = id(widget)
        held = self._held.get(wid)
        if held is not None and held.shape == shape:
            self._zoom.pop(wid, None)
            dx, dy = world.dx() - held.world.dx(), world.dy() - held.world.dy()
            if dx == 0 and dy == 0:
                self.last = "kept"
                return held.pixmap, QTransform()
            if _whole(dx) and _whole(dy) and abs(dx) < size.width() and abs(dy) < size.height():
                self._shift(held, round(dx), round(dy), ratio, hints, world, draw)
                held.world = QTransform(world)
                self.last = "shifted"
                return held.pixmap, QTransform()
        elif held is not None and held.shape[4:] == shape[4:] and wid not in self._rested:
            self._zooming(widget, scale)
            inverse, _invertible = held.world.inverted()
            self.last = "scaled"
            return held.pixmap, inverse * world  # widget pixels then -> scene -> widget pixels now
        self._rested.discard(wid)
        self._zoom.pop(wid, None)
        pixmap = QPixmap(size * ratio)
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        _draw_in(pixmap, QRect(0, 0, size.width(), size.height()), hints, world, draw)
        self._held[wid] = _Held(shape, QTransform(world), pixmap)
        self.last = "drawn"
        return pixmap, QTransform()

    def _zooming(self, widget: QWidget, scale: tuple[float, ...]) -> None:
        """A zoom step (another scale than last asked): draw anew when no other step came for a while."""
        wid = id(widget)
        if self._zoom.get(wid) == scale:
            return  # a repaint at the scale already asked for: the rest is already awaited
        self._zoom[wid] = scale

        def rest() -> None:
            if self._zoom.get(wid) == scale:
                self._rested.add(wid)
                widget.update()

        QTimer.singleShot(ZOOM_REST_MS, widget, rest)

    @staticmethod
    def _shift(
        held: _Held, dx: int, dy: int, ratio: float, hints: QPainter.RenderHint, world: QTransform, draw: Draw
    ) -> None:
        """Move the picture by (dx, dy) pixels and draw the strips it uncovers (disjoint: nothing is drawn twice)."""
        pixmap = held.pixmap
        width, height = round(pixmap.width() / ratio), round(pixmap.height() / ratio)
        pixmap.scroll(round(dx * ratio), round(dy * ratio), pixmap.rect())
        strips = []
        if dx:
            strips.append(QRect(0 if dx > 0 else width + dx, 0, abs(dx), height))
        if dy:
            left, right = (dx, width) if dx > 0 else (0, width + dx)
            strips.append(QRect(left, 0 if dy > 0 else height + dy, right - left, abs(dy)))
        for strip in strips:
            if not strip.isEmpty():
                _draw_in(pixmap, strip, hints, world, draw, clear=True)


def _draw_in(
    pixmap: QPixmap, area: QRect, hints: QPainter.RenderHint, world: QTransform, draw: Draw, clear: bool = False
) -> None:
    """Draw the scene under ``area`` (widget pixels) into that part of ``pixmap``, clipped to it."""
    out = QPainter(pixmap)
    out.setRenderHints(hints)
    out.setClipRect(area)
    if clear:
        out.setCompositionMode(QPainter.CompositionMode.CompositionMode_Source)
        out.fillRect(area, Qt.GlobalColor.transparent)
        out.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
    out.setWorldTransform(world)
    inverse, _invertible = world.inverted()
    draw(out, inverse.mapRect(QRectF(area)))
    out.end()


def _whole(value: float) -> bool:
    return abs(value - round(value)) < 1e-6
