"""What a rule sees (``RuleView``) and how the engine walks the subjects for it.

Each test compares the engine's way with the plain computation it stands for.
"""

from __future__ import annotations

import sys
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

import pytest

from benchmarks.generate import generate_project
from modeller.rules.catalog import load_rules
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import Finding
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.framework.rule import Rule
from modeller.rules.physical.facts import ContextCache, build_context
from modeller.rules.physical.resolver import ResolveCache, resolve
from modeller.rules.settings import DEFAULT_SETTINGS

load_rules()
PROJECT = generate_project(60, seed=4)
FACTS = build_context(PROJECT, DEFAULT_SETTINGS, ContextCache())
DESIGN, RES = resolve(FACTS, REGISTRY.deciders(), ResolveCache())


def fresh() -> RuleView:
    return RuleView.of(FACTS, DESIGN, RES)


def eager_inverse(ctx: RuleView, entity_id: str) -> dict[str, str]:
    """The physical -> logical map built in full (what ``logical_keys`` used to build for every entity)."""
    inverse: dict[str, str] = {}
    for name, route in RES.builder.routes.get(entity_id, {}).items():
        if route.only is not None:
            for sub, phys in route.only.items():
                inverse.setdefault(phys, f"{name}.{sub}")
        elif route.entity is None:
            inverse.setdefault(route.path, name)
    for path in FACTS.fields_of.get(entity_id, {}):
        physical = RES.resolve_path(entity_id, path)
        if physical is not None:
            inverse.setdefault(physical, path)
    return inverse


def test_logical_keys_equal_the_eager_inverse_for_every_index_key() -> None:
    ctx = fresh()
    checked = 0
    for coll in DESIGN.collections:
        for entity_id in coll.entities:
            inverse = eager_inverse(ctx, entity_id)
            for idx in coll.indexes:
                want = [(inverse[k], v) for k, v in idx.keys] if all(k in inverse for k, _ in idx.keys) else None
                assert ctx.logical_keys(entity_id, idx.keys) == want
                checked += want is not None
            # every physical path maps back, asked in reverse order (late pairs first, then early ones)
            for physical in reversed(list(inverse)):
                assert ctx.logical_keys(entity_id, [(physical, 1)]) == [(inverse[physical], 1)]
    assert checked > 50


def test_logical_keys_unknown_key_is_none_and_later_lookups_still_work() -> None:
    ctx = fresh()
    coll = next(c for c in DESIGN.collections if c.indexes)
    entity_id = coll.root
    assert ctx.logical_keys(entity_id, [("no_such_path", 1)]) is None
    inverse = eager_inverse(ctx, entity_id)
    first = next(iter(inverse))
    assert ctx.logical_keys(entity_id, [(first, -1)]) == [(inverse[first], -1)]
    assert ctx.logical_keys("no-such-entity", [("_id", 1)]) is None


def test_the_view_is_read_only() -> None:
    view = fresh()
    with pytest.raises(FrozenInstanceError):
        view.design = DESIGN  # type: ignore[misc]
    assert view.collection_of(DESIGN.collections[0].root) is DESIGN.collections[0]
    assert view.rel_design(DESIGN.relationships[0].id) is DESIGN.relationships[0]


def by_hand(view: RuleView) -> list[Finding]:
    """Every rule's hooks on every subject it asks for, in the plainest way: what the engine must yield."""
    out: list[Finding] = []
    for rule_cls in REGISTRY:
        rule = rule_cls()
        for facts in view.facts.rels:
            wanted = rule_cls.relationships
            if wanted is None or wanted[0](view, facts) == wanted[1]:
                out.extend(rule.check_relationship(view, facts))
        for coll in view.design.collections:
            out.extend(rule.check_collection(view, coll))
        for q in view.facts.queries:
            out.extend(rule.check_query(view, q))
        for entity in view.project.entities:
            out.extend(rule.check_entity(view, entity))
        out.extend(rule.check_model(view))
    return out


