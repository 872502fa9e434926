"""The test suite's ``$jsonSchema`` checker knows BSON types and rejects wrong documents."""

from __future__ import annotations

import datetime as dt

from bson import Decimal128, Int64, ObjectId
from bson_checker import errors, is_bson_type

VALIDATOR = {
    "$jsonSchema": {
        "bsonType": "object",
        "required": ["_id", "name", "qty"],
        "properties": {
            "_id": {"bsonType": "objectId"},
            "name": {"bsonType": "string", "maxLength": 10},
            "qty": {"bsonType": "int", "minimum": 0},
            "big": {"bsonType": "long"},
            "price": {"bsonType": "decimal"},
            "when": {"bsonType": "date"},
            "tags": {"bsonType": "array", "maxItems": 2, "items": {"bsonType": "string"}},
            "kind": {"enum": ["a", "b"]},
        },
        "oneOf": [{"properties": {"kind": {"enum": ["a"]}}}, {"properties": {"kind": {"enum": ["b"]}}}],
    }
}

GOOD = {
    "_id": ObjectId(),
    "name": "ok",
    "qty": 3,
    "big": Int64(5),
    "price": Decimal128("1.50"),
    "when": dt.datetime(2024, 1, 1, tzinfo=dt.UTC),
    "tags": ["x"],
    "kind": "a",
}


def test_a_correct_document_passes() -> None:
    assert errors(VALIDATOR, GOOD) == []


def test_wrong_documents_are_rejected_with_the_offending_path() -> None:
    cases = {
        "qty": {**GOOD, "qty": 3.0},  # a double is not an int
        "big": {**GOOD, "big": 5},  # an int32 is not a long
        "price": {**GOOD, "price": 1.5},
        "when": {**GOOD, "when": "2024-01-01"},
        "_id": {**GOOD, "_id": str(ObjectId())},
        "tags": {**GOOD, "tags": ["a", "b", "c"]},
        "name": {**GOOD, "name": "far too long a name"},
        "kind": {**GOOD, "kind": "c"},
    }
    for field, doc in cases.items():
        found = errors(VALIDATOR, doc)
        assert any(line.startswith(field) for line in found), (field, found)
    missing = {k: v for k, v in GOOD.items() if k != "name"}
    assert any("'name' is a required property" in line for line in errors(VALIDATOR, missing))


def test_bson_types_are_told_apart() -> None:
    assert is_bson_type(1, "int") and not is_bson_type(True, "int") and not is_bson_type(Int64(1), "int")
    assert is_bson_type(2**40, "int") is False
    assert is_bson_type(1.0, "double") and not is_bson_type(1, "double")
    assert all(is_bson_type(v, "number") for v in (1, 1.0, Int64(1), Decimal128("1")))
    assert not is_bson_type(True, "number")


def test_enum_compares_numbers_by_value_across_bson_types_as_the_server_does() -> None:
    schema = {"properties": {"n": {"enum": [0.5, 2, 0.1]}}}
    for same in (
        0.5,
        Decimal128("0.5"),
        Int64(2),
        2.0,
        Decimal128("2"),
        Decimal128("0.1000000000000000055511151231257827"),
    ):
        assert errors(schema, {"n": same}) == [], same
    for other in (Decimal128("0.1"), True, "2", 3, Decimal128("0.25")):
        assert errors(schema, {"n": other}) != [], other
