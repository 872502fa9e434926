"""Tryout a15 item 4: a multi-tenant Event that already keeps ``tenant_id`` gets no second reference when the user
draws Tenant -> Event; the validator requires no field the engine invented beside the user's own."""

from __future__ import annotations

from typing import Any

from bson_checker import errors

from modeller.export import sample_documents
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.rules import analyse
from modeller.rules.physical.design import CollectionDesign


def tenant_events(**event: Any) -> Project:
    """Tenant -> Event (one-to-squillions) where Event declares its own ``tenant_id`` string, as tryout a15 drew it."""
    return Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "tenant-shard",
            "server_version": "7.0",
            "entities": [
                {"id": "tenant", "name": "Tenant", "count": 5000, "fields": [{"name": "name", "type": "string"}]},
                {
                    "id": "event",
                    "name": "Event",
                    "count": 30_000_000_000,
                    "writes_per_sec": 40000,
                    "append_only": True,
                    "fields": [
                        {"name": "tenant_id", "type": "string"},
                        {"name": "region", "type": "string"},
                        {"name": "created_at", "type": "date"},
                    ],
                    **event,
                },
            ],
            "relationships": [
                {
                    "id": "tenant_events",
                    "one": "tenant",
                    "many": "event",
                    "cardinality": "one-to-squillions",
                    "typical": 6_000_000,
                    "max": 3_000_000_000,
                }
            ],
            "queries": [
                {
                    "id": "by_day",
                    "entity": "event",
                    "name": "events of a tenant by day",
                    "scope": "tenant_events",
                    "filter": {"region": "eq", "created_at": "range"},
                    "sort": [["created_at", -1]],
                    "per_sec": 3000,
                }
            ],
        }
    )


def _event(design_collections: list[CollectionDesign]) -> CollectionDesign:
    return next(c for c in design_collections if c.name == "event")


def test_the_users_tenant_id_is_the_reference_and_no_second_one_is_invented() -> None:
    analysis = analyse(tenant_events())
    event = _event(analysis.design.collections)
    shape = {n.name: (n.bson_type, n.role, n.relationship, n.ref_collection) for n in event.shape}
    assert "tenant_2_id" not in shape
    assert [n.name for n in event.shape] == ["_id", "tenant_id", "region", "created_at"]
    # the user's field keeps the user's type and becomes the reference to the tenant
    assert shape["tenant_id"] == ("string", "parent-ref", "tenant_events", "tenant")
    validator = event.validator["$jsonSchema"]
    assert validator["required"] == ["_id", "tenant_id"]
    assert validator["properties"]["tenant_id"] == {"bsonType": "string"}
    # the relationship's finding speaks of the field the query uses, and knows that query reads by it
    texts = [f.message for f in analysis.findings if f.subject.id == "tenant_events"]
    assert texts and all("tenant_2_id" not in t for t in texts)
    assert any("tenant_id in event is indexed" in t for t in texts), texts
    assert not any("no declared query" in t for t in texts), texts


def test_the_samples_give_the_string_reference_the_tenants_id_as_text_and_pass_the_validator() -> None:
    project = tenant_events()
    design = analyse(project).design
    docs = sample_documents(design, project, n=5, seed=0)
    tenant_ids = {str(doc["_id"]) for doc in docs["tenant"]}
    event = _event(design.collections)
    for doc in docs["event"]:
        assert errors(event.validator, doc) == [], doc
        assert doc["tenant_id"] in tenant_ids, doc


def test_a_declared_field_of_another_name_leaves_the_reference_as_the_convention_names_it() -> None:
    project = tenant_events(fields=[{"name": "tenant", "type": "string"}, {"name": "created_at", "type": "date"}])
    event = _event(analyse(project).design.collections)
    refs = [(n.name, n.bson_type) for n in event.shape if n.role == "parent-ref"]
    assert refs == [("tenant_id", "objectId")]
    assert [n.name for n in event.shape if n.role == "field"] == ["tenant", "created_at"]
