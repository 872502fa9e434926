"""What a finding asks of the user: something "to do", or a "decision" the design already holds.

The GUI's panel, ``modeller check`` and the export's DESIGN.md count findings the same way, in the same words,
from here (tryout a15 item 9: the report counted severities and matched neither).
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


def plain_summary(findings: Iterable[Finding]) -> str:
    """``check``'s last line and DESIGN.md's summary: the panel's counts (``count_sections``) in plain words,
    with the overridden ones after them (" · 1 overridden")."""
    findings = list(findings)
    overridden = sum(1 for f in findings if f.overridden)
    return said_summary(*count_sections(findings)) + (f" · {overridden:,} overridden" if overridden else "")


def said_summary(todo: Mapping[str, int], decisions: int) -> str:
    """The panel's counts said plainly for a reader of SUGGESTION lines: "no errors or warnings; to do: 1
    suggestion; 4 decisions already in the design".

    "Nothing to do · 9 decisions" under nine SUGGESTION lines read as a contradiction (tryout a14): say that
    nothing is wrong, what is left to do, and that the rest is already in the design.
    """
    parts = [] if todo.get("error") or todo.get("warning") else ["no errors or warnings"]
    if any(todo.values()):
        parts.append(f"to do: {severity_summary(todo)}")
    if decisions:
        parts.append(f"{counted(decisions, 'decision')} already in the design")
    return "; ".join(parts)
