"""The incremental ``Analyser`` always returns what a fresh ``analyse`` returns.

Edits are made like the GUI makes them (``model_copy`` of the edited object,
every other object kept), plus the in-place mutations another caller might
make (assignment to an attribute, appending to a list), which the analyser
must notice by its content check.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project
from modeller.model import Project
from modeller.model.project import Denormalization, Field, Index, Query
from modeller.model.vocabulary import CARDINALITIES, STRATEGIES
from modeller.rules import analyse
from modeller.rules.engine import Analyser
from modeller.rules.incremental.snapshot import Snapshot

BASE = {seed: generate_project(25, 1.5, 0.6, seed=seed) for seed in (0, 1, 2)}


def dump(project: Project, analysis: Any) -> str:
    return json.dumps(
        {"findings": [f.to_json() for f in analysis.findings], "design": analysis.design.to_json()}, sort_keys=True
    )


def _replace(items: list[Any], i: int, new: Any) -> list[Any]:
    out = list(items)
    out[i] = new
    return out


def edit(project: Project, kind: str, i: int, choice: int) -> Project:
    """One edit; model_copy edits return a new project, in-place ones mutate ``project`` and return it."""
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
    if kind == "drop-relationship" and r is not None:
        return project.model_copy(update={"relationships": [x for x in rels if x is not r]})
    if kind == "add-query":
        q = Query(id=f"q_new_{choice}_{len(queries)}", entity=e.id, filter={e.fields[0].name: "eq"}, hot=True)
        return project.model_copy(update={"queries": [*queries, q]})
    if kind == "drop-query" and queries:
        return project.model_copy(update={"queries": queries[1:]})
    if kind == "move-entity":
        rest = [x for x in ents if x is not e]
        return project.model_copy(update={"entities": [e, *rest]})
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
    if kind == "in-place-assign" and r is not None:
        r.read_together = (choice % 10) / 10
        r.many_standalone = not r.many_standalone
        return project
    if kind == "in-place-append":
        e.fields.append(Field(name=f"added_{choice}_{len(e.fields)}", type="int", unique=True))
        return project
    if kind == "in-place-entity":
        e.count = 7 + choice
        e.name = f"Changed {choice}"
        return project
    return project


EDITS = [
    "rename-field",
    "rename-entity",
    "cardinality",
    "strategy",
    "denormalize",
    "drop-relationship",
    "add-query",
    "drop-query",
    "move-entity",
    "in-place-assign",
    "in-place-append",
    "in-place-entity",
    "entity-count",
    "field-unique",
    "rel-read-together",
    "rel-max",
]
#: the edits the GUI makes most (one object replaced, same ids): the analyser patches its last result
SMALL_EDITS = ["rename-field", "cardinality", "strategy", "denormalize", "entity-count", "field-unique", "rel-max"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(sorted(BASE)),
    steps=st.lists(
        st.tuples(st.sampled_from(EDITS), st.integers(0, 1000), st.integers(0, 1000)), min_size=1, max_size=6
    ),
)
def test_incremental_equals_fresh(seed: int, steps: list[tuple[str, int, int]]) -> None:
    # a deep copy: in-place edits must not leak into the shared base project
    project = BASE[seed].model_copy(deep=True)
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


def test_in_place_change_is_noticed() -> None:
    project = BASE[1].model_copy(deep=True)
    analyser = Analyser()
    analyser.analyse(project)
    rel = project.relationships[0]
    rel.cardinality = "one-to-squillions" if rel.cardinality != "one-to-squillions" else "one-to-few"
    rel.max = rel.typical = None
    result = analyser.analyse(project)
    assert analyser.last_mode == "full"
    assert dump(project, result) == dump(project, analyse(project))
    design = next(d for d in result.design.relationships if d.id == rel.id)
    assert design.strategy == next(d for d in analyse(project).design.relationships if d.id == rel.id).strategy


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.sampled_from(sorted(BASE)),
    steps=st.lists(
        st.tuples(
            st.sampled_from([*SMALL_EDITS, "rel-read-together", "in-place-append", "in-place-assign"]),
            st.integers(0, 1000),
            st.integers(0, 1000),
        ),
        min_size=4,
        max_size=14,
    ),
)
def test_long_chains_of_small_edits_equal_fresh(seed: int, steps: list[tuple[str, int, int]]) -> None:
    """The patched context and design stay right over many edits in a row (each patch builds on the last)."""
    project = BASE[seed].model_copy(deep=True)
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
    # an in-place change is still noticed after patches
    project.relationships[0].many_standalone = not project.relationships[0].many_standalone
    result = analyser.analyse(project)
    assert not analyser.last_patched and analyser.last_mode == "full"
    assert dump(project, result) == dump(project, analyse(project))


def test_reordered_entities_equal_fresh() -> None:
    """Swapping two entities replaces two positions with other ids: never patched, still equal to fresh."""
    project = BASE[0].model_copy(deep=True)
    analyser = Analyser()
    analyser.analyse(project)
    for i in (1, 3, 2):
        project = edit(project, "move-entity", i, 0)
        result = analyser.analyse(project)
        assert not analyser.last_patched
        assert dump(project, result) == dump(project, analyse(project))


# ----- the snapshot (the content check behind every incremental analysis) -----


def _move_field(first: bool) -> Callable[[Project], None]:
    """A field moved to the next entity keeps the items of all lists in a row: only the list sizes differ."""

    def move(p: Project) -> None:
        i = next(i for i, e in enumerate(p.entities) if not e.indexes and not e.shard_key and len(e.fields) > 1)
        a, b = p.entities[i], p.entities[i + 1]
        if first:
            b.fields.append(a.fields.pop(0))
        else:
            b.fields.insert(0, a.fields.pop())

    return move


def _rename_filter_key(p: Project) -> None:
    q = next(q for q in p.queries if q.filter)
    key = next(iter(q.filter))
    q.filter[f"{key}_renamed"] = q.filter.pop(key)


def _reorder_filter(p: Project) -> None:
    """The same filter keys and values in another order (a dict's == ignores the order, the analysis does not)."""
    q = next(q for q in p.queries if len(q.filter) >= 2)
    key = next(iter(q.filter))
    q.filter[key] = q.filter.pop(key)


def _shard_key_item(p: Project) -> None:
    e = next(e for e in p.entities if e.shard_key)
    assert e.shard_key is not None
    e.shard_key.append(e.fields[-1].name)


IN_PLACE = {
    "entity-attribute": lambda p: setattr(p.entities[2], "name", "Other name"),
    "entity-number": lambda p: setattr(p.entities[2], "count", (p.entities[2].count or 0) + 1),
    "field-appended": lambda p: p.entities[3].fields.append(Field(name="extra", type="int")),
    "field-replaced": lambda p: p.entities[3].fields.__setitem__(0, Field(name="other", type="string")),
    "first-field-moved-to-next-entity": _move_field(True),
    "last-field-moved-to-next-entity": _move_field(False),
    "index-appended": lambda p: p.entities[4].indexes.append(Index(keys=[(p.entities[4].fields[0].name, 1)])),
    "shard-key-set": lambda p: setattr(p.entities[4], "shard_key", [p.entities[4].fields[0].name]),
    "rel-attribute": lambda p: setattr(p.relationships[1], "many_standalone", not p.relationships[1].many_standalone),
    "denormalize-appended": lambda p: p.relationships[1].denormalize.append(
        Denormalization(field="x", direction="many-to-one")
    ),
    "filter-key-renamed": _rename_filter_key,
    "filter-keys-reordered": _reorder_filter,
    "shard-key-appended": _shard_key_item,
    "projection-item-replaced": lambda p: next(q for q in p.queries if q.projection).projection.__setitem__(0, "x"),
    "join-appended": lambda p: p.queries[0].joins.append(p.relationships[0].id),
    "sort-replaced": lambda p: p.queries[0].sort.append((p.entities[0].fields[0].name, -1)),
}


@pytest.mark.parametrize("kind", sorted(IN_PLACE))
def test_snapshot_notices_each_in_place_change(kind: str) -> None:
    project = BASE[2].model_copy(deep=True)
    snap = Snapshot.of(project)
    assert not snap.mutated(project)
    IN_PLACE[kind](project)
    assert snap.mutated(project)
    # a patch replacing another object must still see it: then() answers False for that group
    edited = BASE[2].model_copy(deep=True)
    snap = Snapshot.of(edited)
    IN_PLACE[kind](edited)
    ents = list(edited.entities)
    ents[-1] = ents[-1].model_copy(update={"name": "Replaced"})
    rels = list(edited.relationships)
    rels[-1] = rels[-1].model_copy(update={"read_together": 0.5})
    answers = [
        snap.ents.then(ents, [len(ents) - 1]),
        snap.rels.then(rels, [len(rels) - 1]),
        snap.queries.then(edited.queries, []),
    ]
    assert not all(answers)
    assert snap.mutated(edited.model_copy(update={"entities": ents, "relationships": rels}))


def test_snapshot_takes_replaced_objects() -> None:
    """Replacing objects (other sizes too) is no change in place, and the columns then equal a fresh snapshot."""
    project = BASE[0].model_copy(deep=True)
    snap = Snapshot.of(project)
    ents = list(project.entities)
    for i in (1, 4):
        e = ents[i]
        ents[i] = e.model_copy(update={"fields": [*e.fields, Field(name=f"new_{i}", type="int")], "indexes": []})
    ents[2] = ents[2].model_copy(update={"fields": ents[2].fields[:1]})
    rels = list(project.relationships)
    rels[0] = rels[0].model_copy(update={"denormalize": [Denormalization(field="x", direction="many-to-one")]})
    assert snap.ents.then(ents, [1, 2, 4])
    assert snap.rels.then(rels, [0])
    fresh = Snapshot.of(project.model_copy(update={"entities": ents, "relationships": rels}))
    assert snap.ents.columns == fresh.ents.columns and snap.ents.objs == ents
    assert snap.rels.columns == fresh.rels.columns and snap.rels.objs == rels
    # the copied containers of the replaced objects are their new lists' items, copies (not the lists themselves)
    assert snap.ents.held == fresh.ents.held and snap.rels.held == fresh.rels.held
    assert snap.ents.held[0][1] == ents[1].fields and snap.ents.held[0][1] is not ents[1].fields
    assert not snap.mutated(project.model_copy(update={"entities": ents, "relationships": rels}))


def test_field_edits_are_patched() -> None:
    """A field edit replaces the entity and its field list: the snapshot takes them, the analysis is patched."""
    project = generate_project(40, 1.5, 0.6, seed=4)
    analyser = Analyser()
    analyser.analyse(project)
    for k, kind in enumerate(["rename-field", "field-unique", "rename-field"]):
        project = edit(project, kind, k * 5 + 2, k)
        result = analyser.analyse(project)
        assert analyser.last_patched, kind
        assert dump(project, result) == dump(project, analyse(project)), kind
