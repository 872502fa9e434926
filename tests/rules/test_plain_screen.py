"""``plain`` writes source keys as names; its quick screen never lets a key through unwritten."""

from __future__ import annotations

from modeller.rules.framework.references import _BARE, SOURCES, name_of, plain


def test_every_key_is_written_as_its_name_bracketed_and_bare() -> None:
    for key in SOURCES:
        text = f"see [{key}] for the limit"
        assert plain(text) == f"see {name_of(key)} for the limit", key
    for key in _BARE:
        text = f"as {key} says"
        assert plain(text) == f"as {name_of(key)} says", key


def test_a_text_without_keys_is_returned_as_it_is() -> None:
    text = "Order 7 embeds its line-items: one-to-many, parent-ref for Customer 12"
    assert plain(text) is text
