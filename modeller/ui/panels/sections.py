"""The panel's two sections: "To do" (what the user should change) and "Decisions" (what the engine chose).

One place tells them apart, so the panel, its counts and its tests agree; it reads
``Finding.decided`` (the engine says the design already does what the finding says).
"""

from __future__ import annotations

import re

from modeller.rules.framework.findings import SEVERITY_RANK, Finding
from modeller.rules.framework.sections import section_of

__all__ = ["COLLAPSED_AT_START", "SECTIONS", "TITLES", "first_sentence", "impact_key", "section_label", "section_of"]

#: display order: what to change first, then what the engine chose (collapsed until opened)
SECTIONS: tuple[str, ...] = ("todo", "decisions")
TITLES: dict[str, str] = {"todo": "To do", "decisions": "Decisions"}
#: sections shown closed when a project opens
COLLAPSED_AT_START: frozenset[str] = frozenset({"decisions"})

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z“\"(])")


def impact_key(finding: Finding) -> tuple[bool, int]:
    """Open before overridden, then most severe first: the order a person should read them in."""
    return (finding.overridden, -SEVERITY_RANK.get(finding.severity, 0))


def first_sentence(text: str) -> str:
    """The message's first sentence, whole (the row shows it wrapped; the details show everything)."""
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]


def section_label(section: str, findings: list[Finding], collapsed: bool) -> str:
    """``"To do (3)"``, ``"▸ Decisions (13): what the engine chose; click to show"``."""
    return counted_label(section, sum(1 for f in findings if not f.overridden), len(findings), collapsed)


def counted_label(section: str, open_n: int, total: int, collapsed: bool) -> str:
    """:func:`section_label` from the counts (the findings model knows them without walking its rows)."""
    label = f"{TITLES[section]} ({open_n})"
    if open_n != total:
        label += f" + {total - open_n} overridden"
    if section == "decisions":
        label = ("▸ " if collapsed else "▾ ") + label + (": what the engine chose; click to show" if collapsed else "")
    return label
