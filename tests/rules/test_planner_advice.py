"""A query's plan reads the index the design advises for it: one answer (``planner.advised_index``), so the
advice ("serves query 2") and the plan never name two indexes for one query, bucket-scoped queries included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from modeller.persistence import load_project
from modeller.rules.catalog import load_rules
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.physical.esr import EsrPlan
from modeller.rules.physical.facts import ContextCache, build_context
from modeller.rules.physical.planner import advised_index, choose_index
from modeller.rules.physical.resolver import resolve
from modeller.rules.settings import DEFAULT_SETTINGS
from tests.rules.test_planner import idx, project

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.modeller.json"))


def _plans_and_advice(p: Any) -> list[tuple[str, str, str | None, tuple[str, str] | None]]:
    """(query, collection read, index read, advised (collection, index)) of every query's own read."""
    load_rules()
    design, res = resolve(build_context(p, DEFAULT_SETTINGS, ContextCache()), REGISTRY.deciders(), None)
    out = []
    for plan in design.queries:
        main = plan.steps[plan.main]
        out.append((plan.id, main.collection, main.index.name if main.index else None, res.query_index.get(plan.id)))
    return out


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_sample_query_reads_the_advised_index(path: Path) -> None:
    seen = _plans_and_advice(load_project(path))
    for qid, coll, index, advised in seen:
        if advised is not None:
            assert (coll, index) == advised, qid


#: the Tasks of one Person: by due date, in a due range, and a Person with their Tasks
QUERIES = [
    {"id": "page", "entity": "task", "scope": "person_tasks", "sort": [["due", -1]], "limit": 10},
    {"id": "range", "entity": "task", "scope": "person_tasks", "filter": {"due": "range"}, "limit": 20},
    {"id": "titled", "entity": "task", "scope": "person_tasks", "filter": {"title": "eq"}},
    {"id": "with", "entity": "person", "filter": {"name": "eq"}, "joins": ["person_tasks"]},
]


@pytest.mark.parametrize("strategy", ["parent-ref", "two-way", "child-refs", "extended-ref", "bucket", "subset"])
def test_every_scoped_query_reads_the_advised_index(strategy: str) -> None:
    task: dict[str, Any] = {
        "id": "task",
        "count": 50_000,
        "fields": [{"name": "title", "type": "string"}, {"name": "due", "type": "date"}],
    }
    if strategy == "bucket":  # the Tasks of one Person in bucket documents of a time series
        task["timeseries"] = {"time_field": "due"}
    p = project(
        entities=[{"id": "person", "count": 1000, "fields": [{"name": "name", "type": "string"}]}, task],
        relationships=[
            {
                "id": "person_tasks",
                "one": "person",
                "many": "task",
                "cardinality": "one-to-many",
                "max": 200,
                "strategy": strategy,
                "show_latest": 5,
            }
        ],
        queries=QUERIES,
    )
    seen = _plans_and_advice(p)
    assert len(seen) == len(QUERIES)
    advised = [
        (qid, coll, index) for qid, coll, index, advice in seen if advice is not None and (coll, index) == advice
    ]
    assert [q for q, _, _ in advised] == [q for q, _, _, advice in seen if advice is not None] != []


def test_the_advised_index_wins_when_it_serves_the_query() -> None:
    plan = EsrPlan(eq=["series"], sort=[("start", -1)])
    shorter, longer = idx("series_1", ("series", 1)), idx("series_1_start_-1", ("series", 1), ("start", -1))
    picked = choose_index([shorter, longer], plan)
    assert picked is not None and picked.name == "series_1_start_-1"
    use = advised_index([shorter, longer], plan, "series_1")
    assert use is not None and use.name == "series_1" and use.eq == 1 and not use.sort
    # an advice that does not serve the query (or names no index) falls back to the server's pick
    other = idx("title_1", ("title", 1))
    fallback = advised_index([shorter, longer, other], plan, "title_1")
    assert fallback is not None and fallback.name == "series_1_start_-1"
    assert advised_index([shorter, longer], plan, None) == picked
