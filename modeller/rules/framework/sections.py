"""What a finding asks of the user: something "to do", or a "decision" the design already holds.

The GUI's panel and ``modeller check`` count findings the same way, in the same words, from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from modeller.model.wording import counted
from modeller.rules.framework.findings import SEVERITIES, Finding

#: most severe first, the order a person reads them in
ORDER: tuple[str, ...] = tuple(reversed(SEVERITIES))
_WORDS = {"error": "error", "warning": "warning", "suggestion": "suggestion", "info": "note"}


def section_of(finding: Finding) -> str:
    """``"decisions"`` for what the design already does (and plain explanations); ``"todo"`` for the rest.

    A warning or an error is always to do: even when the design already answers it, its severity asks the user
    to look (a warning among the decisions reads as something settled).
    """
    if finding.severity in ("warning", "error"):
        return "todo"
    if finding.decided or finding.severity == "info":
        return "decisions"
    return "todo"


def severity_summary(counts: Mapping[str, int]) -> str:
    """``"1 error · 3 warnings · 5 suggestions"`` (zero counts left out, "no findings" when empty)."""
    parts = [counted(counts[s], _WORDS[s]) for s in ORDER if counts.get(s, 0)]
    return " · ".join(parts) if parts else "no findings"


def sections_summary(todo: Mapping[str, int], decisions: int) -> str:
    """``"To do: 1 warning · 2 suggestions · 12 decisions"``: the panel's header, the status bar and ``check``."""
    text = f"To do: {severity_summary(todo)}" if any(todo.values()) else "Nothing to do"
    return text + f" · {counted(decisions, 'decision')}"


def count_sections(findings: Iterable[Finding]) -> tuple[dict[str, int], int]:
    """Open (not overridden) to-dos by severity, and open decisions."""
    todo: dict[str, int] = {}
    decisions = 0
    for f in findings:
        if f.overridden:
            continue
        if section_of(f) == "todo":
            todo[f.severity] = todo.get(f.severity, 0) + 1
        else:
            decisions += 1
    return todo, decisions
