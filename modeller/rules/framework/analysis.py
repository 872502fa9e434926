"""What ``analyse`` returns: the findings and the design they lead to."""

from __future__ import annotations

from dataclasses import dataclass

from modeller.rules.framework.findings import Finding
from modeller.rules.physical.design import Design


@dataclass(slots=True)
class Analysis:
    """Everything ``analyse`` returns: advice and the design it leads to."""

    findings: list[Finding]
    design: Design
