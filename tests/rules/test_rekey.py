"""``_rekey``: a global rule's unchanged finding that moved in the rule's run gets its new key in place."""

from __future__ import annotations

from modeller.rules.engine import _rekey
from modeller.rules.framework.findings import Finding, SubjectRef


def _finding(message: str) -> Finding:
    return Finding("excessive-lookup", "info", SubjectRef("query", "q"), message, "why", "tradeoff", "reference")


def test_rekey_in_place_when_no_key_lies_between() -> None:
    a, b, c = _finding("a"), _finding("b"), _finding("c")
    keys = [((2, 0), "a", "q", 0, 0), ((2, 1), "b", "q", 1, 1), ((2, 2), "c", "q", 2, 2)]
    finds = [a, b, c]
    new = ((2, 1), "b", "q", 1, 5)  # the same finding, yielded later in the run
    assert _rekey(keys, finds, keys[1], b, new)
    assert keys == [((2, 0), "a", "q", 0, 0), new, ((2, 2), "c", "q", 2, 2)]
    assert finds == [a, b, c]


def test_rekey_refuses_when_the_finding_must_move() -> None:
    a, b, c = _finding("a"), _finding("b"), _finding("c")
    keys = [((2, 1), "a", "q", 0, 0), ((2, 1), "a", "q", 0, 1), ((2, 1), "a", "q", 0, 2)]
    finds = [a, b, c]
    before = list(keys)
    # the new key sorts after c's: b must leave its place, the lists stay as they were
    assert not _rekey(keys, finds, keys[1], b, ((2, 1), "a", "q", 0, 3))
    assert keys == before and finds == [a, b, c]
    # and before a's
    assert not _rekey(keys, finds, keys[1], b, ((2, 1), "a", "q", 0, -1))
    assert keys == before


def test_rekey_finds_the_finding_by_identity_among_equal_keys() -> None:
    a, b = _finding("x"), _finding("x")
    keys = [((1,), "x", 0), ((1,), "x", 2)]
    finds = [a, b]
    assert _rekey(keys, finds, keys[1], b, ((1,), "x", 1))
    assert keys == [((1,), "x", 0), ((1,), "x", 1)] and finds[1] is b
