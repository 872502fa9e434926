"""Issue 16 at CI size: on a generated 2,000-entity project an edit touches only the findings rows that
changed, a moved card repaints only itself and its lines, and the UI thread keeps answering while the
project opens (how long it waits is a benchmark figure, benchmarks/bench_open.py, not asserted here)."""

from __future__ import annotations

import json
import threading

import pytest
from PySide6.QtCore import QEvent, QModelIndex, QObject, QTimer
from PySide6.QtGui import QRegion

from modeller.model import Position, Project
from modeller.persistence import save_project
from modeller.ui.analysis import engine_analyse
from modeller.ui.canvas.items.entity_item import EntityItem
from modeller.ui.canvas.items.relationship_item import RelationshipItem
from modeller.ui.commands import EditRelationshipCommand, MoveCommand
from modeller.ui.panels.analysis_facts import count
from modeller.ui.panels.design_index import design_index
from modeller.ui.panels.findings_model import FINDING_ROLE, sort_key
from modeller.ui.panels.preview import _linked_collections, preview_sample, relaxed_json

from .big_model import ENTITIES, big_project

pytestmark = pytest.mark.slow


class ModelSignals:
    """Every structural signal of the findings model, with the number of rows each one names."""

    def __init__(self, model) -> None:
        self.resets = 0
        self.layouts = 0
        self.inserted = 0
        self.removed = 0
        self.changed = 0
        model.modelReset.connect(lambda: setattr(self, "resets", self.resets + 1))
        model.layoutChanged.connect(lambda *_: setattr(self, "layouts", self.layouts + 1))
        model.rowsInserted.connect(lambda _p, first, last: setattr(self, "inserted", self.inserted + last - first + 1))
        model.rowsRemoved.connect(lambda _p, first, last: setattr(self, "removed", self.removed + last - first + 1))
        model.dataChanged.connect(
            lambda top, bottom, *_: setattr(self, "changed", self.changed + bottom.row() - top.row() + 1)
        )

    @property
    def touched(self) -> int:
        return self.inserted + self.removed + self.changed


def test_one_edit_touches_only_the_changed_rows_of_the_findings_model(make_window) -> None:
    window = make_window(use_engine=True)
    window.document.reset(big_project())
    window.scene.finish_build()  # a large project's canvas is built in slices; these tests need every item
    window.analysis.run_now()
    panel = window.recommendations
    before = list(panel.analysis.findings)
    assert len(panel.visible_findings()) == len(before) > 5 * ENTITIES // 2
    signals = ModelSignals(panel.model)

    rel = next(r for r in window.document.project.relationships if r.cardinality != "one-to-squillions")
    edited = rel.model_copy(
        update={"cardinality": "one-to-squillions", "max": None, "typical": None, "strategy": "embed"}
    )
    window.document.push(EditRelationshipCommand(window.document, edited))
    window.analysis.run_now()

    after = panel.analysis.findings
    differ = {sort_key(f) for f in before} ^ {sort_key(f) for f in after}
    assert differ, "the edit must change the advice, or this test proves nothing"
    assert signals.resets == 0 and signals.layouts == 0
    # each new or vanished finding is one row in or out; changed findings and group labels are the rest
    assert signals.inserted + signals.removed == len(differ)
    assert 0 < signals.touched <= len(differ) + 20, vars(signals)
    # and the rows are right: the panel lists exactly the new analysis
    shown = panel.visible_findings()
    assert sorted(map(sort_key, shown)) == sorted(map(sort_key, after))
    assert sorted(shown, key=sort_key) == sorted(after, key=sort_key)
    # undo, and an edit the other way: the rows follow each analysis exactly, still without a reset
    window.document.undo_stack.undo()
    window.analysis.run_now()
    assert sorted(map(sort_key, panel.visible_findings())) == sorted(map(sort_key, before))
    other = next(r for r in window.document.project.relationships if r.strategy == "auto" and r.id != rel.id)
    window.document.push(EditRelationshipCommand(window.document, other.model_copy(update={"strategy": "embed"})))
    window.analysis.run_now()
    assert sorted(map(sort_key, panel.visible_findings())) == sorted(map(sort_key, panel.analysis.findings))
    assert {id(f) for f in panel.visible_findings()} == {id(f) for f in panel.analysis.findings}  # the very objects
    assert signals.resets == 0 and signals.layouts == 0


