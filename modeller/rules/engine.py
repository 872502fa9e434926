"""``analyse(project) -> Analysis``: the resolver, then every registered rule.

Pure and deterministic: no I/O, no clock, no randomness; findings are sorted
by the subject's position in the project, then severity (most severe first),
then rule id, so the GUI and ``modeller check`` list them the same way.
The findings that justify one decision (a relationship's strategy, one
index) are then folded into one (``framework.grouping``); what every rule
said on its own stays in ``Analysis.reported``.
"""

from __future__ import annotations

import operator
import threading
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from modeller.model.labels import query_numbers
from modeller.model.project import Project
from modeller.rules.catalog import load_rules
from modeller.rules.framework.analysis import Analysis
from modeller.rules.framework.context import RuleView
from modeller.rules.framework.findings import SEVERITY_RANK, Finding
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.framework.rule import Rule, Traits
from modeller.rules.incremental.fold import Changes, Folding
from modeller.rules.incremental.patch import Patched, Previous, patch
from modeller.rules.physical.facts import ContextCache, build_context
from modeller.rules.physical.naming import collection_name
from modeller.rules.physical.resolver import ResolveCache, resolve
from modeller.rules.settings import DEFAULT_SETTINGS, Settings
from modeller.runtime.gc_pause import collector_paused


def analyse(project: Project, settings: Settings | None = None) -> Analysis:
    """Findings and the resolved physical design of ``project`` (a pure function: nothing is kept)."""
    return Analyser(settings).analyse(project)


#: one producer of findings: (kind "r"/"c"/"q"/"e"/"g", subject id)
Producer = tuple[str, str]
#: a finding with its sort key (kept so a re-analysis does not rebuild keys of unchanged findings)
Keyed = tuple[tuple[Any, ...], Finding]
#: one subject to check: its producer, its position in its list (the sort key's tie-break) and the subject
Item = tuple[Producer, int, Any]
#: the subject hooks: (producer kind, the ``Rule`` method, the ``Rule`` attribute naming the subjects it sees)
HOOKS = (
    ("r", "check_relationship", "relationships"),
    ("c", "check_collection", "collections"),
    ("q", "check_query", "queries"),
    ("e", "check_entity", "entities"),
)
#: the relationships, collections, queries and entities to check (in ``HOOKS`` order)
Subjects = tuple[list[Item], list[Item], list[Item], list[Item]]
#: the findings of a producer that made none (never added to)
_NOTHING: list[Keyed] = []
#: up to this many findings made or dropped, they are placed one by one in the sorted list, not all sorted again
FEW_CHANGES = 500


