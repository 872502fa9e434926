"""``check --rule ID --severity LEVEL --summary``: which findings a check reports, or their counts alone.

A check of 10,000 entities printed 180,499 lines (issue 16): a filter by rule or severity keeps the part one looks
at, and the summary gives the counts a script or a reader starts from. The filters choose the findings the exit
code looks at too, so ``check --rule X --fail-on warning`` fails on rule X alone.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from modeller.model.text import shown
from modeller.model.wording import counted
from modeller.rules.framework.findings import SEVERITIES, SEVERITY_RANK

if TYPE_CHECKING:
    from modeller.rules.framework.findings import Finding

COLOURS = {"error": "\033[31;1m", "warning": "\033[33;1m", "suggestion": "\033[36m", "info": "\033[2m"}
RESET = "\033[0m"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rule",
        action="append",
        metavar="ID",
        help="only this rule's findings (id or code; repeat for several); a finding also counts for the rules "
        "named under it as the same advice",
    )
    parser.add_argument(
        "--severity",
        action="append",
        metavar="LEVEL",
        help="only findings of this severity: info, suggestion, warning or error (repeat or comma-separate)",
    )
    parser.add_argument(
        "--summary",
        action="store_true",
        help="counts only: the findings per rule and severity, and the total line (text or json)",
    )


@dataclass(frozen=True)
class Chosen:
    """The findings a check reports: of these rules (None: all) and these severities (None: all)."""

    rules: frozenset[str] | None = None
    severities: frozenset[str] | None = None

    @property
    def filtering(self) -> bool:
        return self.rules is not None or self.severities is not None

    def keeps(self, finding: Finding) -> bool:
        if self.severities is not None and finding.severity not in self.severities:
            return False
        return self.rules is None or finding.rule in self.rules or not self.rules.isdisjoint(finding.also)

    def kept(self, findings: Iterable[Finding]) -> list[Finding]:
        return list(filter(self.keeps, findings)) if self.filtering else list(findings)

    def said(self) -> str:
        """The filters in the options' words: ``--rule a, b; --severity warning``."""
        parts = []
        if self.rules is not None:
            parts.append("--rule " + ", ".join(sorted(self.rules)))
        if self.severities is not None:
            parts.append("--severity " + ", ".join(s for s in SEVERITIES if s in self.severities))
        return "; ".join(parts)


def chosen(args: argparse.Namespace) -> Chosen | str:
    """The filters the options ask for, or the one-line problem with them (an unknown rule or severity)."""
    from modeller.rules import load_rules
    from modeller.rules.framework.registry import REGISTRY

    rules: set[str] | None = None
    if args.rule:
        load_rules()
        rules = set()
        for asked in args.rule:
            rule = REGISTRY.get(asked.strip())
            if rule is None:
                return f"--rule: no rule '{shown(asked)}'; run 'modeller rules' for the list"
            rules.add(rule.id)
    severities: set[str] | None = None
    if args.severity:
        severities = set()
        for level in (part.strip().casefold() for given in args.severity for part in given.split(",")):
            if level not in SEVERITIES:
                return f"--severity: no severity '{shown(level)}'; use one of {', '.join(SEVERITIES)}"
            severities.add(level)
    return Chosen(
        frozenset(rules) if rules is not None else None, frozenset(severities) if severities is not None else None
    )


def counts(findings: Iterable[Finding]) -> list[tuple[str, str, int]]:
    """``(severity, rule, count)`` per rule and severity: most severe first, then the most found."""
    found = Counter((f.severity, f.rule) for f in findings)
    return sorted(
        ((severity, rule, n) for (severity, rule), n in found.items()),
        key=lambda row: (-SEVERITY_RANK[row[0]], -row[2], row[1]),
    )


def render_summary(findings: list[Finding], total_line: str, colour: bool) -> str:
    """The counts alone: one line per rule and severity, then the total line a full check ends with."""
    if not findings:
        return "no findings\n"
    rows = counts(findings)
    width = max(len(f"{n:,}") for _s, _r, n in rows)
    lines = ["findings by rule:"]
    for severity, rule, n in rows:
        label = f"{severity.upper():<10}"
        if colour:
            label = f"{COLOURS[severity]}{label}{RESET}"
        lines.append(f"  {label} {n:>{width},}  {rule}")
    lines.append(total_line)
    return "\n".join(lines) + "\n"


def summary_json(findings: list[Finding]) -> dict[str, Any]:
    """The counts as JSON: the total, the overridden, per severity, and per rule and severity."""
    by_severity: Counter[str] = Counter(f.severity for f in findings)
    return {
        "summary": {
            "findings": len(findings),
            "overridden": sum(1 for f in findings if f.overridden),
            "by_severity": {level: by_severity[level] for level in reversed(SEVERITIES) if by_severity[level]},
            "by_rule": [{"rule": rule, "severity": severity, "count": n} for severity, rule, n in counts(findings)],
        }
    }


def shown_line(kept: int, found: int, chosen: Chosen) -> str:
    """After a filtered check: how many of the findings the filters kept (the rest are not looked at)."""
    return f"shown: {kept:,} of {counted(found, 'finding')} ({chosen.said()})\n"
