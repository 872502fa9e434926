"""Counts and articles in user text: "1 finding", "2 findings", "an email", "a User"."""

from __future__ import annotations

import pytest

from modeller.model.wording import article, counted, duration, with_article


def test_counted_says_one_in_the_singular_and_every_other_number_in_the_plural() -> None:
    assert counted(1, "finding") == "1 finding"
    assert counted(0, "finding") == "0 findings"
    assert counted(2, "finding") == "2 findings"
    assert counted(1, "entity", "entities") == "1 entity"
    assert counted(12_345, "entity", "entities") == "12,345 entities"


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("email", "an"),
        ("ipaddr", "an"),
        ("Order", "an"),
        ("item", "an"),
        ("User", "a"),
        ("unique_key", "a"),
        ("unit", "a"),
        ("update", "an"),
        ("unusual", "an"),
        ("umbrella", "an"),
        ("url", "a"),
        ("URL", "a"),
        ("SKU", "an"),
        ("ID", "an"),
        ("hour", "an"),
        ("host", "a"),
        ("one", "a"),
        ("European", "a"),
        ("slug", "a"),
        ("_id", "an"),
        ("8", "an"),
        ("18", "an"),
        ("1", "a"),
        ("", "a"),
    ],
)
def test_the_article_follows_the_sound_of_the_word(word: str, expected: str) -> None:
    assert article(word) == expected


def test_with_article_keeps_the_word_as_written() -> None:
    assert with_article("email") == "an email"
    assert with_article("Order item") == "an Order item"
    assert with_article("catalog_number") == "a catalog_number"


def test_duration_says_a_period_in_the_largest_unit_it_fills() -> None:
    assert duration(7_776_000) == "90 days"
    assert duration(86_400) == "1 day"
    assert duration(7_200) == "2 hours"
    assert duration(600) == "10 minutes"
    assert duration(10) == "10 seconds"
    assert duration(1) == "1 second"
    assert duration(0) == "0 seconds"
    assert duration(129_600) == "1.5 days"
