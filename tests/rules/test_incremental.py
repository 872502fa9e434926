"""The incremental ``Analyser`` always returns what a fresh ``analyse`` returns.

Edits are made like the GUI makes them (``model_copy`` of the edited object,
every other object kept). The model is immutable, so the analyser may key
everything on identity: the in-place changes another caller might try are
refused by the model itself (last tests).
"""

from __future__ import annotations

import json
import operator
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.model.frozen import FrozenDict
from modeller.model.project import Denormalization, Field, Index, Query, Relationship
from modeller.model.vocabulary import CARDINALITIES, STRATEGIES
from modeller.rules import analyse
from modeller.rules.engine import Analyser, _subject_order
from modeller.rules.physical.facts import build_context
from modeller.rules.physical.naming import collection_name
from modeller.rules.settings import DEFAULT_SETTINGS

BASE = {seed: generate_project(25, 1.5, 0.6, seed=seed) for seed in (0, 1, 2)}


def dump(project: Project, analysis: Any) -> str:
    return json.dumps(
        {"findings": [f.to_json() for f in analysis.findings], "design": analysis.design.to_json()}, sort_keys=True
    )


def _replace(items: tuple[Any, ...], i: int, new: Any) -> tuple[Any, ...]:
    return (*items[:i], new, *items[i + 1 :])


def edit(project: Project, kind: str, i: int, choice: int) -> Project:
    """One edit: a new project sharing every object the edit does not replace."""
    ents, rels, queries = project.entities, project.relationships, project.queries
    e = ents[i % len(ents)]
    r = rels[i % len(rels)] if rels else None
    if kind == "rename-field":
        f = e.fields[choice % len(e.fields)]
        new_fields = _replace(e.fields, e.fields.index(f), f.model_copy(update={"name": f"{f.name}_{choice}"}))
        return project.model_copy(
            update={"entities": _replace(ents, ents.index(e), e.model_copy(update={"fields": new_fields}))}
        )
    if kind == "rename-entity":
        new = e.model_copy(update={"name": f"Renamed {choice}"})
        return project.model_copy(update={"entities": _replace(ents, ents.index(e), new)})
    if kind == "cardinality" and r is not None:
        new = r.model_copy(
            update={"cardinality": CARDINALITIES[choice % len(CARDINALITIES)], "max": None, "typical": None}
        )
        return project.model_copy(update={"relationships": _replace(rels, rels.index(r), new)})
    if kind == "strategy" and r is not None:
        new = r.model_copy(update={"strategy": STRATEGIES[choice % len(STRATEGIES)], "decision": None})
        return project.model_copy(update={"relationships": _replace(rels, rels.index(r), new)})
    if kind == "denormalize" and r is not None:
        many = next(x for x in ents if x.id == r.many)
        d = Denormalization(field=many.fields[choice % len(many.fields)].name, direction="many-to-one")
        new = r.model_copy(update={"denormalize": [*r.denormalize, d]})
        return project.model_copy(update={"relationships": _replace(rels, rels.index(r), new)})
    if kind == "add-relationship":  # drawn between two entities: added after the others
        many = ents[(i + choice) % len(ents)]
        cardinality = CARDINALITIES[choice % len(CARDINALITIES)]
        new = Relationship(id=f"drawn_{choice}_{len(rels)}", one=e.id, many=many.id, cardinality=cardinality)
        return project.model_copy(update={"relationships": (*rels, new)})
    if kind == "drop-relationship" and r is not None:
        return project.model_copy(update={"relationships": tuple(x for x in rels if x is not r)})
    if kind == "add-query":
        q = Query(id=f"q_new_{choice}_{len(queries)}", entity=e.id, filter={e.fields[0].name: "eq"}, hot=True)
        return project.model_copy(update={"queries": (*queries, q)})
    if kind == "add-scoped-query" and r is not None:  # the N of one One, or the One of one N
        side = r.many if choice % 2 == 0 else r.one
        q = Query(id=f"q_scope_{choice}_{len(queries)}", entity=side, scope=r.id, per_sec=choice % 7)
        return project.model_copy(update={"queries": (*queries, q)})
    if kind.startswith("query-") and queries:  # the query panel's edits: one query replaced, same id and entity
        q = queries[i % len(queries)]
        fields = [f.name for f in e.fields if f.type != "object"]
        rel_ids = [x.id for x in rels if q.entity in (x.one, x.many)]
        changes: dict[str, Any] = {
            "query-rate": {"per_sec": choice % 9, "hot": choice % 2 == 0},
            "query-filter": {"filter": {**q.filter, f"added_{choice % 3}": "eq"}, "sort": (("created", -1),)},
            "query-joins": {"joins": (*q.joins[1:], *rel_ids[choice % 2 :][:1])},
            "query-name": {"name": None if q.name else f"query {choice}"},
        }
        if kind == "query-filter" and fields:
            changes[kind]["filter"] = {fields[choice % len(fields)]: "range"}
        new = q.model_copy(update=changes[kind])
        return project.model_copy(update={"queries": _replace(queries, queries.index(q), new)})
    if kind == "drop-query" and queries:
        return project.model_copy(update={"queries": queries[1:]})
    if kind == "move-entity":
        rest = [x for x in ents if x is not e]
        return project.model_copy(update={"entities": (e, *rest)})
    if kind == "entity-count":
        new = e.model_copy(update={"count": 10 + choice * 37})
        return project.model_copy(update={"entities": _replace(ents, ents.index(e), new)})
    if kind == "field-unique":
        f = e.fields[choice % len(e.fields)]
        new_fields = _replace(e.fields, e.fields.index(f), f.model_copy(update={"unique": not f.unique}))
        return project.model_copy(
            update={"entities": _replace(ents, ents.index(e), e.model_copy(update={"fields": new_fields}))}
        )
    if kind == "rel-read-together" and r is not None:
        new = r.model_copy(update={"read_together": (choice % 11) / 10, "many_standalone": choice % 2 == 0})
        return project.model_copy(update={"relationships": _replace(rels, rels.index(r), new)})
    if kind == "rel-max" and r is not None:
        new = r.model_copy(update={"max": 1 + choice * 13, "typical": None})
        return project.model_copy(update={"relationships": _replace(rels, rels.index(r), new)})
    if kind == "rel-flags" and r is not None:
        new = r.model_copy(update={"read_together": (choice % 10) / 10, "many_standalone": not r.many_standalone})
        return project.model_copy(update={"relationships": _replace(rels, rels.index(r), new)})
    if kind == "append-field":
        field = Field(name=f"added_{choice}_{len(e.fields)}", type="int", unique=True)
        new = e.model_copy(update={"fields": (*e.fields, field)})
        return project.model_copy(update={"entities": _replace(ents, ents.index(e), new)})
    if kind == "entity-name-count":
        new = e.model_copy(update={"count": 7 + choice, "name": f"Changed {choice}"})
        return project.model_copy(update={"entities": _replace(ents, ents.index(e), new)})
    return project


