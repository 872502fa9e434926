"""The GUI's finding and plan texts and its undo texts name things by the user's words, never by ids:
every sample with its ids renamed to opaque tokens (``zq001x``) shows no token (see tests/cli/test_opaque_ids.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from modeller.persistence import load_project
from modeller.rules.engine import analyse
from modeller.ui.commands.apply_fix import apply_fix_command
from modeller.ui.main_window import MainWindow
from modeller.ui.panels.finding_item import detail_html, subject_label
from modeller.ui.panels.queries_panel import query_label
from modeller.ui.panels.query_plans_tab import plan_html
from tests.opaque_ids import TOKEN, opaque

SAMPLES = sorted(Path(__file__).resolve().parents[2].joinpath("samples").glob("*.modeller.json"))


@pytest.mark.slow
@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: p.name.split(".")[0])
def test_no_id_in_finding_plan_query_or_undo_texts(sample: Path, window: MainWindow) -> None:
    project, _ = opaque(load_project(sample))
    window.document.reset(project)
    analysis = analyse(project)
    texts: list[str] = []
    fixes = 0
    for finding in analysis.findings:
        texts += [subject_label(project, finding.subject), detail_html(finding, project)]
        if finding.fix is not None:
            texts.append(apply_fix_command(window.document, finding).text())
            fixes += 1
    texts += [plan_html(plan, project) for plan in analysis.design.queries]
    texts += [query_label(window.document, query) for query in project.queries]
    window.queries.editor.show_query(project.queries[0].id if project.queries else None)
    if project.queries:  # the undo text of an edit in the Queries panel
        assert window.queries.editor.apply(["per_sec"], 12345) is None
        texts.append(window.document.undo_stack.undoText())
    found = [f"{m.group(0)} in …{t[max(0, m.start() - 60) : m.end() + 30]}…" for t in texts for m in TOKEN.finditer(t)]
    assert texts and not found, "\n".join(found)
