"""Issue 16: laying out the findings list asks no row for its finding.

The list lays out every row after each change of its rows (40,000 at 10,000 entities, at the open's hand-over
and after each edit). A row takes the guessed height unless it was measured at another one; those rows are
placed once per change, by the model's binary search, so the rows' heights stay what was measured.
"""

from __future__ import annotations

import sys
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
from modeller.ui.panels.findings_model import FINDING_ROLE
from modeller.ui.panels.findings_rows import MEASURED_TOP, WrappedRows

pytestmark = pytest.mark.slow


@cache
def project() -> Project:
    return generate_project(400, 1.5, 0.5, seed=0)


def _expected(rows: WrappedRows, index) -> int | None:
    """The height a row must have: its own once measured, else the guess (None: always measured)."""
    finding = index.data(FINDING_ROLE)
    if finding is None or index.row() < MEASURED_TOP:
        return None
    known = rows._measured.get(id(finding))
    return known[1] if known is not None and known[0] is finding else rows._guess


def _analysed(make_window):
    """A window showing the project's findings, its list laid out in one pass (every row asked at once)."""
    window = make_window(analyse=engine_analyse())
    window.resize(1600, 1000)
    window.document.reset(project())
    window.analysis.run_now()
    window.recommendations.tree.setLayoutMode(QListView.LayoutMode.SinglePass)
    return window


def test_rows_keep_their_measured_heights_without_a_lookup_per_row(make_window, monkeypatch) -> None:
    window = _analysed(make_window)
    panel = window.recommendations
    tree, rows, proxy, model = panel.tree, panel.rows, panel.proxy, panel.model
    tree.doItemsLayout()
    count = proxy.rowCount()
    assert count > MEASURED_TOP + 300, count
    assert rows._guess > 0

    # a suggestion far down whose wrapped text is not of the guessed height: painted, it is measured
    metrics = QFontMetrics(tree.font())
    width = tree.viewport().width() - 2 - WrappedRows.INDENT

    def odd(r: int) -> bool:
        index = proxy.index(r, 0)
        finding = index.data(FINDING_ROLE)
        if finding is None or finding.severity != "suggestion":
            return False
        box = metrics.boundingRect(QRect(0, 0, width, 100_000), int(Qt.TextFlag.TextWordWrap), str(index.data()))
        return box.height() + 6 > rows._guess

    far = proxy.index(next(r for r in reversed(range(MEASURED_TOP + 200, count)) if odd(r)), 0)
    finding = far.data(FINDING_ROLE)
    tree.scrollTo(far)
    tree.viewport().grab()
    assert rows._measured[id(finding)][1] > rows._guess  # measured taller than the guess

    # the rows move (a severity filter hides the errors above): laid out again, no row is asked for its finding
    asked: list[int] = []
    locate = model.locate
    monkeypatch.setattr(model, "locate", lambda row: asked.append(row) or locate(row))
    looked_up = rows.lookups
    proxy.set_filter(None, {"warning", "suggestion"})  # the 30 errors at the top hide
    asked.clear()  # the filter asked each row whether it shows
    tree.doItemsLayout()
    shown = proxy.rowCount()
    assert MEASURED_TOP + 100 < shown < count
    top = {proxy.mapToSource(proxy.index(r, 0)).row() for r in range(MEASURED_TOP)}
    headers = {model.start(g) for g in range(len(model.groups))}
    assert asked and set(asked) <= top | headers  # the rows always measured; none of the hundreds below
    assert rows.lookups - looked_up <= len(rows._measured) < shown // 3  # the measured rows, not all rows
    moved = proxy.mapFromSource(model.index(model.row_of(finding)))
    assert moved.isValid() and moved.row() != far.row()
    # every row has the height it must have: the measured suggestion its own where it is now, the others the guess
    monkeypatch.undo()
    assert tree.sizeHintForIndex(moved).height() == rows._measured[id(finding)][1]
    for r in range(MEASURED_TOP, shown):
        index = proxy.index(r, 0)
        expected = _expected(rows, index)
        if expected is not None:
            assert tree.sizeHintForIndex(index).height() == expected, (r, index.data())


def test_the_hand_over_of_another_projects_findings_asks_only_the_top_rows(make_window, monkeypatch) -> None:
    window = _analysed(make_window)
    panel = window.recommendations
    tree, rows, proxy, model = panel.tree, panel.rows, panel.proxy, panel.model
    tree.scrollTo(proxy.index(proxy.rowCount() - 1, 0))
    tree.viewport().grab()  # rows far down painted and measured

    asked: list[int] = []
    locate = model.locate
    monkeypatch.setattr(model, "locate", lambda row: asked.append(row) or locate(row))
    looked_up = rows.lookups
    window.document.reset(generate_project(400, 1.5, 0.5, seed=1))  # the hand-over: one reset of every row
    window.analysis.run_now()
    asked.clear()  # the filter's own questions are not the layout's
    tree.doItemsLayout()
    count = proxy.rowCount()
    assert count > MEASURED_TOP + 300, count
    top = {proxy.mapToSource(proxy.index(r, 0)).row() for r in range(MEASURED_TOP)}
    headers = {model.start(g) for g in range(len(model.groups))}
    assert asked and set(asked) <= top | headers
    assert rows.lookups - looked_up <= len(rows._measured) < count // 3
    monkeypatch.undo()
    for r in range(MEASURED_TOP, count):
        index = proxy.index(r, 0)
        expected = _expected(rows, index)
        if expected is not None:
            assert tree.sizeHintForIndex(index).height() == expected, (r, index.data())
