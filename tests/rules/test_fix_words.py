"""A fix says what the documents will hold, in the user's entity names, never a strategy or rule id (tryout
a15: "set the strategy to parent-ref (parent-ref-one-to-squillions)")."""

from __future__ import annotations

import pytest

import modeller.rules  # noqa: F401  (registers the catalog)
from modeller.model.vocabulary import STRATEGIES
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.framework.rule import set_strategy, strategy_words


@pytest.mark.parametrize("strategy", [s for s in STRATEGIES if s != "auto"])
@pytest.mark.parametrize("cardinality", ["one-to-one", "one-to-many", "many-to-many"])
def test_every_strategy_is_said_with_the_entities_and_no_id(strategy: str, cardinality: str) -> None:
    words = strategy_words(strategy, "Product", "Review", "Reviews", cardinality)
    assert "Product" in words and "Review" in words, words
    assert strategy not in words or "-" not in strategy, words
    assert len(REGISTRY) > 40 and not [rule.id for rule in REGISTRY if rule.id in words], words


def test_the_words_follow_the_cardinality() -> None:
    assert strategy_words("parent-ref", "Group", "User", "Users", "many-to-many") == (
        "keep an array of Group ids in each User"
    )
    assert strategy_words("parent-ref", "Product", "Review", "Reviews", "one-to-many") == (
        "keep a reference to the Product in each Review"
    )
    assert strategy_words("two-way", "Person", "Task", "Tasks", "one-to-many") == (
        "keep an array of Task ids in each Person and a reference to the Person in each Task"
    )
    assert strategy_words("embed", "User", "Profile", "Profiles", "one-to-one") == "embed the Profile in its User"
    assert strategy_words("embed", "Person", "Address", "Addresses", "one-to-few") == (
        "embed the Addresses in their Person"
    )


def test_a_strategy_fix_without_the_relationship_names_nothing() -> None:
    """Without the relationship's facts or the caller's words a fix could only say "the One in each N": refused."""
    with pytest.raises(TypeError, match="facts="):
        set_strategy("r1", "embed")
    assert set_strategy("r1", "embed", words="keep each Review in its Product").description == (
        "keep each Review in its Product"
    )
