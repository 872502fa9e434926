"""What rules return: findings with the reason, the trade-off, the source and a fix.

Plain frozen dataclasses (not pydantic): ``analyse`` builds thousands of them
after every edit and must stay within a few milliseconds.
"""

from __future__ import annotations

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


@dataclass(frozen=True, slots=True)
class Change:
    """One model edit: set ``key`` of the subject to ``value`` or append ``value`` to the list ``key``.

    ``subject.kind`` is ``entity``, ``relationship`` or ``query``; the GUI
    applies a fix's changes as one undoable command.
    """

    op: Literal["set", "append"]
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
        }


# ----- the engine's hot path: thousands of findings per analysis -----
# A frozen dataclass's __init__ sets each field through object.__setattr__; setting the slots through their
# descriptors builds the very same object (same class, same fields) in about half the time.
_FINDING_FIELDS = ("rule", "severity", "subject", "message", "why", "tradeoff", "reference", "fix", "numbers")
(_f_rule, _f_severity, _f_subject, _f_message, _f_why, _f_tradeoff, _f_reference, _f_fix, _f_numbers) = (
    Finding.__dict__[name].__set__ for name in _FINDING_FIELDS
)
_f_overridden = Finding.__dict__["overridden"].__set__
_f_note = Finding.__dict__["note"].__set__
_s_kind = SubjectRef.__dict__["kind"].__set__
_s_id = SubjectRef.__dict__["id"].__set__
_c_op, _c_subject, _c_key, _c_value = (Change.__dict__[name].__set__ for name in ("op", "subject", "key", "value"))
_x_description, _x_changes = (Fix.__dict__[name].__set__ for name in ("description", "changes"))
_new = object.__new__


def new_subject(kind: SubjectKind, subject_id: str) -> SubjectRef:
    """``SubjectRef(kind, subject_id)``, built faster (see above)."""
    ref = _new(SubjectRef)
    _s_kind(ref, kind)
    _s_id(ref, subject_id)
    return ref


def new_finding(
    rule: str,
    severity: Severity,
    subject: SubjectRef,
    message: str,
    why: str,
    tradeoff: str,
    reference: str,
    fix: Fix | None,
    numbers: dict[str, Any],
) -> Finding:
    """``Finding(rule, severity, subject, message, why, tradeoff, reference, fix, numbers)``, built faster."""
    f = _new(Finding)
    _f_rule(f, rule)
    _f_severity(f, severity)
    _f_subject(f, subject)
    _f_message(f, message)
    _f_why(f, why)
    _f_tradeoff(f, tradeoff)
    _f_reference(f, reference)
    _f_fix(f, fix)
    _f_numbers(f, numbers)
    _f_overridden(f, False)
    _f_note(f, None)
    return f


def new_fix(description: str, op: Literal["set", "append"], subject: SubjectRef, key: str, value: Any) -> Fix:
    """``Fix(description, (Change(op, subject, key, value),))``, built faster: the usual one-change fix."""
    change = _new(Change)
    _c_op(change, op)
    _c_subject(change, subject)
    _c_key(change, key)
    _c_value(change, value)
    fix = _new(Fix)
    _x_description(fix, description)
    _x_changes(fix, (change,))
    return fix
