"""What a schema change is: one :class:`Change` per thing that differs between two resolved designs.

A change speaks the user's words (collection and field names, relationship names), says what it
means for the data already stored (its ``risk``) and whether it breaks existing documents or
queries (``breaking``: ``modeller diff --fail-on breaking`` exits 1 on those).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

ChangeKind = Literal[
    "collection-added",
    "collection-removed",
    "collection-renamed",
    "field-added",
    "field-removed",
    "field-renamed",
    "field-retyped",
    "field-moved",
    "field-required",
    "field-optional",
    "field-constraint",
    "strategy-changed",
    "index-added",
    "index-removed",
    "index-changed",
    "validator-changed",
    "finding-appeared",
    "finding-disappeared",
]

#: the kinds that describe the schema itself (findings are advice about it)
SCHEMA_KINDS: frozenset[str] = frozenset(k for k in get_args(ChangeKind) if not k.startswith("finding-"))


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between the OLD and the NEW design, with what it costs the stored data."""

    kind: ChangeKind
    #: the collection it happens in (its NEW name when it was renamed; "" for project-wide changes)
    collection: str
    #: what changed, in the user's words: a field path, an index name, a relationship name, a rule id
    subject: str
    #: one line: what changed, e.g. "price: int -> decimal"
    summary: str
    #: one line: what it means for existing documents and queries
    risk: str
    breaking: bool = False
    #: the machine-readable facts behind the change (old/new paths, types, defaults) the migration reads
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "collection": self.collection,
            "subject": self.subject,
            "summary": self.summary,
            "risk": self.risk,
            "breaking": self.breaking,
            "details": dict(self.details),
        }
