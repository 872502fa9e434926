"""Relationship badges and workload labels read at the zoom a sample opens at: drawn whole, or shortened
only at a part boundary, and an engine's choice always still says "auto" (the tooltip has the whole text).

The check is on the text each line draws (``shown_badge``/``shown_label``), which does not depend on the
zoom; the zoom only decides whether text is drawn at all (above ``TEXT_LOD``).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF

from modeller.ui.canvas.items.notation import tag_centre
from modeller.ui.canvas.items.relationship_item import (
    ELLIPSIS,
    PART_SEPARATOR,
    TEXT_LOD,
    RelationshipItem,
    badge_forms,
    wrap_parts,
)
from modeller.ui.main_window import MainWindow

from .conftest import SAMPLES


def _parts(text: str) -> list[str]:
    return [part for line in text.split("\n") for part in line.split(PART_SEPARATOR)]


def label_problems(window: MainWindow) -> list[str]:
    """What hides whose choice a line shows or cuts its workload: an engine's badge without "auto", a
    badge or label part cut mid-word, text spilling onto a card, a tooltip without the whole text."""
    scene = window.scene
    cards = [card.scene_rect() for card in scene.entity_items.values() if card.isVisible()]
    problems = []
    for rel_id, line in scene.relationship_items.items():
        if not line.isVisible():  # an embedded entity's line in the Documents view: its card is nested
            continue
        rel = window.document.relationship(rel_id)
        assert rel is not None
        badge, shown = line.badge_text(), line.shown_badge()
        if rel.strategy == "auto":
            if not shown.startswith("auto") or shown.replace("\n", " ") not in (badge, "auto"):
                problems.append(f"{rel_id}: engine badge {badge!r} drawn as {shown!r}")
        elif shown != badge:
            problems.append(f"{rel_id}: the user's badge {badge!r} drawn as {shown!r}")
        full = _parts(line.label_text())
        drawn = [part for part in _parts(line.shown_label()) if part]
        whole = [part for part in drawn if part != ELLIPSIS]
        if any(part not in full for part in whole) or whole != [part for part in full if part in whole]:
            problems.append(f"{rel_id}: label {line.label_text()!r} drawn as {line.shown_label()!r}")
        for what, rect in (("badge", line._badge_rect()), ("label", line._label_rect())):
            placed = line.mapRectToScene(rect)
            if placed.width() > 0 and any(placed.intersects(card) for card in cards):
                problems.append(f"{rel_id}: {what} on a card")
        tip = line.toolTip()
        if f"strategy: {badge}" not in tip or (line.label_text() and line.label_text() not in tip):
            problems.append(f"{rel_id}: tooltip without the whole badge and label: {tip!r}")
    return problems


def _open(make_window, path) -> MainWindow:
    window = make_window(use_engine=True)
    window.resize(1400, 900)  # the app's own first size
    assert window.open_path(path, ask=False)
    window.analysis.run_now()
    return window


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.modeller.json")), ids=lambda p: p.name.split(".")[0])
def test_every_sample_draws_its_badges_and_labels_readably(make_window, path) -> None:
    window = _open(make_window, path)
    assert window.scene.relationship_items or path.name.startswith("insurance"), "the sample has lines"
    assert window.view.zoom() >= TEXT_LOD, "opened at a zoom that draws badges and labels"
    assert label_problems(window) == []
    window.set_documents_view(True)
    assert label_problems(window) == []


def _close_cards(make_window, gap: float) -> tuple[MainWindow, RelationshipItem]:
    """host-logs with the log card ``gap`` px right of the host card's border, on the same row."""
    window = _open(make_window, SAMPLES / "host-logs.modeller.json")
    host, log = window.scene.entity_items["host"], window.scene.entity_items["logmsg"]
    log.setPos(host.scene_rect().right() + gap, host.pos().y())
    return window, window.scene.relationship_items["host_logmsgs"]


def test_close_cards_break_the_engine_badge_after_its_arrow_and_wrap_the_label(make_window) -> None:
    window, line = _close_cards(make_window, 80)
    assert line.badge_text() == "auto → subset" and line.label_text() == "logmsgs · 60 r/s · 20 w/s"
    assert line.shown_badge() == "auto →\nsubset"
    assert line.shown_label() == "logmsgs\n60 r/s\n20 w/s"
    # below the line, for the ∞ tag at the log's end sits above it; the label below the badge
    tip = line.end_points()[1]
    assert line._badge_rect().top() > tip.y() and line._label_rect().top() >= line._badge_rect().bottom()
    assert label_problems(window) == []


