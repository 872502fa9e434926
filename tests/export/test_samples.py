"""Sample documents follow the design: types, bounds, references, copies, buckets, computed values."""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

import pytest
from bson import Binary, Decimal128, Int64, ObjectId
from bson_checker import errors, load_docs
from hand_designs import HOSTILE, tracker_design, tracker_project

from modeller.export import sample_documents, samples_json
from modeller.export.samples import SampleError
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.physical.design import ShapeNode


@pytest.fixture(scope="module")
def docs() -> dict[str, list[dict[str, Any]]]:
    return sample_documents(tracker_design(), tracker_project(), n=6, seed=7)


def by_id(docs: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    return {doc["_id"]: doc for doc in docs}


def test_every_collection_gets_n_documents_in_design_order(docs: dict[str, list[dict[str, Any]]]) -> None:
    design = tracker_design()
    assert list(docs) == [c.name for c in design.collections]
    assert all(len(items) == 6 for items in docs.values())
    assert all(isinstance(doc["_id"], ObjectId) for items in docs.values() for doc in items)


def test_every_sample_passes_its_collections_validator(docs: dict[str, list[dict[str, Any]]]) -> None:
    design = tracker_design()
    for coll in design.collections:
        for doc in docs[coll.name]:
            assert errors(coll.validator, doc) == [], (coll.name, doc)


def test_samples_round_trip_through_canonical_extended_json(docs: dict[str, list[dict[str, Any]]]) -> None:
    for items in docs.values():
        assert load_docs(samples_json(items)) == items


def test_same_seed_same_bytes_other_seed_other_values() -> None:
    design, project = tracker_design(), tracker_project()
    first = {k: samples_json(v) for k, v in sample_documents(design, project, 5, seed=1).items()}
    again = {k: samples_json(v) for k, v in sample_documents(design, project, 5, seed=1).items()}
    other = {k: samples_json(v) for k, v in sample_documents(design, project, 5, seed=2).items()}
    assert first == again
    assert first != other


def test_references_resolve_and_two_way_arrays_agree(docs: dict[str, list[dict[str, Any]]]) -> None:
    people, tasks = by_id(docs["people"]), docs["tasks"]
    for task in tasks:
        assert task["owner_id"] in people
    for person_id, person in people.items():
        owned = {t["_id"] for t in tasks if t["owner_id"] == person_id}
        assert set(person["task_ids"]) == owned
    sensors = by_id(docs["sensors"])
    assert all(b["sensor_id"] in sensors for b in docs["sensor_data"])
    assert all(m["sensor_id"] in sensors for m in docs["measurements"])


def test_copies_equal_their_source_values(docs: dict[str, list[dict[str, Any]]]) -> None:
    people = by_id(docs["people"])
    for task in docs["tasks"]:
        owner = people[task["owner_id"]]
        assert task["owner"] == {"_id": owner["_id"], "name": owner["name"]}
        assert task["owner_email"] == owner["email"]


def test_subset_keeps_the_latest_k_children_and_computed_count_agrees(docs: dict[str, list[dict[str, Any]]]) -> None:
    tasks = docs["tasks"]
    for person in docs["people"]:
        mine = sorted((t for t in tasks if t["owner_id"] == person["_id"]), key=lambda t: t["due_date"], reverse=True)
        expected = [{"_id": t["_id"], "description": t["description"], "due_date": t["due_date"]} for t in mine[:2]]
        assert person["recent_tasks"] == expected
        assert len(person["recent_tasks"]) <= 2
        assert person["task_count"] == len(mine)


def test_embedded_arrays_respect_their_bound(docs: dict[str, list[dict[str, Any]]]) -> None:
    sizes = [len(p["addresses"]) for p in docs["people"]]
    assert all(1 <= size <= 3 for size in sizes)
    assert all(set(a) == {"street", "city"} for p in docs["people"] for a in p["addresses"])


def test_bucket_documents_summarize_their_readings(docs: dict[str, list[dict[str, Any]]]) -> None:
    for bucket in docs["sensor_data"]:
        readings = bucket["readings"]
        values = [r["value"] for r in readings]
        times = [r["ts"] for r in readings]
        assert 1 <= bucket["count"] == len(readings) <= 60
        assert math.isclose(bucket["sum"], sum(values))
        assert bucket["min"] == min(values) and bucket["max"] == max(values)
        assert bucket["start"] == min(times) and bucket["end"] == max(times)
        assert times == sorted(times)


def test_polymorphic_documents_cover_every_variant_with_their_own_fields(docs: dict[str, list[dict[str, Any]]]) -> None:
    kinds = {p["kind"] for p in docs["products"]}
    assert kinds == {"book", "album"}
    for product in docs["products"]:
        if product["kind"] == "book":
            assert isinstance(product["pages"], int) and "duration_s" not in product
            assert product["isbn"].startswith("978")  # the model's faker key wins over the field name
        else:
            assert isinstance(product["duration_s"], Int64) and "pages" not in product
        assert isinstance(product["price"], Decimal128)


def test_polymorphic_collection_gets_one_document_per_variant_even_when_n_is_smaller() -> None:
    docs = sample_documents(tracker_design(), tracker_project(), n=1, seed=0)
    assert {p["kind"] for p in docs["products"]} == {"book", "album"}
    assert len(docs["people"]) == 1


def test_values_follow_field_names_and_types(docs: dict[str, list[dict[str, Any]]]) -> None:
    for person in docs["people"]:
        assert "@" in person["email"] and " " in person["name"]
    assert len({p["email"] for p in docs["people"]}) == 6  # unique field
    for sensor in docs["sensors"]:
        assert isinstance(sensor["serial"], Binary) and sensor["serial"].subtype == 4
        lon, lat = sensor["location"]["coordinates"]
        assert sensor["location"]["type"] == "Point" and -180 <= lon <= 180 and -90 <= lat <= 90
    for task in docs["tasks"]:
        assert task["priority"] in (1, 2, 3)
        assert task["due_date"].tzinfo is not None and task["due_date"].microsecond % 1000 == 0


def test_time_series_measurements_are_plain_documents(docs: dict[str, list[dict[str, Any]]]) -> None:
    for measurement in docs["measurements"]:
        assert isinstance(measurement["ts"], dt.datetime)
        assert isinstance(measurement["temperature"], float)


def test_hostile_names_are_only_data(docs: dict[str, list[dict[str, Any]]]) -> None:
    hostile = sample_documents(tracker_design(HOSTILE), tracker_project(HOSTILE), n=3, seed=7)
    people = hostile[HOSTILE["people"]]
    assert HOSTILE["name"] in people[0] and HOSTILE["email"] in people[0]
    for coll in tracker_design(HOSTILE).collections:
        for doc in hostile[coll.name]:
            assert errors(coll.validator, doc) == []


def test_unknown_faker_provider_is_a_clear_error() -> None:
    design = tracker_design()
    design.collections[0].shape.append(ShapeNode("nick", "string", faker="no_such_provider"))
    with pytest.raises(SampleError, match="no_such_provider"):
        sample_documents(design, tracker_project(), n=2)


def test_zero_samples_gives_empty_lists() -> None:
    docs = sample_documents(tracker_design(), tracker_project(), n=0)
    assert all(items == [] for items in docs.values())


def test_computed_values_over_bucketed_children_count_their_readings() -> None:
    """A count/sum/avg over an N kept as buckets covers the readings in the buckets, typed as the validator says."""
    path = (
        Path(__file__).resolve().parents[1]
        / "fuzz"
        / "regressions"
        / "ecommerce-computed-rating-over-buckets.modeller.json"
    )
    project = load_project(path)
    design = analyse(project).design
    docs = sample_documents(design, project, n=5, seed=0)
    readings: dict[Any, list[int]] = {}
    for bucket in docs["reviews"]:
        readings.setdefault(bucket["product_id"], []).extend(r["stars"] for r in bucket["reviews"])
    assert any(readings.values())
    for product in docs["products"]:
        stars = readings.get(product["_id"], [])
        rating = product["rating"]
        assert isinstance(rating["count"], Int64) and rating["count"] == len(stars), (rating, stars)
        assert rating["sum"] == float(sum(stars))
        assert rating.get("avg") == (sum(stars) / len(stars) if stars else None)
