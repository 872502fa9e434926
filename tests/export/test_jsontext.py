"""The fast JSON writers equal the standard ones: ``json.dumps(indent=…)`` and ``bson.json_util`` canonical."""

from __future__ import annotations

import datetime as dt
import enum
import json
import uuid
from decimal import Decimal
from typing import Any

import pytest
from bson import Binary, Decimal128, Int64, ObjectId, Regex, Timestamp, json_util
from hand_designs import HOSTILE, tracker_design, tracker_project
from seed_support import analysed, sample_ids

from modeller.export.jsontext import Rendered, canonical_ejson, indented
from modeller.export.samples import sample_documents
from modeller.export.validators import json_schema, json_schema_text, validator_document, validator_text


def standard_ejson(value: Any) -> str:
    return json_util.dumps(value, json_options=json_util.CANONICAL_JSON_OPTIONS, ensure_ascii=False)


class Colour(enum.IntEnum):
    RED = 1


EDGE_VALUES: list[Any] = [
    {},
    [],
    {"": "", "empty": {}, "none": [], "nested": [[], [{}], {"a": []}]},
    {"int32 edges": [-(2**31), 2**31 - 1, 2**31, -(2**31) - 1, 0, -0, 10**30]},
    {"floats": [0.0, -0.0, 1.5, 1e300, 1e-300, 0.1 + 0.2, 123456789.125]},
    {"special floats": [float("nan"), float("inf"), -float("inf")]},
    {"bools": [True, False, None]},
    {"long": [Int64(0), Int64(-5), Int64(2**62)]},
    {"ids": [ObjectId("65a1b2c3d4e5f60718293a4b"), ObjectId("000000000000000000000000")]},
    {
        "dates": [
            dt.datetime(2024, 2, 29, 23, 59, 59, 999000, tzinfo=dt.UTC),
            dt.datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=dt.UTC),
            dt.datetime(1900, 1, 1, tzinfo=dt.UTC),
            dt.datetime(2024, 6, 1, 12, 0, 0, 123456),
            dt.datetime(2024, 6, 1, 12, 0, tzinfo=dt.timezone(dt.timedelta(hours=-7, minutes=-30))),
        ]
    },
    {"decimals": [Decimal128("1.50"), Decimal128("-0"), Decimal128("NaN"), Decimal128("1E+6144")]},
    {
        "binary": [
            Binary(b"\x00\xff" * 9),
            Binary.from_uuid(uuid.UUID(int=12345, version=4)),
            Binary(b"", 0x80),
            b"raw bytes",
        ]
    },
    {"text": ['quote " backslash \\ </script> ${x} \n\r\t \u2028 ünï 😀 \x00 \x7f']},
    {"keys": {'"': 1, "\\": 2, "ü": 3, "$x": 4, "a.b": 5}},
    {"odd key": {1: "int key", None: "none key"}},
    {"tuple": (1, "two", 3.0)},
    {"other types": [Regex("^a", "i"), Timestamp(5, 1), Colour.RED]},
]


@pytest.mark.parametrize("value", [{"a": [Decimal("1.25")]}, {"a": object()}])
def test_canonical_ejson_refuses_what_json_util_refuses(value: Any) -> None:
    with pytest.raises(TypeError):
        standard_ejson(value)
    with pytest.raises(TypeError):
        canonical_ejson(value)


@pytest.mark.parametrize("value", EDGE_VALUES, ids=range(len(EDGE_VALUES)))
def test_canonical_ejson_equals_json_util_on_edge_values(value: Any) -> None:
    assert canonical_ejson(value) == standard_ejson(value)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("sample", sample_ids())
def test_canonical_ejson_equals_json_util_on_every_sample_document(sample: str, seed: int) -> None:
    project, analysis = analysed(sample)
    docs = sample_documents(analysis.design, project, 7, seed)
    texts = [canonical_ejson(doc) for coll_docs in docs.values() for doc in coll_docs]
    assert texts == [standard_ejson(doc) for coll_docs in docs.values() for doc in coll_docs]
    assert len(texts) >= 7 * len(analysis.design.collections)


def test_canonical_ejson_equals_json_util_on_hostile_names() -> None:
    docs = sample_documents(tracker_design(HOSTILE), tracker_project(HOSTILE), 5, 3)
    for coll_docs in docs.values():
        for doc in coll_docs:
            assert canonical_ejson(doc) == standard_ejson(doc)


JSON_EDGE_VALUES: list[Any] = [
    {},
    [],
    "text",
    None,
    {"a": {}, "b": [], "c": [{}], "d": {"e": [[]]}},
    {"numbers": [0, -1, 2**70, 1.5, -0.0, 1e-7, float("nan"), float("inf"), -float("inf")]},
    {"flags": [True, False, None]},
    {"text": 'quote " backslash \\ </script> \n \u2028 ünï 😀 \x00'},
    {True: 1, False: 2, None: 3, 4: 5, 1.5: 6, "x": {7: 8}},
    {"tuple": (1, (2, 3), [])},
    {"enum": Colour.RED, "subclassed": {"k": Colour.RED}},
]


@pytest.mark.parametrize("indent", [2, 4, 0])
@pytest.mark.parametrize("value", JSON_EDGE_VALUES, ids=range(len(JSON_EDGE_VALUES)))
def test_indented_equals_json_dumps_on_edge_values(value: Any, indent: int) -> None:
    assert indented(value, indent) == json.dumps(value, indent=indent, ensure_ascii=False)


def test_indented_refuses_what_json_refuses() -> None:
    with pytest.raises(TypeError):
        indented({"a": {(1, 2): "tuple key"}})
    with pytest.raises(TypeError):
        indented({"a": [object()]})


@pytest.mark.parametrize("sample", sample_ids())
def test_indented_equals_json_dumps_on_every_validator_and_schema(sample: str) -> None:
    _project, analysis = analysed(sample)
    for coll in analysis.design.collections:
        for value in (validator_document(coll), json_schema(coll, "db")):
            assert indented(value) == json.dumps(value, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("value", JSON_EDGE_VALUES[:8], ids=range(8))
def test_rendered_text_embeds_like_the_value_itself(value: Any) -> None:
    outer = {"level": 1, "inner": [{"value": value}, value], "after": "x"}
    embedded = {"level": 1, "inner": [{"value": Rendered(indented(value))}, Rendered(indented(value))], "after": "x"}
    assert indented(embedded) == json.dumps(outer, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("sample", sample_ids())
def test_setup_options_with_the_rendered_validator_equal_plain_json(sample: str) -> None:
    _project, analysis = analysed(sample)
    for coll in analysis.design.collections:
        text = validator_text(coll)
        assert validator_text(coll) is text  # serialized once per collection
        options = {"validator": validator_document(coll), "validationLevel": "strict"}
        rendered = {"validator": Rendered(text), "validationLevel": "strict"}
        assert indented(rendered) == json.dumps(options, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("sample", sample_ids())
def test_schema_text_shares_nothing_it_hands_out(sample: str) -> None:
    """The text path skips copies; the public dict still owns its values (changing it changes no validator)."""
    _project, analysis = analysed(sample)
    for coll in analysis.design.collections:
        before = json.dumps(coll.validator, sort_keys=True)
        schema = json_schema(coll, "db")
        assert json_schema_text(coll, "db") == json.dumps(schema, indent=2, ensure_ascii=False) + "\n"
        for prop in schema.get("properties", {}).values():
            for key in ("enum", "required"):
                if isinstance(prop.get(key), list):
                    prop[key].append("changed")
        assert json.dumps(coll.validator, sort_keys=True) == before
