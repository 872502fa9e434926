"""``plain`` writes source keys as names; its quick screen never lets a key through unwritten."""

from __future__ import annotations

import random
import re

from modeller.rules.framework.references import _BARE, _HINTS, _KEYS, _SCREEN, SOURCES, _named, name_of, plain


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


def test_the_first_character_lookahead_changes_no_match() -> None:
    """``_KEYS`` starts with a lookahead of the characters a match can begin with (speed only): on texts mixing
    keys, articles, brackets and "seed", it writes exactly what the pattern without it writes."""
    lookahead = re.match(r"\(\?=\[[^]]*\]\)", _KEYS.pattern)
    assert lookahead is not None
    without = re.compile(_KEYS.pattern[lookahead.end() :])
    pieces = [*SOURCES, *_BARE, "the ", "The ", "[", "]", " seed", "Manual-x", "AP-", "x", " ", "é", "\n", "-", "."]
    rng = random.Random(16)
    texts = ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) for _ in range(3000)]
    changed = 0
    for text in texts:
        expected = without.sub(_named, text)
        assert _KEYS.sub(_named, text) == expected, text
        changed += expected != text
    assert changed > 300  # the texts do hold keys (588 with this seed)


def test_every_screen_part_holds_a_hint() -> None:
    """The quick hints let through every text the screen pattern would (each of its parts holds one), and the
    dashes of everyday words are no hint."""
    for part in _SCREEN:
        assert any(hint in part for hint in _HINTS), part
    for key in SOURCES:
        assert any(hint in f"[{key}]" for hint in _HINTS), key
    assert not any(hint in "one-to-many, parent-ref, fixed-size, sub-document" for hint in _HINTS)


def test_the_hints_change_no_text() -> None:
    """On random texts of keys, names and dashes, ``plain`` writes what the screen pattern alone gives."""
    from modeller.rules.framework.references import _SCREEN_RE

    pieces = [*SOURCES, *_BARE, "the ", "[", "]", "Post", "User", "one-to-many", "a-", "P", "-", " ", "Univ", "C", "N"]
    rng = random.Random(9)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 10)))
        expected = text if _SCREEN_RE.search(text) is None else _KEYS.sub(_named, text)
        assert plain.__wrapped__(text) == expected, text
