"""A valid file's ``enum`` gives samples of the field's BSON type, which its validator accepts."""

from __future__ import annotations

from bson import Int64
from bson_checker import errors

from modeller.export import sample_documents
from modeller.model import Project, check_project
from modeller.rules import analyse


def test_enum_values_take_the_fields_type() -> None:
    fields = [
        {"name": "size", "type": "long", "enum": [1, 2]},
        {"name": "ratio", "type": "double", "enum": [1, 2]},
        {"name": "level", "type": "int", "enum": [3]},
        {"name": "state", "type": "string", "enum": ["open"]},
        {"name": "sizes", "type": "array", "items": {"type": "long", "enum": [5]}},
    ]
    data = {
        "format": "mongo-schema-modeller",
        "format_version": 1,
        "name": "Enums",
        "entities": [{"id": "e", "name": "E", "fields": fields}],
    }
    project = Project.model_validate(data)
    assert check_project(project) == []
    design = analyse(project).design
    [coll] = design.collections
    docs = sample_documents(design, project, n=3, seed=2)[coll.name]
    assert docs
    for doc in docs:
        assert errors(coll.validator, doc) == []
        assert type(doc["size"]) is Int64 and doc["size"] in (1, 2)
        assert type(doc["ratio"]) is float and doc["ratio"] in (1.0, 2.0)
        assert type(doc["level"]) is int and doc["level"] == 3
        assert doc["state"] == "open"
        assert all(type(v) is Int64 and v == 5 for v in doc["sizes"])
