"""The card of one entity: name, document count, fields with types (nested fields indented)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem, QWidget

from modeller.export.common import human_count
from modeller.model import ArrayItems, Entity, Field
from modeller.ui.canvas.items.query_highlight import HALO, paint_card_halo
from modeller.ui.canvas.items.style import CanvasStyle
from modeller.ui.panels.severity import paint_marker

if TYPE_CHECKING:
    from modeller.ui.canvas.scene import CanvasScene


#: Documents view: references, copies and computed values in the diagram export's colours
KIND_COLORS = {"reference": QColor("#016BF8"), "copy": QColor("#B45F06"), "computed": QColor("#7C3AED")}

#: zoom (level of detail) below which a card shows only its name, no fields
NAME_ONLY_LOD = 0.5
#: below this even the name is unreadable: a plain box
BOX_ONLY_LOD = 0.3


class Row(NamedTuple):
    """One line of a card: indentation level, name, type text, marks (shared by every card showing it).

    A tuple, not a frozen dataclass: made, hashed (see :func:`shared_rows`) and measured (:func:`row_width`) in C,
    about 110,000 times as a 10,000-card diagram is built (issue 16).
    """

    level: int
    name: str
    type_text: str
    required: bool = False
    unique: bool = False
    #: Documents view: "reference", "copy", "computed" or "" (how the field came to be stored)
    kind: str = ""


#: one Row object per distinct line: the same fields repeat across thousands of cards (10,000 cards hold
#: about 110,000 lines and few distinct ones)
_SHARED_ROWS: dict[Row, Row] = {}
_SHARED_ROWS_LIMIT = 50_000


def shared_rows(rows: list[Row]) -> tuple[Row, ...]:
    """``rows`` with each line replaced by the one equal Row already held by another card."""
    if len(_SHARED_ROWS) >= _SHARED_ROWS_LIMIT:
        _SHARED_ROWS.clear()
    return tuple(_SHARED_ROWS.setdefault(row, row) for row in rows)


def row_width(style: CanvasStyle, row: Row) -> float:
    """How wide a card must be to show ``row`` whole (remembered per row: rows repeat across thousands of cards)."""
    known = style.row_widths
    width = known.get(row)
    if width is None:
        if len(known) >= _SHARED_ROWS_LIMIT:
            known.clear()
        width = known[row] = (
            style.padding * 2
            + row.level * style.indent
            + style.field_width(row.name + " *")
            + 16
            + style.type_width(row.type_text)
        )
    return width


def type_text(field: Field | ArrayItems) -> str:
    """``string``, ``[string]``, ``[{…}]``, ``{…}``: the type as the card shows it."""
    if field.type == "array":
        inner = field.items
        if inner is None:
            return "[ ]"
        return f"[{type_text(inner)}]"
    if field.type == "object":
        return "{…}"
    if field.enum:
        return f"{field.type} enum"
    return field.type


def field_rows(fields: list[Field], level: int = 0) -> list[Row]:
    rows: list[Row] = []
    for field in fields:
        rows.append(
            Row(
                level,
                field.name + (" [ ]" if field.type == "array" else ""),
                type_text(field),
                field.required,
                field.unique,
            )
        )
        children = field.fields
        items = field.items
        while children is None and items is not None:
            children, items = items.fields, items.items
        if children:
            rows.extend(field_rows(children, level + 1))
    return rows


def count_text(value: int | None) -> str:
    """The card's count: exact below 10,000 (``"5,000 docs"``), else as the exports write it (``"5B docs"``)."""
    if value is None:
        return ""
    return f"{value:,} docs" if value < 10**4 else f"{human_count(value)} docs"


def subtitle(entity: Entity) -> str:
    parts = []
    if entity.count is not None:
        parts.append(count_text(entity.count))
    if entity.timeseries is not None:
        parts.append("time series")
    if entity.subtypes is not None:
        parts.append(f"{len(entity.subtypes.variants)} subtypes")
    if entity.append_only and entity.timeseries is None:
        parts.append("append-only")
    return " · ".join(parts) or "count not set"


def entity_rows(entity: Entity) -> list[Row]:
    """The lines of an entity's card: its fields, then each subtype's own fields under its name."""
    rows = field_rows(entity.fields)
    if entity.subtypes is not None:
        for variant, fields in entity.subtypes.variants.items():
            rows.append(Row(0, f"‹{variant}›", "variant"))
            rows.extend(field_rows(fields, 1))
    return rows