def test_the_engine_yields_what_every_hook_yields_on_every_subject() -> None:
    from modeller.rules import analyse
    from modeller.rules.engine import _sort_key, _subject_order
    from modeller.rules.physical.naming import collection_name

    want = by_hand(fresh())
    got = analyse(PROJECT).reported
    assert len(got) > 100 and sum(f.overridden for f in got) > 5
    # (the engine marks the findings the user overrode; the hooks never do)
    plain = [replace(f, overridden=False, note=None) for f in got]
    assert sorted(map(repr, plain)) == sorted(map(repr, want))
    # and sorted by the subject's place in the project, severity, rule, subject and message
    order = _subject_order(PROJECT, tuple(map(collection_name, PROJECT.entities)))
    keys = [_sort_key(order, f) for f in got]
    assert keys == sorted(keys)
    # a rule that declares ``relationships`` is asked about those relationships only
    selective = [r for r in REGISTRY if r.relationships is not None]
    assert len(selective) >= 10 and all(r.check_relationship is not Rule.check_relationship for r in selective)


def test_override_equals_dataclasses_replace() -> None:
    from dataclasses import replace

    from modeller.model.project import Decision
    from modeller.rules.engine import _override
    from modeller.rules.framework.findings import Finding, SubjectRef

    f = Finding("rule-a", "warning", SubjectRef("relationship", "r1"), "m", "w", "t", "ref", None, {"n": 1})
    g = Finding("rule-b", "info", SubjectRef("entity", "e1"), "m2", "w", "t", "ref")
    decision = Decision.model_validate({"strategy": "embed", "note": "kept on purpose"})
    overrides = {("rule-b", "entity", "e1"): "why not", ("rule-a", "relationship", "r9"): ""}
    assert _override(f, {}, {}) is f
    assert _override(g, overrides, {}) == replace(g, overridden=True, note="why not")
    assert _override(f, overrides, {"r1": decision}) == replace(f, overridden=True, note="kept on purpose")
    assert _override(f, {("rule-a", "relationship", "r1"): ""}, {"r1": decision}) == replace(
        f, overridden=True, note=None
    )
    assert _override(g, {}, {"r1": decision}) is g
    assert _override(f, overrides, {}) is f


def test_query_index_matches_the_collections() -> None:
    from modeller.rules.catalog.indexes import _model_indexes, _query_index

    ctx = fresh()
    found = 0
    for qid, (coll_name, index_name) in RES.query_index.items():
        coll = ctx.collection(coll_name)
        got = _query_index(ctx, qid)
        want = next((i for i in coll.indexes if i.name == index_name), None) if coll is not None else None
        if want is None:
            assert got is None
            continue
        assert got is not None and got[0] is coll and got[1] is want and got[2] == _model_indexes(coll)
        found += 1
    assert found > 10


def test_overrides_reach_findings_of_every_subject_kind() -> None:
    from modeller.model.project import Override
    from modeller.rules import analyse

    plain = analyse(PROJECT).findings
    picked = {}
    for f in plain:
        picked.setdefault(f.subject.kind, f)
    assert {"entity", "relationship", "query"} <= set(picked)
    overrides = [
        Override.model_validate({"rule": f.rule, "subject": {"kind": f.subject.kind, "id": f.subject.id}, "note": k})
        for k, f in picked.items()
    ]
    findings = analyse(PROJECT.model_copy(update={"overrides": [*PROJECT.overrides, *overrides]})).findings
    chosen = {(f.rule, f.subject.kind, f.subject.id): k for k, f in picked.items()}
    assert len(findings) == len(plain)
    for before, after in zip(plain, findings, strict=True):
        note = chosen.get((before.rule, before.subject.kind, before.subject.id))
        decided = before.subject.kind == "relationship" and any(
            r.id == before.subject.id and r.decision is not None for r in PROJECT.relationships
        )
        assert after.overridden == (note is not None or decided or before.overridden)
        if note is not None:
            assert after.note == note
        assert (after.rule, after.subject, after.message) == (before.rule, before.subject, before.message)
