"""The documented sample-size caps stay inside what the design requires (issue 4)."""

from __future__ import annotations

from typing import Any

from hand_designs import tracker_design, tracker_project

from modeller.export import sample_documents
from modeller.export.samples import _ARRAY_CAP, _BUCKET_CAP
from modeller.export.validators import collection_schema


def bucket_docs(min_items: int | None, seed: int = 3) -> list[dict[str, Any]]:
    design = tracker_design()
    buckets = next(c for c in design.collections if c.bucket is not None)
    if min_items is not None:
        schema = collection_schema(buckets)
        schema["properties"]["readings"]["minItems"] = min_items
        buckets.validator = {"$jsonSchema": schema}
    return sample_documents(design, tracker_project(), n=20, seed=seed)[buckets.name]


def test_caps_are_the_documented_values() -> None:
    assert (_ARRAY_CAP, _BUCKET_CAP) == (3, 6)


def test_one_to_few_arrays_use_sizes_from_one_to_the_cap_within_the_bound() -> None:
    sizes = {
        len(person["addresses"])
        for seed in range(6)
        for person in sample_documents(tracker_design(), tracker_project(), n=20, seed=seed)["people"]
    }
    assert sizes == set(range(1, _ARRAY_CAP + 1))


def test_bucket_count_equals_its_readings_up_to_the_cap() -> None:
    docs = bucket_docs(None)
    counts = {doc["count"] for doc in docs}
    assert all(doc["count"] == len(doc["readings"]) for doc in docs)
    assert min(counts) >= 1 and max(counts) == _BUCKET_CAP


def test_a_validator_min_items_above_the_bucket_cap_wins() -> None:
    docs = bucket_docs(_BUCKET_CAP + 4)
    assert {doc["count"] for doc in docs} == {_BUCKET_CAP + 4}
    assert all(len(doc["readings"]) == doc["count"] for doc in docs)