EDITS = [
    "rename-field",
    "rename-entity",
    "cardinality",
    "strategy",
    "denormalize",
    "drop-relationship",
    "add-relationship",
    "add-query",
    "add-scoped-query",
    "drop-query",
    "move-entity",
    "rel-flags",
    "append-field",
    "entity-name-count",
    "entity-count",
    "field-unique",
    "rel-read-together",
    "rel-max",
    "query-rate",
    "query-filter",
    "query-joins",
    "query-name",
]
#: the edits the GUI makes most (one object replaced, same ids): the analyser patches its last result
SMALL_EDITS = [
    "rename-field",
    "cardinality",
    "strategy",
    "denormalize",
    "entity-count",
    "field-unique",
    "rel-max",
    "query-rate",
    "query-filter",
    "query-joins",
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(sorted(BASE)),
    steps=st.lists(
        st.tuples(st.sampled_from(EDITS), st.integers(0, 1000), st.integers(0, 1000)), min_size=1, max_size=6
    ),
)
@example(seed=0, steps=[("add-query", 0, 0), ("drop-query", 0, 0)])  # a dropped query renumbered the later ones
def test_incremental_equals_fresh(seed: int, steps: list[tuple[str, int, int]]) -> None:
    project = BASE[seed]
    analyser = Analyser()
    analyser.analyse(project)
    for kind, i, choice in steps:
        project = edit(project, kind, i, choice)
        incremental = analyser.analyse(project)
        assert dump(project, incremental) == dump(project, analyse(project)), (kind, i, choice)


def test_unchanged_project_is_reused_and_equal() -> None:
    project = BASE[0]
    analyser = Analyser()
    first = analyser.analyse(project)
    assert analyser.last_mode == "full"
    second = analyser.analyse(project)
    assert analyser.last_mode == "incremental"
    assert dump(project, first) == dump(project, second)
    # unchanged collections are the very same objects (nothing recomputed)
    assert all(a is b for a, b in zip(first.design.collections, second.design.collections, strict=True))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(sorted(BASE)),
    steps=st.lists(
        st.tuples(
            st.sampled_from([*SMALL_EDITS, "rel-read-together", "append-field", "rel-flags"]),
            st.integers(0, 1000),
            st.integers(0, 1000),
        ),
        min_size=4,
        max_size=14,
    ),
)
def test_long_chains_of_small_edits_equal_fresh(seed: int, steps: list[tuple[str, int, int]]) -> None:
    """The patched context and design stay right over many edits in a row (each patch builds on the last)."""
    project = BASE[seed]
    analyser = Analyser()
    analyser.analyse(project)
    for kind, i, choice in steps:
        project = edit(project, kind, i, choice)
        incremental = analyser.analyse(project)
        assert dump(project, incremental) == dump(project, analyse(project)), (kind, i, choice)


