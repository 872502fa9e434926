"""Issue 16: an edit made while a large diagram is still being built (the open's tail, ~17 s at 10,000 entities)
touches only its own items and lets the build go on; it used to complete the whole build first (an 8 s stall).

Each test runs the build's steps itself (its timer is stopped), edits at a chosen point, checks that the build is
still running and that only the edit's own cards and lines were made, then lets the build finish and compares the
scene with the one a fresh open of the edited model shows: card positions, sizes and texts, the lines' end points
(their lanes), crow's feet, badges and labels, and where the line layer files each line.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtWidgets import QGraphicsView

from benchmarks.generate import generate_data
from modeller.model import Position, Project
from modeller.ui.canvas.items.relationship_item import RelationshipItem
from modeller.ui.canvas.scene import SYNC_BUILD_MAX, CanvasScene
from modeller.ui.commands import EditEntityCommand, EditRelationshipCommand, MoveCommand
from modeller.ui.commands.composite import delete_command
from modeller.ui.commands.entity import AddEntityCommand
from modeller.ui.commands.relationship import AddRelationshipCommand
from modeller.ui.document import ProjectDocument

pytestmark = pytest.mark.slow
ENTITIES = 600  # more than SYNC_BUILD_MAX: the canvas is built in steps
#: two cards far from the top-left corner the view shows (the build's second part), and the lines between them
FAR_ONE, FAR_MANY = 500, 521
PAIR_LINES = ("pair_0", "pair_1", "pair_2")


@cache
def project() -> Project:
    data = generate_data(ENTITIES, 1.5, 0.5, seed=4)
    one, many = data["entities"][FAR_ONE]["id"], data["entities"][FAR_MANY]["id"]
    cardinalities = ("one-to-many", "one-to-few", "one-to-one")
    data["relationships"] += [
        {"id": key, "one": one, "many": many, "cardinality": cardinality}
        for key, cardinality in zip(PAIR_LINES, cardinalities, strict=True)
    ]
    return Project.model_validate(data)


@pytest.fixture
def start(qtbot) -> Callable[[], CanvasScene]:
    """A scene viewed at its top-left corner, its progressive build started and then driven by the test."""
    views: list[QGraphicsView] = []  # held here: a view nobody holds is deleted, and the scene would see none

    def make() -> CanvasScene:
        document = ProjectDocument()
        scene = CanvasScene(document)
        view = QGraphicsView(scene)
        views.append(view)
        qtbot.addWidget(view)
        view.resize(900, 700)
        view.setSceneRect(QRectF(0, 0, 880, 680))  # the cards in sight: the first part of the build
        view.show()
        qtbot.waitExposed(view)
        document.reset(project())
        assert len(project().entities) > SYNC_BUILD_MAX and scene.building
        scene._build_timer.stop()  # the test runs the steps (no slice runs while it edits)
        assert not scene.in_view_done  # the view shows a corner: the cards in sight are built first
        return scene

    return make


def step_until(scene: CanvasScene, done: Callable[[], bool], limit: int = 100_000) -> None:
    """Run build steps until ``done()`` (the build must not end on the way)."""
    assert scene._build_steps is not None
    for _ in range(limit):
        if done():
            return
        next(scene._build_steps)
    raise AssertionError("the build never got there")


def steps(scene: CanvasScene, n: int) -> None:
    assert scene._build_steps is not None
    for _ in itertools.islice(scene._build_steps, n):
        pass
    assert scene.building


def shown_lines(scene: CanvasScene) -> set[str]:
    return {item.rel_id for item in scene.items() if isinstance(item, RelationshipItem)}


def picture(scene: CanvasScene) -> dict[str, Any]:
    """What a user sees of the scene (and where the line layer files it), comparable between two scenes."""
    cards = {
        key: (
            (item.pos().x(), item.pos().y()),
            (item.rect().width(), item.rect().height()),
            item._title,
            item._subtitle,
            item._rows,
            item.isVisible(),
            item.scene() is scene,
        )
        for key, item in scene.entity_items.items()
    }
    lines = {
        key: (
            [(round(p.x(), 6), round(p.y(), 6)) for p in item.end_points()],
            [kind for _tip, _angle, kind in item._ends],
            item.badge_text(),
            item.label_text(),
            item.shown_badge(),
            item.shown_label(),
            item.isVisible(),
            item.scene() is scene,
            sorted(scene.lines.grid.cells_of(key)),
        )
        for key, item in scene.relationship_items.items()
    }
    return {
        "cards": cards,
        "lines": lines,
        "ends": dict(scene._ends),
        "attached": {key: set(value) for key, value in scene._attached.items() if value},
        "layer": set(scene.lines._lines),
        "texts": {key for key in scene.relationship_items if key in scene._texts},
        "order": dict(scene.lines.order),
    }


def assert_like_a_fresh_open(scene: CanvasScene) -> None:
    """Finish the build and compare with a new scene of the same (edited) model, built in one go."""
    built: list[bool] = []
    scene.built.connect(lambda: built.append(True))
    scene.finish_build()
    assert built == [True] and not scene.building
    fresh = CanvasScene(ProjectDocument(scene.document.project))
    fresh.finish_build()
    mine, theirs = picture(scene), picture(fresh)
    assert mine["cards"].keys() == theirs["cards"].keys()
    for key, seen in mine["cards"].items():
        assert seen == theirs["cards"][key], key
    assert mine["lines"].keys() == theirs["lines"].keys()
    for key, seen in mine["lines"].items():
        assert seen == theirs["lines"][key], key
    for part in ("ends", "attached", "layer", "texts", "order"):
        assert mine[part] == theirs[part], part
    assert shown_lines(scene) == set(scene.relationship_items)


def entity_id(index: int) -> str:
    return project().entities[index].id


def unbuilt(scene: CanvasScene, n: int) -> list[str]:
    """``n`` entities whose cards the build has not made yet, none of them joined to another of them."""
    chosen: list[str] = []
    for entity in reversed(scene.document.project.entities):
        joined = {end for r in scene.document.relationships_of(entity.id) for end in (r.one, r.many)}
        if entity.id not in scene.entity_items and not joined & set(chosen):
            chosen.append(entity.id)
            if len(chosen) == n:
                return chosen
    raise AssertionError("the build made every card")


def test_a_line_edited_before_the_lines_beside_it_are_built_takes_its_lane_among_all_of_them(start) -> None:
    scene = start()
    one, many = entity_id(FAR_ONE), entity_id(FAR_MANY)
    # the far pair's cards are built, none of the lines of the build's second part is made yet
    step_until(scene, lambda: scene.in_view_done and one in scene.entity_items and many in scene.entity_items)
    assert not any(key in scene.relationship_items for key in PAIR_LINES)
    cards, lines = len(scene.entity_items), len(scene.relationship_items)
    document = scene.document
    middle = document.relationship(PAIR_LINES[1])
    assert middle is not None
    document.push(EditRelationshipCommand(document, middle.model_copy(update={"cardinality": "one-to-squillions"})))
    # the edit made its own line (in the scene, placed) and nothing else; the build goes on
    assert scene.building and len(scene.entity_items) == cards and len(scene.relationship_items) == lines + 1
    item = scene.relationship_items[PAIR_LINES[1]]
    assert item.scene() is scene and item.isVisible() and PAIR_LINES[1] in scene.lines._lines
    # the middle one of three lines runs through the cards' centres (lane 0), as once all three are there
    a, b = scene.entity_items[one].scene_rect().center(), scene.entity_items[many].scene_rect().center()
    for end in item.end_points():
        cross = (b.x() - a.x()) * (end.y() - a.y()) - (b.y() - a.y()) * (end.x() - a.x())
        assert abs(cross) < 1e-6 * max(1.0, (b - a).manhattanLength() ** 2)
    assert [kind for _tip, _angle, kind in item._ends] == ["one", "squillions"]
    # a built card whose lines are not all made yet changes size: the made line follows it
    entity = document.entity(one)
    assert entity is not None
    before = item.end_points()
    document.push(EditEntityCommand(document, entity.model_copy(update={"name": entity.name + "_with_a_longer_name"})))
    assert scene.building and item.end_points() != before
    # the line made by the edit is edited again: a new badge, the same lane
    before = item.end_points()
    middle = document.relationship(PAIR_LINES[1])
    assert middle is not None
    document.push(EditRelationshipCommand(document, middle.model_copy(update={"strategy": "embed"})))
    assert scene.building and item.badge_text() == "embed" and item.end_points() == before
    # one line of the three goes (it was never made): the one that was made moves to its new lane
    before = item.end_points()
    removal = delete_command(document, rel_ids=[PAIR_LINES[2]])
    assert removal is not None
    document.push(removal)
    assert scene.building and item.end_points() != before
    document.undo_stack.undo()  # back again, in the middle of three
    assert scene.building and PAIR_LINES[2] in scene.relationship_items
    steps(scene, 3)
    assert_like_a_fresh_open(scene)


def test_a_line_repointed_to_a_card_of_a_later_part_builds_that_card_only(start) -> None:
    scene = start()
    step_until(scene, lambda: scene.in_view_done)
    [far] = unbuilt(scene, 1)
    rel_id = next(key for key, item in scene.relationship_items.items() if item.scene() is scene and item.isVisible())
    document = scene.document
    rel = document.relationship(rel_id)
    assert rel is not None
    cards, lines = len(scene.entity_items), len(scene.relationship_items)
    document.push(EditRelationshipCommand(document, rel.model_copy(update={"many": far})))
    assert scene.building and len(scene.entity_items) == cards + 1 and len(scene.relationship_items) == lines
    card, item = scene.entity_items[far], scene.relationship_items[rel_id]
    assert card.scene() is scene and item.isVisible()
    # the line now ends on the far card's border
    tail = item.end_points()[1]
    box = card.scene_rect().adjusted(-0.01, -0.01, 0.01, 0.01)
    assert box.contains(tail) and not card.scene_rect().adjusted(1, 1, -1, -1).contains(tail)
    document.undo_stack.undo()
    assert scene.building and not box.contains(item.end_points()[1])
    steps(scene, 50)
    document.undo_stack.redo()
    assert scene.building and box.contains(item.end_points()[1])
    steps(scene, 50)
    assert_like_a_fresh_open(scene)


def test_an_unbuilt_entity_removed_added_back_and_removed_again_while_the_build_runs(start) -> None:
    scene = start()
    steps(scene, 5)  # a few cards in sight are built
    gone = entity_id(FAR_ONE)  # with the lines between the far pair and its own
    assert gone not in scene.entity_items
    document = scene.document
    own = [r.id for r in document.relationships_of(gone)]
    assert set(PAIR_LINES) <= set(own)
    removal = delete_command(document, [gone])
    assert removal is not None
    document.push(removal)
    assert scene.building and gone not in scene.entity_items
    assert not any(key in scene.relationship_items for key in own)
    built = set(scene.entity_items)
    document.undo_stack.undo()
    # back: the card and its lines are made now (and the cards at their other ends), the build goes on
    assert scene.building and gone in scene.entity_items and all(key in scene.relationship_items for key in own)
    ends = {end for r in document.relationships_of(gone) for end in (r.one, r.many)}
    assert set(scene.entity_items) == built | ends
    assert all(scene.relationship_items[key].scene() is scene for key in own)
    steps(scene, 200)
    document.undo_stack.redo()
    assert scene.building and gone not in scene.entity_items
    assert not any(key in scene.relationship_items for key in own)
    assert not any(key in scene.lines._lines for key in own)
    steps(scene, 200)
    assert_like_a_fresh_open(scene)


def test_an_unbuilt_entity_renamed_and_a_new_one_added_while_the_build_runs(start) -> None:
    scene = start()
    step_until(scene, lambda: scene.in_view_done)
    document = scene.document
    renamed, target = unbuilt(scene, 2)
    entity = document.entity(renamed)
    assert entity is not None and renamed not in scene.entity_items
    cards, lines = len(scene.entity_items), len(scene.relationship_items)
    document.push(EditEntityCommand(document, entity.model_copy(update={"name": "renamed_while_unbuilt"})))
    assert scene.building and (len(scene.entity_items), len(scene.relationship_items)) == (cards, lines)
    document.undo_stack.undo()
    document.undo_stack.redo()
    assert scene.building and renamed not in scene.entity_items
    # a new card, far out, and a line from it to a card the build has not made yet
    new = entity.model_copy(update={"id": "added_while_building", "name": "added_while_building"})
    document.push(AddEntityCommand(document, new, Position(x=9000.0, y=9000.0)))
    assert scene.building and "added_while_building" in scene.entity_items
    assert target not in scene.entity_items
    rel = project().relationships[0].model_copy(update={"id": "rel_new", "one": new.id, "many": target})
    document.push(AddRelationshipCommand(document, rel))
    assert scene.building and target in scene.entity_items and scene.relationship_items["rel_new"].isVisible()
    assert len(scene.entity_items) == cards + 2
    document.undo_stack.undo()  # the line goes, the card made for it stays (the build would make it anyway)
    document.undo_stack.undo()  # the new card goes
    assert scene.building and "added_while_building" not in scene.entity_items and "rel_new" not in shown_lines(scene)
    document.undo_stack.redo()
    document.undo_stack.redo()
    assert scene.building and scene.relationship_items["rel_new"].scene() is scene
    steps(scene, 100)
    assert_like_a_fresh_open(scene)
    assert scene.entity_items[renamed]._title == "renamed_while_unbuilt"


def test_an_auto_layout_while_the_build_runs_moves_the_built_cards_and_places_the_rest(start) -> None:
    scene = start()
    step_until(scene, lambda: scene.in_view_done)
    steps(scene, 150)  # some cards of the second part too
    document = scene.document
    entities = document.project.entities
    # another arrangement of every card (what Auto Layout pushes): reversed order, wider spacing
    layout = {
        e.id: Position(x=float(300 * (i % 20)), y=float(260 * (i // 20))) for i, e in enumerate(reversed(entities))
    }
    cards = len(scene.entity_items)
    document.push(MoveCommand(document, layout, "Auto layout"))
    assert scene.building and len(scene.entity_items) == cards
    moved = next(iter(scene.entity_items))
    assert (scene.entity_items[moved].pos().x(), scene.entity_items[moved].pos().y()) == (
        layout[moved].x,
        layout[moved].y,
    )
    steps(scene, 300)
    document.undo_stack.undo()
    steps(scene, 100)
    document.undo_stack.redo()
    assert scene.building
    assert_like_a_fresh_open(scene)


def test_selecting_a_finding_on_an_unbuilt_card_or_line_builds_just_that(start) -> None:
    scene = start()
    steps(scene, 3)
    [card] = unbuilt(scene, 1)
    cards, lines = len(scene.entity_items), len(scene.relationship_items)
    scene.select_only([card])
    assert scene.building and len(scene.entity_items) == cards + 1 and len(scene.relationship_items) == lines
    assert scene.selected_entity_ids() == [card]
    scene.select_only([], [PAIR_LINES[0]])  # a line whose cards are not built either
    assert scene.building and scene.selected_relationship_ids() == [PAIR_LINES[0]]
    assert len(scene.relationship_items) == lines + 1 and len(scene.entity_items) == cards + 3
    assert scene.relationship_items[PAIR_LINES[0]].isVisible()
    assert_like_a_fresh_open(scene)
    assert scene.selected_relationship_ids() == [PAIR_LINES[0]]


def test_edits_to_lines_the_build_made_but_has_not_placed_yet(start) -> None:
    scene = start()
    step_until(scene, lambda: scene.in_view_done)

    def waiting() -> list[str]:
        return [key for key, item in scene.relationship_items.items() if item.scene() is None]

    step_until(scene, lambda: len(waiting()) >= 40)  # the second part's lines are being made, none placed yet
    document = scene.document
    first, second, third = waiting()[:3]
    # a card whose made line waits for its place changes size: the line is placed for it, still out of the scene
    rel = document.relationship(first)
    assert rel is not None
    entity = document.entity(rel.one)
    assert entity is not None
    document.push(EditEntityCommand(document, entity.model_copy(update={"name": entity.name + "_renamed"})))
    assert scene.building and scene.relationship_items[first].scene() is None
    # a finding names a waiting line: it is placed and shown now, selected
    lines = len(scene.relationship_items)
    scene.select_only([], [second])
    assert scene.selected_relationship_ids() == [second] and len(scene.relationship_items) == lines
    assert second in scene.lines._lines and scene.relationship_items[second].isVisible()
    # a waiting line is deleted, and comes back with undo: made anew and shown at once
    removal = delete_command(document, rel_ids=[third])
    assert removal is not None
    document.push(removal)
    assert scene.building and third not in scene.relationship_items
    document.undo_stack.undo()
    assert scene.building and scene.relationship_items[third].scene() is scene
    assert_like_a_fresh_open(scene)


def test_cards_built_after_the_documents_view_is_turned_on_show_their_collections(start) -> None:
    from modeller.ui.analysis import engine_analyse

    scene = start()
    step_until(scene, lambda: scene.in_view_done)
    analysis = engine_analyse()(scene.document.project)
    scene.set_analysis(analysis)
    assert scene.set_documents_view(True) and scene.building
    [card] = unbuilt(scene, 1)
    scene.select_only([card])  # made for a selection: shown as stored too
    steps(scene, 20)
    built: list[bool] = []
    scene.built.connect(lambda: built.append(True))
    scene.finish_build()
    fresh = CanvasScene(ProjectDocument(scene.document.project))
    fresh.finish_build()
    fresh.set_analysis(analysis)
    fresh.finish_badges()
    assert fresh.set_documents_view(True)
    fresh.finish_arranging()  # a large diagram's view turns in steps
    mine, theirs = picture(scene), picture(fresh)
    assert built == [True] and not scene.badges_pending
    assert mine["cards"] == theirs["cards"]
    assert mine["lines"].keys() == theirs["lines"].keys()
    for key, seen in mine["lines"].items():
        if seen[6]:
            assert seen == theirs["lines"][key], key
        else:  # a hidden line's place is not drawn (the fresh one kept where it was before the view hid it)
            assert [seen[i] for i in (2, 3, 6, 7)] == [theirs["lines"][key][i] for i in (2, 3, 6, 7)], key
    # some cards hide inside another's documents (embedded), and so do the lines of what is embedded
    assert any(not seen[5] for seen in mine["cards"].values())
    assert any(not seen[6] for seen in mine["lines"].values())


def test_select_all_while_the_build_runs_selects_what_is_built_and_the_rest_as_it_comes(start) -> None:
    """Select All finished the build first: seconds with the window held at 10,000 cards."""
    scene = start()
    step_until(scene, lambda: scene.in_view_done)
    steps(scene, 50)
    settled: list[int] = []
    scene.selection_settled.connect(lambda: settled.append(len(scene.selectedItems())))
    made = len(scene.entity_items)
    scene.select_all()
    assert scene.building and len(scene.entity_items) == made < len(scene.document.project.entities)
    in_scene = [item for item in (*scene.entity_items.values(), *scene.relationship_items.values()) if item.scene()]
    assert in_scene and all(item.isSelected() for item in in_scene)
    assert settled == [len(in_scene)]  # the panels heard of the selection at once
    steps(scene, 200)
    assert all(scene.entity_items[key].isSelected() for key in scene.entity_items)
    assert settled == [len(in_scene)]  # not once per card the build made
    scene.finish_build()
    everything = [*scene.entity_items.values(), *scene.relationship_items.values()]
    assert len(scene.entity_items) == len(scene.document.project.entities)
    assert all(item.isSelected() for item in everything)
    assert settled == [len(in_scene), len(everything)]  # and once more when the build ended
    # the layer draws the lines made selected as selected: no line is left to repaint when the selection fans out
    assert scene._selected_lines == set(scene.relationship_items)


def test_a_click_after_select_all_during_the_build_keeps_the_rest_out_of_the_selection(start) -> None:
    scene = start()
    step_until(scene, lambda: scene.in_view_done)
    scene.select_all()
    card = next(iter(scene.entity_items))
    scene.select_only([card])  # what a click on a card does
    scene.finish_build()
    assert [item.entity_id for item in scene.selectedItems()] == [card]


def test_card_sizes_during_the_build_are_those_the_build_will_give(start) -> None:
    """An auto-layout during the build lays out every card: the ones not made yet at a default size overlapped
    their neighbours once built."""
    scene = start()
    step_until(scene, lambda: scene.in_view_done)
    made = set(scene.entity_items)
    planned = scene.card_sizes()
    assert planned.keys() == {e.id for e in scene.document.project.entities} and len(made) < len(planned)
    scene.finish_build()
    built = scene.card_sizes()
    assert planned == built
    # the sizes differ from card to card (a default size would be one size for all)
    assert len({size for key, size in planned.items() if key not in made}) > 10


def test_a_selected_card_deleted_after_select_all_during_the_build_reaches_the_panels(start, qtbot) -> None:
    """Only the build's own cards joining a Select All wait for its end: another selection change (a selected card
    deleted) fans out as always, or the panels kept showing an entity that is gone until the build ended."""
    scene = start()
    step_until(scene, lambda: scene.in_view_done)
    scene.select_all()
    settled: list[set[str]] = []
    scene.selection_settled.connect(lambda: settled.append(set(scene.selected_entity_ids())))
    card = next(iter(scene.entity_items))
    scene.document.push(delete_command(scene.document, [card]))
    qtbot.waitUntil(lambda: bool(settled), timeout=5_000)
    assert scene.building and card not in settled[-1]
