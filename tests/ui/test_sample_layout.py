"""Every sample reads at first sight in both views: no card covers another, and every strategy badge
sits clear of the cards and keeps its "auto" (a badge behind a card, or without "auto", hides whose choice
it is; tests/ui/test_relationship_labels.py checks the shortened forms and the workload labels).

The Documents view keeps the cards' places but its cards are wider (ids, references, copies), so the
samples' positions must leave room for both.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRectF

from modeller.ui.main_window import MainWindow

from .conftest import SAMPLES

#: the least free space between two cards, so a line between them shows its ends and badge
GAP = 40.0


def visible_cards(window: MainWindow) -> dict[str, QRectF]:
    return {key: item.sceneBoundingRect() for key, item in window.scene.entity_items.items() if item.isVisible()}


def layout_problems(window: MainWindow) -> list[str]:
    """What a new user would see as broken: cards too close or overlapping, badges on or under cards or
    shortened without their "auto" (an engine's "auto → x" shown as "x" reads as the user's own choice)."""
    scene = window.scene
    cards = visible_cards(window)
    names = {key: item._title for key, item in scene.entity_items.items()}
    problems = []
    keys = sorted(cards)
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            if cards[a].adjusted(-GAP / 2, -GAP / 2, GAP / 2, GAP / 2).intersects(cards[b]):
                problems.append(f"cards {names[a]} and {names[b]} closer than {GAP:g} px")
    for rel_id, line in scene.relationship_items.items():
        if not line.isVisible() or not line.badge_text():
            continue
        full, shown = line.badge_text(), line.shown_badge()
        if shown != full and not ("→" in full and shown.startswith("auto")):
            problems.append(f"badge {full!r} of {rel_id} shortened to {shown!r}")
        badge = line.mapRectToScene(line._badge_rect())
        for key, card in cards.items():
            if badge.intersects(card):
                problems.append(f"badge {line.badge_text()!r} of {rel_id} on card {names[key]}")
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(SAMPLES.glob("*.modeller.json")), ids=lambda p: p.name.split(".")[0])
def test_sample_cards_and_badges_stay_clear_in_both_views(make_window, path) -> None:
    window = make_window(use_engine=True)
    assert window.open_path(path, ask=False)
    window.analysis.run_now()
    assert window.scene.entity_items, "the sample opened with cards"
    assert layout_problems(window) == []
    window.set_documents_view(True)
    assert window.scene.documents_view
    assert layout_problems(window) == []


def test_layout_problems_sees_a_card_over_another(make_window) -> None:
    """The check above can fail: two cards pushed onto each other are reported by name."""
    window = make_window(use_engine=True)
    assert window.open_path(SAMPLES / "host-logs.modeller.json", ask=False)
    window.analysis.run_now()
    host, log = window.scene.entity_items["host"], window.scene.entity_items["logmsg"]
    log.setPos(host.pos())
    assert "cards Host and Log message closer than 40 px" in layout_problems(window)


def test_an_engine_badge_on_a_short_line_keeps_auto(make_window) -> None:
    """Cards close together: "auto → subset" breaks after its arrow, never to the bare "subset" a user's
    own choice shows."""
    window = make_window(use_engine=True)
    assert window.open_path(SAMPLES / "host-logs.modeller.json", ask=False)
    window.analysis.run_now()
    host, log = window.scene.entity_items["host"], window.scene.entity_items["logmsg"]
    line = window.scene.relationship_items["host_logmsgs"]
    assert line.badge_text() == "auto → subset" and line.shown_badge() == "auto → subset"
    log.setPos(host.sceneBoundingRect().right() + 70, host.pos().y())
    assert line.shown_badge() == "auto →\nsubset"
    # too wide for the line's middle, it moves off the line: below it, for the ∞ tag at the log's end sits above
    tip = line.end_points()[1]
    assert line._badge_rect().top() > tip.y() and line._label_rect().top() >= line._badge_rect().bottom()
    assert line._badge_rect().width() < window.scene.style.badge_width("auto → subset")
    assert layout_problems(window) == []
