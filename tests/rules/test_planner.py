"""The query planner: index choice by ESR prefix, blocking sorts, joins through references, text/geo, writes."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from modeller.export.query_plans import query_mongosh
from modeller.model import FORMAT_NAME, FORMAT_VERSION, Project
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.rules.framework.registry import REGISTRY
from modeller.rules.physical.design import Design, IndexDesign
from modeller.rules.physical.esr import EsrPlan
from modeller.rules.physical.facts import build_context
from modeller.rules.physical.planner import Param, QueryPlan, Ref, choose_index, index_use, plan_design
from modeller.rules.physical.resolver import resolve
from modeller.rules.settings import DEFAULT_SETTINGS
from tests.export.js_harness import node_binary

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from benchmarks.generate import generate_project

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def project(**data: Any) -> Project:
    data.setdefault("entities", [])
    for e in data["entities"]:
        e.setdefault("name", e["id"])
        e.setdefault("fields", [])
    return Project.model_validate({"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "name": "t", **data})


def plan_of(design: Design, qid: str) -> QueryPlan:
    return next(p for p in design.queries if p.id == qid)


def idx(name: str, *keys: tuple[str, Any], **options: Any) -> IndexDesign:
    return IndexDesign(keys=list(keys), name=name, **options)


# ------------------------------------------------------------------------------------------ ESR prefix matching


def test_the_longest_esr_prefix_wins() -> None:
    plan = EsrPlan(eq=["user_id", "status"], sort=[("created_at", -1)], range=["amount"])
    indexes = [
        idx("user", ("user_id", 1)),
        idx("user_status", ("user_id", 1), ("status", 1)),
        idx("esr", ("status", 1), ("user_id", 1), ("created_at", -1), ("amount", 1)),
        idx("wrong_order", ("user_id", 1), ("amount", 1), ("created_at", -1)),
    ]
    use = choose_index(indexes, plan)
    assert use is not None and use.name == "esr"
    assert (use.eq, use.sort, use.range) == (2, True, 1)
    wrong = index_use(indexes[3], plan)
    # the range key right after the equality still bounds the scan, but the sort is not served
    assert wrong is not None and (wrong.eq, wrong.sort, wrong.range) == (1, False, 1)


def test_an_inverted_sort_is_served_a_mixed_one_is_not() -> None:
    plan = EsrPlan(eq=["a"], sort=[("b", 1), ("c", -1)])
    inverted = index_use(idx("inv", ("a", 1), ("b", -1), ("c", 1)), plan)
    mixed = index_use(idx("mix", ("a", 1), ("b", 1), ("c", 1)), plan)
    assert inverted is not None and inverted.sort
    assert mixed is not None and not mixed.sort and mixed.eq == 1


def test_partial_collated_and_useless_indexes_are_not_chosen() -> None:
    plan = EsrPlan(eq=["a"])
    assert index_use(idx("p", ("a", 1), partial={"a": {"$exists": True}}), plan) is None
    assert index_use(idx("c", ("a", 1), collation={"locale": "en", "strength": 2}), plan) is None
    assert index_use(idx("other", ("b", 1), ("a", 1)), plan) is None
    assert choose_index([idx("other", ("b", 1))], plan) is None
    by_id = choose_index([], EsrPlan(eq=["_id"]))
    assert by_id is not None and by_id.name == "_id_"


# ------------------------------------------------------------------------------------------ queries on designs


def _orders(query: dict[str, Any], count: int = 1_000_000, indexes: list[Any] | None = None) -> Design:
    entity: dict[str, Any] = {
        "id": "order",
        "name": "Order",
        "collection": "orders",
        "count": count,
        "fields": [
            {"name": "user", "type": "string", "distinct": 1000},
            {"name": "status", "type": "string"},
            {"name": "amount", "type": "double"},
            {"name": "created_at", "type": "date"},
            {"name": "body", "type": "string", "bytes": 2000},
            {"name": "title", "type": "string"},
            {"name": "where", "type": "point"},
        ],
    }
    if indexes is not None:
        entity["indexes"] = indexes
    return analyse(project(entities=[entity], queries=[{"id": "q", "entity": "order", **query}])).design


def test_an_esr_query_uses_its_index_and_examines_the_selected_documents() -> None:
    design = _orders({"filter": {"user": "eq", "status": "eq", "amount": "range"}, "sort": [["created_at", -1]]})
    plan = plan_of(design, "q")
    assert plan.collection == "orders"
    assert plan.index is not None and [k for k, _ in plan.index.keys] == ["user", "status", "created_at", "amount"]
    assert not plan.blocking_sort and plan.sort_bytes == 0 and plan.round_trips == 1
    # 1,000,000 x 1/1,000 (distinct) x 0.01 (status: engine default) x 0.1 (range default)
    assert plan.docs_examined == 1
    assert plan.steps[0].filter["user"] == Param("user")
    assert plan.steps[0].filter["amount"] == {"$gte": Param("amount from"), "$lt": Param("amount to")}


def replanned(p: Project, keep: Callable[[IndexDesign], bool]) -> tuple[Design, list[QueryPlan]]:
    """Resolve ``p``, keep only the indexes ``keep`` accepts, and plan again (a design the engine would not make)."""
    analyse(p)  # registers the rules
    ctx = build_context(p, DEFAULT_SETTINGS)
    design, res = resolve(ctx, REGISTRY.deciders())
    for coll in design.collections:
        coll.indexes = [i for i in coll.indexes if keep(i)]
    plans, _ = plan_design(ctx, design, res)
    return design, plans


def test_a_sort_the_index_cannot_give_is_a_blocking_sort_measured_against_100_mb() -> None:
    entity = {
        "id": "order",
        "count": 10_000_000,
        "fields": [
            {"name": "status", "type": "string"},
            {"name": "created_at", "type": "date"},
            {"name": "body", "type": "string", "bytes": 2000},
        ],
        "indexes": [{"keys": [["status", 1]], "name": "by_status"}],
    }
    query = {"id": "q", "entity": "order", "filter": {"status": "eq"}, "sort": [["created_at", 1]]}
    p = project(entities=[entity], queries=[query])
    served = plan_of(analyse(p).design, "q")
    assert served.index is not None and served.index.sort and not served.blocking_sort  # the engine's ESR index
    design, (plan,) = replanned(p, lambda i: i.name == "by_status")
    assert plan.index is not None and plan.index.name == "by_status" and not plan.index.sort
    assert plan.blocking_sort
    # 1 % (engine default) of 10,000,000 documents reach the sort, each of the collection's average size
    assert plan.sort_bytes == 100_000 * design.collections[0].avg_bytes
    assert plan.sort_bytes > DEFAULT_SETTINGS.blocking_sort_max_bytes and plan.sort_over_limit


def test_a_limited_blocking_sort_keeps_only_the_top_documents() -> None:
    # a text search cannot return documents in another field's order
    design = _orders({"filter": {"body": "text"}, "sort": [["created_at", -1]], "limit": 10})
    plan = plan_of(design, "q")
    assert plan.index is not None and plan.index.special == "text"
    assert dict(plan.index.keys) == {"body": "text"}
    assert plan.blocking_sort and plan.sort_bytes == 10 * design.collections[0].avg_bytes
    assert not plan.sort_over_limit
    assert plan.steps[0].filter == {"$text": {"$search": Param("search")}}


def test_text_on_two_fields_uses_the_one_text_index() -> None:
    design = _orders({"filter": {"body": "text", "title": "text"}})
    plan = plan_of(design, "q")
    texts = [i for i in design.collections[0].indexes if any(v == "text" for _, v in i.keys)]
    assert len(texts) == 1 and plan.index is not None and plan.index.name == texts[0].name
    assert {k for k, _ in plan.index.keys} == {"body", "title"}


def test_a_geo_filter_uses_the_2dsphere_index() -> None:
    plan = plan_of(_orders({"filter": {"where": "geo"}}), "q")
    assert plan.index is not None and plan.index.special == "2dsphere"
    assert plan.steps[0].filter == {"where": {"$geoWithin": {"$geometry": Param("where")}}}
    assert plan.docs_examined == 100_000  # the engine's default share of a geo predicate


def test_a_filter_no_index_serves_is_a_collection_scan() -> None:
    p = project(
        entities=[{"id": "order", "count": 5000, "fields": [{"name": "status", "type": "string"}]}],
        queries=[{"id": "q", "entity": "order", "filter": {"status": "eq"}}],
    )
    _, (plan,) = replanned(p, lambda i: False)
    assert plan.index is None and plan.collection_scan and plan.docs_examined == 5000
    assert plan.docs_returned == 50  # 1 % by the engine default


# ------------------------------------------------------------------------------------------ scope and joins


def _one_to_n(strategy: str, queries: list[dict[str, Any]], **rel: Any) -> Design:
    return analyse(
        project(
            entities=[
                {
                    "id": "person",
                    "name": "Person",
                    "collection": "people",
                    "count": 1000,
                    "fields": [{"name": "name", "type": "string"}],
                },
                {
                    "id": "task",
                    "name": "Task",
                    "collection": "tasks",
                    "count": 50_000,
                    "fields": [{"name": "title", "type": "string"}, {"name": "due", "type": "date"}],
                },
            ],
            relationships=[
                {
                    "id": "person_tasks",
                    "one": "person",
                    "many": "task",
                    "name": "tasks",
                    "cardinality": "one-to-many",
                    "max": 200,
                    "strategy": strategy,
                    **rel,
                }
            ],
            queries=queries,
        )
    ).design


PERSON_PAGE = {"id": "page", "entity": "person", "filter": {"_id": "eq"}, "joins": ["person_tasks"]}


def test_child_refs_are_read_with_id_in_over_the_array() -> None:
    plan = plan_of(_one_to_n("child-refs", [PERSON_PAGE]), "page")
    assert plan.round_trips == 2
    first, join = plan.steps
    assert first.collection == "people" and first.projection == []
    assert join.collection == "tasks" and join.filter == {"_id": {"$in": Ref(1, "task_ids")}}
    assert join.index is not None and join.index.name == "_id_"
    assert join.docs_examined == 50  # 50,000 tasks / 1,000 people, one index lookup each
    assert plan.lookups[0].relationship == "person_tasks"
    text = query_mongosh(plan)
    assert 'const r2 = db.getCollection("tasks").find({"_id": {"$in": r1.flatMap(d => d["task_ids"] ?? [])}})' in text


def test_the_n_of_one_one_through_a_parent_reference_uses_its_index() -> None:
    queries = [
        PERSON_PAGE,
        {"id": "of_owner", "entity": "task", "filter": {"person_id": "eq"}, "sort": [["due", 1]], "limit": 10},
    ]
    design = _one_to_n("parent-ref", queries)
    page = plan_of(design, "page")
    (join,) = page.lookups
    assert join.collection == "tasks" and join.filter == {"person_id": {"$in": Ref(1, "_id")}}
    assert join.index is not None and join.index.keys[0] == ("person_id", 1)
    scoped = plan_of(design, "of_owner")
    assert scoped.index is not None and scoped.index.keys[:2] == (("person_id", 1), ("due", 1))
    assert scoped.index.eq == 1 and scoped.index.sort and not scoped.blocking_sort
    assert scoped.docs_examined == 10  # 50 tasks of one person, the first 10 in due order


def test_the_one_of_an_n_through_child_refs_scans_the_one_side() -> None:
    # the seed's mistake: with child-refs only, a task's owner is found by scanning people.task_ids
    design = _one_to_n("child-refs", [{"id": "with_owner", "entity": "task", "filter": {"due": "range"},
                                        "projection": ["title", "person.name"], "joins": ["person_tasks"]}])  # fmt: skip
    plan = plan_of(design, "with_owner")
    (join,) = plan.lookups
    assert join.collection == "people" and join.filter == {"task_ids": {"$in": Ref(1, "_id")}}
    assert join.index is None and join.docs_examined == 1000 and plan.collection_scan


def test_two_way_reads_both_directions_by_index() -> None:
    design = _one_to_n("two-way", [PERSON_PAGE, {"id": "owner", "entity": "task", "filter": {"_id": "eq"},
                                                 "joins": ["person_tasks"]}])  # fmt: skip
    (down,) = plan_of(design, "page").lookups
    (up,) = plan_of(design, "owner").lookups
    assert down.filter == {"_id": {"$in": Ref(1, "task_ids")}} and down.index is not None
    assert up.collection == "people" and up.filter == {"_id": {"$in": Ref(1, "person_id")}}
    assert up.index is not None and up.index.name == "_id_"


def test_an_embedded_n_needs_no_join() -> None:
    plan = plan_of(_one_to_n("embed", [PERSON_PAGE], read_together=1), "page")
    assert plan.round_trips == 1 and plan.lookups == []


def test_scope_through_an_extended_reference_and_a_bucket_uses_the_reference_index() -> None:
    blog = analyse(load_project(SAMPLES / "blog.modeller.json")).design
    posts = plan_of(blog, "posts_of_author")  # user_posts is an extended reference: the author's id is author._id
    assert posts.index is not None and posts.index.keys[0] == ("author._id", 1) and posts.index.sort
    assert posts.round_trips == 1 and not posts.blocking_sort
    iot = analyse(load_project(SAMPLES / "iot-sensors.modeller.json")).design
    hour = plan_of(iot, "sensor_hour")  # readings bucketed per sensor: one bucket document per hour
    assert hour.collection == "sensor_data" and hour.index is not None
    assert hour.index.keys == (("sensor_id", 1), ("start", -1)) and hour.index.eq == 1 and hour.index.sort
    assert hour.steps[0].filter["sensor_id"] == Param("Sensor")  # the scope: the id of one Sensor


# ------------------------------------------------------------------------------------------ writes


def test_blog_sync_writes_use_an_index_on_their_filter_paths() -> None:
    design = analyse(load_project(SAMPLES / "blog.modeller.json")).design
    by_path = {(w.collection, w.filter_path): w for w in design.writes if w.kind == "copy"}
    # the post keeps the author's id once, in author {_id, name, profile_pic}: the rename matches it through the ESR
    # index of the author's posts
    author = by_path[("posts", "author._id")]
    assert author.index is not None and author.index.name == "author._id_1_created_at_-1"
    assert author.entity == "user" and author.field in ("name", "profile_pic")
    assert author.docs_examined == author.docs_per_write < design.collection("posts").count  # type: ignore[operator]
    commenter = by_path[("posts", "comments.user._id")]
    assert commenter.index is not None and commenter.index.keys == (("comments.user._id", 1),)


def test_array_subset_and_computed_maintenance_are_one_document_writes() -> None:
    tracker = analyse(load_project(SAMPLES / "task-tracker.modeller.json")).design
    (push,) = [w for w in tracker.writes if w.kind == "reference-array"]
    assert (push.collection, push.filter_path, push.docs_per_write, push.index is not None) == (
        "people",
        "_id",
        1,
        True,
    )
    logs = analyse(load_project(SAMPLES / "host-logs.modeller.json")).design
    assert [w.kind for w in logs.writes] == ["subset"]
    shop = analyse(load_project(SAMPLES / "ecommerce.modeller.json")).design
    computed = [w for w in shop.writes if w.kind == "computed"]
    assert len(computed) == 1 and computed[0].collection == "products" and computed[0].relationship == "product_reviews"


# ------------------------------------------------------------------------------------------ mongosh


def test_every_sample_plan_is_valid_javascript(tmp_path: Path) -> None:
    script = tmp_path / "plans.js"
    chunks = []
    for sample in sorted(SAMPLES.glob("*.modeller.json")):
        for plan in analyse(load_project(sample)).design.queries:
            chunks.append("{\n" + query_mongosh(plan) + "\n}")
    assert len(chunks) >= 10
    script.write_text("\n".join(chunks), encoding="utf-8")
    proc = subprocess.run([node_binary(), "--check", str(script)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_hostile_names_are_quoted_in_the_mongosh() -> None:
    name = 'x"); db_drop(); ("</script>'
    design = analyse(
        project(
            entities=[{"id": "e", "collection": "c", "fields": [{"name": name, "type": "string"}]}],
            queries=[{"id": "q", "entity": "e", "filter": {name: "eq"}, "sort": [[name, 1]]}],
        )
    ).design
    text = query_mongosh(design.queries[0])
    assert '"x\\"); db_drop(); (\\"<\\/script>"' in text
    assert "</script>" not in text


# ------------------------------------------------------------------------------------------ properties


@pytest.mark.slow
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), size=st.integers(5, 40))
def test_every_query_of_a_generated_project_has_a_plan_on_an_existing_index(seed: int, size: int) -> None:
    p = generate_project(size, 1.5, 0.5, seed=seed)
    design = analyse(p).design
    assert [plan.id for plan in design.queries] == [q.id for q in p.queries]
    indexes = {c.name: {i.name for i in c.indexes} | {"_id_"} for c in design.collections}
    for plan in design.queries:
        for step in plan.steps:
            assert step.collection in indexes
            assert step.index is None or step.index.name in indexes[step.collection]
            assert step.docs_returned <= max(step.docs_examined, 1) or step.index is None
        assert plan.blocking_sort or plan.sort_bytes == 0
    for write in design.writes:
        assert write.collection in indexes
        assert write.index is None or write.index.name in indexes[write.collection]


def test_an_edit_replans_only_what_it_touched_and_equals_a_fresh_analysis() -> None:
    from benchmarks.bench_analyse import rename_field
    from modeller.rules.engine import Analyser

    p = generate_project(40, 1.5, 0.5, seed=7)
    analyser = Analyser()
    before = analyser.analyse(p).design
    edited = rename_field(p, 3)
    after = analyser.analyse(edited).design
    assert [q.to_json() for q in after.queries] == [q.to_json() for q in analyse(edited).design.queries]
    assert [w.to_json() for w in after.writes] == [w.to_json() for w in analyse(edited).design.writes]
    kept = sum(a is b for a, b in zip(before.queries, after.queries, strict=True))
    assert kept >= len(after.queries) // 2  # the plans of the units the rename did not touch are reused