def test_severity_and_selection_filters_are_a_proxy_over_the_same_rows(make_window) -> None:
    window = make_window(use_engine=True)
    window.document.reset(big_project())
    window.scene.finish_build()  # a large project's canvas is built in slices; these tests need every item
    window.analysis.run_now()
    panel = window.recommendations
    signals = ModelSignals(panel.model)
    panel.severity_box.setCurrentIndex(1)  # errors and warnings
    listed = panel.visible_findings()
    expected = [f for f in panel.analysis.findings if f.severity in ("error", "warning")]
    assert listed and sorted(map(sort_key, listed)) == sorted(map(sort_key, expected))
    busy = max(window.scene.entity_items, key=lambda key: len(window.document.relationships_of(key)))
    window.scene.select_only([busy])
    shown = panel.visible_findings()
    assert shown and all(f.severity in ("error", "warning") for f in shown)
    assert len(shown) < len(listed)
    total = f"{len(panel.analysis.findings):,} findings"
    verb = "concerns" if len(shown) == 1 else "concern"  # one finding concerns, two concern
    assert panel.header.text().startswith(f"{len(shown):,} of {total} {verb} the selection · To do: ")
    panel.severity_box.setCurrentIndex(0)
    window.scene.clearSelection()
    assert len(panel.visible_findings()) == len(panel.analysis.findings)
    assert signals.touched == 0 and signals.resets == 0  # filtering never touched the model


def test_a_move_repaints_only_the_moved_card_and_its_lines(make_window, qtbot, monkeypatch) -> None:
    window = make_window()
    window.resize(1600, 1000)
    window.document.reset(big_project())
    window.scene.finish_build()  # a large project's canvas is built in slices; these tests need every item
    scene, view = window.scene, window.view

    def reach(key: str) -> float:
        """How much of the scene the card's lines cover (a card with short lines shows a bounded repaint)."""
        rels = window.document.relationships_of(key)
        rects = [scene.relationship_items[r.id].sceneBoundingRect() for r in rels]
        return sum(r.width() * r.height() for r in rects) if rects else float("inf")

    busy = min(scene.entity_items, key=reach)
    view.reset_zoom()
    view.centerOn(scene.entity_items[busy])
    cards: list[object] = []
    original = EntityItem.paint

    def counting(item, painter, option, widget=None):
        cards.append(item)
        original(item, painter, option, widget)

    monkeypatch.setattr(EntityItem, "paint", counting)
    regions: list[QRegion] = []

    class Regions(QObject):
        def eventFilter(self, _obj, event) -> bool:
            if event.type() == QEvent.Type.Paint:
                regions.append(QRegion(event.region()))
            return False

    watch = Regions()
    view.viewport().installEventFilter(watch)
    qtbot.waitUntil(lambda: bool(regions), timeout=5000)
    qtbot.wait(50)
    layer = scene.lines
    attached = {r.id for r in window.document.relationships_of(busy)}
    card = scene.entity_items[busy]
    assert attached
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    others = [i for i in scene.items(visible) if isinstance(i, RelationshipItem) and i.rel_id not in attached]
    assert others, "no other line on screen: the test would prove nothing"

    def move(dx: float, dy: float) -> None:
        regions.clear()
        cards.clear()
        old = scene.model_position(busy)
        window.document.push(MoveCommand(window.document, {busy: Position(x=old.x() + dx, y=old.y() + dy)}))
        qtbot.waitUntil(lambda: bool(regions), timeout=5000)
        qtbot.wait(50)

    def covered() -> QRegion:
        """Where the card and its lines are (their bounding boxes, in viewport pixels, with the antialiasing margin)."""
        out = QRegion()
        for item in [card, *(scene.relationship_items[key] for key in attached)]:
            out += view.mapFromScene(item.sceneBoundingRect()).boundingRect().adjusted(-4, -4, 4, 4)
        return out

    move(40, 20)  # the card's lines change for the first time: the picture of the others is drawn once without them
    assert layer.last_redrew_picture
    allowed = covered()
    move(-20, 20)  # from now on only the moved lines are drawn, over the picture
    allowed += covered()
    assert not layer.last_redrew_picture
    assert set(layer.last_drawn) <= attached and layer.last_drawn, "the moved card's lines were not redrawn"
    assert [item for item in cards if item is not card] == []  # no other card was painted
    # what Qt repainted lies where the card and its lines were and are, and is a small part of the viewport
    painted = QRegion()
    for region in regions:
        painted += region
    assert not painted.isEmpty()
    assert painted.subtracted(allowed).isEmpty()
    viewport = view.viewport().rect()
    assert sum(rect.width() * rect.height() for rect in painted) < viewport.width() * viewport.height() / 3