@dataclass(slots=True)
class _State:
    """What an :class:`Analyser` keeps from its last analysis."""

    token: tuple[Any, ...]
    #: the project of the last analysis (immutable: its objects are what the caches were computed from)
    last: Project
    ctx_cache: ContextCache
    resolve_cache: ResolveCache
    #: one object per registered rule, alive as long as this state (a rule may keep what it indexed)
    rules: list[Rule]
    #: producer -> the objects its findings were computed from
    producer_keys: dict[Producer, tuple[Any, ...]] = field(default_factory=dict)
    #: producer -> the keyed findings every rule made for it
    findings: dict[Producer, list[Keyed]] = field(default_factory=dict)
    order_token: tuple[Any, ...] = ()
    order: dict[tuple[str, str], tuple[int, ...]] = field(default_factory=dict)
    #: the last analysis' context and design (patched in place after a small edit)
    prev: Previous | None = None
    #: every kept finding, sorted (empty when the subjects moved: then everything is sorted anew)
    sorted: list[Keyed] = field(default_factory=list)
    #: the overrides and decision notes ``overridden`` was made for; id(finding) -> (finding, its overridden copy)
    override_token: tuple[Any, ...] = ()
    overridden: dict[int, tuple[Finding, Finding]] = field(default_factory=dict)
    #: the sorted findings as listed (overridden ones as their copies), in the places of ``sorted``
    listed: list[Finding] = field(default_factory=list)
    #: the relationships the decisions were looked up in, and relationship id -> its decision
    decisions: tuple[Any, dict[str, Any]] = ((), {})
    #: the last analysis' folded decisions (each decision's members and the one finding shown)
    folding: Folding = field(default_factory=Folding)
    #: the last rule loop kept the relative order of the findings it kept (none moved to another place)
    kept_order: bool = False
    #: rule id -> the findings its ``check_model`` made last (the rule may make the very same objects again)
    model_made: dict[str, list[Finding]] = field(default_factory=dict)
    #: counts the patches that added places to ``order`` or took one away without keying the kept findings again
    #: (``_order_added``, ``_order_removed``): a kept key is only reused while this is what the last loop saw
    order_epoch: int = 0
    keyed_epoch: int = 0


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
        with self._lock, collector_paused():  # counted: another thread's pause is not ended by this one
            try:
                return self._analyse(project)
            except BaseException:
                self._state = None  # a patch may have been half applied: start afresh next time
                raise

    def _analyse(self, project: Project) -> Analysis:
        settings = self.settings
        token = (settings, project.server_version, project.database)
        state = self._state
        if state is not None and (state.token != token or not _numbers_kept(state.last, project)):
            state = None
        if state is not None and state.prev is not None:
            patched = patch(state.prev, state.last, project, state.ctx_cache, state.resolve_cache, REGISTRY.deciders())
            if patched is not None:
                _order_added(state, state.last, project)
                state.last = project
                self.last_mode, self.last_patched = "incremental", True
                prev = state.prev
                view = RuleView(patched.ctx, patched.design, patched.res, prev.coll_by_name, prev.rel_design_by_id)
                dirty = _patched_subjects(patched, project)
                _add_replanned(view, state, dirty[2], patched.replanned)
                for items in dirty:
                    for p, pos, subject in items:
                        state.producer_keys[p] = _producer_key(view, p[0], subject, pos)
                gone: list[Producer] = [("r", patched.removed_rel)] if patched.removed_rel is not None else []
                for p in gone:
                    state.producer_keys.pop(p, None)
                    _order_removed(state, p[1])
                if patched.gone_colls or patched.regrouped:
                    _order_regrouped(state, view, patched.gone_colls, gone)
                reported, changes = _run_rules(view, state, dirty, gone, moved=False)
                folded = state.folding.fold(reported, _rule_rank(), state.kept_order, changes)
                return Analysis(folded, patched.design, reported)
        self.last_patched = False
        self.last_mode = "full" if state is None else "incremental"
        if state is None:
            state = _State(token, project, ContextCache(), ResolveCache(), [rule() for rule in REGISTRY])
        facts = build_context(project, settings, state.ctx_cache)
        design, res = resolve(facts, REGISTRY.deciders(), state.resolve_cache)
        prev = Previous.of(facts, design, res)
        view = RuleView(facts, design, res, prev.coll_by_name, prev.rel_design_by_id)
        dirty, gone = _changed_subjects(view, state)
        reported, changes = _run_rules(view, state, dirty, gone)
        state.token, state.last, state.prev = token, project, prev
        self._state = state
        return Analysis(state.folding.fold(reported, _rule_rank(), state.kept_order, changes), design, reported)


def _numbers_kept(before: Project, after: Project) -> bool:
    """Every unnamed query kept its place: texts call one by its number (``query 2 on Orders``), so findings made
    before a query was dropped or moved above it name the old number."""
    if len(after.queries) == len(before.queries) and all(
        a is b or a.id == b.id for a, b in zip(before.queries, after.queries, strict=True)
    ):
        return True  # every id kept its place (edit -> findings at 10,000 entities: no map of every query)
    old, new = query_numbers(before), query_numbers(after)
    return all(old.get(q.id, new[q.id]) == new[q.id] for q in after.queries if not q.name)


