"""``analyse(project) -> Analysis``: the resolver, then every registered rule.

Pure and deterministic: no I/O, no clock, no randomness; findings are sorted
by the subject's position in the project, then severity (most severe first),
then rule id, so the GUI and ``modeller check`` list them the same way.
"""

from __future__ import annotations

import bisect
import gc
import operator
import threading
from dataclasses import dataclass, field
from typing import Any

from modeller.model.project import Project, Query
from modeller.rules.catalog import load_rules
from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.context import RuleContext
from modeller.rules.framework.findings import SEVERITY_RANK, Finding
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.incremental.patch import Patched, Previous, patch
from modeller.rules.physical.design import CollectionDesign
from modeller.rules.physical.facts import ContextCache, RelFacts, build_context
from modeller.rules.physical.naming import collection_name
from modeller.rules.physical.resolver import ResolveCache, resolve
from modeller.rules.settings import DEFAULT_SETTINGS, Settings


def analyse(project: Project, settings: Settings | None = None) -> Analysis:
    """Findings and the resolved physical design of ``project`` (a pure function: nothing is kept)."""
    return Analyser(settings).analyse(project)


#: one producer of findings: (kind "r"/"c"/"q"/"g", subject id)
Producer = tuple[str, str]
#: a finding with its sort key (kept so a re-analysis does not rebuild keys of unchanged findings)
Keyed = tuple[tuple[Any, ...], Finding]


@dataclass(slots=True)
class _State:
    """What an :class:`Analyser` keeps from its last analysis."""

    token: tuple[Any, ...]
    #: the project of the last analysis (immutable: its objects are what the caches were computed from)
    last: Project
    ctx_cache: ContextCache
    resolve_cache: ResolveCache
    #: producer -> the objects its findings were computed from
    producer_keys: dict[Producer, tuple[Any, ...]]
    #: rule id -> producer -> (raw keyed findings, keyed findings after overrides)
    findings: dict[str, dict[Producer, tuple[list[Keyed], list[Keyed]]]]
    order_token: tuple[Any, ...]
    override_token: tuple[Any, ...]
    order: dict[tuple[str, str], tuple[int, ...]] = field(default_factory=dict)
    #: the last analysis' context and design (patched in place after a small edit)
    prev: Previous | None = None
    #: every finding of the last analysis, sorted: keys and findings side by side
    keys: list[tuple[Any, ...]] = field(default_factory=list)
    finds: list[Finding] = field(default_factory=list)
    overrides: dict[tuple[str, str, str], str] = field(default_factory=dict)
    decisions: dict[str, Any] = field(default_factory=dict)
    #: what global rules keep between analyses (``RuleContext.memo``)
    memo: dict[str, Any] = field(default_factory=dict)


class Analyser:
    """``analyse`` that reuses the work of its previous call for the parts of the model that did not change.

    The GUI replaces edited model objects with new ones and keeps the others,
    so every per-entity, per-relationship, per-collection and per-rule result
    is keyed on the identity of the objects it was computed from. When only a
    few entities/relationships were replaced (same ids, no regrouping of
    collections), the last context and design are patched in place and only
    the subjects that read the replaced objects are re-checked
    (``modeller.rules.incremental.patch``); otherwise the whole model is walked with those
    identity caches. Identity is enough because model objects are immutable
    (``modeller.model.frozen``): an object that is still the same object has
    the same content. The result always equals ``analyse(project)``
    (``tests/rules/test_incremental.py``).
    Thread-safe: calls are serialized.
    """

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or DEFAULT_SETTINGS
        self._state: _State | None = None
        self._lock = threading.Lock()
        #: what the last call reused: "full" (nothing) or "incremental"
        self.last_mode = "full"
        #: the last call patched the previous analysis (a small edit) instead of a whole-model pass
        self.last_patched = False

    def reset(self) -> None:
        """Forget everything (the next call is a full analysis)."""
        with self._lock:
            self._state = None

    def analyse(self, project: Project) -> Analysis:
        load_rules()
        # speed only, for DESIGN.md's "cold analysis near 250 ms at 1,000 entities" (bench_analyse: 2.2x CPU without)
        with self._lock:
            gc_was_enabled = gc.isenabled()
            gc.disable()
            try:
                return self._analyse(project)
            except BaseException:
                self._state = None  # a patch may have been half applied: start afresh next time
                raise
            finally:
                if gc_was_enabled:
                    gc.enable()

    def _analyse(self, project: Project) -> Analysis:
        settings = self.settings
        token = (settings, project.server_version, project.database)
        state = self._state
        if state is not None and not _same_token(state.token, token):
            state = None
        if state is not None and state.prev is not None and _overrides(project) == state.overrides:
            patched = patch(state.prev, state.last, project, state.ctx_cache, state.resolve_cache, REGISTRY.deciders())
            if patched is not None:
                state.last = project
                self.last_mode, self.last_patched = "incremental", True
                prev = state.prev
                rctx = RuleContext(
                    patched.ctx,
                    patched.design,
                    patched.res,
                    _collections=prev.coll_by_name,
                    _rel_designs=prev.rel_design_by_id,
                    memo=state.memo,
                )
                return Analysis(findings=_rerun_rules(rctx, state, patched), design=patched.design)
        self.last_patched = False
        self.last_mode = "full" if state is None else "incremental"
        if state is None:
            state = _State(token, project, ContextCache(), ResolveCache(), {}, {}, (), ())
        facts = build_context(project, settings, state.ctx_cache)
        design, res = resolve(facts, REGISTRY.deciders(), state.resolve_cache)
        rctx = RuleContext(facts, design, res, memo=state.memo)
        findings = _run_rules(rctx, state)
        state.token, state.last = token, project
        state.prev = Previous.of(facts, design, res)
        self._state = state
        return Analysis(findings=findings, design=design)


