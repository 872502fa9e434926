"""A query's scope ("the N of one One", "the One of an N") in the physical form of each resolved strategy."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from modeller.export.query_plans import query_mongosh
from modeller.rules import analyse
from modeller.rules.physical.design import Design
from modeller.rules.physical.planner import Param, QueryPlan, Ref
from tests.export.js_harness import node_binary
from tests.rules.test_planner import _one_to_n, plan_of, project

#: the Tasks of one Person, by due date
OF_PERSON = {"id": "of_person", "entity": "task", "scope": "person_tasks", "sort": [["due", 1]], "limit": 10}
#: the Person of one Task
OWNER = {"id": "owner", "entity": "person", "scope": "person_tasks", "projection": ["name"]}


def scoped(strategy: str, query: dict[str, Any] = OF_PERSON, **rel: Any) -> tuple[Design, QueryPlan]:
    design = _one_to_n(strategy, [query], **rel)
    return design, plan_of(design, query["id"])


def index_keys(design: Design, collection: str) -> list[list[tuple[str, Any]]]:
    return [list(i.keys) for c in design.collections if c.name == collection for i in c.indexes]


# ------------------------------------------------------------------------------------------ the N of one One


@pytest.mark.parametrize("strategy", ["parent-ref", "two-way", "subset"])
def test_a_reference_in_each_n_is_the_leading_equality(strategy: str) -> None:
    design, plan = scoped(strategy, show_latest=5)
    assert plan.scope is not None and (plan.scope.kind, plan.scope.label) == ("reference", "the Tasks of one Person")
    assert plan.round_trips == 1 and plan.main == 0 and plan.collection == "tasks"
    assert plan.steps[0].filter == {"person_id": Param("Person")}  # the user's words, not a generated name
    assert [("person_id", 1), ("due", 1)] in index_keys(design, "tasks")
    assert plan.index is not None and plan.index.keys[:2] == (("person_id", 1), ("due", 1))
    assert plan.index.eq == 1 and plan.index.sort and not plan.blocking_sort
    assert plan.docs_examined == 10 and plan.docs_returned == 10  # 50 tasks of one person, the first 10 by due


def test_an_extended_reference_is_matched_on_its_id() -> None:
    _, plan = scoped("extended-ref", denormalize=[{"field": "name", "direction": "one-to-many"}])
    assert plan.scope is not None and plan.scope.kind == "reference"
    (ref,) = [k for k in plan.steps[0].filter if k.startswith("person")]
    assert plan.steps[0].filter[ref] == Param("Person")
    assert plan.index is not None and plan.index.keys[0] == (ref, 1) and not plan.blocking_sort


def test_child_refs_read_the_one_then_id_in_over_its_array() -> None:
    design, plan = scoped("child-refs")
    assert plan.scope is not None and plan.scope.kind == "ids"
    assert plan.round_trips == 2 and plan.main == 1 and plan.lookups == []
    first, main = plan.steps
    assert (first.collection, first.filter, first.projection) == ("people", {"_id": Param("Person")}, ["task_ids"])
    assert first.index is not None and first.index.name == "_id_"
    assert main.collection == "tasks" and main.filter == {"_id": {"$in": Ref(1, "task_ids")}}
    assert plan.collection == "tasks" and plan.index is not None and plan.index.name == "_id_"
    # the 50 tasks of one person come in _id order: sorted in memory, but only those few
    assert plan.blocking_sort and 0 < plan.sort_bytes < 1_000_000 and not plan.sort_over_limit
    assert main.docs_examined == 50 and plan.docs_returned == 10
    assert not any(keys[0][0] == "due" for keys in index_keys(design, "tasks"))  # no index the plan cannot use
    text = query_mongosh(plan)
    assert text.splitlines() == [
        'const r1 = db.getCollection("people").find({"_id": params["Person"]}, {"task_ids": 1}).toArray();',
        'const r2 = db.getCollection("tasks").find({"_id": {"$in": r1.flatMap(d => d["task_ids"] ?? [])}})'
        '.sort({"due": 1}).limit(10).toArray();',
    ]


def test_an_embedded_n_is_read_with_its_one() -> None:
    _, plan = scoped("embed", read_together=1)
    assert plan.scope is not None and plan.scope.kind == "embedded"
    assert plan.round_trips == 1 and plan.collection == "people"
    assert plan.steps[0].filter == {"_id": Param("Person")}
    assert plan.index is not None and plan.index.name == "_id_" and plan.docs_examined == 1


def test_a_bucket_is_matched_on_its_series_field() -> None:
    design = analyse(
        project(
            entities=[
                {"id": "sensor", "name": "Sensor", "count": 1000, "fields": [{"name": "name", "type": "string"}]},
                {
                    "id": "reading",
                    "name": "Reading",
                    "count": 10_000_000,
                    "timeseries": {"time_field": "at", "interval_s": 60},
                    "fields": [{"name": "at", "type": "date"}, {"name": "value", "type": "double"}],
                },
            ],
            relationships=[
                {"id": "sensor_readings", "one": "sensor", "many": "reading", "cardinality": "one-to-squillions"}
            ],
            queries=[{"id": "hour", "entity": "reading", "scope": "sensor_readings", "filter": {"at": "range"}}],
        )
    ).design
    plan = plan_of(design, "hour")
    assert design.relationships[0].strategy == "bucket"
    assert plan.scope is not None and plan.scope.kind == "reference" and plan.scope.path == "sensor_id"
    assert plan.steps[0].filter["sensor_id"] == Param("Sensor")
    assert plan.index is not None and plan.index.keys[0] == ("sensor_id", 1)


# ------------------------------------------------------------------------------------------ the One of an N


def test_the_one_of_an_n_through_its_reference_reads_the_n_first() -> None:
    _, plan = scoped("parent-ref", OWNER)
    assert plan.scope is not None and (plan.scope.kind, plan.scope.label) == ("via-many", "the Person of one Task")
    first, main = plan.steps
    assert (first.collection, first.filter, first.projection) == ("tasks", {"_id": Param("Task")}, ["person_id"])
    assert main.collection == "people" and main.filter == {"_id": {"$in": Ref(1, "person_id")}}
    assert main.projection == ["name"] and plan.docs_returned == 1 and not plan.collection_scan


@pytest.mark.parametrize("strategy", ["child-refs", "two-way"])
def test_the_one_of_an_n_through_its_array_is_one_multikey_equality(strategy: str) -> None:
    design, plan = scoped(strategy, OWNER)
    assert plan.scope is not None and plan.scope.kind == "holder"
    assert plan.round_trips == 1 and plan.steps[0].filter == {"task_ids": Param("Task")}
    assert plan.index is not None and plan.index.keys[0] == ("task_ids", 1) and plan.docs_examined == 1
    assert [("task_ids", 1)] in index_keys(design, "people")


def test_the_one_of_an_embedded_n_is_unresolved_in_words() -> None:
    _, plan = scoped("embed", OWNER, read_together=1)
    assert plan.scope is not None and plan.scope.kind == "inside"
    assert plan.unresolved == ["the Person of one Task"]


# ------------------------------------------------------------------------------------------ the mongosh


def test_every_scope_form_writes_valid_mongosh(tmp_path: Path) -> None:
    chunks = []
    for strategy in ("parent-ref", "two-way", "child-refs", "embed", "extended-ref", "subset"):
        for query in (OF_PERSON, OWNER):
            _, plan = scoped(strategy, query, read_together=1)
            chunks.append("{\n" + query_mongosh(plan) + "\n}")
    script = tmp_path / "scopes.js"
    script.write_text("\n".join(chunks), encoding="utf-8")
    proc = subprocess.run([node_binary(), "--check", str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------------------------------------------ incremental


def test_a_strategy_change_replans_the_scoped_queries_as_a_fresh_analysis_does() -> None:
    from modeller.persistence import load_project
    from modeller.rules.engine import Analyser
    from tests.rules.test_planner import SAMPLES

    p = load_project(SAMPLES / "task-tracker.modeller.json")
    owner = p.queries[0].model_copy(update={"id": "owner", "scope": "person_tasks", "filter": {}, "joins": ()})
    p = p.model_copy(update={"queries": (*p.queries, owner)})  # the Person of one Task, beside the Tasks of one Person
    analyser = Analyser()
    analyser.analyse(p)
    forms = set()
    for strategy in ("child-refs", "parent-ref", "embed", "two-way", "extended-ref"):
        rel = p.relationships[0].model_copy(update={"strategy": strategy})
        p = p.model_copy(update={"relationships": (rel,)})
        incremental = [q.to_json() for q in analyser.analyse(p).design.queries]
        assert incremental == [q.to_json() for q in analyse(p).design.queries], strategy
        forms.update((q["id"], q["scope"]["form"]) for q in incremental if q["scope"] is not None)
    assert {f for qid, f in forms if qid == "tasks_of_owner"} == {"ids", "reference", "embedded"}
    assert {f for qid, f in forms if qid == "owner"} == {"holder", "via-many", "inside"}
