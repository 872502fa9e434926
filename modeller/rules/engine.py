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
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from modeller.model.project import Project, Query
from modeller.rules.context import Context, ContextCache, RelFacts, build_context
from modeller.rules.design import Analysis, CollectionDesign, Design, RelationshipDesign
from modeller.rules.findings import SEVERITY_RANK, Finding
from modeller.rules.naming import collection_name
from modeller.rules.patch import Patched, Previous, patch
from modeller.rules.plans import RelPlan
from modeller.rules.registry import REGISTRY
from modeller.rules.resolver import Resolution, ResolveCache, resolve
from modeller.rules.settings import DEFAULT_SETTINGS, Settings
from modeller.rules.snapshot import Snapshot


@dataclass(slots=True)
class RuleContext:
    """What a rule sees: the indexed project, the plans and the resolved design."""

    facts: Context
    design: Design
    res: Resolution
    #: entity id -> (physical -> logical path read so far, the (physical, logical) pairs not read yet)
    _inverse: dict[str, tuple[dict[str, str], Iterator[tuple[str, str]]]] = field(default_factory=dict)
    _collections: dict[str, CollectionDesign] = field(default_factory=dict)
    _rel_designs: dict[str, RelationshipDesign] = field(default_factory=dict)
    #: what ``each_*`` iterate: (position in the whole list, subject); None = everything
    only_rels: list[tuple[int, RelFacts]] | None = None
    only_collections: list[tuple[int, CollectionDesign]] | None = None
    only_queries: list[tuple[int, Query]] | None = None
    #: the subject the running rule is looking at: (kind, id, position); findings are filed under it
    current: tuple[str, str, int] = ("", "", 0)
    #: per query position, a unique name for it (a half-edited model may repeat a query id)
    query_producers: list[str] = field(default_factory=list)
    #: rule id -> what a global rule keeps between the analyses of one Analyser (to reuse unchanged findings)
    memo: dict[str, Any] = field(default_factory=dict)
    #: (current, subject) of every relationship / collection / query, built by the first full walk
    _rel_items: list[tuple[tuple[str, str, int], RelFacts]] | None = None
    _coll_items: list[tuple[tuple[str, str, int], CollectionDesign]] | None = None
    _query_items: list[tuple[tuple[str, str, int], Query]] | None = None
    #: "r"/"c"/"q" -> (the ``only_*`` list, its length, its (current, subject) items): every rule walks the
    #: same dirty subjects, so their items are built once per analysis, not once per rule
    _only_items: dict[str, tuple[list[Any], int, list[Any]]] = field(default_factory=dict)
    #: what rules compute once per analysis and share (e.g. a collection's indexes by name); checked against
    #: the objects it was computed from, so it is right for the subset of subjects an incremental run re-checks
    scratch: dict[str, Any] = field(default_factory=dict)
    #: key function -> (the items it grouped, key value -> items): see ``each_rel_where``
    _rel_groups: dict[Any, tuple[list[Any], dict[Hashable, list[Any]]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self._collections:
            self._collections = {c.name: c for c in self.design.collections}
        if not self._rel_designs:
            self._rel_designs = {r.id: r for r in self.design.relationships}

    # ----- what rules iterate (an incremental analysis re-checks only the subjects whose inputs changed) -----
    def _only(self, kind: str, only: list[tuple[int, Any]], item: Callable[[int, Any], Any]) -> list[Any]:
        """The (current, subject) items of a dirty-subject list, built once per list (every rule walks it)."""
        cached = self._only_items.get(kind)
        if cached is not None and cached[0] is only and cached[1] == len(only):
            return cached[2]
        items = [item(i, subject) for i, subject in only]
        self._only_items[kind] = (only, len(only), items)
        return items

    def rel_items(self) -> list[tuple[tuple[str, str, int], RelFacts]]:
        """(current, facts) of the relationships ``each_rel`` walks, built once per ``only_rels`` list."""
        if self.only_rels is not None:
            return self._only("r", self.only_rels, _rel_item)
        if self._rel_items is None:
            self._rel_items = [_rel_item(i, f) for i, f in enumerate(self.facts.rels)]
        return self._rel_items

    def coll_items(self) -> list[tuple[tuple[str, str, int], CollectionDesign]]:
        """(current, collection) of the collections ``each_collection`` walks."""
        if self.only_collections is not None:
            return self._only("c", self.only_collections, _coll_item)
        if self._coll_items is None:
            self._coll_items = [_coll_item(i, c) for i, c in enumerate(self.design.collections)]
        return self._coll_items

    def query_items(self) -> list[tuple[tuple[str, str, int], Query]]:
        """(current, query) of the queries ``each_query`` walks (named by ``query_producers`` when set)."""
        names = self.query_producers

        def item(i: int, q: Query) -> tuple[tuple[str, str, int], Query]:
            return ("q", names[i] if names else q.id, i), q

        if self.only_queries is not None:
            return self._only("q", self.only_queries, item)
        if self._query_items is None:
            self._query_items = [item(i, q) for i, q in enumerate(self.facts.queries)]
        return self._query_items

    def each_rel_where(self, key: Callable[[RuleContext, RelFacts], Hashable], value: Hashable) -> Iterator[RelFacts]:
        """``each_rel`` restricted to the relationships with ``key(self, facts) == value``, in the same order.

        Most rules look at one strategy or recommendation only: the relationships are grouped by ``key``
        once per analysis (per ``only_rels`` list) instead of every such rule walking all of them.
        """
        items = self.rel_items()
        groups = self._rel_groups.get(key)
        if groups is None or groups[0] is not items:
            by: dict[Hashable, list[tuple[tuple[str, str, int], RelFacts]]] = {}
            for item in items:
                group = by.get(k := key(self, item[1]))
                if group is None:
                    by[k] = [item]
                else:
                    group.append(item)
            groups = self._rel_groups[key] = (items, by)
        selected = groups[1].get(value, ())
        for self.current, facts in selected:
            yield facts

    def each_rel(self) -> Iterator[RelFacts]:
        items = self.rel_items()
        for self.current, facts in items:
            yield facts

    def each_collection(self) -> Iterator[CollectionDesign]:
        items = self.coll_items()
        for self.current, coll in items:
            yield coll

    def each_query(self) -> Iterator[Query]:
        items = self.query_items()
        for self.current, q in items:
            yield q

    def collection(self, name: str) -> CollectionDesign | None:
        return self._collections.get(name)

    def rel_design(self, rel_id: str) -> RelationshipDesign:
        return self._rel_designs[rel_id]

    @property
    def project(self) -> Project:
        return self.facts.project

    @property
    def settings(self) -> Settings:
        return self.facts.settings

    def plan(self, rel_id: str) -> RelPlan:
        return self.res.plans[rel_id]

    def logical_keys(self, entity_id: str, keys: list[tuple[str, object]]) -> list[tuple[str, object]] | None:
        """Index keys in the model's own paths (for a fix), or None when a key has no model path."""
        found = self._inverse.get(entity_id)
        if found is None:
            found = self._inverse[entity_id] = (self._route_inverse(entity_id), self._field_pairs(entity_id))
        inverse, pairs = found
        out: list[tuple[str, object]] = []
        for key, value in keys:
            logical = inverse.get(key)
            if logical is None:
                # the first pair naming a physical path wins: read the declared paths only as far as this key needs
                for physical, path in pairs:
                    inverse.setdefault(physical, path)
                    if physical == key:
                        logical = inverse[key]
                        break
                else:
                    return None
            out.append((logical, value))
        return out

    def _route_inverse(self, entity_id: str) -> dict[str, str]:
        """Physical -> logical name of an entity's routes (the first wins): the pairs read before any field."""
        inverse: dict[str, str] = {}
        for name, route in self.res.builder.routes.get(entity_id, {}).items():
            if route.only is not None:
                for sub, phys in route.only.items():
                    if phys not in inverse:
                        inverse[phys] = f"{name}.{sub}"
            elif route.entity is None and route.path not in inverse:
                inverse[route.path] = name
        return inverse

    def _field_pairs(self, entity_id: str) -> Iterator[tuple[str, str]]:
        """(physical path, logical path) of an entity's declared paths, in declaration order (after the routes)."""
        resolve_path = self.res.resolve_path
        for path in self.facts.fields_of.get(entity_id, {}):
            physical = resolve_path(entity_id, path)
            if physical is not None:
                yield physical, path

    def collection_of(self, entity_id: str) -> CollectionDesign | None:
        loc = self.res.location.get(entity_id)
        return None if loc is None else self._collections.get(loc[0])


def _rel_item(i: int, facts: RelFacts) -> tuple[tuple[str, str, int], RelFacts]:
    return ("r", facts.rel.id, i), facts


def _coll_item(i: int, coll: CollectionDesign) -> tuple[tuple[str, str, int], CollectionDesign]:
    return ("c", coll.name, i), coll


def load_rules() -> None:
    """Import the rule families so their classes register themselves."""
    # order of import = order of registration = order of `modeller rules` and docs/rules.md
    from modeller.rules import shape  # noqa: F401, I001
    from modeller.rules import denormalization  # noqa: F401
    from modeller.rules import patterns  # noqa: F401
    from modeller.rules import indexes  # noqa: F401
    from modeller.rules import antipatterns  # noqa: F401


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
    snap: Snapshot
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
    (``modeller.rules.patch``); otherwise the whole model is walked with those
    identity caches. Each call also compares a snapshot of every entity,
    relationship and query (its attributes and the items of its lists) with
    the one taken last time: an object changed in place makes the analyser
    start from scratch. The result always equals ``analyse(project)``
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
        # analyse allocates many small objects that are all alive until it returns: cyclic GC passes in
        # the middle would only rescan them (2-3x slower on big models); collection resumes afterwards
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
            done = patch(state.prev, state.snap, project, state.ctx_cache, state.resolve_cache)
            if done is not None:
                patched, state.snap = done
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
        if state is not None and state.snap.mutated(project):
            state = None
        now = Snapshot.of(project)
        self.last_mode = "full" if state is None else "incremental"
        if state is None:
            state = _State(token, now, ContextCache(), ResolveCache(), {}, {}, (), ())
        facts = build_context(project, settings, state.ctx_cache)
        design, res = resolve(facts, state.resolve_cache)
        rctx = RuleContext(facts, design, res, memo=state.memo)
        findings = _run_rules(rctx, state)
        state.token, state.snap = token, now
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
