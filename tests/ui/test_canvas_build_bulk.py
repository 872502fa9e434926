"""What the cheaper build of a large diagram must still give (issue 16): lines filed in bulk per build step are
filed where a line placed alone would be and are found by hover and click; the grids keep each key once per cell
and forget it whole; a line's text spot is checked against the other lines' current text boxes; a card built in
bulk still shows its fields, its tooltip and its hit area."""

from __future__ import annotations

import random

from PySide6.QtCore import QPointF, QRectF

from benchmarks.generate import generate_project
from modeller.ui.canvas.items.entity_item import row_width
from modeller.ui.canvas.items.relationship_item import wrap_parts
from modeller.ui.canvas.items.segment_grid import SegmentGrid, rect_cells, segment_cells, segment_meets_rect
from modeller.ui.canvas.items.text_grid import TextGrid
from modeller.ui.canvas.scene import LINES_PER_STEP, CanvasScene
from modeller.ui.document import ProjectDocument


def _built(n: int) -> CanvasScene:
    scene = CanvasScene(ProjectDocument(generate_project(n, 1.5, 0.5, seed=3)))
    scene.finish_build()
    return scene


def test_a_segment_is_filed_under_exactly_the_cells_it_crosses(qapp) -> None:
    """The cells made in bulk are those whose square the segment really meets (checked cell by cell)."""
    rng = random.Random(7)
    cell = 100.0
    for _ in range(300):
        x1, y1, x2, y2 = (rng.uniform(-450, 450) for _ in range(4))
        if rng.random() < 0.2:
            y2 = y1  # flat
        if rng.random() < 0.2:
            x2 = x1  # upright
        got = list(segment_cells(x1, y1, x2, y2, cell))
        assert len(got) == len(set(got)), "a cell listed twice"
        box = QRectF(QPointF(min(x1, x2), min(y1, y2)), QPointF(max(x1, x2), max(y1, y2)))
        meets = {
            at
            for at in rect_cells(box, cell)
            if segment_meets_rect(
                x1, y1, x2, y2, QRectF(at[0] * cell, at[1] * cell, cell, cell).adjusted(-1e-6, -1e-6, 1e-6, 1e-6)
            )
        }
        # every cell filed is met, and every cell met well inside (not just touched at its border) is filed
        assert set(got) <= meets
        inner = {
            at
            for at in meets
            if segment_meets_rect(
                x1, y1, x2, y2, QRectF(at[0] * cell + 0.01, at[1] * cell + 0.01, cell - 0.02, cell - 0.02)
            )
        }
        assert inner <= set(got)


def test_the_grid_keeps_a_key_once_per_cell_and_forgets_it_whole(qapp) -> None:
    grid = SegmentGrid(cell=100)
    for step in range(50):  # a dragged card's line, filed anew at every step
        grid.put_segment("moving", step * 10, 0, 900, 950 - step * 7)
        grid.put_box("card", QRectF(step * 3, step * 5, 180, 120))
    grid.put_segment("still", 0, 500, 900, 500)
    filed = [key for keys in grid._cells.values() for key in keys]
    assert filed.count("moving") == len(grid.cells_of("moving")) == len(set(grid.cells_of("moving")))
    assert filed.count("card") == len(grid.cells_of("card"))
    assert set(grid.cells_of("card")) == set(rect_cells(QRectF(49 * 3, 49 * 5, 180, 120), 100))
    grid.drop("moving")
    grid.drop("card")
    assert {key for keys in grid._cells.values() for key in keys} == {"still"}
    assert grid.cells_of("moving") == [] and len(grid) == 1
    assert grid.near(QRectF(440, 490, 20, 20)) == {"still"}


def test_lines_filed_in_bulk_are_filed_as_one_line_alone_would_be(qapp) -> None:
    scene = _built(120)  # more lines than one build step files at once
    assert len(scene.relationship_items) > 3 * LINES_PER_STEP
    layer = scene.lines
    bounds = layer.boundingRect().adjusted(-1e-6, -1e-6, 1e-6, 1e-6)  # a union of unions: rounding at the last bit
    for key, item in scene.relationship_items.items():
        drawn = item.drawn()
        assert layer._drawn[key] == drawn
        segment, box, _texts = drawn
        expected = list(segment_cells(*segment)) if segment is not None else list(rect_cells(box))
        assert layer.grid.cells_of(key) == expected
        assert bounds.contains(box.united(item.boundingRect()))