def card_size(
    style: CanvasStyle, title: str, sub: str, rows: list[Row] | tuple[Row, ...], max_width: float | None = None
) -> tuple[float, float]:
    """Width and height of a card showing ``rows`` under ``title`` and ``sub`` (at most ``style.max_rows`` of them,
    then a "+ N more" line)."""
    shown = rows[: style.max_rows]
    width = max(
        style.title_width(title) + 2 * style.padding + 16,
        style.sub_width(sub) + 2 * style.padding + 8,  # slack: hinting differs with the zoom
        *(row_width(style, row) for row in shown),
        style.min_width,
    )
    width = min(max_width or style.max_width, width)
    lines = len(shown) + (1 if len(rows) > style.max_rows else 0) or 1
    return round(width), round(style.header_height + lines * style.row_height + 8)


def content_rect(
    style: CanvasStyle, title: str, sub: str, rows: list[Row] | tuple[Row, ...], max_width: float | None = None
) -> QRectF:
    """The rect :meth:`EntityItem.set_content` gives a card, in the card's coordinates (without touching it)."""
    return QRectF(0, 0, *card_size(style, title, sub, rows, max_width))


def entity_card_size(style: CanvasStyle, entity: Entity) -> tuple[float, float]:
    """The size :meth:`EntityItem.set_entity` gives the card, without making one (a card a build has not made)."""
    return card_size(style, entity.name, subtitle(entity), entity_rows(entity))


