"""What MongoDB refuses is refused when the project is checked: each problem located and saying what to do."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from modeller.model import Project, check_project
from modeller.model.server_limits import MAX_INDEX_KEYS, MAX_RETENTION_S, MAX_TTL_S

FIELDS: list[dict[str, Any]] = [
    {"name": "title", "type": "string"},
    {"name": "body", "type": "string"},
    {"name": "owner", "type": "objectId"},
    {"name": "created", "type": "date"},
    {"name": "where", "type": "point"},
    {"name": "area", "type": "object", "fields": [{"name": "kind", "type": "string"}]},
    {"name": "route", "type": "array", "items": {"type": "double"}},
    {"name": "tags", "type": "array", "items": {"type": "string"}},
    {"name": "views", "type": "int"},
    {"name": "total", "type": "long"},
    {"name": "price", "type": "double"},
    {"name": "amount", "type": "decimal"},
    {"name": "open", "type": "bool"},
    {"name": "meta", "type": "object", "fields": [{"name": "sensor", "type": "string"}]},
]


def project(fields: list[dict[str, Any]] | None = None, **entity: Any) -> dict[str, Any]:
    return {
        "format": "mongo-schema-modeller",
        "format_version": 1,
        "name": "Limits",
        "entities": [{"id": "post", "name": "Post", "fields": copy.deepcopy(fields or FIELDS), **entity}],
    }


def problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p.path, p.message) for p in check_project(Project.model_validate(data))]


def index_problems(*keys: tuple[str, Any], **options: Any) -> list[tuple[str, str]]:
    return problems(project(indexes=[{"keys": [list(k) for k in keys], **options}]))


def only(found: list[tuple[str, str]]) -> tuple[str, str]:
    assert len(found) == 1, found
    return found[0]


IX = "$.entities[0].indexes[0]"


# -- what the server accepts stays accepted -----------------------------------------------------------


@pytest.mark.parametrize(
    ("keys", "options"),
    [
        ([("title", "text"), ("body", "text")], {}),
        ([("owner", 1), ("title", "text"), ("body", "text"), ("created", -1)], {}),
        ([("owner", "hashed"), ("created", 1)], {}),  # compound hashed: one hashed field (4.4+)
        ([("where", "2dsphere"), ("created", -1)], {}),
        ([("where", "2dsphere"), ("area", "2dsphere")], {}),
        ([("route", "2dsphere")], {}),  # legacy coordinate pairs
        ([("created", 1)], {"expire_after_s": 0}),
        ([("created", 1)], {"expire_after_s": MAX_TTL_S}),
        ([("owner", "hashed")], {"expire_after_s": 60}),
        ([("title", 1)], {"unique": True, "collation": {"locale": "en", "strength": 2}}),
        ([("title", "text")], {"collation": {"locale": "simple"}}),
        ([("_id", 1), ("created", 1)], {"name": "by_id_and_date"}),
        ([(f"f{n}", 1) for n in range(MAX_INDEX_KEYS)], {}),
    ],
)
def test_index_specs_the_server_accepts_pass(keys: list[tuple[str, Any]], options: dict[str, Any]) -> None:
    fields = FIELDS + [{"name": f"f{n}", "type": "int"} for n in range(MAX_INDEX_KEYS)]
    data = project(fields, indexes=[{"keys": [list(k) for k in keys], **options}])
    assert problems(data) == []


# -- index specs the server refuses -------------------------------------------------------------------


def test_one_field_twice_in_an_index() -> None:
    path, message = only(index_problems(("title", 1), ("owner", 1), ("title", -1)))
    assert path == f"{IX}.keys[2]"
    assert "'title' is already keys[0]" in message and "keep one" in message


def test_more_than_32_keys() -> None:
    fields = [{"name": f"f{n}", "type": "int"} for n in range(MAX_INDEX_KEYS + 1)]
    data = project(fields, indexes=[{"keys": [[f"f{n}", 1] for n in range(MAX_INDEX_KEYS + 1)]}])
    path, message = only(problems(data))
    assert path == f"{IX}.keys"
    assert "33 keys" in message and "at most 32" in message


def test_key_pattern_larger_than_2048_bytes() -> None:
    names = [chr(ord("a") + n) * 200 for n in range(11)]
    data = project([{"name": n, "type": "int"} for n in names], indexes=[{"keys": [[n, 1] for n in names]}])
    path, message = only(problems(data))
    assert path == f"{IX}.keys" and "2048 bytes" in message and "shorter field names" in message


def test_two_hashed_fields() -> None:
    path, message = only(index_problems(("owner", "hashed"), ("title", "hashed")))
    assert path == f"{IX}.keys"
    assert "2 hashed keys" in message and "one hashed field" in message and "1 or -1" in message


def test_compound_hashed_before_4_4() -> None:
    data = project(indexes=[{"keys": [["owner", "hashed"], ["created", 1]]}])
    data["server_version"] = "4.2"
    path, message = only(problems(data))
    assert path == f"{IX}.keys" and "4.4" in message and "4.2" in message


@pytest.mark.parametrize("version", ["4.4", "7", "9" * 5000])
def test_compound_hashed_from_4_4_on(version: str) -> None:
    data = project(indexes=[{"keys": [["owner", "hashed"], ["created", 1]]}])
    data["server_version"] = version
    assert problems(data) == []


@pytest.mark.parametrize(
    ("keys", "named"),
    [
        ([("title", "text"), ("owner", "hashed")], "'text' and 'hashed'"),
        ([("title", "text"), ("where", "2dsphere")], "'text' and '2dsphere'"),
        ([("where", "2dsphere"), ("owner", "hashed")], "'2dsphere' and 'hashed'"),
    ],
)
def test_special_kinds_do_not_mix(keys: list[tuple[str, Any]], named: str) -> None:
    path, message = only(index_problems(*keys))
    assert path == f"{IX}.keys"
    assert named in message and "one index per kind" in message


def test_unique_hashed() -> None:
    path, message = only(index_problems(("owner", "hashed"), unique=True))
    assert path == f"{IX}.unique"
    assert "hashed index cannot be unique" in message and "1 or -1" in message


def test_text_keys_must_be_adjacent() -> None:
    path, message = only(index_problems(("title", "text"), ("owner", 1), ("body", "text")))
    assert path == f"{IX}.keys" and "next to each other" in message


def test_text_index_with_a_collation() -> None:
    path, message = only(index_problems(("title", "text"), collation={"locale": "en"}))
    assert path == f"{IX}.collation" and "remove 'collation'" in message


def test_2dsphere_on_a_scalar_field() -> None:
    path, message = only(index_problems(("title", "2dsphere")))
    assert path == f"{IX}.keys[0]"
    assert "'title' is 'string'" in message and "'point'" in message


def test_2dsphere_on_an_array_of_strings() -> None:
    path, _message = only(index_problems(("tags", "2dsphere")))
    assert path == f"{IX}.keys[0]"


@pytest.mark.parametrize(("name", "words"), [("*", "'*'"), ("_id_", "reserved for the _id index"), ("a\x00b", "NUL")])
def test_index_names_the_server_refuses(name: str, words: str) -> None:
    path, message = only(index_problems(("title", 1), name=name))
    assert path == f"{IX}.name" and words in message


def test_two_indexes_with_one_name() -> None:
    data = project(indexes=[{"keys": [["title", 1]], "name": "x"}, {"keys": [["body", 1]], "name": "x"}])
    path, message = only(problems(data))
    assert path == "$.entities[0].indexes[1].name"
    assert "'x' is also used by indexes[0]" in message and "rename one" in message


def test_the_same_index_twice() -> None:
    data = project(indexes=[{"keys": [["title", 1]]}, {"keys": [["title", 1]]}])
    path, message = only(problems(data))
    assert path == "$.entities[0].indexes[1]" and "repeats indexes[0]" in message


def test_same_keys_other_options_without_names() -> None:
    data = project(indexes=[{"keys": [["title", 1]]}, {"keys": [["title", 1]], "unique": True}])
    path, message = only(problems(data))
    assert path == "$.entities[0].indexes[1].name" and "same default name" in message and "give this one" in message


def test_same_keys_filter_and_collation_under_two_names() -> None:
    data = project(
        indexes=[{"keys": [["title", 1]], "name": "a"}, {"keys": [["title", 1]], "name": "b", "unique": True}]
    )
    path, message = only(problems(data))
    assert path == "$.entities[0].indexes[1].keys" and "merge the two" in message


def test_same_keys_with_other_filters_under_two_names_pass() -> None:
    data = project(
        indexes=[
            {"keys": [["title", 1]], "name": "open_titles", "partial": {"open": True}},
            {"keys": [["title", 1]], "name": "closed_titles", "partial": {"open": False}},
        ]
    )
    assert problems(data) == []


@pytest.mark.parametrize(
    ("field", "index"),
    [
        ({"name": "seen", "type": "date", "expire_after_s": 60}, {"keys": [["seen", 1]], "expire_after_s": 90}),
        ({"name": "email", "type": "string", "unique": True}, {"keys": [["email", 1]], "partial": {"a": 1}}),
    ],
)
def test_declared_index_clashing_with_a_fields_own_index(field: dict[str, Any], index: dict[str, Any]) -> None:
    path, message = only(problems(project([field], indexes=[index])))
    assert path == IX
    assert f"field {field['name']!r} already gets the index" in message and "remove this index" in message


@pytest.mark.parametrize(
    ("field", "index"),
    [
        ({"name": "email", "type": "string", "unique": True}, {"keys": [["email", 1]], "unique": True}),
        # the engine merges these into one index: unique, or TTL, with the declared name
        ({"name": "email", "type": "string", "unique": True}, {"keys": [["email", 1]]}),
        ({"name": "email", "type": "string", "unique": True}, {"keys": [["email", 1]], "name": "by_email"}),
        ({"name": "seen", "type": "date", "expire_after_s": 60}, {"keys": [["seen", 1]]}),
        ({"name": "seen", "type": "date", "expire_after_s": 60}, {"keys": [["seen", 1]], "unique": True}),
        ({"name": "email", "type": "string", "unique": True}, {"keys": [["email", -1]]}),
        (
            {"name": "email", "type": "string", "unique": True},
            {"keys": [["email", 1]], "partial": {"a": 1}, "name": "p"},
        ),
        ({"name": "seen", "type": "date", "expire_after_s": 60}, {"keys": [["seen", 1]], "expire_after_s": 60}),
    ],
)
def test_declared_index_that_matches_or_differs_from_the_fields_own(
    field: dict[str, Any], index: dict[str, Any]
) -> None:
    assert problems(project([field], indexes=[index])) == []


def test_partial_id_index() -> None:
    path, message = only(index_problems(("_id", 1), partial={"open": True}))
    assert path == f"{IX}.partial" and "cannot be partial" in message


def test_reserved_text_field_names() -> None:
    data = project([{"name": "_fts", "type": "string"}], indexes=[{"keys": [["_fts", 1]]}])
    path, message = only(problems(data))
    assert path == f"{IX}.keys[0]" and "reserved for text indexes" in message


# -- TTL ---------------------------------------------------------------------------------------------


def test_ttl_above_32_bits_on_an_index() -> None:
    path, message = only(index_problems(("created", 1), expire_after_s=MAX_TTL_S + 1))
    assert path == f"{IX}.expire_after_s"
    assert str(MAX_TTL_S + 1) in message and str(MAX_TTL_S) in message and "smaller" in message


def test_ttl_above_32_bits_on_a_field() -> None:
    fields = [{"name": "created", "type": "date", "expire_after_s": 10**12}]
    path, message = only(problems(project(fields)))
    assert path == "$.entities[0].fields[0].expire_after_s" and str(MAX_TTL_S) in message


def test_negative_ttl_is_refused_at_load() -> None:
    with pytest.raises(ValidationError, match="greater than or equal to 0"):
        Project.model_validate(project(indexes=[{"keys": [["created", 1]], "expire_after_s": -1}]))


def test_compound_ttl_index() -> None:
    path, message = only(index_problems(("owner", 1), ("created", 1), expire_after_s=3600))
    assert path == f"{IX}.expire_after_s" and "single-field" in message


@pytest.mark.parametrize("direction", [1, -1])
def test_ttl_on_id(direction: int) -> None:
    found = index_problems(("_id", direction), expire_after_s=3600)
    assert [p for p, _ in found] == [f"{IX}.expire_after_s"]
    assert "TTL on _id" in found[0][1]


def test_ttl_on_a_declared_id_field() -> None:
    fields = [{"name": "_id", "type": "date", "expire_after_s": 60}]
    path, message = only(problems(project(fields)))
    assert path == "$.entities[0].fields[0].expire_after_s" and "TTL on _id" in message


def test_time_series_retention_beyond_what_the_server_takes() -> None:
    data = project(timeseries={"time_field": "created", "retention_s": MAX_RETENTION_S + 1})
    path, message = only(problems(data))
    assert path == "$.entities[0].timeseries.retention_s" and str(MAX_RETENTION_S) in message


# -- enum, example --------------------------------------------------------------------------------------


def field_problems(field: dict[str, Any]) -> list[tuple[str, str]]:
    return problems(project([field]))


F0 = "$.entities[0].fields[0]"


@pytest.mark.parametrize(
    "field",
    [
        {"name": "s", "type": "string", "enum": ["a", "b"]},
        {"name": "i", "type": "int", "enum": [-(2**31), 0, 2**31 - 1]},
        {"name": "l", "type": "long", "enum": [-(2**63), 2**63 - 1]},
        {"name": "d", "type": "double", "enum": [1, 2.5]},
        {"name": "m", "type": "decimal", "enum": [1, 2.25]},
        {"name": "b", "type": "bool", "enum": [True, False]},
        {"name": "t", "type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
        {"name": "i", "type": "int", "example": 2**31 - 1},
        {"name": "l", "type": "long", "example": "9223372036854775807"},
        {"name": "s", "type": "string", "example": 2**70},
        {"name": "d", "type": "double", "example": 2**70},
        {"name": "d", "type": "double", "example": "-2.5e3"},
        {"name": "m", "type": "decimal", "example": 9.99},
        {"name": "i", "type": "int", "example": 7.0},
        {"name": "b", "type": "bool", "example": False},
        {"name": "c", "type": "date", "example": "2024-05-01"},
        {"name": "c", "type": "date", "example": "2024-05-01T12:00:00.123+02:00"},
        {"name": "o", "type": "objectId", "example": "665f1c2ab0e4d3a1c8f2e901"},
        {"name": "a", "type": "object", "example": {"x": 1}},
        {"name": "t", "type": "array", "example": [1, "two"]},
        {"name": "p", "type": "point", "example": "anything the exporters ignore"},
    ],
)
def test_values_of_the_fields_type_pass(field: dict[str, Any]) -> None:
    assert field_problems(field) == []


@pytest.mark.parametrize(
    ("field", "path", "words"),
    [
        ({"name": "i", "type": "int", "enum": [1, "2"]}, f"{F0}.enum[1]", "'2' is a string, but the field is 'int'"),
        ({"name": "i", "type": "int", "enum": [1.5]}, f"{F0}.enum[0]", "1.5 is a number, but the field is 'int'"),
        ({"name": "i", "type": "int", "enum": [True]}, f"{F0}.enum[0]", "True is a boolean"),
        (
            {"name": "s", "type": "string", "enum": ["a", 1]},
            f"{F0}.enum[1]",
            "1 is an integer, but the field is 'string'",
        ),
        ({"name": "b", "type": "bool", "enum": [1]}, f"{F0}.enum[0]", "the field is 'bool'"),
        ({"name": "d", "type": "double", "enum": ["1"]}, f"{F0}.enum[0]", "the field is 'double'"),
        ({"name": "i", "type": "int", "enum": [2**31]}, f"{F0}.enum[0]", "outside the 'int' range"),
        ({"name": "i", "type": "int", "enum": [-(2**31) - 1]}, f"{F0}.enum[0]", "use type 'long'"),
        ({"name": "l", "type": "long", "enum": [2**63]}, f"{F0}.enum[0]", "outside the 'long' range"),
        ({"name": "d", "type": "double", "enum": [2**64]}, f"{F0}.enum[0]", "too large for BSON"),
        ({"name": "s", "type": "string", "enum": ["a", "a"]}, f"{F0}.enum[1]", "already enum[0]"),
        ({"name": "d", "type": "double", "enum": [1, 1.0]}, f"{F0}.enum[1]", "already enum[0]"),
        ({"name": "c", "type": "date", "enum": ["2024-01-01"]}, f"{F0}.enum", "JSON has no date values"),
        ({"name": "o", "type": "objectId", "enum": ["a" * 24]}, f"{F0}.enum", "remove 'enum'"),
        ({"name": "p", "type": "point", "enum": [1]}, f"{F0}.enum", "remove 'enum'"),
        ({"name": "t", "type": "array", "enum": ["x"]}, f"{F0}.enum", "put 'enum' on 'items'"),
        (
            {"name": "t", "type": "array", "items": {"type": "int", "enum": ["x"]}},
            f"{F0}.items.enum[0]",
            "the field is 'int'",
        ),
        ({"name": "i", "type": "int", "example": 2**31}, f"{F0}.example", "example 2147483648 is outside"),
        ({"name": "i", "type": "int", "example": "99999999999"}, f"{F0}.example", "use type 'long'"),
        ({"name": "i", "type": "int", "example": 1e300}, f"{F0}.example", "outside the 'int' range"),
        ({"name": "l", "type": "long", "example": 2**63}, f"{F0}.example", "outside the 'long' range"),
        # an example no $convert can turn into the type: a migration would stop halfway through a collection
        (
            {"name": "i", "type": "int", "example": "x"},
            f"{F0}.example",
            "'x' cannot be converted to the field's type 'int'; write an integer such as 42",
        ),
        ({"name": "i", "type": "int", "example": "²"}, f"{F0}.example", "type 'int'"),
        ({"name": "i", "type": "int", "example": "--5"}, f"{F0}.example", "type 'int'"),
        ({"name": "l", "type": "long", "example": True}, f"{F0}.example", "type 'long'"),
        ({"name": "d", "type": "double", "example": "2,5"}, f"{F0}.example", "write a number such as 2.5"),
        ({"name": "m", "type": "decimal", "example": [1]}, f"{F0}.example", "type 'decimal'"),
        ({"name": "b", "type": "bool", "example": "yes"}, f"{F0}.example", "write true or false"),
        ({"name": "c", "type": "date", "example": "yesterday"}, f"{F0}.example", "an ISO 8601 date"),
        ({"name": "c", "type": "date", "example": "2024-02-30"}, f"{F0}.example", "type 'date'"),
        ({"name": "c", "type": "date", "example": 1714560000000}, f"{F0}.example", "type 'date'"),
        ({"name": "o", "type": "objectId", "example": "abc"}, f"{F0}.example", "24 hexadecimal digits"),
        ({"name": "a", "type": "object", "example": [1]}, f"{F0}.example", "write a JSON object"),
        ({"name": "t", "type": "array", "example": "x"}, f"{F0}.example", "write a JSON array"),
        (
            {"name": "t", "type": "array", "items": {"type": "int", "example": "x"}},
            f"{F0}.items.example",
            "type 'int'",
        ),
    ],
)
def test_values_the_documents_cannot_hold(field: dict[str, Any], path: str, words: str) -> None:
    found_path, message = only(field_problems(field))
    assert found_path == path
    assert words in message


def test_values_of_nested_and_variant_fields_are_checked() -> None:
    nested = [{"name": "a", "type": "object", "fields": [{"name": "n", "type": "int", "enum": ["x"]}]}]
    assert [p for p, _ in problems(project(nested))] == ["$.entities[0].fields[0].fields[0].enum[0]"]
    data = project(subtypes={"variants": {"book": [{"name": "n", "type": "int", "enum": ["x"]}]}})
    assert [p for p, _ in problems(data)] == ["$.entities[0].subtypes.variants['book'][0].enum[0]"]


# -- time series --------------------------------------------------------------------------------------


def test_time_field_must_be_a_date() -> None:
    path, message = only(problems(project(timeseries={"time_field": "title"})))
    assert path == "$.entities[0].timeseries.time_field"
    assert "'title' is 'string'" in message and "make it type 'date'" in message


def test_time_series_accepts_a_date_and_a_generated_meta_field() -> None:
    data = project(timeseries={"time_field": "created", "meta_field": "owner"})
    assert problems(data) == []


def test_meta_field_must_exist() -> None:
    path, message = only(problems(project(timeseries={"time_field": "created", "meta_field": "sensor"})))
    assert path == "$.entities[0].timeseries.meta_field" and "has no field 'sensor'" in message


@pytest.mark.parametrize(
    ("ts", "path", "words"),
    [
        ({"time_field": "created", "meta_field": "created"}, "meta_field", "cannot be the time field"),
        ({"time_field": "created", "meta_field": "_id"}, "meta_field", "cannot be _id"),
        ({"time_field": "created", "meta_field": "meta.sensor"}, "meta_field", "top-level meta field"),
    ],
)
def test_time_series_options_the_server_refuses(ts: dict[str, Any], path: str, words: str) -> None:
    found_path, message = only(problems(project(timeseries=ts)))
    assert found_path == f"$.entities[0].timeseries.{path}" and words in message


def test_time_field_in_a_sub_document() -> None:
    fields = [{"name": "at", "type": "object", "fields": [{"name": "t", "type": "date"}]}]
    path, message = only(problems(project(fields, timeseries={"time_field": "at.t"})))
    assert path == "$.entities[0].timeseries.time_field" and "top-level" in message


# -- names the generated scripts cannot carry -----------------------------------------------------------


def test_proto_field_name_is_refused_with_a_rename() -> None:
    with pytest.raises(ValidationError) as info:
        Project.model_validate(project([{"name": "__proto__", "type": "string"}]))
    [error] = info.value.errors()
    assert error["loc"][-1] == "name"
    assert "'__proto__'" in error["msg"] and "rename it, e.g. to 'proto'" in error["msg"]


@pytest.mark.parametrize(
    "options",
    [{"partial": {"__proto__": {"$exists": True}}}, {"partial": {"$and": [{"a": 1}, {"__proto__": 1}]}}],
)
def test_proto_inside_a_partial_filter(options: dict[str, Any]) -> None:
    path, message = only(index_problems(("title", 1), **options))
    assert path == f"{IX}.partial" and "rename that field" in message


def test_proto_is_refused_as_role_and_discriminator() -> None:
    data = project()
    data["entities"].append({"id": "c", "name": "C", "fields": []})
    data["relationships"] = [{"id": "r", "one": "post", "many": "c", "cardinality": "one-to-many", "name": "__proto__"}]
    with pytest.raises(ValidationError, match="__proto__"):
        Project.model_validate(data)
    with pytest.raises(ValidationError, match="prototype"):
        Project.model_validate(project(subtypes={"discriminator": "__proto__", "variants": {"a": []}}))
    with pytest.raises(ValidationError, match="'\\$kind' starts with '\\$'"):
        Project.model_validate(project(subtypes={"discriminator": "$kind", "variants": {"a": []}}))
