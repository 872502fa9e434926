"""``modeller infer FILE`` on ``$jsonSchema`` validator files: detected by shape, read into entities and fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from roundtrip import modeller

from modeller.live.errors import LiveError
from modeller.live.files import read_inputs
from modeller.live.infer import infer_project
from modeller.model.checks import check_project
from modeller.persistence import load_project

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

SCHEMA = {
    "bsonType": "object",
    "required": ["_id", "sku", "tags", "lines"],
    "properties": {
        "_id": {"bsonType": "objectId"},
        "sku": {"bsonType": "string", "description": "stock keeping unit"},
        "size": {"bsonType": ["string", "null"], "enum": ["S", "M", "L"]},
        "price": {"type": "number"},
        "tags": {"bsonType": "array", "maxItems": 10, "items": {"bsonType": "string"}},
        "dims": {"bsonType": "object", "properties": {"w": {"bsonType": "int"}, "h": {"bsonType": "int"}}},
        "lines": {
            "bsonType": "array",
            "maxItems": 500,
            "items": {"bsonType": "object", "required": ["qty"], "properties": {"qty": {"bsonType": "int"}}},
        },
        "a.b": {"bsonType": "int"},
    },
}


@pytest.mark.parametrize(
    ("file_name", "content", "collection"),
    [
        ("products.json", {"$jsonSchema": SCHEMA}, "products"),
        ("products.schema.json", SCHEMA, "products"),
        ("x.json", {"collMod": "items", "validator": {"$jsonSchema": SCHEMA}}, "items"),
        ("y.json", {"name": "stock", "type": "collection", "options": {"validator": {"$jsonSchema": SCHEMA}}}, "stock"),
    ],
)
def test_a_validator_file_in_each_spelling_gives_its_collection(
    file_name: str, content: dict, collection: str, tmp_path: Path
) -> None:
    path = tmp_path / file_name
    path.write_text(json.dumps(content, indent=2), encoding="utf-8")
    samples, schemas = read_inputs([path])
    assert samples == [] and [s.name for s in schemas] == [collection]
    project = infer_project([], name="t", schemas=schemas)
    assert check_project(project) == []
    entity, line = project.entities
    assert (entity.collection, line.collection) == (collection, None)
    fields = {f.name: f for f in entity.fields}
    assert list(fields) == ["sku", "size", "price", "tags", "dims"]  # no _id (the default), no "a.b"
    assert "'a.b'" in (entity.description or "")
    assert (fields["sku"].type, fields["sku"].required, fields["sku"].description) == (
        "string",
        True,
        "stock keeping unit",
    )
    assert (fields["size"].enum, fields["size"].required) == (("S", "M", "L"), False)
    assert fields["price"].type == "double"
    assert (fields["tags"].max_items, fields["tags"].items.type if fields["tags"].items else None) == (10, "string")
    assert [(f.name, f.type) for f in fields["dims"].fields or ()] == [("w", "int"), ("h", "int")]
    (rel,) = project.relationships
    assert (rel.one, rel.many, rel.name, rel.strategy, rel.max, rel.cardinality) == (
        entity.id,
        line.id,
        "lines",
        "embed",
        500,
        "one-to-many",
    )
    assert [(f.name, f.required) for f in line.fields] == [("qty", True)]


def test_documents_next_to_a_validator_each_make_their_collection(tmp_path: Path) -> None:
    (tmp_path / "orders.jsonl").write_text('{"n": 1}\n{"n": 2}\n', encoding="utf-8")
    (tmp_path / "products.json").write_text(json.dumps({"$jsonSchema": SCHEMA}), encoding="utf-8")
    samples, schemas = read_inputs([tmp_path / "orders.jsonl", tmp_path / "products.json"])
    assert [s.name for s in samples] == ["orders"] and [s.name for s in schemas] == ["products"]
    (tmp_path / "orders.schema.json").write_text(json.dumps(SCHEMA), encoding="utf-8")
    with pytest.raises(LiveError, match="a second file for collection 'orders'"):
        read_inputs([tmp_path / "orders.jsonl", tmp_path / "orders.schema.json"])


def test_a_single_exported_document_is_not_taken_for_a_validator(tmp_path: Path) -> None:
    path = tmp_path / "things.json"
    path.write_text('{"bsonType": "object", "n": 1}', encoding="utf-8")
    samples, schemas = read_inputs([path])
    assert schemas == [] and samples[0].stats.documents == 1


@pytest.mark.parametrize("sample", ["ecommerce", "task-tracker", "person-addresses"])
def test_the_exported_validators_infer_back_to_the_designs_fields(sample: str, tmp_path: Path) -> None:
    source = SAMPLES / f"{sample}.modeller.json"
    assert modeller("export", str(source), "--out", str(tmp_path), "--only", "validators").returncode == 0
    out = tmp_path / "back.modeller.json"
    files = sorted(str(p) for p in (tmp_path / "validators").glob("*.json"))
    result = modeller("infer", *files, "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert modeller("validate", str(out)).returncode == 0
    original, back = load_project(source), load_project(out)
    for entity in (e for e in original.entities if e.collection):
        twin = next(e for e in back.entities if e.collection == entity.collection)
        plain = {f.name: (f.type, f.required, f.enum) for f in entity.fields if f.name != "_id"}
        got = {f.name: (f.type, f.required, f.enum) for f in twin.fields}
        assert {k: v for k, v in got.items() if k in plain} == plain, entity.collection
        if entity.subtypes is not None:
            assert twin.subtypes is not None and set(twin.subtypes.variants) == set(entity.subtypes.variants)