def test_small_edits_are_patched() -> None:
    """A field rename or a relationship annotation patches the last analysis instead of re-resolving all."""
    project = generate_project(60, 1.5, 0.6, seed=3)
    analyser = Analyser()
    analyser.analyse(project)
    patched = 0
    for k, kind in enumerate(["rename-field", "rel-read-together", "entity-count", "field-unique"] * 3):
        project = edit(project, kind, k * 7 + 1, k)
        result = analyser.analyse(project)
        patched += analyser.last_patched
        assert dump(project, result) == dump(project, analyse(project)), kind
    assert patched >= 8


def test_reordered_entities_equal_fresh() -> None:
    """Swapping two entities replaces two positions with other ids: never patched, still equal to fresh."""
    project = BASE[0]
    analyser = Analyser()
    analyser.analyse(project)
    for i in (1, 3, 2):
        project = edit(project, "move-entity", i, 0)
        result = analyser.analyse(project)
        assert not analyser.last_patched
        assert dump(project, result) == dump(project, analyse(project))


def test_field_edits_are_patched() -> None:
    """A field edit replaces the entity and its field list: the analysis is patched."""
    project = generate_project(40, 1.5, 0.6, seed=4)
    analyser = Analyser()
    analyser.analyse(project)
    for k, kind in enumerate(["rename-field", "field-unique", "rename-field"]):
        project = edit(project, kind, k * 5 + 2, k)
        result = analyser.analyse(project)
        assert analyser.last_patched, kind
        assert dump(project, result) == dump(project, analyse(project)), kind


def test_query_edits_are_patched() -> None:
    """A query's rate, filter or joins edited in place (same id and entity), or a query added after the others,
    patches the last analysis: its unit, the facts of its entity's relationships and the relationships it joins
    are worked out again, and the result equals a fresh analysis."""
    project = generate_project(80, 1.5, 0.6, seed=5)
    analyser = Analyser()
    analyser.analyse(project)
    patched = 0
    for k, kind in enumerate(["query-rate", "query-filter", "query-joins", "add-query", "add-scoped-query"] * 3):
        project = edit(project, kind, k * 11 + 3, k)
        result = analyser.analyse(project)
        patched += analyser.last_patched
        assert dump(project, result) == dump(project, analyse(project)), (kind, k)
        # the patched context lists the queries as a fresh one does (what the next patches build on)
        assert analyser._state is not None and analyser._state.prev is not None
        state = analyser._state
        assert _query_lists(state.prev.ctx) == _query_lists(build_context(project, DEFAULT_SETTINGS))
        # and every subject's place, which the findings are sorted by
        assert state.order == _subject_order(project, tuple(map(collection_name, project.entities)))
    assert patched >= 13


def test_added_relationships_are_patched() -> None:
    """A relationship drawn between two entities (added after the others) patches the last analysis unless its
    strategy groups collections; the result equals a fresh analysis and every subject keeps its place."""
    project = generate_project(80, 1.5, 0.6, seed=6)
    analyser = Analyser()
    analyser.analyse(project)
    ents = [e for e in project.entities if e.timeseries is None]
    patched = 0
    for k, cardinality in enumerate(["one-to-many", "one-to-squillions", "many-to-many", "one-to-few"] * 3):
        one, many = ents[k * 7 % len(ents)], ents[(k * 13 + 5) % len(ents)] if k != 6 else ents[k * 7 % len(ents)]
        rel = Relationship(id=f"drawn_{k}", one=one.id, many=many.id, cardinality=cardinality)
        project = project.model_copy(update={"relationships": (*project.relationships, rel)})
        result = analyser.analyse(project)
        patched += analyser.last_patched
        assert dump(project, result) == dump(project, analyse(project)), (k, cardinality)
        state = analyser._state
        assert state is not None and state.prev is not None
        fresh = build_context(project, DEFAULT_SETTINGS)
        assert [f.rel for f in state.prev.ctx.rels] == [f.rel for f in fresh.rels]
        assert state.order == _subject_order(project, tuple(map(collection_name, project.entities)))
    assert patched >= 6, "most drawn relationships reference their ends, or this test proves nothing"