def test_new_badges_show_in_sight_at_once_and_out_of_sight_in_slices(make_window, qtbot) -> None:
    window = make_window(use_engine=True)
    window.document.reset(big_project())
    window.scene.finish_build()
    scene, view = window.scene, window.view
    view.reset_zoom()
    view.centerOn(next(iter(scene.entity_items.values())))
    before = {key: item.badge_text() for key, item in scene.relationship_items.items()}
    window.analysis.run_now()

    def expected(rel_id: str) -> str:
        rel = window.document.relationship(rel_id)
        assert rel is not None
        return scene.badge(rel)[0]

    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    in_sight = {i.rel_id for i in scene.items(visible) if isinstance(i, RelationshipItem)}
    assert in_sight, "no line on screen: the test would prove nothing"
    assert all(scene.relationship_items[key].badge_text() == expected(key) for key in in_sight)
    changed = [key for key in scene.relationship_items if expected(key) != before[key]]
    assert len(changed) > len(in_sight)  # the engine chose strategies for lines out of sight too
    # those are redrawn from the event loop, not while the analysis is handed over
    assert scene.badges_pending
    assert any(scene.relationship_items[key].badge_text() == before[key] for key in changed if key not in in_sight)
    qtbot.waitUntil(lambda: not scene.badges_pending, timeout=60_000)
    assert all(item.badge_text() == expected(key) for key, item in scene.relationship_items.items())


def test_the_ui_thread_keeps_answering_while_a_large_project_opens(make_window, qtbot, tmp_path) -> None:
    # the real engine, held back until the UI thread has run its timer with the analysis in the background:
    # a design that analysed on the UI thread (or waited for the worker) could never release it
    real = engine_analyse()
    ticked = threading.Event()

    def held_back(project: Project):
        assert ticked.wait(30), "the UI thread did not run its timer while the analysis waited"
        return real(project)

    window = make_window(analyse=held_back)
    path = tmp_path / "big.modeller.json"
    save_project(big_project(), path)
    ticks: list[bool] = []  # True: ticked while the analysis ran in the background

    def tick() -> None:
        ticks.append(window.analysis.background)
        if sum(ticks) >= 3:
            ticked.set()

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()
    arrived: list[object] = []
    window.analysis.analysed.connect(arrived.append)
    assert window.open_path(path, ask=False)
    assert window.findings_label.text() in ("Analysing…", "no analysis yet")
    busy: list[bool] = []
    window.analysis.running.connect(lambda on: busy.append(window.analysis_progress.isVisible()))
    qtbot.waitUntil(lambda: bool(arrived), timeout=60_000)
    timer.stop()
    assert ticked.is_set() and sum(ticks) >= 3
    assert busy == [True, False]  # a busy bar in the status bar while the engine ran, gone with its findings
    assert len(window.recommendations.visible_findings()) == len(window.analysis.latest.findings)
    assert window.findings_label.text() != "Analysing…"
    assert not window.analysis_progress.isVisible()
    index = window.recommendations.tree.currentIndex()
    assert isinstance(index, QModelIndex) and index.data(FINDING_ROLE) is not None
    # the preview's sample of a collection linked to most of the design is generated off the UI thread too
    preview = window.preview
    qtbot.waitUntil(lambda: bool(preview.sample), timeout=60_000)
    assert json.loads(preview.sample_view.toPlainText()).keys() == preview.sample.keys()


