"""Failure kinds the end-to-end fuzzer found that are NOT FIXED YET: each entry is an open bug.

The fuzzer counts a failure of one of these kinds instead of failing on it; a
failure that matches none of them fails the test. Fix the cause, delete the
entry, and the fuzzer proves the fix (the kinds fixed so far were deleted
that way). What is still here: sample documents that their own validators
refuse (self many-to-many, numeric enums, computed values of a One without
N, a declared or role-named _id), and names that two generated indexes claim.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from fuzz_pipeline import Failure

Doc = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Known:
    """A failure kind: its stage, a regular expression its message matches, and what the project holds."""

    name: str
    branch: str
    description: str
    stage: str
    pattern: str = ""
    #: a property of the mutated project (its parsed JSON) that the kind needs; None: any project
    when: Callable[[Doc], bool] | None = None

    def matches(self, failure: Failure, doc: Doc) -> bool:
        return (
            re.fullmatch(self.stage, failure.stage) is not None
            and re.search(self.pattern, failure.message) is not None
            and (self.when is None or self.when(doc))
        )


def _fields(fields: list[Doc]) -> Iterator[Doc]:
    for field in fields:
        yield field
        yield from _fields(field.get("fields") or [])
        items = field.get("items")
        while items:
            yield items
            yield from _fields(items.get("fields") or [])
            items = items.get("items")


def _all_fields(doc: Doc) -> Iterator[Doc]:
    for entity in doc.get("entities", []):
        yield from _fields(entity.get("fields", []))
        for variant in ((entity.get("subtypes") or {}).get("variants") or {}).values():
            yield from _fields(variant)


def _self_relationship(doc: Doc) -> bool:
    return any(rel.get("one") == rel.get("many") for rel in doc.get("relationships", []))


def _role_named_id(doc: Doc) -> bool:
    return any("_id" in (rel.get("name"), rel.get("inverse")) for rel in doc.get("relationships", []))


def _id_field_of_another_type(doc: Doc) -> bool:
    return any(f.get("name") == "_id" and f.get("type") != "objectId" for f in _all_fields(doc))


def _numeric_enum(doc: Doc) -> bool:
    return any(f.get("enum") and f.get("type") in ("long", "double", "decimal") for f in _all_fields(doc))


def _aggregates(doc: Doc) -> bool:
    return any(rel.get("aggregates") for rel in doc.get("relationships", []))


#: Kinds the fuzzer found that are not fixed yet: each is a bug to fix (then delete its entry).
NOT_YET_FIXED: list[Known] = [
    Known(
        "self-many-to-many-refs-not-array",
        "h17-export",
        "self many-to-many (child-refs/subset on one entity): the samples hold one id where the validator wants an array",
        "sample-vs-validator",
        r"_ids: bsonType: ObjectId\(.*\) is not of bsonType 'array'",
        _self_relationship,
    ),
    Known(
        "role-named-id",
        "h17-validate",
        "a relationship role (name/inverse) '_id' loads; its generated field replaces the document's _id",
        "sample-vs-validator",
        r"^'[^']*': _id: .* is not of bsonType",
        _role_named_id,
    ),
    Known(
        "aggregate-avg-without-items",
        "h17-export",
        "computed avg/min/max of a One with no N in the samples is null; the validator wants a number",
        "sample-vs-validator",
        r"None is not of bsonType '(double|decimal|int|long)'",
        _aggregates,
    ),
    Known(
        "numeric-enum-not-converted",
        "h17-export",
        "enum [1, 2] on a long/double/decimal field: samples keep the JSON int, the validator wants the field's type",
        "sample-vs-validator",
        r"\d+(\.\d+)? is not of bsonType '(long|double|decimal)'",
        _numeric_enum,
    ),
    Known(
        "id-field-of-another-type",
        "h17-validate",
        "a declared field '_id' of a type other than objectId loads; the samples' _id is still an ObjectId",
        "sample-vs-validator",
        r"_id: bsonType: ObjectId\(.*\) is not of bsonType|oneOf: .* is not valid under any of",
        _id_field_of_another_type,
    ),
    Known(
        "same-keys-two-names",
        "h17-export",
        "a declared index and an engine index with the same keys under two names: the second createIndex fails",
        "script",
        r"IndexKeySpecsConflict",
    ),
]

KNOWN: list[Known] = NOT_YET_FIXED


def known_kind(failure: Failure, doc: Doc) -> str | None:
    """The name of the known failure kind ``failure`` (of project ``doc``) belongs to, or None for a new one."""
    return next((known.name for known in KNOWN if known.matches(failure, doc)), None)