def _overrides(project: Project) -> dict[tuple[str, str, str], str]:
    return {(o.rule, o.subject.kind, o.subject.id): o.note for o in project.overrides}


def _producer_key(view: RuleView, kind: str, subject: Any, pos: int) -> tuple[Any, ...]:
    """The objects a subject hook's findings are computed from (compared by identity); a query's plan (at
    ``pos``, cached while its inputs are the same objects) also reads the units its joins reach."""
    if kind == "r":
        rid = subject.rel.id
        return (view.rel_design(rid), *view.facts.queries_joining.get(rid, ()))
    if kind in ("c", "e"):
        return (subject,)
    plans = view.design.queries
    return (subject, view.res.unit_of.get(subject.entity), plans[pos] if pos < len(plans) else None)


def _add_replanned(view: RuleView, state: _State, queries: list[Item], replanned: list[int]) -> None:
    """Add to a patch's dirty ``queries`` those whose plan changed although their own unit did not (a join
    reaches a re-resolved unit); only the ``replanned`` positions can hold a new plan."""
    listed = {p for p, _, _ in queries}
    keys = state.producer_keys
    facts_queries, plans = view.facts.queries, view.design.queries
    for i in replanned:
        q, plan = facts_queries[i], plans[i]
        p = ("q", q.id)
        old = keys.get(p)
        if p not in listed and (old is None or old[-1] is not plan):
            queries.append((p, i, q))
    queries.sort(key=lambda item: item[1])


def _all_subjects(view: RuleView) -> Subjects:
    """Every relationship, collection, query and entity, each with its producer (a repeated query or entity id
    gets a suffix)."""
    return (
        [(("r", f.rel.id), i, f) for i, f in enumerate(view.facts.rels)],
        [(("c", c.name), i, c) for i, c in enumerate(view.design.collections)],
        _numbered("q", view.facts.queries),
        _numbered("e", view.project.entities),
    )


def _numbered(kind: str, subjects: Iterable[Any]) -> list[Item]:
    """``subjects`` with their producers: the second of a repeated id is ``id\\x002``, and so on."""
    seen: dict[str, int] = {}
    items: list[Item] = []
    for i, subject in enumerate(subjects):
        n = seen[subject.id] = seen.get(subject.id, 0) + 1
        items.append(((kind, subject.id if n == 1 else f"{subject.id}\x00{n}"), i, subject))
    return items


def _changed_subjects(view: RuleView, state: _State) -> tuple[Subjects, list[Producer]]:
    """The subjects whose inputs are not the objects their kept findings were computed from, and the producers
    that are gone; the state's producer keys become this analysis'."""
    old_keys = state.producer_keys
    keys: dict[Producer, tuple[Any, ...]] = {}
    # queries sharing an id share the resolver's per-id maps: they are always re-checked together
    repeated = {qid for qid, n in Counter(q.id for q in view.facts.queries).items() if n > 1}
    dirty: list[list[Item]] = []
    for items in _all_subjects(view):
        changed: list[Item] = []
        for item in items:
            p, _, subject = item
            k = keys[p] = _producer_key(view, p[0], subject, item[1])
            old = old_keys.get(p)
            if (
                old is None
                or len(old) != len(k)
                or not all(map(operator.is_, old, k))
                or (p[0] == "q" and subject.id in repeated)
            ):
                changed.append(item)
        dirty.append(changed)
    state.producer_keys = keys
    return (dirty[0], dirty[1], dirty[2], dirty[3]), [p for p in old_keys if p not in keys]


def _patched_subjects(patched: Patched, project: Project) -> Subjects:
    """The subjects a patch changed (a patched model has unique ids: a query or entity is its own producer)."""
    entities = project.entities
    return (
        [(("r", f.rel.id), i, f) for i, f in patched.dirty_rels],
        [(("c", c.name), i, c) for i, c in patched.dirty_colls],
        [(("q", q.id), i, q) for i, q in patched.dirty_queries],
        [(("e", entities[i].id), i, entities[i]) for i in patched.replaced_ents],
    )


