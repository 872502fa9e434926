"""Dotted field paths and generated names, which queries and the engine rely on."""

from __future__ import annotations

from modeller.model import Entity, Relationship
from modeller.model.conventions import (
    child_refs_field,
    collection_name,
    embed_field,
    extended_ref_field,
    parent_ref_field,
    subset_field,
)
from modeller.model.paths import all_fields, depth, find_field, iter_paths

ENTITY = Entity.model_validate(
    {
        "id": "product",
        "name": "Product Item",
        "fields": [
            {"name": "title", "type": "string"},
            {"name": "specs", "type": "object", "fields": [{"name": "ram", "type": "int"}]},
            {
                "name": "parts",
                "type": "array",
                "items": {"type": "array", "items": {"type": "object", "fields": [{"name": "sku", "type": "string"}]}},
            },
        ],
        "subtypes": {"variants": {"laptop": [{"name": "battery", "type": "int"}]}},
    }
)


def test_iter_paths_in_declaration_order() -> None:
    assert [p for p, _ in iter_paths(all_fields(ENTITY))] == [
        "title", "specs", "specs.ram", "parts", "parts.sku", "battery"
    ]  # fmt: skip


def test_find_field_crosses_objects_arrays_and_variants() -> None:
    assert find_field(all_fields(ENTITY), "specs.ram").type == "int"  # type: ignore[union-attr]
    assert find_field(all_fields(ENTITY), "parts.sku").name == "sku"  # type: ignore[union-attr]
    assert find_field(all_fields(ENTITY), "battery") is not None
    assert find_field(all_fields(ENTITY), "specs.cpu") is None
    assert find_field(ENTITY.fields, "battery") is None  # variants only through all_fields


def test_depth_counts_objects_and_array_levels() -> None:
    assert depth(ENTITY.fields) == 4  # parts -> items -> items -> sku
    assert depth([]) == 0


def test_generated_names() -> None:
    one = Entity.model_validate({"id": "host", "name": "Host Machine", "fields": []})
    many = Entity.model_validate({"id": "log", "name": "Log Entry", "fields": []})
    plain = Relationship.model_validate({"id": "r", "one": "host", "many": "log", "cardinality": "one-to-many"})
    named = plain.model_copy(update={"name": "entries", "inverse": "source"})
    single = plain.model_copy(update={"cardinality": "one-to-one"})
    assert collection_name(one) == "host_machine"
    assert parent_ref_field(plain, one) == "host_machine_id" and parent_ref_field(named, one) == "source_id"
    assert child_refs_field(plain, many) == "log_entry_ids"
    assert embed_field(plain, many) == "log_entries" and embed_field(named, many) == "entries"
    assert embed_field(single, many) == "log_entry"
    assert subset_field(plain, many) == "recent_log_entries" and subset_field(named, many) == "recent_entries"
    assert extended_ref_field(plain, one) == "host_machine" and extended_ref_field(named, one) == "source"
