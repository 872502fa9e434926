"""The Why names the actual reason, and the report counts in words (tryout item 10): a Customer's few Addresses kept
by id because only 5 % of Customer reads need them are not 'looked up on their own, or too many to embed'; DESIGN.md
says a count is not set (never 'About ? documents') and plurals its finding counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from modeller.cli.cmd_check import render_text
from modeller.export.report import design_report
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.model.wording import counted
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.framework.sections import count_sections

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _customers(**rel: Any) -> Project:
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "shop",
            "entities": [
                {"id": "customer", "name": "Customer", "fields": [{"name": "name", "type": "string"}]},
                {"id": "address", "name": "Address", "fields": [{"name": "city", "type": "string"}]},
            ],
            "relationships": [
                {"id": "addresses", "one": "customer", "many": "address", "cardinality": "one-to-few", "max": 5, **rel}
            ],
        }
    )


def _why(project: Project) -> str:
    finding = next(f for f in analyse(project).findings if f.rule == "child-refs-one-to-many")
    assert finding.why is not None
    return finding.why


def test_rarely_read_together_is_the_why_not_independent_access() -> None:
    why = _why(_customers(read_together=0.05))
    assert why.startswith("only a few Customer reads need its Addresses: embedded, they would be read and sent")
    assert "looked up on their own" not in why and "too many" not in why


def test_independent_access_is_the_why_when_it_is_the_reason() -> None:
    why = _why(_customers(many_standalone=True))
    assert why.startswith("Addresses are looked up on their own, which embedded documents cannot be")
    assert "only a few" not in why


def test_the_report_says_a_count_is_not_set_and_plurals_its_counts() -> None:
    project = _customers(read_together=0.05)
    analysis = analyse(project)
    report = design_report(analysis.design, project, analysis.findings)
    assert "About ? documents" not in report
    assert "Document count not set, average" in report
    summary = next(line for line in report.splitlines() if line.startswith("- Findings: "))
    counts = {s: sum(1 for f in analysis.findings if f.severity == s) for s in ("error", "warning")}
    assert counts == {"error": 0, "warning": 0}
    assert summary.startswith(f"- Findings: {counted(len(analysis.findings), 'finding')}: no errors or warnings; ")


def test_the_report_counts_findings_as_check_and_the_panel_do() -> None:
    """Tryout a15 item 9: DESIGN.md counted severities ("3 suggestions, 2 info") where the app and ``check``
    said "To do: 1 suggestion · 4 decisions": one counting, ``check``'s last line, in the report's summary."""
    project = load_project(SAMPLES / "blog.modeller.json")
    analysis = analyse(project)
    report = design_report(analysis.design, project, analysis.findings)
    summary = next(line for line in report.splitlines() if line.startswith("- Findings: "))
    last = render_text(analysis.findings, colour=False).splitlines()[-1]
    assert summary == f"- Findings: {last}."
    _todo, decisions = count_sections(analysis.findings)
    assert decisions and f"{decisions} decisions already in the design" in summary
    assert " info" not in summary