def test_removed_relationships_are_patched() -> None:
    """A relationship removed (deleted, or a drawn one undone) patches the last analysis unless its strategy
    grouped collections; the relationships after it move up, and the result equals a fresh analysis."""
    project = generate_project(80, 1.5, 0.6, seed=7)
    analyser = Analyser()
    analyser.analyse(project)
    patched = 0
    for k in range(12):
        rels = project.relationships
        at = len(rels) - 1 if k % 3 == 0 else (k * 17) % len(rels)  # the last one: an added relationship undone
        project = project.model_copy(update={"relationships": (*rels[:at], *rels[at + 1 :])})
        result = analyser.analyse(project)
        patched += analyser.last_patched
        assert dump(project, result) == dump(project, analyse(project)), k
        state = analyser._state
        assert state is not None and state.prev is not None
        fresh = build_context(project, DEFAULT_SETTINGS)
        assert [f.rel for f in state.prev.ctx.rels] == [f.rel for f in fresh.rels]
        assert [r.id for r in result.design.relationships] == [f.rel.id for f in fresh.rels]
    assert patched >= 6, "most relationships reference their ends, or this test proves nothing"


def _query_lists(ctx: Any) -> tuple[Any, ...]:
    def ids(queries: list[Query]) -> list[int]:
        return [id(q) for q in queries]

    return (
        ids(ctx.queries),
        {k: ids(v) for k, v in ctx.queries_of.items()},
        {k: ids(v) for k, v in ctx.queries_joining.items()},
    )


def _same_objects(before: Any, after: Any) -> tuple[int, list[str]]:
    """How many findings ``after`` shares with ``before`` by identity, and those equal to one before but new."""
    earlier = {(f.rule, f.subject.kind, f.subject.id, f.message): f for f in before.findings}
    shared, copied = 0, []
    for f in after.findings:
        old = earlier.get((f.rule, f.subject.kind, f.subject.id, f.message))
        if old is f:
            shared += 1
        elif old is not None and old == f:
            copied.append(f"{f.rule} {f.subject.id}")
    return shared, copied


@pytest.mark.slow
def test_edits_of_a_large_sharded_model_are_patched_equal_fresh_and_keep_unchanged_findings() -> None:
    """At 2,000 entities (hundreds of sharded collections): a patched edit works out the shard advice of what
    it touched only, still equals a fresh analysis, and hands back the very objects of unchanged findings."""
    project = generate_project(2000, 1.5, 0.5, seed=0)
    analyser = Analyser()
    last = analyser.analyse(project)
    sharded = {advice.entity for advice in last.design.shard_advice.values()}
    assert len(sharded) > 20, "the project must have sharded collections, or this test proves nothing"
    ents = project.entities
    # an entity grown past the size the Manual advises sharding at, one whose collection is sharded, and the
    # N of a relationship whose collection is sharded (its reference is a shard-key candidate)
    small = next(i for i, e in enumerate(ents) if e.id not in sharded and not e.timeseries and e.count)
    big = next(i for i, e in enumerate(ents) if e.id in sharded and not e.timeseries)
    rel = next(i for i, r in enumerate(project.relationships) if r.many in sharded and r.cardinality != "many-to-many")
    steps: list[Callable[[Project], Project]] = [
        lambda p: p.model_copy(
            update={"entities": _replace(p.entities, small, p.entities[small].model_copy(update={"count": 10**12}))}
        ),
        lambda p: p.model_copy(
            update={"entities": _replace(p.entities, big, p.entities[big].model_copy(update={"count": 12}))}
        ),
        lambda p: p.model_copy(
            update={
                "relationships": _replace(
                    p.relationships, rel, p.relationships[rel].model_copy(update={"max": 90_000, "typical": None})
                )
            }
        ),
        lambda p: edit(p, "rename-field", 7, 1),
    ]
    advice_changed = 0
    for step in steps:
        project = step(project)
        result = analyser.analyse(project)
        assert analyser.last_patched
        assert dump(project, result) == dump(project, analyse(project))
        advice_changed += result.design.shard_advice.keys() != last.design.shard_advice.keys()
        shared, copied = _same_objects(last, result)
        assert not copied, f"unchanged findings made again as new objects: {copied[:5]}"
        assert shared > len(result.findings) // 2
        last = result
    assert advice_changed >= 1, "an edit must change which collections are sharded, or this test proves nothing"
    # the findings kept per shard advice and per polymorphic collection name the entity: a rename reaches them
    # (the collection keeps its name when the model names it)
    poly = next(c.root for c in last.design.collections if c.discriminator is not None)
    for eid in (last.design.shard_advice[next(iter(last.design.shard_advice))].entity, poly):
        i = next(i for i, e in enumerate(project.entities) if e.id == eid)
        e = project.entities[i]
        named = e.model_copy(update={"name": f"{e.name} Renamed", "collection": e.collection or collection_name(e)})
        project = project.model_copy(update={"entities": _replace(project.entities, i, named)})
        result = analyser.analyse(project)
        assert dump(project, result) == dump(project, analyse(project))
        assert any(f.subject.id == eid and "Renamed" in f.message for f in result.findings), eid


