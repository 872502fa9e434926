"""Issue 16, the hand-over of an open: with no selection, severity or words filtering, the findings filter
decides each row from the sections' sizes (a byte per row), not by looking the row's finding up and asking the
filters (39,000 rows at 10,000 entities held the UI thread ~75 ms). Filters set afterwards still work."""

from __future__ import annotations

import pytest

from modeller.ui.main_window import MainWindow
from modeller.ui.panels.findings_model import FINDING_ROLE, FindingsFilter, FindingsModel
from modeller.ui.panels.sections import SECTIONS, section_of

from .big_model import generate_project


def shown(window: MainWindow) -> list[tuple[str, object]]:
    """The rows the panel's proxy shows: ("header", section) or ("finding", finding)."""
    proxy = window.recommendations.proxy
    rows: list[tuple[str, object]] = []
    for r in range(proxy.rowCount()):
        finding = proxy.index(r, 0).data(FINDING_ROLE)
        if finding is None:
            g, _i = window.recommendations.model.locate(proxy.mapToSource(proxy.index(r, 0)).row())
            rows.append(("header", SECTIONS[g]))
        else:
            rows.append(("finding", finding))
    return rows


def expected(window: MainWindow, keep=lambda f: True) -> list[tuple[str, object]]:
    """The rows worked out apart from the filter: a header per section with a kept finding, its rows if open."""
    model, proxy = window.recommendations.model, window.recommendations.proxy
    rows: list[tuple[str, object]] = []
    for name, group in zip(SECTIONS, model.groups, strict=True):
        kept = [f for f in group if keep(f)]
        if kept:
            rows.append(("header", name))
            if name not in proxy.collapsed:
                rows.extend(("finding", f) for f in kept)
    return rows


def test_an_unfiltered_hand_over_asks_no_finding_and_filters_still_work(
    make_window, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    for cls, name in ((FindingsModel, "locate"), (FindingsFilter, "accepts"), (FindingsFilter, "passes")):
        original = getattr(cls, name)
        monkeypatch.setattr(cls, name, lambda self, *args, _o=original, _n=name: asked.append(_n) or _o(self, *args))
    filtered: list[int] = []  # the hand-over's calls for a row (one per row: Qt asks; each must be a lookup)
    original_filter = FindingsFilter.filterAcceptsRow

    handing_over = False

    def counted(self, row, parent):
        if not handing_over:
            return original_filter(self, row, parent)
        filtered.append(row)
        before = len(asked)
        accepted = original_filter(self, row, parent)
        assert len(asked) == before, f"row {row} was filtered by asking its finding: {asked[before:]}"
        return accepted

    monkeypatch.setattr(FindingsFilter, "filterAcceptsRow", counted)  # before the filter is made: Qt keeps it
    window = make_window(use_engine=True)
    window.document.reset(generate_project(80, 1.5, 0.5, seed=0))
    window.scene.finish_build()
    asked.clear()
    handing_over = True
    window.analysis.run_now()  # the hand-over: one reset of every row
    handing_over = False
    proxy = window.recommendations.proxy
    model = window.recommendations.model
    assert all(model.groups), "both sections must hold findings, or this test proves nothing"
    assert proxy.collapsed, "a section must start closed, or this test proves nothing"
    assert shown(window) == expected(window)
    assert sum(map(len, model.groups)) > 200, "the project must list many findings, or this test proves nothing"
    assert len(filtered) >= sum(map(len, model.groups)), "every row must have been filtered by the hand-over"
    # past the rows: the details pane's "anything to do?" (its first to-do) asks one finding
    assert asked.count("accepts") <= 1

    findings = window.recommendations.analysis.findings
    severity = next(f.severity for f in findings if section_of(f) == "todo")
    proxy.set_filter(None, {severity})
    assert shown(window) == expected(window, lambda f: f.severity == severity)
    assert len(shown(window)) < len(expected(window)) or all(f.severity == severity for f in findings)
    proxy.set_filter(None, None)
    assert shown(window) == expected(window)
    closed = next(iter(proxy.collapsed))
    proxy.set_collapsed(closed, False)  # opening a section shows its rows again
    assert shown(window) == expected(window) and ("finding", model.groups[SECTIONS.index(closed)][0]) in shown(window)
    proxy.set_collapsed(SECTIONS[0], True)
    assert shown(window) == expected(window)


def test_another_project_lists_its_own_findings_and_texts(make_window) -> None:
    window = make_window(use_engine=True)
    window.document.reset(generate_project(60, 1.5, 0.5, seed=0))
    window.scene.finish_build()
    window.analysis.run_now()
    first_texts = [r[1] for r in shown(window)]
    window.document.reset(generate_project(50, 1.5, 0.5, seed=5))  # another project: its rows in one reset
    window.scene.finish_build()
    window.analysis.run_now()
    model = window.recommendations.model
    findings = window.recommendations.analysis.findings
    assert sorted(map(id, (f for group in model.groups for f in group))) == sorted(map(id, findings))
    assert shown(window) == expected(window) and [r[1] for r in shown(window)] != first_texts
    names = {e.name for e in window.document.project.entities}
    entity_rows = [model.text(f) for group in model.groups for f in group if f.subject.kind == "entity"]
    assert entity_rows and all(text.split(":")[0] in names for text in entity_rows)
