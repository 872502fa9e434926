"""Refusals of two things claiming one field (found by the end-to-end fuzzer): message and JSON path."""

from __future__ import annotations

from typing import Any

import pytest

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project, check_project


def problems(entities: list[dict[str, Any]], relationships: list[dict[str, Any]] | None = None) -> list[str]:
    project = Project.model_validate(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": "clashes",
            "entities": entities,
            "relationships": relationships or [],
        }
    )
    return [str(p) for p in check_project(project)]


PRODUCT = {
    "id": "product",
    "name": "Product",
    "fields": [{"name": "kind", "type": "string"}, {"name": "price", "type": "double"}],
    "subtypes": {"discriminator": "kind", "variants": {"phone": [{"name": "ram", "type": "int"}]}},
}


def test_clean_subtypes_and_aggregates_pass() -> None:
    review = {"id": "review", "name": "Review", "fields": [{"name": "stars", "type": "int"}]}
    rel = {
        "id": "reviews", "one": "product", "many": "review", "cardinality": "one-to-many",
        "aggregates": [{"name": "rating_avg", "op": "avg", "field": "stars"}],
    }  # fmt: skip
    assert problems([PRODUCT, review], [rel]) == []


def test_a_variant_redeclaring_an_entity_field_with_another_type_is_refused() -> None:
    product = {
        **PRODUCT,
        "subtypes": {"discriminator": "kind", "variants": {"phone": [{"name": "price", "type": "int"}]}},
    }
    (problem,) = problems([product])
    assert problem.startswith("$.entities[0].subtypes.variants['phone'][0]: ")
    assert "declares 'price' as double; a variant cannot make it int" in problem


def test_a_variant_declaring_the_discriminator_is_refused() -> None:
    product = {
        **PRODUCT,
        "subtypes": {"discriminator": "kind", "variants": {"phone": [{"name": "kind", "type": "int"}]}},
    }
    (problem,) = problems([product])
    assert "'kind' is the discriminator: the variant cannot declare it" in problem


def test_a_discriminator_declared_as_a_number_is_refused() -> None:
    product = {**PRODUCT, "fields": [{"name": "kind", "type": "int"}]}
    (problem,) = problems([product])
    assert problem.startswith("$.entities[0].subtypes.discriminator: ") and "declares it as int" in problem


def test_a_computed_value_named_like_a_field_of_the_one_is_refused() -> None:
    review = {"id": "review", "name": "Review", "fields": [{"name": "stars", "type": "int"}]}
    for taken in ("price", "ram", "kind", "_id"):
        rel = {
            "id": "reviews", "one": "product", "many": "review", "cardinality": "one-to-many",
            "aggregates": [{"name": taken, "op": "count"}],
        }  # fmt: skip
        (problem,) = problems([PRODUCT, review], [rel])
        assert problem.startswith("$.relationships[0].aggregates[0].name: ")
        assert f"Product already has a field {taken!r}" in problem


def test_a_time_series_sharing_its_collection_with_another_entity_is_refused() -> None:
    sensor = {"id": "sensor", "name": "Sensor", "collection": "things", "fields": []}
    reading = {
        "id": "reading",
        "name": "Reading",
        "collection": "things",
        "fields": [{"name": "at", "type": "date"}],
        "timeseries": {"time_field": "at"},
    }
    (problem,) = problems([sensor, reading])
    assert problem == (
        "$.entities[1].collection: collection 'things' also holds 'Sensor', but a time series keeps its measurements "
        "in a collection of its own; give one of them another 'collection'"
    )
    assert problems([sensor, {**reading, "collection": "readings"}]) == []


def test_a_discriminator_named_id_is_refused() -> None:
    product = {**PRODUCT, "subtypes": {"discriminator": "_id", "variants": {"phone": []}}}
    (problem,) = problems([product])
    assert problem == (
        "$.entities[0].subtypes.discriminator: the discriminator cannot be '_id': every document keeps its own _id; "
        "choose another name (e.g. 'type')"
    )


@pytest.mark.parametrize(
    ("kind", "why"),
    [
        ("bool", "a boolean _id allows two documents only"),
        ("array", "MongoDB refuses an array as _id"),
        ("point", "a GeoJSON point cannot identify a document"),
    ],
)
def test_an_id_of_a_type_that_cannot_identify_documents_is_refused(kind: str, why: str) -> None:
    declared: dict[str, Any] = {"name": "_id", "type": kind}
    if kind == "array":
        declared["items"] = {"type": "int"}
    (problem,) = problems([{"id": "thing", "name": "Thing", "fields": [declared]}])
    assert problem == f"$.entities[0].fields[0].type: {why}; declare _id as objectId, string, a number or a date"
