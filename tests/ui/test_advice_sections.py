"""Issue 15 item 3: the panel reads as advice — "To do" (what to change, most severe first) apart from
"Decisions" (what the engine chose, closed until opened); each row shows its first sentence whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from modeller.rules.framework.findings import SEVERITY_RANK
from modeller.ui.commands.apply_fix import apply_fix_command
from modeller.ui.panels.findings_model import FINDING_ROLE, HEADER_ROLE
from modeller.ui.panels.sections import first_sentence, section_of

from .live_helpers import open_sample

SAMPLES_DIR = Path(__file__).resolve().parents[2] / "samples"
SAMPLES = ["blog", "ecommerce", "host-logs", "iot-sensors", "person-addresses", "product-parts", "task-tracker"]


def open_with_to_dos(make_window, tmp_path):
    """task-tracker with person_tasks forced to child-refs: the engine's two-way advice becomes a to-do
    (every sample as shipped follows the advice, so it has nothing to do)."""
    data = json.loads((SAMPLES_DIR / "task-tracker.modeller.json").read_text(encoding="utf-8"))
    next(r for r in data["relationships"] if r["id"] == "person_tasks")["strategy"] = "child-refs"
    path = tmp_path / "forced.modeller.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    window = make_window(use_engine=True)
    assert window.open_path(path, ask=False)
    window.analysis.run_now()
    return window


def listed_rows(panel) -> list[tuple[bool, object]]:
    """What the view shows: (is header, display text or finding) per row."""
    rows = []
    for r in range(panel.proxy.rowCount()):
        index = panel.proxy.index(r, 0)
        rows.append((bool(index.data(HEADER_ROLE)), index.data(FINDING_ROLE) or index.data()))
    return rows


def test_decisions_are_closed_at_first_and_to_do_is_ranked_by_severity(make_window, qtbot, tmp_path) -> None:
    window = open_with_to_dos(make_window, tmp_path)
    panel = window.recommendations
    todo, decisions = panel.visible_findings("todo"), panel.visible_findings("decisions")
    assert todo and decisions
    assert all(not f.decided for f in todo) and all(f.decided or f.severity == "info" for f in decisions)
    ranks = [SEVERITY_RANK[f.severity] for f in todo if not f.overridden]
    assert ranks == sorted(ranks, reverse=True)
    rows = listed_rows(panel)
    headers = [text for is_header, text in rows if is_header]
    assert headers[0] == f"To do ({len(todo)})"
    assert headers[1].startswith(f"▸ Decisions ({len(decisions)})") and "what the engine chose" in headers[1]
    shown = [item for is_header, item in rows if not is_header]
    assert shown == todo  # the decisions' rows wait for their header to be opened
    assert panel.header.text().startswith("To do: 1 warning") and f"{len(decisions)} decisions" in panel.header.text()
    # clicking the Decisions header opens it, clicking again closes it
    header_row = next(r for r, (is_header, text) in enumerate(rows) if is_header and "Decisions" in str(text))
    rect = panel.tree.visualRect(panel.proxy.index(header_row, 0))
    qtbot.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert [item for is_header, item in listed_rows(panel) if not is_header] == todo + decisions
    assert any(is_header and str(text).startswith("▾ Decisions") for is_header, text in listed_rows(panel))
    qtbot.wait(QApplication.doubleClickInterval() + 100)  # two clicks, not a double-click
    rect = panel.tree.visualRect(panel.proxy.index(header_row, 0))
    assert panel.proxy.index(header_row, 0).data(HEADER_ROLE)
    qtbot.mouseClick(panel.tree.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert [item for is_header, item in listed_rows(panel) if not is_header] == todo


def test_each_row_shows_its_first_sentence_whole_wrapped(make_window) -> None:
    window = open_sample(make_window, "ecommerce")
    panel = window.recommendations
    panel.set_section_open("decisions", True)
    window.resize(900, 700)
    long_row = None
    for r in range(panel.proxy.rowCount()):
        index = panel.proxy.index(r, 0)
        finding = index.data(FINDING_ROLE)
        if finding is None:
            continue
        text = index.data()
        assert text == first_sentence(finding.message) or text.endswith(": " + first_sentence(finding.message))
        height = panel.tree.sizeHintForIndex(index).height()
        if len(text) > 200:
            long_row = height
    line = panel.tree.fontMetrics().height()
    assert long_row is not None and long_row >= 2 * line  # wrapped, not elided
    assert panel.tree.textElideMode() == Qt.TextElideMode.ElideNone and panel.tree.wordWrap()


def test_first_sentence_keeps_the_whole_sentence() -> None:
    assert first_sentence("copy Part.name into each Product (ratio 25,000:1). Keep it in sync: x.") == (
        "copy Part.name into each Product (ratio 25,000:1)."
    )
    assert first_sentence("index {a: 1} e.g. for the list") == "index {a: 1} e.g. for the list"


def test_the_empty_details_say_what_the_sections_are_in_full(make_window, tmp_path) -> None:
    window = open_sample(make_window, "blog")  # the blog sample follows every recommendation
    panel = window.recommendations
    assert panel.visible_findings("todo") == [] and panel.visible_findings("decisions")
    text = panel.details.toPlainText()
    assert "Nothing to do: your design follows every recommendation." in text
    assert "Open Decisions to review what the engine chose for you and why." in text
    assert panel.header.text().startswith("Nothing to do · ")
    window2 = open_with_to_dos(make_window, tmp_path)
    p2 = window2.recommendations
    p2.tree.setCurrentIndex(p2.proxy.index(0, 0))  # a header: no finding selected
    p2._show_details(None)
    text = p2.details.toPlainText()
    assert "To do lists what to change in your design, most severe first." in text
    assert "the numbers behind it" in text


@pytest.mark.slow
@pytest.mark.parametrize("name", SAMPLES)
def test_a_design_that_follows_every_recommendation_has_nothing_to_do(make_window, name: str) -> None:
    """Apply every to-do's fix (a bounded number of rounds): what is left to do is nothing."""
    window = open_sample(make_window, name)
    panel = window.recommendations
    for _round in range(8):
        fixable = [f for f in panel.visible_findings("todo") if f.fix is not None and f.fix.changes]
        if not fixable:
            break
        window.document.push(apply_fix_command(window.document, fixable[0]))
        window.analysis.run_now()
    left = panel.visible_findings("todo")
    assert left == [], [(f.rule, f.subject.id, f.message) for f in left]
    assert all(section_of(f) == "decisions" for f in panel.analysis.findings)