def test_unchanged_findings_stay_the_same_objects_when_subjects_move() -> None:
    """Moving an entity renumbers every subject after it; the findings that read the same stay the same
    objects (the findings list follows identity), and the result still equals a fresh analysis."""
    project = BASE[0]
    analyser = Analyser()
    last = analyser.analyse(project)
    for i in (3, 1):
        project = edit(project, "move-entity", i, 0)
        result = analyser.analyse(project)
        assert dump(project, result) == dump(project, analyse(project))
        shared, copied = _same_objects(last, result)
        assert not copied, f"unchanged findings made again as new objects: {copied[:5]}"
        assert shared > len(result.findings) // 2
        last = result


# ----- the model refuses in-place changes (what lets the analyser key its caches on identity) -----


def _move_field(p: Project) -> None:
    a, b = p.entities[0], p.entities[1]
    b.fields.append(a.fields.pop(0))  # type: ignore[attr-defined]


IN_PLACE: dict[str, Callable[[Project], Any]] = {
    "entity-attribute": lambda p: setattr(p.entities[2], "name", "Other name"),
    "entity-number": lambda p: setattr(p.entities[2], "count", (p.entities[2].count or 0) + 1),
    "entity-list-replaced": lambda p: setattr(p, "entities", [*p.entities]),
    "entity-appended": lambda p: p.entities.append(p.entities[0]),
    "field-appended": lambda p: p.entities[3].fields.append(Field(name="extra", type="int")),
    "field-replaced": lambda p: p.entities[3].fields.__setitem__(0, Field(name="other", type="string")),
    "field-moved-to-next-entity": _move_field,
    "index-appended": lambda p: p.entities[4].indexes.append(Index(keys=[(p.entities[4].fields[0].name, 1)])),
    "shard-key-set": lambda p: setattr(p.entities[4], "shard_key", [p.entities[4].fields[0].name]),
    "rel-attribute": lambda p: setattr(p.relationships[1], "many_standalone", not p.relationships[1].many_standalone),
    "denormalize-appended": lambda p: p.relationships[1].denormalize.append(
        Denormalization(field="x", direction="many-to-one")
    ),
    "filter-key-set": lambda p: next(q for q in p.queries if q.filter).filter.__setitem__("x", "eq"),
    "filter-key-popped": lambda p: next(q for q in p.queries if q.filter).filter.pop("x", None),
    "filter-updated": lambda p: next(q for q in p.queries if q.filter).filter.update({"x": "eq"}),
    "layout-set": lambda p: p.layout.__setitem__("x", p.layout[next(iter(p.layout))]),
    "projection-item-replaced": lambda p: next(q for q in p.queries if q.projection).projection.__setitem__(0, "x"),
    "join-appended": lambda p: p.queries[0].joins.append(p.relationships[0].id),
    "sort-appended": lambda p: p.queries[0].sort.append((p.entities[0].fields[0].name, -1)),
    "example-item-appended": lambda p: _with_example(p, [1, {"a": [2]}]).entities[0].fields[0].example.append(3),
    "example-inner-dict-set": lambda p: _with_example(p, [1, {"a": [2]}]).entities[0].fields[0].example[1].update(a=1),
    "example-inner-list": lambda p: _with_example(p, [1, {"a": [2]}]).entities[0].fields[0].example[1]["a"].clear(),
}


def _with_example(p: Project, example: Any) -> Project:
    """``p`` whose first entity's first field has ``example`` (given as a plain, mutable list)."""
    e = p.entities[0]
    field = e.fields[0].model_copy(update={"example": example})
    return p.model_copy(update={"entities": (e.model_copy(update={"fields": (field, *e.fields[1:])}), *p.entities[1:])})


@pytest.mark.parametrize("kind", sorted(IN_PLACE))
def test_in_place_changes_are_refused(kind: str) -> None:
    """Every in-place change a content check would have had to notice fails, and leaves the project as it was."""
    project = Project.model_validate(json.loads(BASE[2].model_dump_json()))  # with a layout
    project = project.model_copy(update={"layout": {e.id: {"x": 1, "y": 2} for e in project.entities}})
    before = project.model_dump_json()
    with pytest.raises((TypeError, AttributeError, ValidationError)):
        IN_PLACE[kind](project)
    assert project.model_dump_json() == before