def _run_rules(
    view: RuleView, state: _State, dirty: Subjects, gone: Iterable[Producer], moved: bool = True
) -> tuple[list[Finding], Changes | None]:
    """The one rule loop: forget the findings of the dirty and gone subjects, run every rule's hooks on the
    dirty subjects and ``check_model`` on the model, then sort every kept finding once. ``moved`` False: the
    subjects kept their places (a patch), so their order need not be checked. Returns the findings and, when
    the kept ones kept their order, those that came and went (as listed, overridden or not)."""
    project = view.project
    kept = state.findings
    if moved or not state.order:
        _place_subjects(view, state)  # (first: the findings made again are compared under their new keys)
    order = state.order
    # the findings made again: the rest of the last sorted list stays in order
    forgotten = [kept.pop(p, []) for p in gone]
    # each dirty producer and its last findings; a producer holds a list only once it made a finding (most make
    # none: 38,000 producers at 10,000 entities, two empty lists each; speed only, DESIGN.md's cold analysis)
    remade: list[tuple[Producer, list[Keyed]]] = []
    for items in dirty:
        for p, _, _ in items:
            remade.append((p, kept.pop(p, _NOTHING)))
    # each rule's ``check_model`` is its own producer ("g", rule id): its last keyed findings are reused for the
    # very findings it makes again (edit -> findings <= 200 ms at 10,000 entities: 2,700 model findings keyed
    # again after every edit); only while no place in ``order`` changed since they were keyed
    reuse = state.order_epoch == state.keyed_epoch
    state.keyed_epoch = state.order_epoch
    model_old: dict[str, list[Keyed]] = {}
    for rule in state.rules:
        rule_id = type(rule).id
        if type(rule).check_model is not Rule.check_model:
            old = model_old[rule_id] = kept.pop(("g", rule_id), _NOTHING)
            remade.append((("g", rule_id), old))
    #: (subject list, key function) -> key value -> the dirty subjects with that value (``Rule.relationships``...)
    groups: dict[tuple[int, Callable[..., Hashable]], dict[Hashable, list[Item]]] = {}
    for rule in state.rules:
        for at, kind, hook, only in _hooks(type(rule)):
            items = dirty[at]
            if not items:
                continue
            if only is not None:
                items = _grouped(view, at, items, only[0], groups).get(only[1], _NO_ITEMS)
            for p, pos, subject in items:
                _file(kept, p, order, kind, pos, hook(rule, view, subject))
        cls = type(rule)
        if cls.check_model is not Rule.check_model:
            made = list(rule.check_model(view))
            old, was = model_old[cls.id], state.model_made.get(cls.id, ()) if reuse else ()
            n = min(len(old), len(was))  # (the last keyed findings are in the places the rule made them)
            _file(
                kept,
                ("g", cls.id),
                order,
                "g",
                0,
                made,
                [old[i] if i < n and was[i] is f else None for i, f in enumerate(made)],
            )
            state.model_made[cls.id] = made
    fresh: list[Keyed] = []
    renumbered: list[tuple[Keyed, Keyed]] = []
    for p, old in remade:
        new = kept.get(p)
        if new is not None or old:
            fresh.extend(_reuse_equal(old, [] if new is None else new, forgotten, renumbered))
    out = state.sorted
    state.kept_order = bool(out) and len(fresh) + sum(map(len, forgotten)) <= FEW_CHANGES
    overrides = _overrides(project)
    decisions = _decisions(state, project)
    token = (tuple(overrides.items()), tuple((k, v.note) for k, v in decisions.items()))
    # the findings as listed (overridden ones as their copies), in the places of ``out``: patched alongside it
    # while the same overrides apply (edit -> findings <= 200 ms at 10,000 entities: every finding was looked at
    # again after each edit), else listed anew
    same_token = token == state.override_token
    patching = state.kept_order and same_token and len(state.listed) == len(out)
    listed = state.listed if patching else []
    state.override_token = token
    shown = state.overridden
    copies: dict[int, tuple[Finding, Finding]] = shown if patching else {}
    # other overrides or notes: every copy is made anew
    earlier: dict[int, tuple[Finding, Finding]] = shown if same_token and not patching else {}
    rules = {rule for rule, _, _ in overrides}

    def as_listed(f: Finding) -> Finding:
        """``f`` as listed: an overridden finding as its copy (made once, not after every edit)."""
        if f.rule in rules or (f.subject.kind == "relationship" and f.subject.id in decisions):
            was = earlier.get(id(f))
            if was is None or was[0] is not f:
                was = (f, _override(f, overrides, decisions))
            copies[id(f)] = was
            return was[1]
        return f

    if state.kept_order:
        # edit -> findings <= 200 ms at 10,000 entities (50k findings): the few findings that changed leave and
        # take their places by binary search (keys are unique: their tie-break names the producer and order made)
        for last_keyed, new_keyed in renumbered:
            at = bisect_left(out, last_keyed[0], key=_first)
            if (
                at < len(out)
                and out[at] is last_keyed
                and (at == 0 or out[at - 1][0] < new_keyed[0])
                and (at + 1 == len(out) or new_keyed[0] < out[at + 1][0])
            ):
                out[at] = new_keyed  # the same place: only the order made differs (the same finding)
            else:
                forgotten.append([last_keyed])
                fresh.append(new_keyed)
                state.kept_order = False  # a kept finding takes another place among the others
        for found in forgotten:
            for keyed in found:
                at = bisect_left(out, keyed[0], key=_first)
                if at < len(out) and out[at] is keyed:
                    del out[at]
                    if patching:
                        del listed[at]
                        copied = copies.pop(id(keyed[1]), None)
                        if copied is not None:
                            earlier[id(keyed[1])] = copied
        for keyed in fresh:
            at = bisect_right(out, keyed[0], key=_first)
            out.insert(at, keyed)
            if patching:
                listed.insert(at, as_listed(keyed[1]))
    else:
        out = [keyed for found in kept.values() for keyed in found]
        out.sort(key=_first)
    state.sorted = out
    if not patching:
        listed = [as_listed(f) for _, f in out] if rules or decisions else [f for _, f in out]
    state.listed, state.overridden = listed, copies
    result = list(listed)  # (the caller keeps it: the next patch changes ``listed`` in place)
    if not state.kept_order or not patching:
        return result, None
    came = [f for _, f in fresh]
    went = [f for found in forgotten for _, f in found]
    return result, (
        [copies[id(f)][1] if id(f) in copies else f for f in came],
        [earlier[id(f)][1] if id(f) in earlier and earlier[id(f)][0] is f else f for f in went],
    )


