"""The texts a user reads about a rule are written for the user (tryout item 6): no developer notes from a
docstring — no code marks (backticks), no engine setting names (``hot_per_sec``), no notes about the message."""

from __future__ import annotations

import dataclasses
import re

import pytest

from modeller.rules import analyse
from modeller.rules.catalog import load_rules
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.framework.rule import Rule
from modeller.rules.settings import Settings
from tests.rules.test_cases import build

load_rules()
SETTING_NAMES = {f.name for f in dataclasses.fields(Settings)}
#: words of a note to the code's reader
DEVELOPER_WORDS = ("the message calls", "docstring", "this rule's code", "self.", "TODO")


def _user_texts(rule: type[Rule]) -> dict[str, str]:
    why = rule().finding("info", "project", "", "message").why or ""
    return {"why": why, "explain": rule.explain, "tradeoff": rule.tradeoff}


@pytest.mark.parametrize("rule", list(REGISTRY), ids=[r.id for r in REGISTRY])
def test_a_rules_user_texts_hold_no_developer_notes(rule: type[Rule]) -> None:
    for kind, text in _user_texts(rule).items():
        assert "`" not in text, f"{rule.id} {kind} has code marks: {text}"
        names = SETTING_NAMES & set(re.findall(r"[a-z][a-z0-9_]*", text))
        assert not names, f"{rule.id} {kind} names engine settings {sorted(names)}: {text}"
        for words in DEVELOPER_WORDS:
            assert words not in text, f"{rule.id} {kind} says '{words}': {text}"


def test_index_hot_queries_why_is_the_users() -> None:
    why = _user_texts(next(r for r in REGISTRY if r.id == "index-hot-queries"))["why"]
    assert why.endswith(
        "A query counts as hot when its Hot path box is ticked or when it runs at least 10 times per second."
    )


def _messages(rule_id: str, entities: list[dict[str, object]]) -> list[str]:
    return [f.message for f in analyse(build({"entities": entities})).findings if f.rule == rule_id]


def test_index_findings_say_the_key_pattern_not_the_generated_name() -> None:
    """A generated index name (``category_1_popularity_-1``) is the engine's; the user reads the fields."""
    counter = _messages(
        "approximation-pattern",
        [
            {
                "id": "product",
                "fields": [
                    {"name": "category", "type": "string"},
                    {"name": "popularity", "type": "long", "counter": True, "updates_per_sec": 5000},
                ],
                "indexes": [{"keys": [["category", 1], ["popularity", -1]]}],
            }
        ],
    )
    arrays = _messages(
        "index-hard-limits",
        [
            {
                "id": "post",
                "indexes": [{"keys": [["tags", 1], ["categories", 1]]}],
                "fields": [
                    {"name": "tags", "type": "array", "items": {"type": "string"}},
                    {"name": "categories", "type": "array", "items": {"type": "string"}},
                ],
            }
        ],
    )
    assert len(counter) == 1 and "rewrites the entries of index {category: 1, popularity: -1}" in counter[0]
    assert arrays == [
        "index {tags: 1, categories: 1} on post indexes tags, categories, which are all arrays: MongoDB cannot "
        "index parallel arrays in one compound index"
    ]
    assert not [m for m in counter + arrays if "_1" in m]
