"""The one neutralizer and the one truncation helper that every echo of user text goes through."""

from __future__ import annotations

import pytest

from modeller.model.text import MESSAGE_LIMIT, is_neutral, neutralize, shorten, shown


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("\x1b[2J", "\\x1b[2J"),
        ("a\nb\rc\td", "a\\nb\\rc\\td"),
        ("\x00\x07\x7f\x85\x9b", "\\x00\\x07\\x7f\\x85\\x9b"),
        ("\u202eabc\u202c", "\\u202eabc\\u202c"),
        ("\u2066\u2067\u2068\u2069\u200e\u200f\u061c", "\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c"),
        ("line\u2028para\u2029", "line\\u2028para\\u2029"),
        ("lone \ud800", "lone \\ud800"),
    ],
)
def test_controls_bidi_and_separators_become_visible_escapes(raw: str, escaped: str) -> None:
    assert neutralize(raw) == escaped
    assert is_neutral(neutralize(raw)) and not is_neutral(raw)


def test_printable_text_of_every_script_is_kept_as_typed() -> None:
    text = "Résumé 顧客 مرحبا 😀 a\u00a0b zero\u200dwidth-joiner `<b>` \\x1b"
    assert neutralize(text) is text  # no copy when nothing needs escaping


def test_newlines_kept_only_when_asked() -> None:
    assert neutralize("a\nb\x1b", keep_newlines=True) == "a\nb\\x1b"
    assert neutralize("a\r\nb", keep_newlines=True) == "a\\r\nb"
    assert neutralize(None) == "" and neutralize(42) == "42"


def test_shorten_cuts_long_text_and_says_how_much() -> None:
    assert shorten("abc", 5) == "abc"
    assert shorten("x" * 10_000_000, 20) == "x" * 20 + "... (9,999,980 more characters)"
    assert len(shown("\x1b" * 10_000_000)) < 5 * MESSAGE_LIMIT
    assert shown("\x1b" * 3) == "\\x1b\\x1b\\x1b"