def test_copies_hold_tuples_and_frozen_dicts() -> None:
    """``model_copy(update=...)`` validates each value as its field: a list given becomes the tuple it stands for."""
    project = BASE[0]
    q = project.queries[0].model_copy(update={"joins": ["a", "b"], "filter": {"k": "eq"}, "sort": [["k", -1]]})
    assert q.joins == ("a", "b") and q.sort == (("k", -1),)
    assert isinstance(q.filter, FrozenDict) and q.filter == {"k": "eq"}
    copied = project.model_copy(update={"entities": list(project.entities)})
    assert type(copied.entities) is tuple and all(map(operator.is_, copied.entities, project.entities))
    with pytest.raises(ValidationError):
        project.model_copy(update={"entities": [{"id": "x"}]})


def test_a_fix_that_names_a_new_entity_follows_a_rename_elsewhere() -> None:
    """The bloated-document fix names "Movie details" unique in the model: renaming another entity to that name
    changes the fix (a property of the whole model), incrementally as in a fresh analysis."""
    movie = {
        "id": "movie",
        "name": "Movie",
        "fields": [
            {"name": "title", "type": "string"},
            {"name": "plot", "type": "string", "bytes": 8000, "required": True},
        ],
    }
    project = Project.model_validate(
        {
            "format": "mongo-schema-modeller",
            "format_version": 2,
            "name": "m",
            "entities": [movie, {"id": "other", "name": "Other", "fields": [{"name": "x", "type": "string"}]}],
            "queries": [
                {"id": "home", "entity": "movie", "filter": {"title": "eq"}, "projection": ["title"], "hot": True}
            ],
        }
    )
    analyser = Analyser()
    before = analyser.analyse(project)
    [fix] = [f.fix for f in before.findings if f.rule == "bloated-document"]
    assert fix is not None and fix.changes[0].value["name"] == "Movie details"
    other = project.entities[1].model_copy(update={"name": "Movie details"})
    renamed = project.model_copy(update={"entities": (project.entities[0], other)})
    after = analyser.analyse(renamed)
    assert dump(renamed, after) == dump(renamed, analyse(renamed))
    [fix] = [f.fix for f in after.findings if f.rule == "bloated-document"]
    assert fix is not None and fix.changes[0].value["name"] == "Movie details 2"


def _mixed(project: Project, i: int, kinds: tuple[str, ...] | None) -> Project:
    """Entity ``i`` with its first field held (``kinds``) or no longer held (None) with other types too."""
    ents = project.entities
    e = ents[i]
    f = e.fields[0]
    new_fields = _replace(e.fields, 0, f.model_copy(update={"other_types": kinds}))
    return project.model_copy(update={"entities": _replace(ents, i, e.model_copy(update={"fields": new_fields}))})


def test_entity_findings_follow_the_edited_entity_alone() -> None:
    """``check_entity`` findings (mixed types) are made again for a replaced entity only, and still equal fresh:
    the other entities' findings stay the same objects."""
    project = _mixed(_mixed(generate_project(60, 1.5, 0.6, seed=5), 3, ("string",)), 7, ("string",))
    analyser = Analyser()
    first = analyser.analyse(project)
    mixed = [f for f in first.findings if f.rule == "mixed-types"]
    assert [f.subject.id for f in mixed] == [project.entities[3].id, project.entities[7].id]
    steps = [(3, None), (11, ("string", "null")), (7, ("bool",)), (3, ("string",))]
    before = first
    for i, kinds in steps:
        project = _mixed(project, i, kinds)
        result = analyser.analyse(project)
        assert analyser.last_patched
        assert dump(project, result) == dump(project, analyse(project))
        now = {f.subject.id: f for f in result.findings if f.rule == "mixed-types"}
        assert (project.entities[i].id in now) == (kinds is not None)
        for f in before.findings:
            if f.rule == "mixed-types" and f.subject.id != project.entities[i].id:
                assert now[f.subject.id] is f  # not made again
        before = result


def test_a_patched_edit_folds_again_only_the_decisions_it_touched() -> None:
    """After a small edit the decisions are folded from the last folding: the result is the whole pass's, and a
    decision none of whose findings changed keeps its folded finding (the same object)."""
    from modeller.rules.engine import _rule_rank
    from modeller.rules.framework.grouping import one_per_decision

    project = generate_project(60, 1.5, 0.6, seed=6)
    analyser = Analyser()
    last = analyser.analyse(project)
    incremental = 0
    for k, kind in enumerate(["cardinality", "rel-max", "strategy", "rel-read-together", "cardinality"]):
        project = edit(project, kind, k * 5 + 1, k + 2)
        result = analyser.analyse(project)
        assert result.findings == one_per_decision(result.reported, _rule_rank())
        assert dump(project, result) == dump(project, analyse(project)), kind
        if analyser.last_patched and analyser._state is not None and analyser._state.kept_order:
            incremental += 1
            before = {(f.rule, f.subject.kind, f.subject.id, f.message): f for f in last.findings if f.also}
            kept = [
                f
                for f in result.findings
                if f.also and before.get((f.rule, f.subject.kind, f.subject.id, f.message)) is f
            ]
            assert kept, "folded findings of decisions the edit did not touch must stay the same objects"
        last = result
    assert incremental >= 2, "most edits must fold incrementally, or this test proves nothing"


