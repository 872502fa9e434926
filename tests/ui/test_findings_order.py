"""Issue 16, the hand-over of a first analysis: the findings list's order is worked out in the analysis worker,
so the UI thread only takes it (sorting 38,000 findings held it about 100 ms at 10,000 entities)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.ui.analysis import _prepared, engine_analyse
from modeller.ui.panels import finding_item, findings_order
from modeller.ui.panels.finding_item import lookup
from modeller.ui.panels.findings_model import FindingsModel
from modeller.ui.panels.findings_order import sort_key, sorted_sections
from modeller.ui.panels.sections import SECTIONS, section_of


def test_the_model_lists_the_order_the_worker_made_without_sorting_again(qapp, monkeypatch) -> None:
    project = generate_project(60, 1.5, 0.5, seed=5)
    result = _prepared(engine_analyse())(project)
    assert len(result.findings) > 20
    assert finding_item._last_labels[0].project is project  # the details' words are ready too

    def no_sorting(_finding: object) -> object:
        raise AssertionError("the UI thread sorted the findings again")

    monkeypatch.setattr(findings_order, "sort_key", no_sorting)
    model = FindingsModel()
    model.set_analysis(result, lookup(project))
    monkeypatch.undo()
    for g, section in enumerate(SECTIONS):
        mine = [f for f in result.findings if section_of(f) == section]
        assert model.groups[g] == sorted(mine, key=sort_key)
        assert model._keys[g] == sorted(map(sort_key, mine))
    assert sum(map(len, model.groups)) == len(result.findings)


def test_each_caller_gets_lists_of_its_own() -> None:
    project = generate_project(30, 1.5, 0.5, seed=6)
    findings = engine_analyse()(project).findings
    first = sorted_sections(findings)
    rows, keys = next((rows, keys) for rows, keys in first if rows)
    rows.pop()
    keys.clear()
    again = sorted_sections(findings)
    assert [len(r) for r, _k in again] == [sum(1 for f in findings if section_of(f) == s) for s in SECTIONS]
    assert all(len(r) == len(k) for r, k in again)
