"""What ``analyse`` returns: the findings and the design they lead to."""

from __future__ import annotations

from dataclasses import dataclass, field

from modeller.rules.framework.findings import Finding
from modeller.rules.physical.design import Design


@dataclass(slots=True)
class Analysis:
    """Everything ``analyse`` returns: advice and the design it leads to."""

    #: one finding per decision (``framework.grouping``), in project order
    findings: list[Finding]
    design: Design
    #: every finding of every rule before one per decision: what each rule says on its own (rule cases test it)
    reported: list[Finding] = field(default_factory=list)
