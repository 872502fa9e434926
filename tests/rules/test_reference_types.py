"""A reference declared with another BSON type than the _id it names finds nothing (tryout a15): a warning.

Tenant -> Event where each Event already keeps ``tenant_id``: the design reuses the user's field as the
reference, with the user's type. A string ``tenant_id`` never equals an ObjectId ``_id`` (an equality matches
values of one BSON type; all numbers count as one).
"""

from __future__ import annotations

from typing import Any

import pytest

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse


def tenants(ref: dict[str, Any], tenant_id: dict[str, Any] | None = None, cardinality: str = "one-to-many") -> Project:
    tenant_fields = [{"name": "name", "type": "string"}]
    if tenant_id is not None:
        tenant_fields.insert(0, {"name": "_id", **tenant_id})
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "tenants",
            "entities": [
                {"id": "tenant", "name": "Tenant", "count": 1_000, "fields": tenant_fields},
                {
                    "id": "event",
                    "name": "Event",
                    "count": 1_000_000,
                    "fields": [{"name": "at", "type": "date"}, ref],
                },
            ],
            "relationships": [
                {"id": "tenant_events", "one": "tenant", "many": "event", "cardinality": cardinality, "max": 5000}
            ],
            "queries": [{"id": "events", "entity": "event", "scope": "tenant_events", "per_sec": 50}],
        }
    )


def _mistyped(project: Project) -> list[Any]:
    return [
        f
        for f in analyse(project).findings
        if f.rule == "index-reference-fields" and f.subject.kind == "relationship" and "BSON type" in f.message
    ]


def test_a_string_reference_to_an_object_id_warns_with_its_source() -> None:
    (finding,) = _mistyped(tenants({"name": "tenant_id", "type": "string"}))
    assert finding.severity == "warning" and finding.subject.id == "tenant_events"
    assert finding.message.startswith(
        "tenant_id in each Event refers to the Tenant's _id, an objectId, but it is declared a string: "
    )
    assert "declare tenant_id as objectId, or give Tenant an _id field of type string" in finding.message
    assert "Comparison/Sort Order" in finding.reference and "bson-type-comparison-order" in finding.reference
    assert finding.numbers == {"field": "tenant_id", "declared": "string", "referenced_key": "objectId"}


@pytest.mark.parametrize(
    ("ref", "tenant_id"),
    [
        ({"name": "tenant_id", "type": "objectId"}, None),
        ({"name": "tenant_id", "type": "string"}, {"type": "string"}),
        ({"name": "tenant_id", "type": "long"}, {"type": "int"}),  # numbers compare as one type
        ({"name": "other_id", "type": "string"}, None),  # not the reference: the design adds its own tenant_id
    ],
)
def test_a_reference_of_the_key_type_is_quiet(ref: dict[str, Any], tenant_id: dict[str, Any] | None) -> None:
    assert _mistyped(tenants(ref, tenant_id)) == []


def test_a_many_to_many_array_of_strings_warns_for_its_items() -> None:
    ref = {"name": "tenant_ids", "type": "array", "items": {"type": "string"}}
    (finding,) = _mistyped(tenants(ref, cardinality="many-to-many"))
    assert finding.message.startswith("tenant_ids in each Event refers to the Tenant's _id, an objectId, but it is ")
