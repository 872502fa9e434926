"""Which rule a one-to-many kept by parent reference is filed under (tryout a14 items 1 and 5): RULES.md rule 4
(`parent-ref-one-to-squillions`) fires for a one-to-many only when its bound is above REFARRAY_MAX (2,000 ids) or
it grows without bound, and its message then says that reason in the user's cardinality's words."""

from __future__ import annotations

from typing import Any

import pytest
from test_cases import build

from modeller.rules import analyse


def _authors(max_posts: int | None, growth: str | None = None) -> dict[str, Any]:
    rel: dict[str, Any] = {"id": "r", "one": "author", "many": "post", "cardinality": "one-to-many", "typical": 50}
    if max_posts is not None:
        rel["max"] = max_posts
    if growth is not None:
        rel["growth"] = growth
    return {
        "entities": [
            {"id": "author", "name": "Author", "fields": [{"name": "name", "type": "string"}]},
            {"id": "post", "name": "Post", "fields": [{"name": "slug", "type": "string"}]},
        ],
        "relationships": [rel],
        "queries": [{"id": "q", "entity": "post", "name": "post page", "filter": {"slug": "eq"}}],
    }


def _filed(data: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f.rule, f.message) for f in analyse(build(data)).findings if f.subject.id == "r"]


@pytest.mark.parametrize("max_posts", [None, 150, 2000])
def test_a_bounded_one_to_many_within_an_id_array_is_not_filed_as_squillions(max_posts: int | None) -> None:
    rules = [rule for rule, _ in _filed(_authors(max_posts))]
    assert rules and "parent-ref-one-to-squillions" not in rules


def test_more_ids_than_an_array_should_hold_is_rule_4_and_says_so() -> None:
    ((rule, message),) = _filed(_authors(5000))
    assert rule == "parent-ref-one-to-squillions"
    assert "the number of Posts per Author is up to 5,000" in message
    assert "more than the 2,000 ids an array should hold" in message


def test_unbounded_growth_is_rule_4() -> None:
    rules = [rule for rule, _ in _filed(_authors(None, growth="unbounded"))]
    assert rules == ["parent-ref-one-to-squillions"]
