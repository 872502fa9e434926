"""What rules return: findings with the reason, the trade-off, the source and a fix.

Plain frozen dataclasses: they are built by the engine, never validated.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from modeller.model.vocabulary import SubjectKind

Severity = Literal["info", "suggestion", "warning", "error"]
SEVERITIES: tuple[Severity, ...] = ("info", "suggestion", "warning", "error")
SEVERITY_RANK: dict[str, int] = {name: rank for rank, name in enumerate(SEVERITIES)}


@dataclass(frozen=True, slots=True)
class SubjectRef:
    """What a finding is about.

    ``id`` is the model id for entities, relationships and queries;
    ``"<entity id>.<dotted field path>"`` for fields; the collection name for
    collections; ``"<collection>#<index name>"`` for indexes.
    """

    kind: SubjectKind
    id: str

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "id": self.id}


#: what a change does: ``set`` a key, ``append`` to a list, ``add`` a new object, ``remove`` items of a list
ChangeOp = Literal["set", "append", "add", "remove"]


@dataclass(frozen=True, slots=True)
class Change:
    """One model edit of the subject.

    ``set``: ``key`` becomes ``value``; ``append``: ``value`` goes at the end of the
    list ``key``; ``remove``: the items of the list ``key`` named ``value`` (a
    field's ``name``, or the item itself for a list of names) go; ``add``: a new
    entity or relationship whose plain data is ``value`` (``subject`` names its
    kind and new id, ``key`` is empty) — how a fix splits an entity in two.
    ``subject.kind`` is ``entity``, ``relationship`` or ``query``; the GUI
    applies a fix's changes, in order, as one undoable command.
    """

    op: ChangeOp
    subject: SubjectRef
    key: str
    value: Any

    def to_json(self) -> dict[str, Any]:
        return {"op": self.op, "subject": self.subject.to_json(), "key": self.key, "value": self.value}


@dataclass(frozen=True, slots=True)
class Fix:
    """The model edit that applies a finding's advice, described for people and for code."""

    description: str
    changes: tuple[Change, ...]

    def to_json(self) -> dict[str, Any]:
        return {"description": self.description, "changes": [c.to_json() for c in self.changes]}


@dataclass(frozen=True, slots=True)
class Finding:
    """One piece of advice about one subject."""

    rule: str
    severity: Severity
    subject: SubjectRef
    message: str
    why: str
    tradeoff: str
    reference: str
    fix: Fix | None = None
    #: the figures behind the message, e.g. {"days_to_16mib": 212}
    numbers: dict[str, Any] = field(default_factory=dict)
    #: set when the user recorded an override for this rule and subject
    overridden: bool = False
    note: str | None = None
    #: the decision this finding justifies: a relationship (its strategy) or an index (``"<collection>#<name>"``);
    #: the engine keeps one finding per decision and lists the other rules behind it in ``also``
    decision: SubjectRef | None = None
    #: the other rules that justify the same decision (set by the engine, most relevant first)
    also: tuple[str, ...] = ()
    #: the design already does what the finding says (a decision the engine made, to review); False: a to-do
    decided: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "subject": self.subject.to_json(),
            "message": self.message,
            "why": self.why,
            "tradeoff": self.tradeoff,
            "reference": self.reference,
            "fix": None if self.fix is None else self.fix.to_json(),
            "numbers": dict(self.numbers),
            "overridden": self.overridden,
            "note": self.note,
            "decision": None if self.decision is None else self.decision.to_json(),
            "also": list(self.also),
            "decided": self.decided,
        }


def blocked_indexes(findings: Iterable[Finding] | None) -> dict[str, Finding]:
    """``collection#index`` -> the error finding that blocks it (rule 35: the server would refuse it).

    The mongosh script leaves such an index out and ``modeller apply`` does not create it.
    """
    blocked: dict[str, Finding] = {}
    for finding in findings or ():
        if finding.severity == "error" and finding.subject.kind == "index" and not finding.overridden:
            blocked.setdefault(finding.subject.id, finding)
    return blocked


def index_decision(collection: str, index_name: str) -> SubjectRef:
    """The decision to create one index of a collection."""
    return SubjectRef("index", f"{collection}#{index_name}")


def strategy_decision(rel_id: str) -> SubjectRef:
    """The decision of how a relationship is stored."""
    return SubjectRef("relationship", rel_id)


def fixed_decision(fix: Fix | None) -> SubjectRef | None:
    """The relationship whose strategy a fix sets: a finding proposing a strategy is about that decision."""
    if fix is None:
        return None
    for change in fix.changes:
        if change.op == "set" and change.key == "strategy" and change.subject.kind == "relationship":
            return change.subject  # (the very reference: a finding about that decision shares it)
    return None