def _same_token(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    return all(map(operator.is_, a, b)) or a == b


def _overrides(project: Project) -> dict[tuple[str, str, str], str]:
    return {(o.rule, o.subject.kind, o.subject.id): o.note for o in project.overrides}


def _run_rules(rctx: RuleContext, state: _State) -> list[Finding]:
    """Every rule on the subjects whose inputs changed; the other subjects keep their findings."""
    facts, design, res = rctx.facts, rctx.design, rctx.res
    project = facts.project
    # ----- which subjects changed -----
    keys: dict[Producer, tuple[Any, ...]] = {}
    dirty_rels: list[tuple[int, RelFacts]] = []
    dirty_colls: list[tuple[int, CollectionDesign]] = []
    dirty_queries: list[tuple[int, Query]] = []
    old_keys = state.producer_keys
    for i, f in enumerate(facts.rels):
        rid = f.rel.id
        k = (rctx.rel_design(rid), *facts.queries_joining.get(rid, ()))
        p = ("r", rid)
        keys[p] = k
        old = old_keys.get(p)
        if old is None or len(old) != len(k) or not all(map(operator.is_, old, k)):
            dirty_rels.append((i, f))
    for i, coll in enumerate(design.collections):
        p = ("c", coll.name)
        k = (coll,)
        keys[p] = k
        old = old_keys.get(p)
        if old is None or old[0] is not coll:
            dirty_colls.append((i, coll))
    unit_of = res.unit_of
    names: list[str] = []
    seen: dict[str, int] = {}
    for q in facts.queries:
        n = seen[q.id] = seen.get(q.id, 0) + 1
        names.append(q.id if n == 1 else f"{q.id}\x00{n}")
    rctx.query_producers = names
    for i, q in enumerate(facts.queries):
        p = ("q", names[i])
        k = (q, unit_of.get(q.entity))
        keys[p] = k
        old = old_keys.get(p)
        # queries sharing an id share the resolver's per-id maps: always re-checked together
        if old is None or old[0] is not k[0] or old[1] is not k[1] or seen[q.id] > 1:
            dirty_queries.append((i, q))
    dirty: set[Producer] = set()
    if any(state.findings.values()):  # (a first analysis has no findings to forget)
        dirty.update(p for p in old_keys if p not in keys)  # gone
        dirty.update(("r", f.rel.id) for _, f in dirty_rels)
        dirty.update(("c", c.name) for _, c in dirty_colls)
        dirty.update(("q", names[i]) for i, _ in dirty_queries)
        dirty.add(("g", ""))  # findings a rule yields outside its loop over subjects
    # ----- sort keys and overrides depend on the order of subjects and on the overrides -----
    coll_names = tuple(map(collection_name, project.entities))
    order_token = (
        tuple(e.id for e in project.entities),
        coll_names,
        tuple(r.id for r in project.relationships),
        tuple(q.id for q in project.queries),
        tuple(c.name for c in design.collections),
        tuple(f.rel.id for f in facts.rels),
        tuple(q.id for q in facts.queries),
    )
    overrides = _overrides(project)
    decisions = {r.id: r.decision for r in project.relationships if r.decision is not None}
    override_token = (tuple(overrides.items()), tuple((k, v.note) for k, v in decisions.items()))
    rekey = order_token != state.order_token
    reapply = override_token != state.override_token
    order = state.order if not rekey and state.order else _subject_order(project, coll_names)
    state.order = order
    rctx.only_rels, rctx.only_collections, rctx.only_queries = dirty_rels, dirty_colls, dirty_queries
    plain = not overrides and not decisions
    # only these rules' findings, and relationship findings (decisions), can be overridden
    overridden_rules = {rule for rule, _, _ in overrides}
    out: list[Keyed] = []
    for rule_cls in REGISTRY:
        kept = state.findings.setdefault(rule_cls.id, {})
        is_global = rule_cls.scope == "global"
        if is_global:
            kept.clear()
        elif kept:
            _drop(kept, dirty)
        # what is left was computed by an earlier analysis: it follows the current order and overrides
        # (the findings made below are keyed and overridden with them already)
        if kept and (rekey or reapply):
            for raw, final in kept.values():
                if rekey:
                    raw[:] = [((*_sort_key(order, f), *k[-3:]), f) for k, f in raw]
                final[:] = [(k, _override(f, overrides, decisions)) for k, f in raw]
        rule = rule_cls()
        if is_global:
            rctx.only_rels = rctx.only_collections = rctx.only_queries = None
        rctx.current = ("g", "", 0)
        last: tuple[str, str, int] | None = None
        made: list[Keyed] = []
        shown: list[Keyed] = []
        kind, pos = "", 0
        for seq, f in enumerate(rule.check(rctx)):
            current = rctx.current
            if current is not last:
                # a subject's findings come one after another: one producer lookup per subject
                last = current
                kind, sid, pos = current
                entry = kept.get((kind, sid))
                if entry is None:
                    entry = kept[(kind, sid)] = ([], [])
                made, shown = entry
            # the key of _sort_key, inlined (thousands of findings): subject position, severity, rule, ...
            subject = f.subject
            where = order.get((subject.kind, subject.id))
            if where is None:
                where = _fallback(order, f)
            keyed = ((where, -SEVERITY_RANK[f.severity], f.rule, subject.id, f.message, kind, pos, seq), f)
            made.append(keyed)
            if plain or (subject.kind != "relationship" and f.rule not in overridden_rules):
                shown.append(keyed)
            else:
                shown.append((keyed[0], _override(f, overrides, decisions)))
        if is_global:
            rctx.only_rels, rctx.only_collections, rctx.only_queries = dirty_rels, dirty_colls, dirty_queries
        for _raw, final in kept.values():
            out.extend(final)
    out.sort(key=_first)
    state.producer_keys = keys
    state.order_token, state.override_token = order_token, override_token
    state.overrides, state.decisions = overrides, decisions
    state.keys = [k for k, _ in out]
    state.finds = [f for _, f in out]
    return list(state.finds)


def _rerun_rules(rctx: RuleContext, state: _State, patched: Patched) -> list[Finding]:
    """Every rule on the subjects a patch changed; their findings replace the old ones in the sorted list."""
    facts, res = rctx.facts, rctx.res
    dirty_rels, dirty_colls, dirty_queries = patched.dirty_rels, patched.dirty_colls, patched.dirty_queries
    keys = state.producer_keys
    for _, f in dirty_rels:
        rid = f.rel.id
        keys[("r", rid)] = (rctx.rel_design(rid), *facts.queries_joining.get(rid, ()))
    for _, coll in dirty_colls:
        keys[("c", coll.name)] = (coll,)
    for _, q in dirty_queries:
        keys[("q", q.id)] = (q, res.unit_of.get(q.entity))
    dirty: list[Producer] = [("r", f.rel.id) for _, f in dirty_rels]
    dirty.extend(("c", c.name) for _, c in dirty_colls)
    dirty.extend(("q", q.id) for _, q in dirty_queries)
    dirty.append(("g", ""))
    order, overrides, decisions = state.order, state.overrides, state.decisions
    sorted_keys, sorted_finds = state.keys, state.finds
    for rule_cls in REGISTRY:
        kept = state.findings.setdefault(rule_cls.id, {})
        before: dict[int, tuple[Finding, tuple[Any, ...], Finding]] = {}
        if rule_cls.scope == "global":
            # findings the rule yields again (same object, same key) stay where they are in the sorted list
            for raw, final in kept.values():
                for (key, was), (_, shown) in zip(raw, final, strict=True):
                    before[id(was)] = (was, key, shown)
            kept.clear()
            rctx.only_rels = rctx.only_collections = rctx.only_queries = None
        else:
            for p in dirty:
                entry = kept.pop(p, None)
                if entry is not None:
                    _remove(sorted_keys, sorted_finds, entry[1])
            rctx.only_rels, rctx.only_collections, rctx.only_queries = dirty_rels, dirty_colls, dirty_queries
        rule = rule_cls()
        rctx.current = ("g", "", 0)
        for seq, f in enumerate(rule.check(rctx)):
            kind, sid, pos = rctx.current
            entry = kept.get((kind, sid))
            if entry is None:
                entry = kept[(kind, sid)] = ([], [])
            same = before.pop(id(f), None) if before else None
            if same is not None:
                # the subject order is the same within a patch: the same finding at the same place keeps its key,
                # at another place of the run only the key's tail changes (often without moving in the list)
                _, old_key, shown = same
                if old_key[-1] == seq and old_key[-2] == pos and old_key[-3] == kind:
                    key = old_key
                else:
                    key = (*old_key[:-3], kind, pos, seq)
                if key is old_key or _rekey(sorted_keys, sorted_finds, old_key, shown, key):
                    entry[0].append((key, f))
                    entry[1].append((key, shown))
                    continue
                _remove(sorted_keys, sorted_finds, [(old_key, shown)])
            else:
                key = (*_sort_key(order, f), kind, pos, seq)
                shown = _override(f, overrides, decisions)
            entry[0].append((key, f))
            entry[1].append((key, shown))
            i = bisect.bisect_left(sorted_keys, key)
            sorted_keys.insert(i, key)
            sorted_finds.insert(i, shown)
        _remove(sorted_keys, sorted_finds, [(key, shown) for _, key, shown in before.values()])
    return list(sorted_finds)


def _rekey(
    sorted_keys: list[tuple[Any, ...]],
    sorted_finds: list[Finding],
    old: tuple[Any, ...],
    f: Finding,
    new: tuple[Any, ...],
) -> bool:
    """Give ``f`` the key ``new`` where it stands when no other key lies between ``old`` and ``new``
    (no list shift); False leaves the list as it was."""
    i = bisect.bisect_left(sorted_keys, old)
    while sorted_finds[i] is not f:
        i += 1
    if (i and not sorted_keys[i - 1] < new) or (i + 1 < len(sorted_keys) and not new < sorted_keys[i + 1]):
        return False
    sorted_keys[i] = new
    return True


def _remove(sorted_keys: list[tuple[Any, ...]], sorted_finds: list[Finding], items: list[Keyed]) -> None:
    """Take findings out of the sorted list (keys are unique per rule run; identity settles ties)."""
    for key, f in items:
        i = bisect.bisect_left(sorted_keys, key)
        while sorted_finds[i] is not f:
            i += 1
        del sorted_keys[i], sorted_finds[i]


def _drop(kept: dict[Producer, Any], dirty: set[Producer]) -> None:
    """Forget the findings of the dirty producers, walking the smaller of the two."""
    if len(dirty) <= len(kept):
        for p in dirty:
            kept.pop(p, None)
    else:
        for p in [p for p in kept if p in dirty]:
            del kept[p]


def _first(item: Keyed) -> tuple[Any, ...]:
    return item[0]


def _sort_key(order: dict[tuple[str, str], tuple[int, ...]], f: Finding) -> tuple[Any, ...]:
    """By the subject's position in the project, most severe first, then rule id, subject id and message."""
    subject = f.subject
    pos = order.get((subject.kind, subject.id))
    if pos is None:
        pos = _fallback(order, f)
    return (pos, -SEVERITY_RANK[f.severity], f.rule, subject.id, f.message)


def _override(f: Finding, overrides: dict[tuple[str, str, str], str], decisions: dict[str, Any]) -> Finding:
    if not overrides and not decisions:
        return f
    subject = f.subject
    key = (f.rule, subject.kind, subject.id)
    if key in overrides:
        note = overrides[key]
    elif subject.kind == "relationship" and subject.id in decisions:
        note = decisions[subject.id].note
    else:
        return f
    # what dataclasses.replace(f, overridden=True, note=...) builds, without its per-field introspection
    return Finding(
        f.rule, f.severity, subject, f.message, f.why, f.tradeoff, f.reference, f.fix, f.numbers, True, note or None
    )


def _subject_order(project: Project, coll_names: tuple[str, ...]) -> dict[tuple[str, str], tuple[int, ...]]:
    """Position of every subject; ``coll_names`` are the entities' collection names, in entity order."""
    order: dict[tuple[str, str], tuple[int, ...]] = {}
    for i, e in enumerate(project.entities):
        order.setdefault(("entity", e.id), (0, i, 0))
        order.setdefault(("collection", coll_names[i]), (0, i, 1))
    for j, r in enumerate(project.relationships):
        order.setdefault(("relationship", r.id), (1, j))
    for k, q in enumerate(project.queries):
        order.setdefault(("query", q.id), (2, k))
    return order


def _fallback(order: dict[tuple[str, str], tuple[int, ...]], f: Finding) -> tuple[int, ...]:
    """Fields and indexes sort under their entity / collection."""
    head = f.subject.id.split(".", 1)[0].split("#", 1)[0]
    for kind in ("entity", "collection"):
        if (kind, head) in order:
            return order[(kind, head)] + (2,)
    return (3,)
