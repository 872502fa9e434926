"""Issue 16: what the canvas keeps between repaints. At fit zoom (the overview) a move draws only the moved card and
its lines over a picture of the rest, and the result looks exactly like a whole drawing; a scroll shifts the
pictures instead of drawing them anew, and the lines are still drawn where they are; a zoom draws them anew.
The pointer finds the card and the line under it through grids, not through Qt's index of bounding boxes."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QRegion
from PySide6.QtWidgets import QApplication

from benchmarks.generate import generate_project
from modeller.model import Position
from modeller.persistence import load_project, save_project
from modeller.ui.canvas.items.entity_item import EntityItem
from modeller.ui.canvas.items.relationship_item import RelationshipItem
from modeller.ui.commands import MoveCommand

from .test_canvas_lean_items import _hover_tip
from .test_canvas_repaint_cost import _shows_colour


class Paints(QObject):
    """The regions of the viewport's paint events."""

    def __init__(self) -> None:
        super().__init__()
        self.regions: list[QRegion] = []

    def eventFilter(self, _obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.regions.append(QRegion(event.region()))  # type: ignore[attr-defined]
        return False


def _window(make_window, entities: int = 300):
    window = make_window()
    window.resize(1200, 800)
    window.show()
    window.document.reset(generate_project(entities, 1.5, 0.5, seed=3))
    window.scene.finish_build()
    return window


def _max_difference(a: QImage, b: QImage) -> int:
    """The largest difference of one colour channel between two images of the same size."""
    assert a.size() == b.size()
    worst = 0
    for y in range(0, a.height()):
        for x in range(0, a.width()):
            if a.pixel(x, y) != b.pixel(x, y):
                p, q = QColor(a.pixel(x, y)), QColor(b.pixel(x, y))
                worst = max(worst, abs(p.red() - q.red()), abs(p.green() - q.green()), abs(p.blue() - q.blue()))
    return worst


def _whole_drawing(scene, view) -> QImage:
    """The viewport drawn from scratch: no picture kept, nothing drawn over one."""
    scene._overview_painter.reset(scene._overview_boxes)
    scene.lines.settle()
    return view.viewport().grab().toImage()


#: where along a line the test looks for its pixels (off the badge and label in its middle, and off its ends)
ALONG = (0.25, 0.32, 0.68, 0.75)


def _free_line(window) -> RelationshipItem:
    """A line of two cards moved away from the others (so its pixels at :data:`ALONG` show the line colour)."""
    scene, document = window.scene, window.document
    degree = {key: len(lines) for key, lines in scene._attached.items()}
    rel = min(document.project.relationships, key=lambda r: degree[r.one] + degree[r.many] + 99 * (r.one == r.many))
    document.push(MoveCommand(document, {rel.one: Position(x=-4000, y=-3000), rel.many: Position(x=-3300, y=-2600)}))
    scene.lines.settle()
    window.view.grow_scene_rect()  # room to scroll around them
    return scene.relationship_items[rel.id]


def test_a_move_at_fit_zoom_draws_only_the_moved_card_over_the_picture(make_window, qtbot, monkeypatch) -> None:
    window = _window(make_window)
    scene, view, document = window.scene, window.view, window.document
    view.fit_to_window()
    assert scene.overview
    cards: list[object] = []
    monkeypatch.setattr(EntityItem, "paint", lambda item, *args: cards.append(item))
    paints = Paints()
    view.viewport().installEventFilter(paints)
    view.viewport().grab()
    overview = scene._overview_painter
    assert overview.pictures.last == "drawn" and not overview.live

    key = min(scene.entity_items, key=lambda k: len(scene._attached.get(k, ())) or 99)
    attached = scene._attached[key]

    def move(dx: float, dy: float) -> None:
        paints.regions.clear()
        old = scene.model_position(key)
        document.push(MoveCommand(document, {key: Position(x=old.x() + dx, y=old.y() + dy)}))
        qtbot.waitUntil(lambda: bool(paints.regions), timeout=5000)

    move(300, 120)  # the first move of the card: the picture is drawn once without it
    assert overview.live == {key} and overview.pictures.last == "drawn"
    move(-60, 40)  # from now on the picture is kept and only the card and its lines are drawn over it
    assert overview.pictures.last == "kept"
    lines, boxes = overview._overlay.lines, overview._overlay.boxes
    assert sorted((line.x1(), line.y1(), line.x2(), line.y2()) for line in lines) == sorted(
        (c.x1(), c.y1(), c.x2(), c.y2()) for c in (scene.relationship_items[r].chord for r in attached)
    )
    assert scene.entity_items[key].scene_rect() in boxes
    assert len(boxes) < len(scene.entity_items) / 3  # the cards near the moved ones, not all
    assert cards == []  # no card paints itself in the overview
    # what Qt repainted lies where the card and its lines were and are
    allowed = QRegion()
    for item in [scene.entity_items[key], *(scene.relationship_items[r] for r in attached)]:
        allowed += view.mapFromScene(item.sceneBoundingRect()).boundingRect().adjusted(-60, -60, 60, 60)
    painted = QRegion()
    for region in paints.regions:
        painted += region
    assert not painted.isEmpty() and painted.subtracted(allowed).isEmpty()
    # and it looks exactly like the whole diagram drawn anew
    kept = view.viewport().grab().toImage()
    assert _max_difference(kept, _whole_drawing(scene, view)) == 0


def test_a_scroll_shifts_the_pictures_and_the_lines_stay_where_they_are(make_window, qtbot) -> None:
    window = _window(make_window)
    scene, view = window.scene, window.view
    line_colour = scene.style.colors.line
    line = _free_line(window)
    for zoom, pictures in ((1.0, scene.lines.pictures), (0.12, scene._overview_painter.pictures)):
        view.set_zoom(zoom)
        assert scene.overview == (zoom < 0.3)
        view.centerOn(line.chord.pointAt(0.5))
        pictures.clear()
        view.viewport().grab()
        assert pictures.last == "drawn"
        bar = view.horizontalScrollBar()
        was, half = bar.value(), view.viewport().width() // 2
        bar.setValue(was + half)  # the line (and at this zoom, cards) leave the viewport on the left ...
        assert bar.value() == was + half
        view.viewport().grab()
        bar.setValue(was)  # ... and come back in the strip the shifted picture uncovers
        scrolled = view.viewport().grab().toImage()
        assert pictures.last == "shifted"  # not drawn anew
        for t in ALONG:
            assert _shows_colour(scrolled, view.mapFromScene(line.chord.pointAt(t)), line_colour), (zoom, t)
        # the shifted picture shows what a whole drawing shows (antialiased line pieces may differ by a shade)
        assert _max_difference(scrolled, _whole_drawing(scene, view)) <= (8 if zoom == 1.0 else 0)
        # a zoom step shows the picture scaled (drawn at the old scale), then draws it anew once the zoom rests
        before = view.viewport().grab().toImage()
        view.set_zoom(zoom * 1.15)
        preview = view.viewport().grab().toImage()
        assert pictures.last == "scaled" and preview != before
        view.set_zoom(zoom * 1.15 * 1.15)  # a second step before it rests: still the same picture, scaled
        view.viewport().grab()
        assert pictures.last == "scaled"
        # once it rests the picture is drawn anew in bands, one per repaint, the old one scaled under the rest
        qtbot.waitUntil(lambda held=pictures: (view.viewport().grab(), held.last)[1] != "scaled", timeout=3000)
        qtbot.waitUntil(lambda held=pictures: (view.viewport().grab(), held.last)[1] in ("drawn", "kept"), timeout=3000)
        if zoom == 1.0:
            rested = view.viewport().grab().toImage()
            for t in ALONG:
                point = view.mapFromScene(line.chord.pointAt(t))
                if view.viewport().rect().contains(point):
                    assert _shows_colour(rested, point, line_colour), ("after the zoom", t)
            assert _max_difference(rested, _whole_drawing(scene, view)) <= 8


def test_a_moved_card_is_saved_and_undone(make_window, tmp_path) -> None:
    window = _window(make_window, entities=40)
    document, scene = window.document, window.scene
    key = document.project.entities[7].id
    other = document.project.entities[8].id
    before = document.project.layout.get(key)
    order = list(document.project.layout)
    document.push(MoveCommand(document, {key: Position(x=1234, y=567.5)}))
    assert document.project.layout[key] == Position(x=1234, y=567.5)
    assert scene.entity_items[key].pos() == QPointF(1234, 567.5)
    assert list(document.project.layout) == order or key not in order  # a moved card keeps its place in the file
    path = tmp_path / "moved.modeller.json"
    save_project(document.project, path)
    loaded = load_project(path)
    assert loaded.layout[key] == Position(x=1234, y=567.5) and loaded.layout.get(other) == document.project.layout.get(
        other
    )
    document.undo_stack.undo()
    assert document.project.layout.get(key) == before
    document.undo_stack.redo()
    assert document.project.layout[key] == Position(x=1234, y=567.5)


def _pointer_at(view, scene_point: QPointF) -> None:
    """A pointer move (no button) to ``scene_point``, as the window system sends it."""
    pos = view.mapFromScene(scene_point)
    viewport = view.viewport()
    event = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(pos),
        QPointF(viewport.mapToGlobal(pos)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(viewport, event)


def test_the_pointer_finds_the_card_and_the_line_under_it(make_window) -> None:
    window = _window(make_window)
    scene, view, document = window.scene, window.view, window.document
    line = _free_line(window)
    rel = document.relationship(line.rel_id)
    one, many = document.entity(rel.one), document.entity(rel.many)
    view.reset_zoom()
    spot = line.chord.pointAt(0.3)
    view.centerOn(spot)
    # the tooltip of the line under the pointer (found through the segment grid), and none just beside it
    tip = _hover_tip(window, spot)
    assert tip.startswith(f"{one.name} → {many.name}") or tip.startswith(f"{many.name} → {one.name}"), tip
    normal = line.chord.normalVector().unitVector()
    beside = spot + QPointF(normal.dx(), normal.dy()) * 14
    assert scene.line_at(spot) is line and scene.line_at(beside) is None
    assert _hover_tip(window, beside) == ""
    # a card under the pointer shows its handle, over the handle the pointer is a cross; leaving it clears both
    card = scene.entity_items[rel.one]
    view.centerOn(card)
    _pointer_at(view, card.mapToScene(card.title_rect().center()))
    assert card._hover and scene._hovered == rel.one
    assert view.viewport().cursor().shape() != Qt.CursorShape.CrossCursor
    _pointer_at(view, card.mapToScene(card.handle_center()))
    assert view.viewport().cursor().shape() == Qt.CursorShape.CrossCursor
    _pointer_at(view, card.mapToScene(card.rect().bottomRight()) + QPointF(300, 300))
    assert not card._hover and scene._hovered is None
    assert view.viewport().cursor().shape() != Qt.CursorShape.CrossCursor
    # of two cards on top of each other, the one Qt draws on top (its own stacking order)
    other = scene.entity_items[rel.many]
    at = scene.model_position(rel.one)
    document.push(MoveCommand(document, {rel.many: Position(x=at.x() + 20, y=at.y() + 20)}))
    point = card.mapToScene(card.rect().center())
    stacked = [item for item in scene.items(point) if item in (card, other)]
    assert len(stacked) == 2 and scene.entity_item_at(point) is stacked[0]


def test_after_a_zoom_rests_the_picture_is_drawn_in_bands(make_window, qtbot, monkeypatch) -> None:
    """Issue 16: the picture at a zoom's new scale is drawn one band per repaint (no repaint draws it whole), the
    old picture scaled under the bands not drawn yet; once all are drawn it is exactly a whole drawing."""
    from modeller.ui.canvas.items import view_picture

    window = _window(make_window)
    scene, view = window.scene, window.view
    for policy in (view.setHorizontalScrollBarPolicy, view.setVerticalScrollBarPolicy):
        policy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)  # a zoom must not change the viewport's size (a resize draws anew)
    view.fit_to_window()
    assert scene.overview
    pictures = scene._overview_painter.pictures
    view.viewport().grab()
    drawn: list[QRect] = []
    during: list[int] = []  # which paint of the viewport drew each band
    paints = Paints()
    view.viewport().installEventFilter(paints)
    original = view_picture._draw_in

    def recording(pixmap, area, *args, **kwargs) -> None:
        drawn.append(QRect(area))
        during.append(len(paints.regions))
        original(pixmap, area, *args, **kwargs)

    monkeypatch.setattr(view_picture, "_draw_in", recording)
    view.set_zoom(view.zoom() * 1.15)
    view.viewport().grab()
    assert pictures.last == "scaled" and drawn == []  # the old picture, scaled
    qtbot.waitUntil(lambda: (view.viewport().grab(), pictures.last)[1] in ("drawn", "kept"), timeout=3000)
    size = view.viewport().size()
    assert len(drawn) == view_picture.BANDS
    assert len(set(during)) == len(during)  # one band per repaint
    assert all(area.width() == size.width() and area.height() < size.height() / 4 for area in drawn)
    covered = QRegion()
    for area in drawn:
        assert covered.intersected(area).isEmpty()  # no row drawn twice
        covered += area
    assert covered.boundingRect().contains(QRect(QPoint(0, 0), size))
    assert _max_difference(view.viewport().grab().toImage(), _whole_drawing(scene, view)) == 0