def test_cards_closer_still_keep_auto_and_drop_whole_parts(make_window) -> None:
    window, line = _close_cards(make_window, 66)
    assert line.shown_badge() == "auto"
    assert line.shown_label() == "…\n60 r/s\n20 w/s"  # "logmsgs" fits nowhere: not cut to "log…"
    assert label_problems(window) == []
    assert "strategy: auto → subset" in line.toolTip() and "workload: logmsgs · 60 r/s · 20 w/s" in line.toolTip()


def test_label_problems_sees_a_badge_that_hides_auto(make_window) -> None:
    """The check can fail: the old shortening ("→ subset", an elided label) is reported."""
    window, line = _close_cards(make_window, 80)
    line._badge_shown = "→ subset"
    line._label_fit = "logmsgs · 6…"
    assert label_problems(window) == [
        "host_logmsgs: engine badge 'auto → subset' drawn as '→ subset'",
        "host_logmsgs: label 'logmsgs · 60 r/s · 20 w/s' drawn as 'logmsgs · 6…'",
    ]


def test_wrap_parts_keeps_parts_whole() -> None:
    def width(text: str) -> float:
        return 4.0 * len(text)

    text = "comments · 800 r/s · 40 w/s · ≤ 50,000"
    assert wrap_parts(text, 160, width) == text
    assert wrap_parts(text, 120, width) == "comments · 800 r/s · 40 w/s\n≤ 50,000"
    assert wrap_parts(text, 80, width) == "comments · 800 r/s\n40 w/s · ≤ 50,000"
    # a part wider than the room is "…", once for a run of them
    assert wrap_parts("a_very_long_relationship_name · 1 r/s", 80, width) == "… · 1 r/s"
    assert wrap_parts("a_very_long_name_number_one · a_very_long_name_number_two · 1 r/s", 80, width) == "… · 1 r/s"
    assert wrap_parts(text, 20, width) == ""


def test_badge_forms_never_lose_auto() -> None:
    assert badge_forms("auto → parent-ref") == ["auto → parent-ref", "auto →\nparent-ref", "auto"]
    assert badge_forms("embed") == ["embed"]
    assert badge_forms("auto") == ["auto"]


@pytest.mark.parametrize("log_above", [False, True], ids=["log-below", "log-above"])
def test_a_steep_line_puts_its_badge_beside_it_away_from_the_tag(make_window, log_above: bool) -> None:
    """Cards one above the other: badge and label sit beside the line, both whole, and the badge keeps to the
    side away from the ∞ tag at the log's end (on the other side it would cover it when the cards are close)."""
    window = _open(make_window, SAMPLES / "host-logs.modeller.json")
    host, log = window.scene.entity_items["host"], window.scene.entity_items["logmsg"]
    gap = 50
    y = host.pos().y() - log.scene_rect().height() - gap if log_above else host.scene_rect().bottom() + gap
    log.setPos(host.pos().x() + 20, y)
    line = window.scene.relationship_items["host_logmsgs"]
    badge, label = line._badge_rect(), line._label_rect()
    tip, angle, _kind = line._ends[1]
    tag = tag_centre(tip, angle)
    assert line.shown_badge() == "auto → subset" and line.shown_label() == line.label_text()
    assert not badge.intersects(QRectF(tag.x() - 8, tag.y() - 8, 16, 16))
    mid_x = sum(point.x() for point in line.end_points()) / 2
    assert (badge.left() > mid_x) == (tag.x() < mid_x), "the badge is on the other side of the tag"
    assert not QRectF(badge).intersects(label)
    assert label_problems(window) == []


