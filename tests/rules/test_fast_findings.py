"""``new_finding``/``new_subject`` build exactly what the dataclass constructors build (the engine's hot path)."""

from __future__ import annotations

import copy
import pickle
from dataclasses import FrozenInstanceError, fields, replace

import pytest

from modeller.rules.framework.findings import Change, Finding, Fix, SubjectRef, new_finding, new_subject


def test_new_subject_equals_subjectref() -> None:
    ref = new_subject("entity", "orders.items")
    assert type(ref) is SubjectRef
    assert ref == SubjectRef("entity", "orders.items") and hash(ref) == hash(SubjectRef("entity", "orders.items"))
    assert repr(ref) == "SubjectRef(kind='entity', id='orders.items')"
    assert ref.to_json() == {"kind": "entity", "id": "orders.items"}
    with pytest.raises(FrozenInstanceError):
        ref.id = "x"  # type: ignore[misc]


def test_new_finding_sets_every_field_like_the_constructor() -> None:
    fix = Fix("do it", (Change("set", SubjectRef("relationship", "r1"), "strategy", "embed"),))
    args = ("rule-x", "warning", new_subject("relationship", "r1"), "msg", "why", "trade", "ref", fix, {"n": 2})
    fast, slow = new_finding(*args), Finding(*args)  # type: ignore[arg-type]
    assert type(fast) is Finding
    # every field of the dataclass is set, with the constructor's defaults for the ones not passed
    assert [getattr(fast, f.name) for f in fields(Finding)] == [getattr(slow, f.name) for f in fields(Finding)]
    assert [f.name for f in fields(Finding)][-2:] == ["overridden", "note"]
    assert fast.overridden is False and fast.note is None
    assert fast == slow and repr(fast) == repr(slow) and fast.to_json() == slow.to_json()
    assert replace(fast, overridden=True, note="n") == replace(slow, overridden=True, note="n")
    assert copy.deepcopy(fast) == slow and pickle.loads(pickle.dumps(fast)) == slow
    with pytest.raises(FrozenInstanceError):
        fast.message = "other"  # type: ignore[misc]


def test_new_finding_without_fix_and_with_empty_numbers() -> None:
    subject = SubjectRef("query", "q1")
    fast = new_finding("r", "info", subject, "m", "w", "t", "ref", None, {})
    assert fast == Finding("r", "info", subject, "m", "w", "t", "ref")
    assert fast.to_json()["fix"] is None and fast.numbers == {}


def test_new_fix_equals_a_one_change_fix() -> None:
    from modeller.rules.framework.findings import new_fix

    subject = SubjectRef("entity", "e1")
    value = {"keys": [["a", 1]]}
    fast = new_fix("add the index", "append", subject, "indexes", value)
    slow = Fix("add the index", (Change("append", subject, "indexes", value),))
    assert type(fast) is Fix and type(fast.changes[0]) is Change
    assert fast == slow and repr(fast) == repr(slow) and fast.to_json() == slow.to_json()
    assert fast.changes[0].value is value
    with pytest.raises(FrozenInstanceError):
        fast.changes[0].key = "x"  # type: ignore[misc]