def _decisions(state: _State, project: Project) -> dict[str, Any]:
    """Relationship id -> its decision (looked up again only when the relationships changed)."""
    rels = project.relationships
    if state.decisions[0] is not rels:
        state.decisions = (rels, {r.id: r.decision for r in rels if r.decision is not None})
    return state.decisions[1]


#: the parts of ``_place_subjects``'s ``order_token`` listing ids in the project's order (``_order_added`` extends them):
#: the relationships (project, facts) and the queries (project, facts)
_TOKEN_RELS = (2, 5)
_TOKEN_QUERIES = (3, 6)
#: the part listing the design's collections
_TOKEN_COLLECTIONS = 4


def _place_subjects(view: RuleView, state: _State) -> None:
    """Number the subjects when they moved (an entity, relationship or query added, removed or moved, a
    collection renamed): the kept findings take their new places (their tie-break stays)."""
    project = view.project
    coll_names = tuple(map(collection_name, project.entities))
    order_token = (  # _TOKEN_RELS and _TOKEN_QUERIES index it
        tuple(e.id for e in project.entities),
        coll_names,
        tuple(r.id for r in project.relationships),  # _TOKEN_RELS[0]
        tuple(q.id for q in project.queries),  # _TOKEN_QUERIES[0]
        tuple(c.name for c in view.design.collections),  # _TOKEN_COLLECTIONS
        tuple(f.rel.id for f in view.facts.rels),  # _TOKEN_RELS[1]
        tuple(q.id for q in view.facts.queries),  # _TOKEN_QUERIES[1]
    )
    if order_token == state.order_token and state.order:
        return
    order = state.order = _subject_order(project, coll_names)
    state.order_token = order_token
    state.sorted = []
    for found in state.findings.values():
        found[:] = [((*_sort_key(order, f), *k[-3:]), f) for k, f in found]


