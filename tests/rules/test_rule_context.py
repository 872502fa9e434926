"""What ``RuleContext`` shares between rules: iteration items, the lazy key inverse, the engine's bookkeeping.

These mechanisms exist for speed; each test compares them with the plain
computation they replace.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.rules.catalog import load_rules
from modeller.rules.engine import _drop
from modeller.rules.framework.context import RuleContext
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.framework.rule import base_rule_of, cardinality_of, has_copies, recommended_of, strategy_of
from modeller.rules.physical.facts import ContextCache, build_context
from modeller.rules.physical.resolver import ResolveCache, resolve
from modeller.rules.settings import DEFAULT_SETTINGS

load_rules()
PROJECT = generate_project(60, seed=4)
FACTS = build_context(PROJECT, DEFAULT_SETTINGS, ContextCache())
DESIGN, RES = resolve(FACTS, REGISTRY.deciders(), ResolveCache())


def fresh() -> RuleContext:
    return RuleContext(FACTS, DESIGN, RES)


def eager_inverse(ctx: RuleContext, entity_id: str) -> dict[str, str]:
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


def test_each_rel_walks_only_rels_with_their_current_subject() -> None:
    ctx = fresh()
    every = list(enumerate(FACTS.rels))
    ctx.only_rels = every[3:9:2]
    seen = []
    for facts in ctx.each_rel():
        seen.append((ctx.current, facts))
    assert seen == [(("r", f.rel.id, i), f) for i, f in every[3:9:2]]
    # the same list again: the same items; another list: its own items
    assert ctx.rel_items() is ctx.rel_items()
    ctx.only_rels = every[:2]
    assert [c for c, _ in ctx.rel_items()] == [("r", f.rel.id, i) for i, f in every[:2]]
    ctx.only_rels = None
    assert [f for _, f in ctx.rel_items()] == FACTS.rels


def test_each_collection_and_query_follow_only_lists() -> None:
    ctx = fresh()
    colls = list(enumerate(DESIGN.collections))
    ctx.only_collections = colls[-3:]
    assert [(ctx.current, c) for c in ctx.each_collection()] == [(("c", c.name, i), c) for i, c in colls[-3:]]
    queries = list(enumerate(FACTS.queries))
    ctx.query_producers = [f"n{i}" for i in range(len(queries))]
    ctx.only_queries = queries[1:4]
    assert [(ctx.current, q) for q in ctx.each_query()] == [(("q", f"n{i}", i), q) for i, q in queries[1:4]]
    ctx.only_queries = None
    assert [ctx.current[1] for _ in ctx.each_query()] == ctx.query_producers


def test_drop_removes_dirty_producers_and_keeps_the_order_of_the_rest() -> None:
    for dirty in ({("r", "b")}, {("r", "b"), ("c", "x"), ("q", "y"), ("g", ""), ("r", "z")}):
        kept: dict[tuple[str, str], object] = {("r", "a"): 1, ("r", "b"): 2, ("c", "x"): 3, ("q", "q1"): 4}
        _drop(kept, dirty)  # type: ignore[arg-type]
        assert list(kept.items()) == [
            (p, v) for p, v in [(("r", "a"), 1), (("r", "b"), 2), (("c", "x"), 3), (("q", "q1"), 4)] if p not in dirty
        ]


def test_each_rel_where_is_each_rel_filtered_in_order_with_current_set() -> None:
    ctx = fresh()
    every = list(enumerate(FACTS.rels))
    for key in (strategy_of, base_rule_of, recommended_of, has_copies, cardinality_of):
        values = {key(ctx, f) for f in FACTS.rels}
        assert len(values) > 1, key  # the generated model has several groups for each key
        for value in values:
            got = [(ctx.current, f) for f in ctx.each_rel_where(key, value)]
            assert got == [(("r", f.rel.id, i), f) for i, f in every if key(ctx, f) == value]
    assert list(ctx.each_rel_where(strategy_of, "no such strategy")) == []


def test_each_rel_where_follows_a_new_only_rels_list() -> None:
    ctx = fresh()
    every = list(enumerate(FACTS.rels))
    embedded = [f for f in ctx.each_rel_where(strategy_of, "embed")]
    assert embedded
    ctx.only_rels = [item for item in every if item[1] is not embedded[0]]
    assert [f for f in ctx.each_rel_where(strategy_of, "embed")] == embedded[1:]
    ctx.only_rels = []
    assert list(ctx.each_rel_where(strategy_of, "embed")) == []
    ctx.only_rels = None
    assert [f for f in ctx.each_rel_where(strategy_of, "embed")] == embedded


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


def test_run_rules_keys_are_the_sort_keys_of_their_findings() -> None:
    from modeller.rules.engine import _run_rules, _sort_key, _State

    state = _State((), PROJECT, ContextCache(), ResolveCache(), {}, {}, (), ())
    findings = _run_rules(RuleContext(FACTS, DESIGN, RES, memo=state.memo), state)
    assert len(findings) > 100 and findings == state.finds
    assert [k[:5] for k in state.keys] == [_sort_key(state.order, f) for f in findings]
    assert state.keys == sorted(state.keys)


def test_query_index_memo_matches_the_collections() -> None:
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