def test_after_an_edit_the_canvas_marks_and_the_preview_are_those_of_the_new_analysis(make_window, qtbot) -> None:
    """The hand-over touches only what changed (markers by the marks that differ, the preview's linked
    collections by name); what shows must still be exactly what the new analysis says."""
    window = make_window(use_engine=True)
    window.document.reset(big_project())
    window.scene.finish_build()
    window.analysis.run_now()
    window.live.finish_markers()
    before = count(window.analysis.latest, window.document.project)
    design = window.analysis.latest.design
    # a collection whose documents reference others: its sample needs their documents too
    coll = next(c for c in design.collections if c.entities and any(n.ref_collection for n in c.shape))
    window.show_in_preview(coll.root)
    window.preview.show_tab("Document")
    assert window.preview.collection_box.currentText() == coll.name

    project = window.document.project
    rel = next(
        r
        for r in project.relationships
        if r.cardinality != "one-to-squillions" and coll.root in (r.one, r.many) and r.id not in before.rel_marks
    )
    # an unbounded array embedded in the One: the line gets a marker
    edited = rel.model_copy(
        update={"cardinality": "one-to-squillions", "max": None, "typical": None, "strategy": "embed"}
    )
    window.document.push(EditRelationshipCommand(window.document, edited))
    window.analysis.run_now()
    window.live.finish_markers()
    analysis, project = window.analysis.latest, window.document.project
    after = count(analysis, project)
    assert (before.entity_marks, before.rel_marks) != (after.entity_marks, after.rel_marks), (
        "the edit must change a marker, or this test proves nothing"
    )
    # every card and line shows the new analysis' marks (counted afresh here, not the hand-over's cache)
    for entity_id, item in window.scene.entity_items.items():
        assert item.marker == after.entity_marks.get(entity_id), entity_id
    for rel_id, line in window.scene.relationship_items.items():
        assert line.marker == after.rel_marks.get(rel_id), rel_id
    # the preview shows the collection as the new design stores it, its sample made from the collections it
    # reaches now (every collection its documents reference among them)
    name = window.preview.collection_box.currentText()
    shown = window.preview.current_collection()
    assert shown is not None and shown is design_index(analysis.design).collection(name)
    linked = _linked_collections(analysis.design, name)
    assert {n.ref_collection for n in shown.shape if n.ref_collection} <= set(linked)
    qtbot.waitUntil(lambda: not window.preview.sample_view.toPlainText().startswith("//"), timeout=60_000)
    assert window.preview.sample_view.toPlainText() == relaxed_json(preview_sample(analysis.design, project, name))
    assert window.preview.shape_tree.topLevelItemCount() == len(shown.shape)


def test_a_rubber_band_and_a_click_select_what_lies_under_them(make_window, qtbot) -> None:
    """The view's own rubber band finds the cards and lines through the grids; it selects what Qt's index and the
    items' shapes hold in the band (what Qt's own rubber band selected), a Ctrl-band adds to the selection, and a
    click selects the card under the pointer."""
    from PySide6.QtCore import QPoint, QPointF, QRect, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QGraphicsItem

    from .helpers import drag

    window = make_window()
    window.resize(1600, 1000)
    window.document.reset(big_project())
    window.scene.finish_build()
    scene, view = window.scene, window.view
    view.setSceneRect(scene.content_rect().adjusted(-2000, -2000, 2000, 2000))  # as an open does (fit_on_open)
    view.reset_zoom()
    view.centerOn(QPointF(3000, 2000))
    selectable = QGraphicsItem.GraphicsItemFlag.ItemIsSelectable

    def empty_near(near: QPoint) -> QPoint:
        for dy in range(0, 200, 5):
            for dx in range(0, 200, 5):
                at = near + QPoint(dx, dy)
                if not [item for item in view.items(at) if item.flags() & selectable]:
                    return at
        raise AssertionError("no empty spot to start a rubber band")

    def under(start: QPoint, end: QPoint) -> tuple[set[str], set[str]]:
        """What Qt's index and the items' shapes hold in the band (cards, lines)."""
        area = view.mapToScene(QRect(start, end).normalized()).boundingRect()
        found = scene.items(area, Qt.ItemSelectionMode.IntersectsItemShape)
        return (
            {item.entity_id for item in found if isinstance(item, EntityItem) and item.isVisible()},
            {item.rel_id for item in found if isinstance(item, RelationshipItem) and item.isVisible()},
        )

    start = empty_near(QPoint(300, 200))
    end = start + QPoint(520, 380)
    cards, lines = under(start, end)  # before the release, which may widen the scene rect (and scroll)
    drag(window, start, end)
    assert len(cards) >= 3 and len(lines) >= 3, "the band holds too little: the test would prove little"
    assert set(scene.selected_entity_ids()) == cards
    assert set(scene.selected_relationship_ids()) == lines
    # a second band with Ctrl adds what it holds to the selection
    other = empty_near(QPoint(1000, 500))
    far = other + QPoint(250, 250)
    more_cards, more_lines = under(other, far)
    viewport = view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, other)
    for i in range(1, 5):
        QTest.mouseMove(viewport, other + (far - other) * (i / 4))
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier, far)
    assert more_cards - cards, "the second band adds no card: the test would prove nothing"
    assert set(scene.selected_entity_ids()) == cards | more_cards
    assert set(scene.selected_relationship_ids()) == lines | more_lines
    # a click on a card selects it alone; a click on empty canvas clears the selection
    card = scene.entity_items[next(iter(more_cards - cards))]
    at = view.mapFromScene(card.mapToScene(card.title_rect().center()))
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
    assert scene.selected_entity_ids() == [card.entity_id] and scene.selected_relationship_ids() == []
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    assert scene.selectedItems() == []