def _order_added(state: _State, last: Project, project: Project) -> None:
    """A patch added relationships or queries after the others: they take the places after them and no other
    subject moves (``_place_subjects`` would find the same order, but for a removed relationship's gap, and keep
    every finding's key)."""
    if not state.order:
        return
    token = list(state.order_token)
    # (kind, the project's list before and after, the order's first number, the token's parts listing its ids)
    for kind, before, after, group, parts in (
        ("relationship", last.relationships, project.relationships, 1, _TOKEN_RELS),
        ("query", last.queries, project.queries, 2, _TOKEN_QUERIES),
    ):
        if len(after) <= len(before):
            continue
        # after the last place taken (a removed relationship leaves a gap: ``_order_removed``)
        start = state.order[(kind, before[-1].id)][1] + 1 if before else 0
        for k in range(len(before), len(after)):
            state.order.setdefault((kind, after[k].id), (group, start + k - len(before)))
        ids = tuple(x.id for x in after[len(before) :])
        for part in parts:
            token[part] += ids
        state.order_epoch += 1
    state.order_token = tuple(token)


def _order_removed(state: _State, rel_id: str) -> None:
    """A patch removed a relationship: the others keep their places (the positions only order the subjects, so a
    gap changes no order), and no kept finding is keyed again (edit -> findings <= 200 ms at 10,000 entities:
    placing every subject anew re-keyed all 50,000 findings)."""
    if not state.order:
        return
    state.order.pop(("relationship", rel_id), None)
    state.order_epoch += 1
    token = list(state.order_token)
    for part in _TOKEN_RELS:
        ids = token[part]
        at = ids.index(rel_id)
        token[part] = ids[:at] + ids[at + 1 :]
    state.order_token = tuple(token)


def _order_regrouped(state: _State, view: RuleView, gone_colls: list[str], gone: list[Producer]) -> None:
    """A patch regrouped collections: the collections it took away are gone producers (their findings go), and
    the design's collections are listed anew in the order token. The subjects keep their places: a collection
    is placed by its entity's, whichever entities it holds."""
    for name in gone_colls:
        p = ("c", name)
        if p not in gone:
            gone.append(p)
        state.producer_keys.pop(p, None)
    if state.order:
        token = list(state.order_token)
        token[_TOKEN_COLLECTIONS] = tuple(c.name for c in view.design.collections)
        state.order_token = tuple(token)


