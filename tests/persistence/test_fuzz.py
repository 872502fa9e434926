"""Fuzz the loader: whatever the bytes, it returns a Project or raises ProjectFileError.

Mutations of the sample files (and a small fixture): truncation, random
bytes and unicode, deleted and renamed keys, swapped types, huge strings and
numbers, NaN/Infinity, deep nesting, duplicated keys. A loaded project must
also save and load back to the same project, so a file that opens can
always be saved.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from persistence_fixtures import TINY

from modeller.model import Project
from modeller.persistence import ProjectFileError, dumps_project, loads_project

ROOT = Path(__file__).resolve().parents[2]
TEXTS = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "samples").glob("*.modeller.json"))]
TEXTS.append(json.dumps(TINY, indent=2) + "\n")
DOCS = [json.loads(t) for t in TEXTS]


def _all_keys(node: Any, out: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            out.add(key)
            _all_keys(value, out)
    elif isinstance(node, list):
        for value in node:
            _all_keys(value, out)
    return out


KEYS = sorted(_all_keys(DOCS, set()))
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


odd_text = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        ["", " ", "$x", "a.b", "\x00", "\ud800", "é😀", "</script>", "${x}", 'q"\\', "system.x", "x" * 300]
    ),
    st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=5).map(lambda s: s * 5000),
)
odd_numbers = st.one_of(
    st.integers(),
    st.integers(min_value=10**14, max_value=10**40),
    st.sampled_from([-1, 0, 1, 2**63, -(2**63), 10**15, 10**15 + 1, 10**4000]),
    st.floats(allow_nan=True, allow_infinity=True),
)
scalars = st.one_of(st.none(), st.booleans(), odd_numbers, odd_text)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def _slots(node: Any, out: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """Every (container, key/index) pair in the document."""
    if isinstance(node, dict):
        for key, value in node.items():
            out.append((node, key))
            _slots(value, out)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.append((node, i))
            _slots(value, out)
    return out


def _nest(value: Any, depth: int) -> Any:
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def _mutate(doc: Any, data: st.DataObject) -> Any:
    slots = _slots(doc, [])
    if not slots:
        return doc
    container, key = slots[data.draw(st.integers(0, len(slots) - 1))]
    action = data.draw(st.sampled_from(["delete", "rename", "replace", "nest", "wrap", "swap_type"]))
    if action == "delete":
        del container[key]
    elif action == "rename" and isinstance(container, dict):
        new = data.draw(st.sampled_from(KEYS) | odd_text)
        container[new] = container.pop(key)
    elif action == "replace":
        container[key] = data.draw(json_values)
    elif action == "nest":
        container[key] = _nest(container[key], data.draw(st.integers(1, 400)))
    elif action == "wrap":
        container[key] = [container[key]]
    else:
        value = container[key]
        swaps: dict[type, Any] = {str: 1, int: "1", float: True, bool: 1.0, list: {}, dict: [], type(None): 0}
        container[key] = swaps.get(type(value))
    return doc


def _check(text: str | bytes) -> None:
    try:
        project = loads_project(text, "fuzz.modeller.json")
    except ProjectFileError as exc:
        message = str(exc)
        assert message.startswith("fuzz.modeller.json")
        assert exc.problems and all(p.problem for p in exc.problems)
        assert "Traceback" not in message and "pydantic" not in message.lower()
        return
    assert isinstance(project, Project)
    saved = dumps_project(project)
    assert loads_project(saved) == project


@settings(SETTINGS, max_examples=1400)
@given(data=st.data())
def test_tree_mutations(data: st.DataObject) -> None:
    doc = copy.deepcopy(DOCS[data.draw(st.integers(0, len(DOCS) - 1))])
    for _ in range(data.draw(st.integers(1, 3))):
        doc = _mutate(doc, data)
    text = json.dumps(doc, indent=data.draw(st.sampled_from([None, 2])), ensure_ascii=data.draw(st.booleans()))
    _check(text)


@settings(SETTINGS, max_examples=1000)
@given(data=st.data())
def test_text_mutations(data: st.DataObject) -> None:
    raw = TEXTS[data.draw(st.integers(0, len(TEXTS) - 1))].encode("utf-8")
    action = data.draw(st.sampled_from(["truncate", "insert", "delete", "byte", "duplicate_key", "token"]))
    at = data.draw(st.integers(0, len(raw)))
    if action == "truncate":
        raw = raw[:at]
    elif action == "insert":
        raw = raw[:at] + data.draw(st.text(max_size=10)).encode("utf-8", "surrogatepass") + raw[at:]
    elif action == "delete":
        raw = raw[:at] + raw[at + data.draw(st.integers(1, 50)) :]
    elif action == "byte":
        raw = raw[:at] + bytes([data.draw(st.integers(0, 255))]) + raw[at + 1 :]
    elif action == "duplicate_key":
        raw = raw.replace(b'"name": ', b'"name": "dup", "name": ', 1)
    else:
        token = data.draw(st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b"1e999", b"9" * 5000, b"[" * 300]))
        raw = raw.replace(b"1", token, 1) if data.draw(st.booleans()) else raw[:at] + token + raw[at:]
    _check(raw)