def test_a_click_picks_through_the_grids_what_qt_would_pick(make_window) -> None:
    """A left press finds its card or line through the grids (picking.py), not Qt's index: on many points, at 100 %
    and at fit zoom, what it picks is the item Qt's own press would deliver to (the topmost selectable item whose
    shape meets the pressed pixel), and a click selects exactly that item."""
    import random

    from PySide6.QtCore import QPoint, QPointF, QRectF, QSizeF, Qt
    from PySide6.QtTest import QTest

    from modeller.ui.canvas.picking import pick

    window = make_window()
    window.resize(1600, 1000)
    window.document.reset(big_project())
    window.scene.finish_build()
    scene, view = window.scene, window.view
    view.setSceneRect(scene.content_rect().adjusted(-2000, -2000, 2000, 2000))  # as an open does (fit_on_open)
    viewport = view.viewport()
    chance = random.Random(16)

    def area_of(at: QPoint) -> QRectF:
        """The scene square of one viewport pixel: what Qt's press tests the shapes against."""
        inverse, _invertible = view.viewportTransform().inverted()
        return inverse.mapRect(QRectF(QPointF(at), QSizeF(1, 1)))

    def qts_pick(at: QPoint) -> object:
        found = scene.items(
            area_of(at),
            Qt.ItemSelectionMode.IntersectsItemShape,
            Qt.SortOrder.DescendingOrder,
            view.viewportTransform(),
        )
        return next((item for item in found if isinstance(item, (EntityItem, RelationshipItem))), None)

    for zoom in (1.0, 0.0):  # 0.0: fit to window
        if zoom:
            view.reset_zoom()
            view.centerOn(QPointF(3000, 2000))
        else:
            view.fit_to_window()
        size = viewport.size()
        points = [QPoint(chance.randrange(size.width()), chance.randrange(size.height())) for _ in range(250)]
        shown = view.mapToScene(viewport.rect()).boundingRect()
        lines = [item for item in scene.relationship_items.values() if item.chord is not None]
        on_lines = [line.chord.pointAt(chance.random()) for line in chance.sample(lines, 600)]
        points += [view.mapFromScene(p) for p in on_lines if shown.contains(p)][:150]  # lines, and where they cross
        badges = [line.text_boxes()[0] for line in lines if line.text_boxes() and shown.contains(line.text_boxes()[0])]
        points += [view.mapFromScene(box.center()) for box in badges[:60]]  # a badge may sit off its line
        points += [view.mapFromScene(box.topLeft()) + QPoint(-1, 0) for box in badges[:60]]  # and just beside it
        kinds: dict[str, int] = {}
        for at in points:
            expected = qts_pick(at)
            assert pick(scene, area_of(at)) is expected, (zoom, at)
            kinds[type(expected).__name__] = kinds.get(type(expected).__name__, 0) + 1
        assert kinds.get("EntityItem", 0) >= 10 and kinds.get("RelationshipItem", 0) >= 10, kinds
        assert kinds.get("NoneType", 0) >= 1 if zoom else True, kinds  # fit zoom: hardly a pixel without a line
        # and a click selects what Qt's press would have
        clicked = 0
        for at in points:
            expected = qts_pick(at)
            if expected is None or (clicked % 2) != isinstance(expected, RelationshipItem):
                continue
            QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, at)
            assert scene.selectedItems() == [expected], (zoom, at)
            clicked += 1
            if clicked == 6:
                break
        assert clicked == 6
        scene.clearSelection()
