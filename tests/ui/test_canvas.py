"""The canvas: moving is one undo entry, lines meet their cards, parallel lines stay apart, zoom and pan."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from modeller.model import Position, Relationship
from modeller.ui.commands import AddRelationshipCommand, MoveCommand
from modeller.ui.main_window import MainWindow

from .conftest import sample
from .helpers import body_point, drag


def on_border(point: QPointF, rect, tolerance: float = 1.0) -> bool:
    inside = rect.adjusted(-tolerance, -tolerance, tolerance, tolerance).contains(point)
    strictly = rect.adjusted(tolerance, tolerance, -tolerance, -tolerance).contains(point)
    return inside and not strictly


def test_lines_meet_their_cards_in_every_sample(make_window, samples_dir) -> None:
    window = make_window()
    for path in sorted(samples_dir.glob("*.modeller.json")):
        assert window.open_path(path, ask=False)
        scene = window.scene
        assert set(scene.entity_items) == {e.id for e in window.document.project.entities}
        for rel in window.document.project.relationships:
            ends = scene.relationship_items[rel.id].end_points()
            one, many = scene.entity_items[rel.one].scene_rect(), scene.entity_items[rel.many].scene_rect()
            assert on_border(ends[0], one), (path.name, rel.id)
            assert on_border(ends[1], many), (path.name, rel.id)


def test_drag_of_two_selected_cards_is_one_move(window: MainWindow) -> None:
    assert window.open_path(sample("task-tracker"), ask=False)
    window.view.reset_zoom()
    ids = [e.id for e in window.document.project.entities]
    window.scene.select_only(entity_ids=ids)
    before = {key: window.document.position(key) for key in ids}
    count = window.document.undo_stack.count()
    start = body_point(window, ids[0])
    drag(window, start, start + QPoint(100, 60))
    stack = window.document.undo_stack
    assert stack.count() == count + 1
    assert stack.undoText() == "Move 2 entities"
    for key in ids:
        moved = window.document.position(key)
        assert (moved.x - before[key].x, moved.y - before[key].y) == (100, 60)  # grid-snapped at zoom 100 %
        assert moved.x % 20 == 0 and moved.y % 20 == 0
    # the lines followed the cards
    rel = window.document.project.relationships[0]
    ends = window.scene.relationship_items[rel.id].end_points()
    assert on_border(ends[0], window.scene.entity_items[rel.one].scene_rect())
    stack.undo()
    assert {key: window.document.position(key) for key in ids} == before
    assert window.scene.entity_items[ids[0]].pos() == QPointF(before[ids[0]].x, before[ids[0]].y)


def test_parallel_relationships_are_drawn_apart_and_self_loops_are_loops(window: MainWindow) -> None:
    assert window.open_path(sample("task-tracker"), ask=False)
    doc = window.document
    one, many = doc.project.entities[0].id, doc.project.entities[1].id
    doc.push(AddRelationshipCommand(doc, Relationship(id="second", one=many, many=one, cardinality="one-to-few")))
    doc.push(AddRelationshipCommand(doc, Relationship(id="tree", one=one, many=one, cardinality="one-to-many")))
    first_id = next(r.id for r in doc.project.relationships if r.id not in ("second", "tree"))
    a = window.scene.relationship_items[first_id].end_points()
    b = window.scene.relationship_items["second"].end_points()
    mid_a = (a[0] + a[1]) / 2
    mid_b = (b[0] + b[1]) / 2
    assert (mid_a - mid_b).manhattanLength() > 20
    loop = window.scene.relationship_items["tree"]
    rect = window.scene.entity_items[one].scene_rect()
    assert all(on_border(p, rect) for p in loop.end_points())
    assert loop.boundingRect().top() < rect.top() - 20  # drawn as a loop above the card
    doc.undo_stack.undo()
    doc.undo_stack.undo()
    after = window.scene.relationship_items[first_id].end_points()
    assert after == a or (after[0] + after[1]) / 2 != mid_a  # remaining line re-centred


def test_ctrl_wheel_zooms_and_fit_shows_everything(window: MainWindow) -> None:
    assert window.open_path(sample("ecommerce"), ask=False)
    window.view.reset_zoom()
    viewport = window.view.viewport()
    event = QWheelEvent(
        QPointF(200, 200),
        QPointF(viewport.mapToGlobal(QPoint(200, 200))),
        QPoint(0, 0),
        QPoint(0, 120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.ControlModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(viewport, event)
    assert abs(window.view.zoom() - 1.15) < 1e-6
    assert window.zoom_label.text() == "115 %"
    window.fit_action.trigger()
    visible = window.view.mapToScene(viewport.rect()).boundingRect()
    for item in window.scene.entity_items.values():
        assert visible.contains(item.sceneBoundingRect())


def test_middle_drag_pans(window: MainWindow) -> None:
    assert window.open_path(sample("ecommerce"), ask=False)
    window.view.set_zoom(2.0)
    viewport = window.view.viewport()
    before = window.view.mapToScene(QPoint(0, 0))
    QTest.mousePress(viewport, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, QPoint(300, 300))
    QTest.mouseMove(viewport, QPoint(250, 260))
    QTest.mouseRelease(viewport, Qt.MouseButton.MiddleButton, Qt.KeyboardModifier.NoModifier, QPoint(250, 260))
    after = window.view.mapToScene(QPoint(0, 0))
    assert after.x() > before.x() and after.y() > before.y()
    assert window.document.undo_stack.count() == 0  # panning is not an edit


def test_rubber_band_delete_copy_paste(window: MainWindow) -> None:
    assert window.open_path(sample("blog"), ask=False)
    doc = window.document
    n_entities, n_rels = len(doc.project.entities), len(doc.project.relationships)
    viewport = window.view.viewport()
    drag(window, QPoint(2, 2), QPoint(viewport.width() - 2, viewport.height() - 2))
    assert set(window.scene.selected_entity_ids()) == {e.id for e in doc.project.entities}
    window.view.setFocus()
    window.duplicate_action.trigger()
    assert len(doc.project.entities) == 2 * n_entities
    assert len(doc.project.relationships) == 2 * n_rels
    copies = doc.project.entities[n_entities:]
    originals = doc.project.entities[:n_entities]
    assert {c.id for c in copies}.isdisjoint({o.id for o in originals})
    assert [c.fields for c in copies] == [o.fields for o in originals]
    for original, copy in zip(originals, copies, strict=True):
        assert doc.position(copy.id).x == doc.position(original.id).x + 40
    assert set(window.scene.selected_entity_ids()) == {c.id for c in copies}
    assert doc.undo_stack.undoText().startswith("Paste")
    QTest.keyClick(window.view, Qt.Key.Key_Delete)
    assert len(doc.project.entities) == n_entities and len(doc.project.relationships) == n_rels
    doc.undo_stack.undo()
    assert len(doc.project.entities) == 2 * n_entities


def test_auto_layout_is_one_undo_entry_without_overlaps(window: MainWindow, qtbot) -> None:
    assert window.open_path(sample("ecommerce"), ask=False)
    doc = window.document
    for entity in doc.project.entities:  # pile every card on one spot
        doc.push(MoveCommand(doc, {entity.id: Position(x=0, y=0)}))
    count = doc.undo_stack.count()
    window.layout_action.trigger()
    qtbot.waitUntil(lambda: window.layout_job is None, timeout=20_000)  # dot runs asynchronously
    assert doc.undo_stack.count() == count + 1 and doc.undo_stack.undoText() == "Auto-layout"
    rects = [item.sceneBoundingRect() for item in window.scene.entity_items.values()]
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert not a.intersects(b)
    doc.undo_stack.undo()
    assert all(doc.position(e.id) == Position(x=0, y=0) for e in doc.project.entities)