class EntityItem(QGraphicsItem):
    """Draws an entity; its id is the only thing it keeps (the rest is derived from the model)."""

    Type = QGraphicsItem.UserType + 1
    # slots, not an instance dict: about 650 bytes less per card (10,000 cards)
    __slots__ = (
        "_entity_look",
        "_hover",
        "_kind",
        "_more",
        "_rect",
        "_rows",
        "_style",
        "_subtitle",
        "_tip",
        "_title",
        "embedded_in",
        "entity_id",
        "marker",
        "query_highlight",
    )

    def __init__(self, entity_id: str, style: CanvasStyle) -> None:
        super().__init__()
        self.entity_id = entity_id
        self._style = style
        self._hover = False
        self._title = ""
        self._subtitle = ""
        self._kind = "plain"
        self._rows: tuple[Row, ...] = ()
        #: the tooltip given with the content (Documents view); None: made from the entity when asked
        self._tip: str | None = None
        self._more = 0
        self._rect = QRectF(0, 0, style.min_width, 60)
        #: what :meth:`set_entity` made the card show, kept while the Documents view shows the collection (turning
        #: the view off put each of 10,000 cards' fields into rows again: issue 16)
        self._entity_look: tuple[str, str, tuple[Row, ...], int, QRectF] | None = None
        #: worst open warning/error of the engine, and the entity this one is embedded in
        self.marker: str | None = None
        self.embedded_in: str | None = None
        #: the query selected in the Queries dock or tab reads this entity's documents
        self.query_highlight = False
        self.setFlags(
            QGraphicsItem.GraphicsItemFlag.ItemIsSelectable
            | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
            | QGraphicsItem.GraphicsItemFlag.ItemSendsGeometryChanges
        )
        # no Qt hover events: for those Qt tested every item under the pointer, thousands of long lines at
        # 10,000 cards (issue 16); the scene finds the card under the pointer itself (CanvasScene.hover_at)
        # cards change rarely and repaint often (lines moving across them): paint once per zoom level
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setZValue(1)

    def type(self) -> int:
        return self.Type

    # ------------------------------------------------------------ from model
    def set_entity(self, entity: Entity) -> None:
        """Recompute what the card shows from the model object."""
        rows = entity_rows(entity)
        self._kind = "timeseries" if entity.timeseries else ("lookup" if _looks_like_lookup(entity) else "plain")
        self.set_content(entity.name, subtitle(entity), rows, None)
        self._entity_look = (self._title, self._subtitle, self._rows, self._more, self._rect)

    def show_entity_look(self) -> bool:
        """Show again what :meth:`set_entity` last made the card show (False: it never did)."""
        look = self._entity_look
        if look is None:
            return False
        if (self._title, self._subtitle, self._rows, self._more, self._rect, self._tip) != (*look, None):
            self.prepareGeometryChange()
            self._title, self._subtitle, self._rows, self._more, self._rect = look
            self._tip = None
            self.update()
        return True

    def set_content(
        self, title: str, sub: str, rows: list[Row], tip: str | None, max_width: float | None = None
    ) -> None:
        """Show ``rows`` under ``title``: an entity's fields, or (Documents view) its collection's stored shape.

        ``tip`` None: the tooltip is made from the entity when the pointer rests on the card (10,000 cards
        would otherwise each hold a copy of text that is rarely read).
        """
        style = self._style
        self.prepareGeometryChange()
        self._title = title
        self._subtitle = sub
        self._tip = tip
        self._more = max(0, len(rows) - style.max_rows)
        self._rows = shared_rows(rows[: style.max_rows])
        self._rect = content_rect(style, title, sub, rows, max_width)
        self.update()

    def toolTip(self) -> str:  # Qt's name: CanvasScene.helpEvent asks for it
        """The name, description and what the card answers to (made now, from the model)."""
        if self._tip is not None:
            return self._tip
        scene: CanvasScene | None = self.scene()  # type: ignore[assignment]
        entity = scene.document.entity(self.entity_id) if scene is not None else None
        if entity is None:
            return ""
        tip = [entity.name]
        if entity.description:
            tip.append(entity.description)
        tip.append("Drag to move · drag the blue handle to another card to connect")
        tip.append("Double-click or F2 renames · Enter adds a field · right-click for more")
        return "\n".join(tip)

    def set_query_highlight(self, on: bool) -> None:
        """Mark the card as read by the selected query (``CanvasScene.highlight_query``); repaint only on change."""
        if on != self.query_highlight:
            self.query_highlight = on
            self.update()

    def set_advice(self, marker: str | None, embedded_in: str | None) -> None:
        """A severity marker and an "embedded in X" note from the latest analysis; repaint only on change."""
        if (marker, embedded_in) != (self.marker, self.embedded_in):
            self.marker, self.embedded_in = marker, embedded_in
            self.update()

    # ------------------------------------------------------------ geometry
    def rect(self) -> QRectF:
        return self._rect

    def scene_rect(self) -> QRectF:
        return self._rect.translated(self.pos())

    def title_rect(self) -> QRectF:
        """Where the name is drawn (the in-place rename box covers it)."""
        style = self._style
        return QRectF(
            style.padding - 4, 2, self._rect.width() - 2 * style.padding + 8, style.title_metrics.height() + 6
        )

    def footer_rect(self) -> QRectF:
        """Just below the card: where the inline "Add field" row opens."""
        return QRectF(0, self._rect.bottom() + 2, self._rect.width(), self._style.row_height + 10)

    def handle_center(self) -> QPointF:
        return QPointF(self._rect.right(), self._style.header_height / 2)

    def handle_rect(self) -> QRectF:
        c = self.handle_center()
        return QRectF(c.x() - 8, c.y() - 8, 16, 16)

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-HALO, -HALO, 11, HALO)  # room for the query halo outside the card

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRoundedRect(self._rect, self._style.radius, self._style.radius)
        path.addEllipse(self.handle_rect())
        return path

    # ------------------------------------------------------------ painting
    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        style, colors = self._style, self._style.colors
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        rect = self._rect
        header_color = {"timeseries": colors.header_timeseries, "lookup": colors.header_lookup}.get(
            self._kind, colors.header
        )
        selected = self.isSelected()
        if self.query_highlight:
            paint_card_halo(painter, rect, style.radius)
        border = colors.selection if selected else (colors.hover if self._hover else colors.card_border)
        painter.setPen(QPen(border, 2.5 if selected else 1.2))
        painter.setBrush(QBrush(colors.card))
        if lod < NAME_ONLY_LOD:
            # far out: a plain box with its header band, and the name while it is still legible
            painter.drawRect(rect)
            painter.fillRect(QRectF(rect.x(), rect.y(), rect.width(), style.header_height), header_color)
            if lod >= BOX_ONLY_LOD:
                painter.setPen(colors.header_text)
                painter.setFont(style.title_font)
                inner = rect.width() - 2 * style.padding
                painter.drawText(
                    QRectF(style.padding, 0, inner, style.header_height),
                    Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                    style.title_metrics.elidedText(self._title, Qt.TextElideMode.ElideRight, inner),
                )
            if self.marker:
                paint_marker(painter, QRectF(rect.right() - 34, 5, 15, 15), self.marker)
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.drawRoundedRect(rect, style.radius, style.radius)
        header = QPainterPath()
        header.addRoundedRect(rect.adjusted(1, 1, -1, 0), style.radius - 1, style.radius - 1)
        band = QPainterPath()
        band.addRect(QRectF(rect.x(), rect.y(), rect.width(), style.header_height))
        painter.fillPath(header.intersected(band), header_color)
        pad = style.padding
        inner = rect.width() - 2 * pad
        painter.setPen(colors.header_text)
        painter.setFont(style.title_font)
        title_h = style.title_metrics.height()
        painter.drawText(
            QRectF(pad, 4, inner, title_h),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            style.title_metrics.elidedText(self._title, Qt.TextElideMode.ElideRight, inner),
        )
        painter.setFont(style.sub_font)
        sub = self._subtitle + (f" · in {self.embedded_in}" if self.embedded_in else "")
        painter.drawText(
            QRectF(pad, 4 + title_h, inner, style.sub_metrics.height()),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            style.sub_metrics.elidedText(sub, Qt.TextElideMode.ElideRight, inner),
        )
        if self.embedded_in:  # stored inside another document: a dashed outline says "no collection of its own"
            painter.setPen(QPen(colors.card_border, 1.2, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawRoundedRect(rect.adjusted(-2, -2, 2, 2), style.radius + 2, style.radius + 2)
        if self.marker:
            paint_marker(painter, QRectF(rect.right() - 34, 5, 15, 15), self.marker)
        y = style.header_height + 4
        rh = style.row_height
        if not self._rows:
            painter.setPen(colors.card_muted)
            painter.setFont(style.type_font)
            painter.drawText(QRectF(pad, y, inner, rh), Qt.AlignmentFlag.AlignVCenter, "no fields yet")
        for row in self._rows:
            x = pad + row.level * style.indent
            type_w = style.type_width(row.type_text)
            painter.setFont(style.type_font)
            painter.setPen(KIND_COLORS.get(row.kind, colors.card_muted))
            painter.drawText(
                QRectF(rect.right() - pad - type_w, y, type_w, rh), Qt.AlignmentFlag.AlignVCenter, row.type_text
            )
            if row.level:
                painter.drawLine(QPointF(x - 9, y + rh / 2), QPointF(x - 3, y + rh / 2))
            painter.setFont(style.field_font if row.kind != "copy" else style.type_font)
            painter.setPen(KIND_COLORS.get(row.kind, colors.card_text))
            name = row.name + (" *" if row.required else "") + (" !" if row.unique else "")
            room = rect.right() - pad - type_w - 8 - x
            painter.drawText(
                QRectF(x, y, room, rh),
                Qt.AlignmentFlag.AlignVCenter,
                style.field_metrics.elidedText(name, Qt.TextElideMode.ElideRight, room),
            )
            y += rh
        if self._more:
            painter.setPen(colors.card_muted)
            painter.setFont(style.type_font)
            painter.drawText(QRectF(pad, y, inner, rh), Qt.AlignmentFlag.AlignVCenter, f"+ {self._more} more")
        if self._hover or selected:
            painter.setPen(QPen(colors.card, 1.5))
            painter.setBrush(colors.handle)
            painter.drawEllipse(self.handle_center(), 6.5, 6.5)

    # ------------------------------------------------------------ events
    def set_hovered(self, on: bool) -> None:
        """The pointer is over the card (it shows its connect handle); the scene tracks it (``hover_at``)."""
        if on != self._hover:
            self._hover = on
            self.update()

    def itemChange(self, change: QGraphicsItem.GraphicsItemChange, value: Any) -> Any:
        # called for every flag, tooltip, z and scene change too (about 14 times per card while a
        # 10,000-card project opens): anything but a move returns at once, as the base class would
        if change == _POSITION_CHANGE:
            scene: CanvasScene | None = self.scene()  # type: ignore[assignment]
            return value if scene is None else scene.snap(self, value)
        if change == _POSITION_CHANGED:
            scene = self.scene()  # type: ignore[assignment]
            if scene is not None:
                scene.entity_item_moved(self.entity_id)
        return value


_POSITION_CHANGE = QGraphicsItem.GraphicsItemChange.ItemPositionChange
_POSITION_CHANGED = QGraphicsItem.GraphicsItemChange.ItemPositionHasChanged


def _looks_like_lookup(entity: Entity) -> bool:
    """Small, read-mostly reference data gets the lookup colour (as the palette's preset)."""
    return (
        entity.count is not None
        and entity.count <= 10_000
        and (entity.writes_per_sec or 0) == 0
        and (entity.reads_per_sec or 0) > 0
    )