def test_crossing_lines_keep_their_badges_and_labels_apart(window) -> None:
    """Tryout item 9: two lines crossing near their middles drew one's pill and label over the other's
    (Category → Product over Product → Review)."""
    from modeller.model import Entity, Position, Relationship
    from modeller.ui.document import empty_project

    spots = {"a": (0, 0), "b": (520, 420), "c": (520, 0), "d": (0, 420)}
    project = empty_project("cross").model_copy(
        update=dict(
            entities=[Entity(id=key, name=key.upper(), fields=[]) for key in spots],
            relationships=[
                Relationship(id="ab", one="a", many="b", cardinality="one-to-many", reads_per_sec=50, writes_per_sec=5),
                Relationship(id="cd", one="c", many="d", cardinality="one-to-many", reads_per_sec=70, writes_per_sec=2),
            ],
            layout={key: Position(x=x, y=y) for key, (x, y) in spots.items()},
        )
    )
    window.document.reset(type(project).model_validate(project.model_dump()))
    lines = window.scene.relationship_items
    assert lines["ab"].text_boxes() and lines["cd"].text_boxes()
    # the two middles meet: at least one badge moved off it, and no box covers another or a card
    assert lines["ab"].chord.pointAt(0.5) == lines["cd"].chord.pointAt(0.5)

    def clashes() -> list[str]:
        boxes = [(key, box) for key, line in lines.items() for box in line.text_boxes()]
        cards = [card.scene_rect() for card in window.scene.entity_items.values()]
        out = [f"{k1} on {k2}" for i, (k1, b1) in enumerate(boxes) for k2, b2 in boxes[i + 1 :] if b1.intersects(b2)]
        return out + [f"{key} on a card" for key, box in boxes if any(box.intersects(card) for card in cards)]

    assert clashes() == []
    assert label_problems(window) == []
    # a card moved back and forth: still apart, and the texts return to the middle once it is free
    window.scene.entity_items["d"].setPos(0, 900)
    window.scene.entity_items["d"].setPos(0, 420)
    assert clashes() == []
    window.scene.entity_items["c"].setPos(1400, 0)  # the lines no longer meet
    window.scene.entity_items["d"].setPos(1400, 420)
    assert lines["ab"].text_boxes()[0].center() == lines["ab"].chord.pointAt(0.5)


def test_a_badge_grown_by_the_analysis_slides_off_the_label_of_a_line_beside_it(make_window) -> None:
    """a14 tryout: two lines leaving Post; "auto" grew to "auto → parent-ref" where it stood and covered the
    other line's workload label ("500 r/s · 1" cut off)."""
    from modeller.model import Entity, Field, Position, Relationship
    from modeller.ui.document import empty_project

    window = make_window(use_engine=True)
    window.resize(1400, 900)
    spots = {"post": (19, -148), "label": (98, 182), "page_view": (448, 182)}
    project = empty_project("blog").model_copy(
        update=dict(
            entities=[
                Entity(id="post", name="Post", count=500_000, reads_per_sec=500, writes_per_sec=5, fields=[]),
                Entity(id="label", name="Label", count=2000, fields=[Field(name="name", type="string")]),
                Entity(id="page_view", name="PageView", count=5_000_000_000, append_only=True, fields=[]),
            ],
            relationships=[
                Relationship(
                    id="tags",
                    one="post",
                    many="label",
                    cardinality="many-to-many",
                    typical=5,
                    max=20,
                    reads_per_sec=500,
                    writes_per_sec=1,
                ),
                Relationship(
                    id="views",
                    one="post",
                    many="page_view",
                    cardinality="one-to-squillions",
                    typical=100_000,
                    max=50_000_000,
                    read_together=1,
                    reads_per_sec=500,
                    writes_per_sec=2000,
                ),
            ],
            layout={key: Position(x=x, y=y) for key, (x, y) in spots.items()},
        )
    )
    window.document.reset(type(project).model_validate(project.model_dump()))
    lines = window.scene.relationship_items
    before = {key: line.badge_text() for key, line in lines.items()}
    window.analysis.run_now()
    window.scene.finish_badges()
    after = {key: line.badge_text() for key, line in lines.items()}
    assert before == {"tags": "auto", "views": "auto"} and after["views"] == "auto → parent-ref", after

    tags, views = lines["tags"].text_boxes(), lines["views"].text_boxes()
    assert len(tags) == 2 and len(views) == 2  # badge and label of both lines drawn
    assert not any(mine.intersects(theirs) for mine in tags for theirs in views), (tags, views)
    assert label_problems(window) == []
