"""Issue 16: the open of a large project costs what is on screen.

The findings list measures the rows it shows (its top, and rows scrolled to), not every To-do row; the
canvas builds the cards in sight first and, while the analysis runs in the background, leaves the others
for after the findings, and a card out of sight can still be selected (it is built then).
"""

from __future__ import annotations

import sys
import threading
from functools import cache
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import QListView

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.ui.analysis import engine_analyse
from modeller.ui.panels import findings_rows
from modeller.ui.panels.findings_model import FINDING_ROLE

pytestmark = pytest.mark.slow
ENTITIES = 800


@cache
def project() -> Project:
    return generate_project(ENTITIES, 1.5, 0.5, seed=0)


def test_the_findings_list_measures_the_rows_it_shows_not_all_of_them(make_window, qtbot) -> None:
    window = make_window(analyse=engine_analyse())
    window.resize(1600, 1000)
    window.show()
    window.document.reset(project())
    window.analysis.run_now()
    panel = window.recommendations
    tree, rows = panel.tree, panel.rows
    tree.setLayoutMode(QListView.LayoutMode.SinglePass)  # the whole layout now, not in batches
    tree.doItemsLayout()
    count = panel.proxy.rowCount()
    assert count > findings_rows.MEASURED_TOP + 200, count
    # the last To-do row (the closed Decisions section's header comes after it)
    last = next(i for i in map(lambda r: panel.proxy.index(r, 0), reversed(range(count))) if i.data(FINDING_ROLE))
    far = last.data(FINDING_ROLE)
    assert last.row() > findings_rows.MEASURED_TOP + 200
    # the top is measured; a row far below was laid out without its text being made or measured
    assert all(rows.is_measured(panel.proxy.index(r, 0)) for r in range(findings_rows.MEASURED_TOP))
    assert not rows.is_measured(last) and rows.guessed > 0
    assert id(far) not in panel.model._texts
    # scrolled to, it is painted, measured, and the list laid out again with its own height
    tree.scrollTo(last)
    tree.viewport().grab()  # painted as on screen
    assert rows.is_measured(last)
    qtbot.waitUntil(lambda: tree.visualRect(last).height() == tree.sizeHintForIndex(last).height(), timeout=10_000)
    text = str(last.data())
    wrapped = QFontMetrics(tree.font()).boundingRect(
        QRect(0, 0, tree.viewport().width() - 2 - findings_rows.WrappedRows.INDENT, 100_000),
        int(Qt.TextFlag.TextWordWrap),
        text,
    )
    assert tree.visualRect(last).height() >= wrapped.height()  # the whole first sentence, wrapped


def test_cards_out_of_sight_wait_for_the_findings_and_can_be_selected_before(make_window, qtbot, tmp_path) -> None:
    release = threading.Event()
    real = engine_analyse()

    def held_back(project: Project):
        assert release.wait(60), "the test never released the analysis"
        return real(project)

    window = make_window(analyse=held_back)
    window.resize(1600, 1000)
    window.show()
    scene = window.scene
    events: list[str] = []
    scene.in_view_built.connect(lambda: events.append("in view"))
    scene.built.connect(lambda: events.append("built"))
    window.analysis.analysed.connect(lambda _a: events.append("findings"))
    window.document.reset(project())
    window.view.fit_on_open()  # a readable corner, as an open shows it
    qtbot.waitUntil(lambda: "in view" in events and window.analysis.background, timeout=60_000)
    qtbot.wait(50)  # a turn of the event loop or more: the build must not go on while the analysis runs
    assert scene.building and 0 < len(scene.entity_items) < ENTITIES
    # every card whose place is in sight is there, with its lines
    sight = window.view.mapToScene(window.view.viewport().rect()).boundingRect()
    layout = window.document.project.layout
    in_sight = [e.id for e in project().entities if sight.contains(layout[e.id].x, layout[e.id].y)]
    assert in_sight and all(key in scene.entity_items for key in in_sight)
    touching = [r.id for r in project().relationships if r.one in in_sight or r.many in in_sight]
    assert all(key in scene.relationship_items and scene.relationship_items[key].scene() for key in touching)

    release.set()
    qtbot.waitUntil(lambda: "built" in events, timeout=120_000)
    assert events == ["in view", "findings", "built"]
    assert len(scene.entity_items) == ENTITIES and len(scene.relationship_items) == len(project().relationships)


def test_a_card_not_built_yet_is_built_when_selected(make_window, qtbot) -> None:
    release = threading.Event()
    real = engine_analyse()

    def held_back(project: Project):
        assert release.wait(60), "the test never released the analysis"
        return real(project)

    window = make_window(analyse=held_back)
    window.resize(1600, 1000)
    window.show()
    scene = window.scene
    window.document.reset(project())
    window.view.fit_on_open()
    qtbot.waitUntil(lambda: scene.in_view_done and window.analysis.background, timeout=60_000)
    far = next(e.id for e in reversed(project().entities) if e.id not in scene.entity_items)
    built = len(scene.entity_items)
    scene.select_only([far])  # a finding's subject, or Find
    # that card is made now, not the rest of the build (issue 16: the rest kept the window for seconds)
    assert scene.selected_entity_ids() == [far] and scene.building and len(scene.entity_items) == built + 1
    assert scene.entity_items[far].isSelected()
    release.set()
    qtbot.waitUntil(lambda: not window.analysis.background, timeout=60_000)
    qtbot.waitUntil(lambda: not scene.building, timeout=120_000)  # the build went on and skipped the card
    assert len(scene.entity_items) == ENTITIES and scene.selected_entity_ids() == [far]
