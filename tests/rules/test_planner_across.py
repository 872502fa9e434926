"""Plans that read across a relationship from the side that does not hold it: the join of "a Person with their
Tasks" for every strategy that keeps the Tasks outside the Person's document, the single collection's links, and
a page of bucketed items (the Node stand-in runs these plans over documents: tests/live/test_query_plans_*)."""

from __future__ import annotations

import pytest

from modeller.export.query_plans import query_mongosh
from modeller.rules import analyse
from modeller.rules.physical.design import BucketDesign
from modeller.rules.physical.planner import Param, Ref, _bucket_limit
from tests.rules.test_design_serves_queries import trades
from tests.rules.test_planner_scope import OWNER, scoped

#: a Person with their Tasks
WITH_TASKS = {"id": "with_tasks", "entity": "person", "filter": {"name": "eq"}, "joins": ["person_tasks"]}
#: a Task with its Person
WITH_PERSON = {"id": "with_person", "entity": "task", "filter": {"title": "eq"}, "joins": ["person_tasks"]}


@pytest.mark.parametrize(
    ("strategy", "collection", "foreign"),
    [
        ("parent-ref", "tasks", "person_id"),
        ("extended-ref", "tasks", "person._id"),
        ("bucket", "tasks", "person_id"),
        ("single-collection", "people", "links.target"),
    ],
)
def test_a_query_of_the_one_reads_the_n_it_does_not_hold(strategy: str, collection: str, foreign: str) -> None:
    design, plan = scoped(strategy, WITH_TASKS)
    assert design.relationships[0].strategy == strategy
    assert plan.round_trips == 2, "the Tasks are not in the Person's document: a second read"
    (join,) = plan.lookups
    assert join.collection == collection and join.relationship == "person_tasks"
    assert join.filter[foreign] == {"$in": Ref(1, "_id")}
    assert join.index is not None and join.index.keys[0][0] == foreign and join.docs_examined < 1000


def test_a_single_collections_join_keeps_to_the_other_entitys_documents() -> None:
    _, plan = scoped("single-collection", WITH_TASKS)
    main, join = plan.steps
    assert main.filter == {"name": Param("name"), "doc_type": "person"}
    assert join.filter == {"links.target": {"$in": Ref(1, "_id")}, "doc_type": "task"}


@pytest.mark.parametrize("strategy", ["embed", "subset"])
def test_the_n_kept_in_the_ones_document_need_no_second_read(strategy: str) -> None:
    _, plan = scoped(strategy, WITH_TASKS, show_latest=5)
    assert plan.round_trips == 1 and plan.lookups == []


def test_an_extended_reference_serves_the_ns_query_from_its_copy() -> None:
    _, plan = scoped("extended-ref", WITH_PERSON, denormalize=[{"field": "name", "direction": "one-to-many"}])
    assert plan.round_trips == 1, "the Person's fields are copied into each Task"


def test_a_single_collections_n_reads_its_one_through_its_links() -> None:
    _, plan = scoped("single-collection", WITH_PERSON)
    main, join = plan.steps
    assert main.filter == {"title": Param("title"), "doc_type": "task"}
    assert join.filter == {"_id": {"$in": Ref(1, "links.target")}, "doc_type": "person"}
    # the ids of every element of the links array, not links["target"] of the array itself
    assert 'r1.flatMap(d => d["links"] ?? []).flatMap(d => d?.["target"] ?? [])' in query_mongosh(plan)


def test_a_single_collections_scope_matches_the_links_of_each_n() -> None:
    _, plan = scoped("single-collection")
    assert plan.scope is not None and plan.scope.path == "links.target"
    assert plan.steps[0].filter == {"links.target": Param("Person"), "doc_type": "task"}
    assert plan.index is not None and plan.index.keys[0] == ("links.target", 1)
    _, owner = scoped("single-collection", OWNER)
    first, main = owner.steps
    assert first.projection == ["links.target"] and main.filter["_id"] == {"$in": Ref(1, "links.target")}


def test_a_page_sorted_on_a_bucketed_item_field_reads_as_many_buckets_as_items() -> None:
    # the newest bucket, and any a migration filled, hold fewer items than the bucket size
    bucket = BucketDesign(
        size=10, series_field="customer_id", items_field="trades", time_field="time", value_field=None
    )
    assert _bucket_limit(10, bucket, [("trades.price", -1)]) == 10
    assert _bucket_limit(25, bucket, [("start", -1)]) == 3 and _bucket_limit(25, bucket, []) == 3
    in_time = analyse(trades(limit=10)).design.queries[0]
    assert in_time.steps[0].sort == [("start", -1)] and in_time.steps[0].limit == 1  # a bucket is a page
