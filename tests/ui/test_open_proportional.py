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

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.ui.analysis import engine_analyse
from modeller.ui.commands import EditEntityCommand
from modeller.ui.panels import findings_rows
from modeller.ui.panels.findings_model import FINDING_ROLE

pytestmark = pytest.mark.slow
ENTITIES = 800


@cache
def project() -> Project:
    return generate_project(ENTITIES, 1.5, 0.5, seed=0)


def test_the_findings_list_measures_the_rows_it_shows_not_all_of_them(make_window, qtbot) -> None:
    """After the open and after an edit that adds and removes findings, the list asks the heights of the rows in
    sight (and of the last screenful, for the scroll range), not of all rows; a row scrolled to shows whole."""
    window = make_window(analyse=engine_analyse())
    window.resize(1600, 1000)
    window.show()
    window.document.reset(project())
    window.analysis.run_now()
    panel = window.recommendations
    tree, rows = panel.tree, panel.rows
    tree.doItemsLayout()
    tree.viewport().grab()  # painted as on screen
    count = panel.proxy.rowCount()
    in_sight = tree.viewport().height() // QFontMetrics(tree.font()).height() + 1
    assert count > 10 * in_sight, count
    assert 0 < rows.asked <= 4 * in_sight, (rows.asked, count)
    # an edit: findings come and go, the list is laid out again, still asking only what is in sight
    entity = next(e for e in project().entities if e.count and not e.timeseries)
    changes: list[int] = []
    panel.model.rowsInserted.connect(lambda *_: changes.append(1))
    panel.model.rowsRemoved.connect(lambda *_: changes.append(-1))
    rows.asked = 0
    window.document.push(EditEntityCommand(window.document, entity.model_copy(update={"count": 10**12})))
    window.analysis.run_now()
    tree.doItemsLayout()
    tree.viewport().grab()
    assert changes, "the edit must add or remove findings, or this test proves nothing"
    assert rows.asked <= 4 * in_sight, (rows.asked, panel.proxy.rowCount())
    # the last To-do row (the closed Decisions section's header comes after it): scrolled to, shown whole
    count = panel.proxy.rowCount()
    last = next(i for i in map(lambda r: panel.proxy.index(r, 0), reversed(range(count))) if i.data(FINDING_ROLE))
    tree.scrollTo(last)
    tree.viewport().grab()
    text = str(last.data())
    wrapped = QFontMetrics(tree.font()).boundingRect(
        QRect(0, 0, tree.viewport().width() - 2 - findings_rows.WrappedRows.INDENT, 100_000),
        int(Qt.TextFlag.TextWordWrap),
        text,
    )
    qtbot.waitUntil(lambda: tree.visualRect(last).height() >= wrapped.height(), timeout=10_000)  # wrapped, whole


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
