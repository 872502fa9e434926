"""Property tests: ``analyse`` never raises on a valid project, is deterministic, and names real subjects."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project, check_project
from modeller.model.vocabulary import CARDINALITIES, FILTER_OPS, STALENESS, STRATEGIES
from modeller.rules import analyse

SCALARS = ["string", "int", "double", "decimal", "bool", "date", "objectId", "uuid", "point", "long"]
NAMES = ["name", "price", "time", "city", "ram", "status", "tags", "specs", 'a"b', "ümlaut", "x</script>"]


@st.composite
def fields(draw: Any, depth: int = 0) -> list[dict[str, Any]]:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=0, max_size=4, unique=True))
    out = []
    for name in names:
        kind = draw(st.sampled_from([*SCALARS, "object", "array"] if depth < 2 else SCALARS))
        f: dict[str, Any] = {"name": name, "type": kind}
        if kind == "object":
            f["fields"] = draw(fields(depth + 1))
        elif kind == "array":
            f["items"] = {"type": draw(st.sampled_from(SCALARS))}
            if draw(st.booleans()):
                f["max_items"] = draw(st.integers(0, 500))
        f["unique"] = draw(st.booleans()) and kind in ("string", "int")
        if draw(st.booleans()):
            f["updates_per_sec"] = draw(st.sampled_from([0, 0.01, 1, 50]))
            f["reads_per_sec"] = draw(st.sampled_from([0, 1, 100, 10_000]))
        f["immutable"] = draw(st.booleans())
        out.append(f)
    return out


@st.composite
def projects(draw: Any) -> Project:
    n = draw(st.integers(1, 5))
    entities = []
    for i in range(n):
        e: dict[str, Any] = {
            "id": f"e{i}",
            "name": draw(st.sampled_from(["Host", "Log Message", "x y", "Ünïcode", f"E{i}"])),
            "collection": f"c{i}",
            "fields": draw(fields()),
        }
        flat = [f["name"] for f in e["fields"] if f["type"] == "date"]
        if flat and draw(st.booleans()):
            e["timeseries"] = {"time_field": flat[0], "bucket_size": draw(st.sampled_from([None, 60])) or 10}
            e["append_only"] = draw(st.booleans())
        if draw(st.integers(0, 4)) == 0:
            e["subtypes"] = {"discriminator": "kind", "variants": {"a": draw(fields(1)), "b": []}}
        for attr in ("count", "reads_per_sec", "writes_per_sec", "growth_per_day"):
            if draw(st.booleans()):
                e[attr] = draw(st.sampled_from([0, 1, 10, 1000, 10**7]))
        entities.append(e)
    rels = []
    for j in range(draw(st.integers(0, 6))):
        one, many = draw(st.sampled_from(entities)), draw(st.sampled_from(entities))
        r: dict[str, Any] = {
            "id": f"r{j}",
            "one": one["id"],
            "many": many["id"],
            "cardinality": draw(st.sampled_from(CARDINALITIES)),
            "strategy": draw(st.sampled_from(STRATEGIES)),
        }
        if draw(st.booleans()):
            r["max"] = draw(st.sampled_from([1, 5, 150, 600, 5000, 10**6]))
        r["many_standalone"] = draw(st.booleans())
        r["show_latest"] = draw(st.sampled_from([None, 3, 1000]))
        r["growth"] = draw(st.sampled_from([None, "bounded", "unbounded"]))
        r["inverse"] = draw(st.sampled_from([None, "owner"]))
        r["atomic"] = draw(st.booleans())
        denorm = []
        for d in draw(st.lists(st.sampled_from(["many-to-one", "one-to-many"]), max_size=2)):
            source = many if d == "many-to-one" else one
            if source["fields"]:
                denorm.append(
                    {
                        "field": draw(st.sampled_from(source["fields"]))["name"],
                        "direction": d,
                        "staleness": draw(st.sampled_from(STALENESS)),
                    }
                )
        r["denormalize"] = denorm
        if many["fields"] and draw(st.booleans()):
            r["aggregates"] = [
                {"name": "stat_count", "op": "count"},
                {"name": "stat_avg", "op": "avg", "field": many["fields"][0]["name"]},
            ]
        rels.append({k: v for k, v in r.items() if v is not None})
    queries = []
    for k in range(draw(st.integers(0, 4))):
        e = draw(st.sampled_from(entities))
        names = [f["name"] for f in e["fields"]] + ["_id"]
        flt = {name: draw(st.sampled_from(FILTER_OPS)) for name in draw(st.lists(st.sampled_from(names), max_size=3))}
        sort = [
            [name, draw(st.sampled_from([1, -1]))]
            for name in draw(st.lists(st.sampled_from(names), max_size=2, unique=True))
        ]
        queries.append(
            {
                "id": f"q{k}",
                "entity": e["id"],
                "filter": flt,
                "sort": sort,
                "joins": [r["id"] for r in rels[:1]],
                "hot": draw(st.booleans()),
            }
        )
    data = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "name": "p",
        "server_version": "7.0",
        "entities": entities,
        "relationships": rels,
        "queries": queries,
    }
    try:
        project = Project.model_validate(data)
    except ValueError:
        assume(False)
        raise
    assume(not check_project(project))
    return project


def _subjects(project: Project, analysis: Any) -> set[tuple[str, str]]:
    out = {("entity", e.id) for e in project.entities}
    out |= {("relationship", r.id) for r in project.relationships}
    out |= {("query", q.id) for q in project.queries}
    out |= {("collection", c.name) for c in analysis.design.collections}
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(projects())
def test_analyse_never_raises_is_deterministic_and_names_real_subjects(project: Project) -> None:
    first = analyse(project)
    second = analyse(project.model_copy(deep=True))
    assert [f.to_json() for f in first.findings] == [f.to_json() for f in second.findings]
    assert first.design.to_json() == second.design.to_json()
    subjects = _subjects(project, first)
    for f in first.findings:
        assert (f.subject.kind, f.subject.id) in subjects, f
        assert f.severity in ("info", "suggestion", "warning", "error")
    for coll in first.design.collections:
        assert coll.validator["$jsonSchema"]["bsonType"] == "object"
        for idx in coll.indexes:
            assert idx.keys and len(idx.keys) <= 32
    for rel in first.design.relationships:
        assert rel.strategy != "auto"
