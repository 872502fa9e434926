"""Failures the end-to-end fuzzer knows about: KNOWN, FIXED ON ANOTHER BRANCH. Delete entries after merging.

Each signature is a failure kind that another branch of the issue "Hostile
input, round two" fixes (h17-validate refuses at load what the server
refuses; h17-export fixes the exports of files that validate). Until those
branches are merged the fuzzer counts these failures instead of failing on
them; a failure that matches none of them fails the test. The lead deletes
an entry once its fix is on main (and the whole module when it is empty):
the fuzzer then proves the fix.
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


def _strategies(rel: Doc) -> set[str]:
    """The forced strategy and the decision's (which one wins is the engine's business)."""
    return {str(rel.get("strategy", "auto")), str((rel.get("decision") or {}).get("strategy") or "auto")}


def _self_relationship(doc: Doc) -> bool:
    return any(rel.get("one") == rel.get("many") for rel in doc.get("relationships", []))


def _bucket_without_timeseries(doc: Doc) -> bool:
    plain = {e.get("id") for e in doc.get("entities", []) if not e.get("timeseries")}
    return any("bucket" in _strategies(rel) and rel.get("many") in plain for rel in doc.get("relationships", []))


_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "int": (int,),
    "long": (int,),
    "double": (int, float),
    "decimal": (int, float),
    "bool": (bool,),
}


def _enum_of_another_type(doc: Doc) -> bool:
    """An enum value the field's type cannot hold (a number on a string field, anything on a date)."""
    for field in _all_fields(doc):
        kinds = _PYTHON_TYPES.get(str(field.get("type")), ())
        for value in field.get("enum") or []:
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                return True
    return False


def _mentions(word: str) -> Callable[[Doc], bool]:
    return lambda doc: word in repr(doc)


def _role_named_id(doc: Doc) -> bool:
    return any("_id" in (rel.get("name"), rel.get("inverse")) for rel in doc.get("relationships", []))


def _time_field_not_date(doc: Doc) -> bool:
    for entity in doc.get("entities", []):
        series = entity.get("timeseries") or {}
        if series and any(
            f.get("name") == series.get("time_field") and f.get("type") != "date" for f in entity["fields"]
        ):
            return True
    return False


def _discriminator_clash(doc: Doc) -> bool:
    """The discriminator is also a variant's field, or an entity field that cannot hold the variant names."""
    for entity in doc.get("entities", []):
        subtypes = entity.get("subtypes") or {}
        name = subtypes.get("discriminator", "type")
        variants = (subtypes.get("variants") or {}).values()
        if any(f.get("name") == name for variant in variants for f in variant):
            return True
        if any(f.get("name") == name and f.get("type") != "string" for f in entity.get("fields", [])):
            return True
    return False


def _variant_redeclares_field(doc: Doc) -> bool:
    """A variant declares a field the entity already has, with another type."""
    for entity in doc.get("entities", []):
        types = {f.get("name"): f.get("type") for f in entity.get("fields", [])}
        for variant in ((entity.get("subtypes") or {}).get("variants") or {}).values():
            if any(f.get("name") in types and types[f.get("name")] != f.get("type") for f in variant):
                return True
    return False


def _relationship_cycle(doc: Doc) -> bool:
    """Two paths between two entities: a cycle in the relationships (self-links aside), a pair linked twice."""
    parent: dict[Any, Any] = {}

    def root(node: Any) -> Any:
        while parent.get(node, node) != node:
            node = parent[node]
        return node

    for rel in doc.get("relationships", []):
        one, many = root(rel.get("one")), root(rel.get("many"))
        if rel.get("one") == rel.get("many"):
            continue
        if one == many:
            return True
        parent[one] = many
    return False


def _id_field_of_another_type(doc: Doc) -> bool:
    return any(f.get("name") == "_id" and f.get("type") != "objectId" for f in _all_fields(doc))


def _shared_collection(doc: Doc) -> bool:
    """Two entities in one collection: single-collection, or two entities given the same collection name."""
    names = [e.get("collection") for e in doc.get("entities", []) if e.get("collection")]
    if len(names) != len(set(names)):
        return True
    return any("single-collection" in _strategies(rel) for rel in doc.get("relationships", []))


def _numeric_enum(doc: Doc) -> bool:
    return any(f.get("enum") and f.get("type") in ("long", "double", "decimal") for f in _all_fields(doc))


def _aggregate_named_like_field(doc: Doc) -> bool:
    """A computed value's name is also a field (or variant field) of the One."""
    entities = {e.get("id"): e for e in doc.get("entities", [])}
    for rel in doc.get("relationships", []):
        one = entities.get(rel.get("one")) or {}
        names = {"_id", *(f.get("name") for f in one.get("fields", []))}
        if one.get("subtypes"):
            names.add(one["subtypes"].get("discriminator", "type"))
        for variant in ((one.get("subtypes") or {}).get("variants") or {}).values():
            names.update(f.get("name") for f in variant)
        if any(agg.get("name") in names for agg in rel.get("aggregates", [])):
            return True
    return False