def _reuse_equal(
    old: list[Keyed], new: list[Keyed], forgotten: list[list[Keyed]], renumbered: list[tuple[Keyed, Keyed]]
) -> list[Keyed]:
    """Put back in ``new`` the findings of ``old`` that were made again alike (an equal finding with the same
    key but for the order made), so an unchanged finding stays the same object from one analysis to the next;
    the rest of ``old`` goes to ``forgotten``, and a kept finding made in another order to ``renumbered`` (its
    last and its new keyed entry). Returns the findings that are really new.

    Edit -> findings <= 200 ms at 10,000 entities: ``check_model`` makes thousands of findings again after
    every edit, and the findings list, the folded decisions and the overrides are all updated by identity.
    """
    if not old:
        return new
    if len(old) == len(new) and all(map(operator.is_, old, new)):
        return []  # (``_file`` reused every keyed finding: a model rule that found the same)
    same = {id(keyed) for keyed in new}.intersection(map(id, old))
    before: dict[tuple[Any, ...], list[Keyed]] = {}
    for keyed in old:
        if id(keyed) not in same:
            before.setdefault(keyed[0][:-1], []).append(keyed)
    really_new: list[Keyed] = []
    for i, keyed in enumerate(new):
        if id(keyed) in same:
            continue
        key, finding = keyed
        alike = before.get(key[:-1])
        at = next((j for j, was in enumerate(alike) if was[1] == finding), None) if alike else None
        if at is None or alike is None:
            really_new.append(keyed)
            continue
        was = alike.pop(at)
        if was[0] == key:
            new[i] = was
        else:
            new[i] = (key, was[1])
            renumbered.append((was, new[i]))
    forgotten.append([keyed for alike in before.values() for keyed in alike])
    return really_new


def _rule_rank() -> dict[str, int]:
    """Each rule's registration position: the tie-break of a decision's primary rule (catalog order)."""
    return {cls.id: i for i, cls in enumerate(REGISTRY)}


#: a hook's subjects when none has the value its rule looks for
_NO_ITEMS: list[Item] = []


#: rule class -> ``_hooks(cls)``
_HOOKS_OF: dict[type[Rule], tuple[tuple[int, str, Callable[..., Iterable[Finding]], Any], ...]] = {}


def _hooks(cls: type[Rule]) -> tuple[tuple[int, str, Callable[..., Iterable[Finding]], Any], ...]:
    """The subject hooks ``cls`` overrides: (its place in ``Subjects``, the producer kind, the hook, the
    ``(key, value)`` of the subjects it sees or None), worked out once per rule class."""
    known = _HOOKS_OF.get(cls)
    if known is None:
        known = _HOOKS_OF[cls] = tuple(
            (at, kind, getattr(cls, name), getattr(cls, only))
            for at, (kind, name, only) in enumerate(HOOKS)
            if getattr(cls, name) is not getattr(Rule, name)
        )
    return known


def _grouped(
    view: RuleView,
    at: int,
    items: list[Item],
    key: Callable[[RuleView, Any], Hashable],
    groups: dict[tuple[int, Callable[..., Hashable]], dict[Hashable, list[Item]]],
) -> dict[Hashable, list[Item]]:
    """The items of subject list ``at`` by ``key`` (in their order; under each of its :class:`Traits`), computed once
    per key function and analysis."""
    by = groups.get((at, key))
    if by is None:
        by = groups[(at, key)] = {}
        for item in items:
            value = key(view, item[2])
            if type(value) is Traits:
                for trait in value:
                    by.setdefault(trait, []).append(item)
            else:
                by.setdefault(value, []).append(item)
    return by


def _file(
    kept: dict[Producer, list[Keyed]],
    p: Producer,
    order: dict[tuple[str, str], tuple[int, ...]],
    kind: str,
    pos: int,
    made: Iterable[Finding],
    reused: Sequence[Keyed | None] = (),
) -> None:
    """Key the findings one hook made for producer ``p`` (the tie-break: the subject, then the order made); a
    producer gets its list with its first finding (most make none: 38,000 at 10,000 entities). ``reused``: per
    finding made, its last keyed entry when it is the finding made last time in the same place (still keyed
    right: its key reads only the finding and that place), else None."""
    n = len(reused)
    for seq, f in enumerate(made):
        found = kept.get(p)
        if found is None:
            found = kept[p] = []
        keyed = reused[seq] if seq < n else None
        found.append(keyed if keyed is not None else ((*_sort_key(order, f), kind, pos, seq), f))


#: a keyed finding's key (C-level: the cold analysis sorts 45,000 findings at 10,000 entities)
_first: Callable[[Keyed], tuple[Any, ...]] = operator.itemgetter(0)


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
    return replace(f, overridden=True, note=note or None)


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
