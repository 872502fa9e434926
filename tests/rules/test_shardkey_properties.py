"""Shard-key advisor properties (hypothesis): what the server would refuse is never chosen, and a hot shard is
never chosen silently."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modeller.model.project import Project
from modeller.rules import analyse
from modeller.rules.settings import DEFAULT_SETTINGS

FIELDS = ("a", "b", "c", "d")


@st.composite
def sharded_projects(draw: st.DrawFn) -> Project:
    """One sharded entity: fields with random cardinality and monotonicity, unique indexes, a user key, queries."""
    fields: list[dict[str, Any]] = []
    for name in FIELDS:
        f: dict[str, Any] = {"name": name, "type": draw(st.sampled_from(["string", "long", "date"]))}
        if draw(st.booleans()):
            f["distinct"] = draw(st.integers(1, 10_000_000))
        if draw(st.booleans()):
            f["monotonic"] = True
        if draw(st.booleans()):
            f["immutable"] = True
        fields.append(f)
    uniques = draw(st.lists(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=2, unique=True), max_size=2))
    entity: dict[str, Any] = {
        "id": "item",
        "name": "Item",
        "count": draw(st.integers(1, 10**9)),
        "writes_per_sec": draw(st.sampled_from([0, 10, 1_000, 50_000])),
        "indexes": [{"keys": [[k, 1] for k in keys], "unique": True} for keys in uniques],
        "fields": fields,
    }
    user = draw(st.one_of(st.none(), st.lists(st.sampled_from(FIELDS), min_size=1, max_size=2, unique=True)))
    if user is not None or draw(st.booleans()):
        entity["shard_key"] = user or [draw(st.sampled_from(FIELDS))]
    else:
        entity["writes_per_sec"] = 50_000  # outgrows one replica set by its writes
    queries = [
        {"id": f"q{i}", "entity": "item", "filter": {name: op}, "per_sec": per_sec}
        for i, (name, op, per_sec) in enumerate(
            draw(
                st.lists(
                    st.tuples(st.sampled_from(FIELDS), st.sampled_from(["eq", "range"]), st.integers(1, 100_000)),
                    max_size=4,
                )
            )
        )
    ]
    return Project.model_validate(
        {
            "format": "mongo-schema-modeller",
            "format_version": 2,
            "name": "P",
            "sharded": True,
            "shards": draw(st.integers(1, 16)),
            "entities": [entity],
            "queries": queries,
        }
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sharded_projects())
def test_no_unique_index_is_left_unprefixed_by_the_chosen_key(project: Project) -> None:
    analysis = analyse(project)
    design = analysis.design
    assert design.shard_advice, "every generated entity is sharded (a key, or writes above one replica set)"
    for name, advice in design.shard_advice.items():
        coll = design.collection(name)
        assert coll is not None
        if advice.chosen is None:
            # nothing allowed: said as a finding, never a refused key in the design
            assert any(f.rule == "shard-key-targeting-and-constraints" for f in analysis.findings)
            assert design.to_json()["collections"][0]["shard_key"] is None
            continue
        paths = advice.chosen.paths
        for index in coll.indexes:
            if index.unique:
                assert [k for k, _ in index.keys][: len(paths)] == paths, (index.keys, paths)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sharded_projects())
def test_a_monotonic_key_under_heavy_inserts_is_never_ranged_without_a_finding(project: Project) -> None:
    analysis = analyse(project)
    heavy = DEFAULT_SETTINGS.shard_heavy_inserts
    for advice in analysis.design.shard_advice.values():
        chosen = advice.chosen
        if chosen is None or not chosen.monotonic or chosen.hashed or advice.inserts_per_sec < heavy:
            continue
        assert any(
            f.rule == "shard-key-distribution" and f.severity == "warning" and "only grows" in f.message
            for f in analysis.findings
        ), [f.message for f in analysis.findings]