def _count_rekeys(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts the findings the rules made and the sort keys worked out: keys beyond those made are kept findings
    keyed again."""
    from modeller.rules import engine

    counts = {"made": 0, "keyed": 0}
    sort_key, file = engine._sort_key, engine._file

    def counted_key(order: Any, f: Any) -> Any:
        counts["keyed"] += 1
        return sort_key(order, f)

    def counted_file(kept: Any, p: Any, order: Any, kind: str, pos: int, made: Any, *old: Any) -> None:
        made = list(made)
        counts["made"] += len(made)
        file(kept, p, order, kind, pos, made, *old)

    monkeypatch.setattr(engine, "_sort_key", counted_key)
    monkeypatch.setattr(engine, "_file", counted_file)  # (every hook's findings are filed through it)
    return counts


def test_a_removed_relationship_keys_no_kept_finding_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Removing a relationship keys only the findings made again: the relationships after it keep their places
    (a gap orders them alike), so none of the kept findings is keyed again; a relationship drawn after that
    takes the place after the last. Moving an entity does key them again (the counter counts)."""
    project = generate_project(120, 1.5, 0.6, seed=7)
    analyser = Analyser()
    analyser.analyse(project)
    counts = _count_rekeys(monkeypatch)
    removed = 0
    for k in range(6):
        rels = project.relationships
        at = (k * 29 + 3) % len(rels)
        project = project.model_copy(update={"relationships": (*rels[:at], *rels[at + 1 :])})
        counts["made"] = counts["keyed"] = 0
        result = analyser.analyse(project)
        assert dump(project, result) == dump(project, analyse(project)), k
        if analyser.last_patched:
            removed += 1
            assert counts["keyed"] == counts["made"] > 0, k
        if k % 2:  # then one drawn after the others: after the gap, in the last place
            ents = project.entities
            drawn = Relationship(id=f"drawn_{k}", one=ents[k].id, many=ents[k + 9].id, cardinality="one-to-many")
            project = project.model_copy(update={"relationships": (*project.relationships, drawn)})
            result = analyser.analyse(project)
            assert dump(project, result) == dump(project, analyse(project)), k
    assert removed >= 3, "most removals must be patched, or this test proves nothing"
    counts["made"] = counts["keyed"] = 0
    project = edit(project, "move-entity", 5, 0)
    result = analyser.analyse(project)
    assert dump(project, result) == dump(project, analyse(project))
    assert counts["keyed"] - counts["made"] > len(result.reported) // 2


def test_a_small_edit_keys_again_no_model_finding_made_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """The findings a model rule (``check_model``) makes again as the very same objects, in the same places, keep
    their keys: after a field rename only the findings of the edited subjects and those made anew are keyed
    (before, every model finding was: 2,700 per edit at 10,000 entities); the result still equals a fresh
    analysis."""
    from modeller.rules.framework.registry import REGISTRY
    from modeller.rules.framework.rule import Rule

    project = generate_project(120, 1.5, 0.6, seed=7)
    analyser = Analyser()
    analyser.analyse(project)
    #: rule object -> what its check_model made last; and how many of them were the same object in the same place
    last: dict[Any, list[Any]] = {}
    again = {"same": 0}

    def recording(cls: Any) -> Any:
        check = cls.check_model

        def check_model(self: Any, view: Any) -> list[Any]:
            made = list(check(self, view))
            was = last.get(self, [])
            again["same"] += sum(1 for seq, f in enumerate(made) if seq < len(was) and was[seq] is f)
            last[self] = made
            return made

        return check_model

    for cls in REGISTRY:
        if cls.check_model is not Rule.check_model:
            monkeypatch.setattr(cls, "check_model", recording(cls))
    project = edit(project, "rename-field", 1, 9)
    analyser.analyse(project)  # (what each model rule made, to compare with)
    counts = _count_rekeys(monkeypatch)
    for k in range(4):
        project = edit(project, "rename-field", k * 31 + 2, k)
        counts["made"] = counts["keyed"] = again["same"] = 0
        result = analyser.analyse(project)
        assert analyser.last_patched, k
        assert again["same"] > 0, "the model rules made no finding again: this test proves nothing"
        assert counts["keyed"] == counts["made"] - again["same"], k
        assert dump(project, result) == dump(project, analyse(project)), k


def test_regrouping_edits_are_patched(monkeypatch: pytest.MonkeyPatch) -> None:
    """A strategy edit that moves an embedded N out of its One's documents, or a referenced N into them, patches
    the last analysis: only the units around the edited relationship are grouped and resolved again (counted),
    the result equals a fresh analysis, and later small edits build on the patched units."""
    from modeller.rules.incremental import patch, regroup
    from modeller.rules.physical.documents import embeds

    project = generate_project(150, 1.5, 0.6, seed=8)
    analyser = Analyser()
    analyser.analyse(project)
    state = analyser._state
    assert state is not None and state.prev is not None
    plans, n_units = state.prev.res.plans, len(state.prev.res.units)
    embedded = [r.id for r in project.relationships if embeds(plans[r.id]) and r.decision is None]
    referenced = [r.id for r in project.relationships if plans[r.id].strategy == "parent-ref" and r.decision is None]
    resolved = {"units": 0, "regroups": 0}
    resolve_unit, regrouping = regroup.resolve_unit, patch.regroup

    def counted(*args: Any) -> Any:
        resolved["units"] += 1
        return resolve_unit(*args)

    def counted_regroup(*args: Any) -> Any:
        resolved["regroups"] += 1
        return regrouping(*args)

    monkeypatch.setattr(regroup, "resolve_unit", counted)
    monkeypatch.setattr(patch, "regroup", counted_regroup)
    patched = 0
    for k, (rid, strategy) in enumerate(
        [*((rid, "parent-ref") for rid in embedded[:8]), *((rid, "embed") for rid in referenced[:8])]
    ):
        at = next(j for j, r in enumerate(project.relationships) if r.id == rid)
        new = project.relationships[at].model_copy(update={"strategy": strategy})
        project = project.model_copy(update={"relationships": _replace(project.relationships, at, new)})
        resolved["units"] = resolved["regroups"] = 0
        result = analyser.analyse(project)
        assert dump(project, result) == dump(project, analyse(project)), (rid, strategy)
        if analyser.last_patched and resolved["regroups"]:
            patched += 1
            assert resolved["units"] <= 4 < n_units, (rid, strategy)
        project = edit(project, "rename-field", k * 13 + 1, k)  # a small edit on the regrouped design
        result = analyser.analyse(project)
        assert dump(project, result) == dump(project, analyse(project)), ("after", rid, strategy)
    assert patched >= 8, "most of these edits must regroup by a patch, or this test proves nothing"


def test_an_edit_that_changes_no_finding_is_not_folded_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """When no finding came or went, the last fold is handed out again: no walk over every finding (counted)."""
    from modeller.rules.incremental import fold

    project = generate_project(120, 1.5, 0.6, seed=7)
    analyser = Analyser()
    first = analyser.analyse(project)
    walks = {"shown": 0}
    shown = fold._shown

    def counted(*args: Any) -> Any:
        walks["shown"] += 1
        return shown(*args)

    monkeypatch.setattr(fold, "_shown", counted)
    again = analyser.analyse(project.model_copy(update={"name": "Renamed"}))  # (the name is read by no rule)
    assert analyser.last_patched
    assert walks["shown"] == 0
    assert [f.to_json() for f in again.findings] == [f.to_json() for f in first.findings]
    at = next(i for i, e in enumerate(project.entities) if e.count and not e.timeseries)
    big = project.entities[at].model_copy(update={"count": 10**12})  # findings change: they are folded again
    project = project.model_copy(update={"entities": _replace(project.entities, at, big)})
    result = analyser.analyse(project)
    assert analyser.last_patched
    assert walks["shown"] == 1
    assert dump(project, result) == dump(project, analyse(project))


def test_per_entity_caches_hold_one_entry_per_entity_over_many_edits() -> None:
    """The context an incremental session patches in place caches sizes and attribute groups per entity: 50 edits
    leave one entry per entity, each for the entity as it is now (keyed by object id, every edited entity was kept
    alive and the caches grew by one per edit)."""
    project = generate_project(2, 1.5, 0.6, seed=0)
    analyser = Analyser()
    analyser.analyse(project)
    for k in range(50):
        project = edit(project, "rename-field", k, k)
        analyser.analyse(project)
    assert analyser.last_patched
    assert analyser._state is not None and analyser._state.prev is not None
    ctx = analyser._state.prev.ctx
    current = {e.id: e for e in project.entities}
    for cache in (ctx.base_sizes, ctx._attribute_groups):
        assert cache, "the analysis filled the cache"
        assert len(cache) <= len(current)
        assert set(cache) <= set(current)
        assert all(entity is current[key] for key, (entity, _) in cache.items())
