"""Model objects never change: frozen attributes, tuples, frozen dicts, and free JSON frozen all the way down."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest
from pydantic import ValidationError

from modeller.model import Entity, Field, Index, Project, Query
from modeller.model.frozen import FrozenDict, FrozenList
from modeller.persistence import dumps_project, load_project

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def test_loaded_project_holds_only_immutable_containers() -> None:
    project = load_project(SAMPLES / "ecommerce.modeller.json")
    assert type(project.entities) is tuple and type(project.layout) is FrozenDict
    product = next(e for e in project.entities if e.subtypes is not None)
    assert product.subtypes is not None and type(product.subtypes.variants) is FrozenDict
    assert all(type(v) is tuple for v in product.subtypes.variants.values())
    assert all(type(q.filter) is FrozenDict and type(q.sort) is tuple for q in project.queries)
    with pytest.raises(ValidationError, match="frozen"):
        product.name = "Other"  # type: ignore[misc]


def test_free_json_is_frozen_inside_and_still_reads_as_dicts_and_lists() -> None:
    field = Field(name="tags", type="array", example=["a", {"b": [1, 2]}])
    example = field.example
    assert isinstance(example, list) and isinstance(example[1], dict) and isinstance(example[1]["b"], list)
    assert type(example) is FrozenList and type(example[1]) is FrozenDict and type(example[1]["b"]) is FrozenList
    assert example == ["a", {"b": [1, 2]}]
    for change in (lambda: example.append(1), lambda: example[1].update(c=1), lambda: example[1]["b"].pop()):
        with pytest.raises(TypeError, match="immutable"):
            change()
    index = Index(keys=[("x", 1)], partial={"x": {"$gt": 5}})
    assert index.partial is not None and type(index.partial["x"]) is FrozenDict
    assert index.model_dump(exclude_defaults=True) == {"keys": (("x", 1),), "partial": {"x": {"$gt": 5}}}


def test_copies_and_pickles_are_equal_and_stay_frozen() -> None:
    project = load_project(SAMPLES / "ecommerce.modeller.json")
    for other in (copy.deepcopy(project), project.model_copy(deep=True), pickle.loads(pickle.dumps(project))):
        assert other == project and dumps_project(other) == dumps_project(project)
        assert type(other.layout) is FrozenDict and type(other.queries[0].filter) is FrozenDict


def test_model_copy_turns_lists_into_the_fields_tuples_and_refuses_wrong_values() -> None:
    entity = Entity(id="e", name="E", fields=[Field(name="a", type="int")])
    wider = entity.model_copy(update={"fields": [*entity.fields, {"name": "b", "type": "string"}], "shard_key": ["a"]})
    assert type(wider.fields) is tuple and [f.name for f in wider.fields] == ["a", "b"]
    assert wider.shard_key == ("a",) and wider.fields[0] is entity.fields[0]
    query = Query(id="q", entity="e").model_copy(update={"filter": {"a": "eq"}})
    assert type(query.filter) is FrozenDict
    with pytest.raises(ValidationError):
        entity.model_copy(update={"count": "many"})
    with pytest.raises(KeyError):
        entity.model_copy(update={"cardinalty": 1})
    assert Project.model_validate({"format": "f", "format_version": 1, "name": "P"}).entities == ()
