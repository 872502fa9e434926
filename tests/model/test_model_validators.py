"""The per-object validators of ``modeller.model.project``: each refuses bad values with a located, plain message."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from modeller.model import Aggregate, Entity, Field, Index, Project, Query, Relationship, Subtypes, TimeSeries
from modeller.model.names import check_collection_name, check_database_name, check_field_name, check_id, plural, snake


def errors(model: type, data: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    with pytest.raises(ValidationError) as info:
        model.model_validate(data)
    return [(tuple(e["loc"]), e["msg"]) for e in info.value.errors()]


REL = {"id": "r", "one": "a", "many": "b", "cardinality": "one-to-many"}
ENTITY = {"id": "e", "name": "E", "fields": []}


def test_unknown_key_names_it_and_suggests_the_closest() -> None:
    assert errors(Relationship, {**REL, "cardinalty": "x"}) == [
        ((), "unknown key 'cardinalty'; did you mean 'cardinality'?")
    ]


def test_unknown_key_without_close_match_lists_known_keys() -> None:
    [(loc, msg)] = errors(TimeSeries, {"time_field": "t", "zzzzzz": 1})
    assert loc == ()
    assert msg.startswith("unknown key 'zzzzzz'; known keys: time_field, meta_field")


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-1, "Input should be greater than or equal to 0"),
        (10**16, "Input should be less than or equal to 1000000000000000"),
        (True, "Input should be a valid integer"),
        (1.5, "Input should be a valid integer"),
    ],
)
def test_counts_are_non_negative_integers(value: Any, message: str) -> None:
    [(loc, msg)] = errors(Entity, {**ENTITY, "count": value})
    assert loc == ("count",) and msg == message


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (-0.5, "-0.5 is outside 0..1e+15"),
        (True, "expected a number, got True"),
        ("5", "expected a number, got '5'"),
        (float("nan"), "expected a number, got nan"),
        (float("inf"), "expected a number, got inf"),
        # an integer beyond float range: refused by range, not an OverflowError from math.isfinite
        (10**400, f"{str(10**400)[:40]} is outside 0..1e+15"),
    ],
)
def test_rates_are_finite_non_negative_numbers(value: Any, message: str) -> None:
    assert errors(Entity, {**ENTITY, "reads_per_sec": value}) == [(("reads_per_sec",), message)]


def test_numbers_keep_their_written_type() -> None:
    entity = Entity.model_validate({**ENTITY, "reads_per_sec": 50, "writes_per_sec": 0.5})
    assert type(entity.reads_per_sec) is int and type(entity.writes_per_sec) is float


def test_read_together_is_a_share() -> None:
    assert errors(Relationship, {**REL, "read_together": 1.5}) == [(("read_together",), "1.5 is outside 0..1")]


def test_max_not_below_typical() -> None:
    assert errors(Relationship, {**REL, "typical": 10, "max": 5}) == [
        ((), "'max' (5) is smaller than 'typical' (10); raise 'max' or lower 'typical'")
    ]
    assert Relationship.model_validate({**REL, "typical": 10, "max": 10}).max == 10


@pytest.mark.parametrize(
    ("model", "data", "loc"),
    [
        (Relationship, {**REL, "cardinality": "one-to-lots"}, ("cardinality",)),
        (Relationship, {**REL, "strategy": "inline"}, ("strategy",)),
        (Relationship, {**REL, "growth": "infinite"}, ("growth",)),
        (Relationship, {**REL, "tree_ops": ["siblings"]}, ("tree_ops", 0)),
        (Relationship, {**REL, "denormalize": [{"field": "x", "direction": "sideways"}]}, ("denormalize", 0, "direction")),
        (Relationship, {**REL, "denormalize": [{"field": "x", "direction": "many-to-one", "staleness": "weeks"}]},
         ("denormalize", 0, "staleness")),
        (Field, {"name": "x", "type": "varchar"}, ("type",)),
        (Query, {"id": "q", "entity": "e", "filter": {"x": "like"}}, ("filter", "x")),
        (Index, {"keys": [["x", "btree"]]}, ("keys", 0, 1)),
        (Aggregate, {"name": "n", "op": "median", "field": "x"}, ("op",)),
    ],
)  # fmt: skip
def test_vocabulary_values(model: type, data: dict[str, Any], loc: tuple[Any, ...]) -> None:
    [(got_loc, msg)] = errors(model, data)
    assert got_loc == loc and msg.startswith("Input should be")


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("$set", "starts with '$'"),
        ("a.b", "contains '.'"),
        ("nul\x00", "NUL"),
    ],
)
def test_illegal_field_names(name: str, fragment: str) -> None:
    [(loc, msg)] = errors(Field, {"name": name, "type": "string"})
    assert loc == ("name",) and fragment in msg


@pytest.mark.parametrize("value", ["1abc", "has space", "semi;colon", "x" * 101, "é"])
def test_illegal_ids(value: str) -> None:
    [(loc, msg)] = errors(Entity, {**ENTITY, "id": value})
    assert loc == ("id",) and "must start with a letter or '_'" in msg


@pytest.mark.parametrize(("value", "fragment"), [("system.users", "system."), ("a$b", "'$'"), ("é" * 101, "200 bytes")])
def test_illegal_collection_names(value: str, fragment: str) -> None:
    [(loc, msg)] = errors(Entity, {**ENTITY, "collection": value})
    assert loc == ("collection",) and fragment in msg


@pytest.mark.parametrize(("value", "fragment"), [("my db", "' '"), ("a/b", "'/'"), ("x" * 64, "63 bytes")])
def test_illegal_database_names(value: str, fragment: str) -> None:
    data = {"format": "mongo-schema-modeller", "format_version": 1, "name": "P", "database": value}
    [(loc, msg)] = errors(Project, data)
    assert loc == ("database",) and fragment in msg


def test_role_names_are_field_names() -> None:
    assert [loc for loc, _ in errors(Relationship, {**REL, "name": "$x"})] == [("name",)]
    assert [loc for loc, _ in errors(Relationship, {**REL, "inverse": "a.b"})] == [("inverse",)]


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"name": "x", "type": "string", "fields": []}, "'fields' is only allowed on an 'object' field"),
        ({"name": "x", "type": "object", "items": {"type": "int"}}, "'items' is only allowed on an 'array' field"),
        ({"name": "x", "type": "int", "max_items": 3}, "'max_items' is only allowed on an 'array' field"),
    ],
)
def test_field_shape_matches_type(data: dict[str, Any], fragment: str) -> None:
    [(loc, msg)] = errors(Field, data)
    assert loc == () and fragment in msg


def test_subtypes_need_a_variant() -> None:
    assert errors(Subtypes, {"variants": {}}) == [(("variants",), "declare at least one variant")]


def test_aggregate_needs_a_field_unless_counting() -> None:
    assert errors(Aggregate, {"name": "avg_rating", "op": "avg"}) == [((), "'avg' needs a 'field' to aggregate")]
    assert Aggregate.model_validate({"name": "n", "op": "count"}).field is None


@pytest.mark.parametrize("direction", [True, 1.0, 2])
def test_sort_and_index_directions_are_plain(direction: Any) -> None:
    assert errors(Query, {"id": "q", "entity": "e", "sort": [["x", direction]]})
    assert errors(Index, {"keys": [["x", direction]]})


def test_index_needs_a_key() -> None:
    [(loc, msg)] = errors(Index, {"keys": []})
    assert loc == ("keys",) and "at least 1 item" in msg


def test_project_level_values() -> None:
    base = {"format": "mongo-schema-modeller", "format_version": 1, "name": "P"}
    assert [loc for loc, _ in errors(Project, {**base, "server_version": "seven"})] == [("server_version",)]
    assert [loc for loc, _ in errors(Project, {**base, "shards": 0})] == [("shards",)]
    assert [loc for loc, _ in errors(Project, {**base, "name": ""})] == [("name",)]
    assert Project.model_validate({**base, "server_version": "7.0.1"}).server_version == "7.0.1"


def test_bucket_size_is_positive() -> None:
    assert [loc for loc, _ in errors(TimeSeries, {"time_field": "t", "bucket_size": 0})] == [("bucket_size",)]
    assert TimeSeries.model_validate({"time_field": "t", "bucket_size": 200}).bucket_size == 200


def test_assignment_is_validated_too() -> None:
    rel = Relationship.model_validate(REL)
    with pytest.raises(ValidationError):
        rel.cardinality = "lots"  # type: ignore[assignment]


def test_name_helpers() -> None:
    assert check_id("person_1") == "person_1"
    assert check_field_name("ok") == "ok"
    assert check_collection_name("log_messages") == "log_messages"
    assert check_database_name("tracker") == "tracker"
    assert snake("Log Message") == "log_message" and snake("LogMessage") == "log_message" and snake("!!!") == "x"
    assert [plural(w) for w in ["address", "box", "category", "day", "task"]] == [
        "addresses", "boxes", "categories", "days", "tasks"
    ]  # fmt: skip
