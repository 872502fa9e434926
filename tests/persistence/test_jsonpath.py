"""JSON paths and their positions in the text (used only to report errors)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from modeller.persistence.jsonpath import (
    deepest,
    find_duplicate_key,
    format_path,
    line_column,
    line_columns,
    locate,
    max_depth,
    nearest,
    parse_path,
    with_ancestors,
)


@pytest.mark.parametrize(
    ("parts", "text"),
    [
        ((), "$"),
        (("entities", 3, "fields", 0, "type"), "$.entities[3].fields[0].type"),
        (("layout", "a b"), "$.layout['a b']"),
        (("queries", 0, "filter", "specs.ram"), "$.queries[0].filter['specs.ram']"),
        (("x", 'it\'s "q"'), "$.x['it\\'s \"q\"']"),
        (("x", "line\nbreak"), "$.x['line\\nbreak']"),
    ],
)
def test_format_and_parse_are_inverse(parts: tuple[str | int, ...], text: str) -> None:
    assert format_path(parts) == text
    assert parse_path(text) == parts


def test_parse_reads_checks_style_quoted_identifiers() -> None:
    assert parse_path("$.queries[0].filter['due_date']") == ("queries", 0, "filter", "due_date")
    assert parse_path("$.entities[0].subtypes.variants['basic']") == ("entities", 0, "subtypes", "variants", "basic")


@pytest.mark.parametrize("bad", ["entities", "$.", "$[x]", "$.a[", "$['unterminated]"])
def test_parse_refuses_malformed(bad: str) -> None:
    assert parse_path(bad) is None


def test_locate_members_at_their_key_and_elements_at_their_value() -> None:
    text = '{\n  "a": [10, {"b": "x,]"}],\n  "c": {"d": null}\n}'
    found = locate(text, [("a",), ("a", 0), ("a", 1), ("a", 1, "b"), ("c", "d"), ()])
    assert found == {
        (): (1, 1),
        ("a",): (2, 3),
        ("a", 0): (2, 9),
        ("a", 1): (2, 13),
        ("a", 1, "b"): (2, 14),
        ("c", "d"): (3, 9),
    }


def test_nearest_falls_back_to_the_closest_ancestor() -> None:
    text = '{"a": {"b": 1}}'
    wanted = with_ancestors([("a", "missing", 3)])
    assert wanted == {(), ("a",), ("a", "missing"), ("a", "missing", 3)}
    found = locate(text, wanted)
    assert nearest(found, ("a", "missing", 3)) == (1, 2)


def test_locate_survives_text_that_is_not_json() -> None:
    assert locate("]]]", [("a",)]) == {}


def test_line_column_counts_characters() -> None:
    text = "é\nab😀c"
    assert line_column(text, text.index("c")) == (2, 4)


@given(st.text(alphabet="ab\né", max_size=40), st.data())
def test_line_columns_of_many_offsets_equal_counting_from_the_start(text: str, data: st.DataObject) -> None:
    offsets = data.draw(st.lists(st.integers(0, len(text)), max_size=8))
    expected = [(text.count("\n", 0, o) + 1, o - text.rfind("\n", 0, o)) for o in offsets]
    assert line_columns(text, offsets) == expected


@pytest.mark.parametrize(
    ("text", "depth"),
    [
        ("{}", 1),
        ("1", 0),
        ('[["]]]]"]]', 2),
        ('{"a\\"[": [[1]]}', 3),
        ('["\\\\", [[]]]', 3),
        # empty strings and strings next to each other: the quote pairs dropped first keep the pairing
        ('["a{", "b", "]", [[]]]', 3),
        ('{"[": "", "": "}", "k": ["[", {"{": []}]}', 4),
        ("[" * 500 + "]" * 500, 500),
    ],
)
def test_max_depth_ignores_brackets_in_strings(text: str, depth: int) -> None:
    assert max_depth(text) == depth


def test_deepest_points_at_the_first_bracket_over_the_limit() -> None:
    text = '{"a": [[["x"]]]}'
    assert deepest(text, 3) == text.index("[[[") + 2
    assert deepest(text, 4) is None


def test_duplicate_key_found_with_its_path() -> None:
    text = json.dumps({"x": [1, {"k": 1}]}).replace('{"k": 1}', '{"k": 1, "j": [], "k": 2}')
    path, offset = find_duplicate_key(text) or ((), -1)
    assert path == ("x", 1, "k")
    assert text[offset:].startswith('"k": 2')
    assert find_duplicate_key('{"a": {"k": 1}, "b": {"k": 2}}') is None


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


json_trees = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab,:\n'),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\x', max_size=4), inner, max_size=3)
    ),
    max_leaves=20,
)

# strings with brackets but no quote or backslash: the text then takes max_depth's fast way (no escaped quote)
plain_trees = st.recursive(
    st.none() | st.integers() | st.text(alphabet="[]{}a,: "),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet="[]{}x", max_size=3), inner, max_size=3)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=plain_trees)
def test_max_depth_of_unescaped_strings_matches_the_data(value: object) -> None:
    text = json.dumps(value)
    assert '\\"' not in text
    assert max_depth(text) == _depth(value)


@settings(max_examples=300, deadline=None)
@given(value=json_trees, indent=st.sampled_from([None, 2]))
def test_max_depth_matches_the_data(value: object, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    assert max_depth(text) == _depth(value)
    limit = _depth(value) - 1
    if limit >= 0:
        offset = deepest(text, limit)
        assert offset is not None and text[offset] in "[{"
