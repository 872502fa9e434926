"""Tryout a15 item 11: while a large project opens, the window says what is happening (not the empty project's
hints), and the open's view keeps the first cards clear of the legend."""

from __future__ import annotations

from pathlib import Path

from modeller.persistence import save_project
from modeller.ui.panels.empty_hint import HINT

from .big_model import big_project

#: more than the canvas builds at once (SYNC_BUILD_MAX), so the cards out of sight come progressively
ENTITIES = 600


def test_the_canvas_says_a_file_is_being_opened_not_start_your_model_here(window, qtbot, tmp_path: Path) -> None:
    path = tmp_path / "big.modeller.json"
    save_project(big_project(ENTITIES), path)
    hint = window.empty_hint
    assert hint.isVisible() and "Start your model here" in hint.text()
    with qtbot.waitSignal(window.open_finished, timeout=60000) as opened:
        assert window.open_path(path, ask=False, background=True)
        assert hint.isVisible()  # the read runs in a worker: the canvas is still empty
        assert "Opening big.modeller.json…" in hint.text() and "Start your model here" not in hint.text()
    assert opened.args == [True]
    assert not hint.isVisible()
    assert hint.text() == HINT  # the next empty project gets the start hint again


def test_before_the_first_analysis_the_panels_say_it_is_coming(window, qtbot) -> None:
    window.document.reset(big_project(ENTITIES))
    header = window.recommendations.header.text()
    assert header == f"Analysing {ENTITIES} entities…", header
    summary = window.preview.summary.text()
    assert summary.startswith(f"Waiting for the analysis of {ENTITIES} entities"), summary
    window.analysis.running.emit(True)
    assert window.findings_label.text() == f"Analysing {ENTITIES} entities…"


def test_the_status_bar_counts_the_cards_still_being_drawn(window, qtbot) -> None:
    label = window.cards_building
    assert not label.isVisible()
    window.document.reset(big_project(ENTITIES))
    assert window.scene.building
    qtbot.waitUntil(lambda: label.isVisible(), timeout=30000)
    assert label.text().startswith("Drawing cards: ") and f"of {ENTITIES}…" in label.text(), label.text()
    window.scene.finish_build()
    assert not label.isVisible()


def test_the_open_keeps_the_first_cards_clear_of_the_legend(window, qtbot) -> None:
    view = window.view
    window.document.reset(big_project(ENTITIES))
    view.fit_on_open()
    assert view.zoom() == 0.9  # too large to fit: the top-left corner at a readable size
    window.scene.finish_build()
    view._place_legend()  # where its timer puts it once the view is still
    legend = view.legend.geometry()
    for item in window.scene.entity_items.values():
        card = view.mapFromScene(item.scene_rect()).boundingRect().translated(view.viewport().pos())
        assert not legend.intersects(card), window.document.entity(item.entity_id).name