def _example_out_of_type(doc: Doc) -> bool:
    """An example the field's type cannot hold (10**15 on an int, a number on a string field)."""
    for field in _all_fields(doc):
        example, kind = field.get("example"), field.get("type")
        if example is None or kind not in _PYTHON_TYPES:
            continue
        if not isinstance(example, _PYTHON_TYPES[str(kind)]) or isinstance(example, bool) != (kind == "bool"):
            return True
        if kind == "int" and not -(2**31) <= example < 2**31:
            return True
    return False


def _aggregates(doc: Doc) -> bool:
    return any(rel.get("aggregates") for rel in doc.get("relationships", []))


#: Kinds fixed on another branch of the issue (h17-export: exports of files that validate).
FIXED_ELSEWHERE: list[Known] = [
    Known(
        "hashed-or-text-compound-index-crash",
        "h17-export",
        "a declared compound index with a hashed/text key crashes analyse (resolver compares -'hashed')",
        "analyse",
        r"bad operand type for unary -: 'str'",
    ),
    Known(
        "tree-root-null-parent-id",
        "h17-export",
        "self-relationship: the root sample's parent reference is null, the validator wants an objectId",
        "sample-vs-validator",
        r"None is not of bsonType 'objectId'",
        _self_relationship,
    ),
    Known(
        "bucket-without-timeseries",
        "h17-export",
        "bucket strategy on an entity without a time series: bucket samples miss 'start' or other bucket fields",
        "sample-vs-validator",
        "",
        _bucket_without_timeseries,
    ),
    Known(
        "unique-index-samples",
        "h17-export",
        "sample documents repeat a value (often a missing one, null) under a unique index",
        "sample-vs-unique-index",
    ),
    Known(
        "unique-and-ttl-same-name",
        "h17-export",
        "a unique field with expire_after_s yields two different indexes with the same name",
        "script",
        r"IndexOptionsConflict: an index named .* exists with other keys or options",
    ),
    Known(
        "proto-key",
        "h17-export",
        "a name '__proto__' becomes the prototype of a JS object literal: the script's validator or sample loses it",
        "script-validator|script-samples",
        "",
        _mentions("__proto__"),
    ),
]

#: New kinds this fuzzer found, NOT fixed on any branch yet (owners: see the report of h17-fuzz).
NEW_UNFIXED: list[Known] = [
    Known(
        "enum-of-another-type",
        "h17-validate",
        "an enum value the field's type cannot hold loads; the validator then refuses every sample drawn from it",
        "sample-vs-validator",
        r"is not of bsonType|is not one of|is not valid under any of",
        _enum_of_another_type,
    ),
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
        "time-field-not-a-date",
        "h17-validate",
        "a time series' time_field declared with another type loads; samples hold dates, the validator wants the type",
        "sample-vs-validator",
        r"datetime\.datetime\(.*\) is not of bsonType",
        _time_field_not_date,
    ),
    Known(
        "discriminator-clash",
        "h17-validate",
        "the discriminator is also a variant's field or a non-string entity field: samples break the type or oneOf",
        "sample-vs-validator",
        r"is valid under each of|is not valid under any of|is not of bsonType",
        _discriminator_clash,
    ),
    Known(
        "variant-redeclares-field",
        "h17-validate",
        "a subtype variant redeclares an entity field with another type: samples of one type break the other",
        "sample-vs-validator",
        r"is not of bsonType|is not valid under any of",
        _variant_redeclares_field,
    ),
    Known(
        "aggregate-named-like-field",
        "h17-validate",
        "an aggregate's name is also a field of the One (or of one of its variants): two values claim one field",
        "sample-vs-validator",
        r"is not of bsonType|is not valid under any of|is valid under each of|is a required property",
        _aggregate_named_like_field,
    ),
    Known(
        "shared-collection-samples-break-oneof",
        "h17-export",
        "two entities in one collection (single-collection, or one collection name twice): a sample matches no oneOf",
        "sample-vs-validator",
        r"oneOf: .* is not valid under any of",
        _shared_collection,
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
        "example-out-of-type",
        "h17-validate",
        "a field's example its type cannot hold (10**15 on an int field) loads; samples use it, the validator refuses",
        "sample-vs-validator",
        r"is not of bsonType|is not valid under any of",
        _example_out_of_type,
    ),
    Known(
        "computed-count-not-long",
        "h17-export",
        "a computed count over an N kept as time series or buckets is an int sample; the validator wants long",
        "sample-vs-validator",
        r"\d+ is not of bsonType 'long'",
        _aggregates,
    ),
    Known(
        "embedded-copy-null-reference",
        "h17-export",
        "two relationship paths join two entities (one embeds): an embedded copy's reference is null or fields missing",
        "sample-vs-validator",
        r"^'[^']*': ([^:]*/[^:]*: bsonType: None is not of bsonType 'objectId'|[^:]+: required: .* is a required)",
        _relationship_cycle,
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

KNOWN: list[Known] = FIXED_ELSEWHERE + NEW_UNFIXED


def known_kind(failure: Failure, doc: Doc) -> str | None:
    """The name of the known failure kind ``failure`` (of project ``doc``) belongs to, or None for a new one."""
    return next((known.name for known in KNOWN if known.matches(failure, doc)), None)