def test_a_line_filed_in_bulk_is_found_by_hover_click_and_paint(qapp) -> None:
    scene = _built(120)
    for key, item in scene.relationship_items.items():
        for along in (0.2, 0.5, 0.8):
            point = item.path().pointAtPercent(along)  # on the line (a self-loop's curve too)
            found = scene.line_at(point)
            # the topmost line there: this one, or one drawn over it that passes through the same point
            assert found is not None and found.contains(point), key
        if item.shown_badge():
            centre = item._badge_rect().center()
            found = scene.line_at(centre)
            assert found is not None and found.contains(centre)
            assert key in scene.lines.grid.near(QRectF(centre.x() - 300, centre.y() - 300, 600, 600))


def test_a_text_spot_is_checked_against_the_other_lines_texts_as_they_are_now(qapp) -> None:
    texts = TextGrid()
    texts.file("a", [QRectF(0, 0, 60, 20)])
    texts.file("b", [QRectF(500, 500, 60, 20), QRectF(500, 522, 80, 16)])
    assert texts.covered([QRectF(50, 10, 40, 20)], but="x")
    assert not texts.covered([QRectF(50, 10, 40, 20)], but="a")  # a line's own text never covers it
    assert texts.covered([QRectF(570, 530, 10, 10)], but="a")  # b's second box
    texts.file("a", [QRectF(300, 0, 60, 20)])  # a's badge grew or moved: filed anew, the old place is free
    assert not texts.covered([QRectF(50, 10, 40, 20)], but="x")
    texts.forget("b")
    assert not texts.covered([QRectF(570, 530, 10, 10)], but="a") and "b" not in texts
    assert texts._cells == {(1, 0): ["a"]}


def test_a_new_badge_is_filed_at_its_new_size(qapp) -> None:
    scene = _built(40)

    class Design:
        def __init__(self, rel_id: str) -> None:
            self.id, self.strategy, self.why = rel_id, "parent-ref", "because"
            self.shown = self.strategy  # what the line shows (RelationshipDesign.shown)

    class Analysis:
        design = type("D", (), {"relationships": [Design(r.id) for r in scene.document.project.relationships]})()

    auto = {r.id for r in scene.document.project.relationships if r.strategy == "auto"}
    before = {key: scene._texts._boxes[key] for key in auto if key in scene._texts}
    scene.set_analysis(Analysis())
    scene.finish_badges()
    grown = 0
    for key in auto:
        item = scene.relationship_items[key]
        assert item.badge_text() == "auto → parent-ref"
        if key in before:
            assert scene._texts._boxes[key] == tuple(item.text_boxes()), key
            grown += scene._texts._boxes[key][0].width() > before[key][0].width()
    assert grown > 5  # the filed boxes are the new, wider badges


def test_a_card_built_in_bulk_shows_its_fields_tooltip_and_hit_area(qapp) -> None:
    scene = _built(120)
    style = scene.style
    for entity in scene.document.project.entities:
        card = scene.entity_items[entity.id]
        names = [row.name.removesuffix(" [ ]") for row in card._rows if row.level == 0]
        fields = [field.name for field in entity.fields]
        assert names[: len(fields)] == fields[: len(names)] and names
        assert all(card.rect().width() >= min(row_width(style, row), style.max_width) - 0.5 for row in card._rows)
        assert card.toolTip().startswith(entity.name)
        centre = card.scene_rect().center()
        assert scene.entity_item_at(centre) is not None
    # the hit area is the card's own: a point just outside every card hits none
    card = next(iter(scene.entity_items.values()))
    outside = card.scene_rect().topLeft() - QPointF(3, 3)
    hit = scene.entity_item_at(outside)
    assert hit is None or hit is not card


def test_a_label_that_fits_whole_is_the_label_itself() -> None:
    text = "comments · 40 r/s · 2 w/s"
    assert wrap_parts(text, 1000, len) is text
    assert wrap_parts(text, 1000, lambda part: 8.0 * len(part)) is text
    narrow = wrap_parts(text, 40, lambda part: 2.0 * len(part))
    assert narrow == "comments · 40 r/s\n2 w/s" and narrow is not text
