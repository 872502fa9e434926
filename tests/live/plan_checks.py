"""The shop project with declared queries, OLD samples with known links, and what each query should find.

Shared by the tests that run the NEW design's query plans over migrated documents (in mongosh against the live
server, and in the recording ``db`` stand-in). Each review of the OLD samples gets a unique text (its name as a
logical record, since a migration may give it a new ``_id``) and belongs to exactly one product, set here
wherever the OLD design keeps that link; the truth (which product, which stars) is read back from the OLD
documents. A query's expected records are computed from that truth, never from a design.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from plan_runner import Found, found, home, param_sets, pick, records, results, script
from test_mongosh_migration import BASE

from modeller.model.project import Project
from modeller.review.copy_storage import Storage, storage
from modeller.rules.physical.design import Design
from modeller.rules.physical.planner import QueryPlan

RELATIONSHIP = "product_reviews"
#: the path that names each entity's logical records
KEY = {"shop": "_id", "product": "_id", "review": "text"}
QUERIES: list[dict[str, Any]] = [
    {"id": "shops_in_city", "entity": "shop", "filter": {"city": "eq"}, "sort": [["name", 1]]},
    {"id": "product_by_title", "entity": "product", "filter": {"title": "eq"}, "joins": [RELATIONSHIP]},
    {"id": "reviews_of_product", "entity": "review", "scope": RELATIONSHIP, "sort": [["stars", -1]], "limit": 50},
    {"id": "reviews_by_stars", "entity": "review", "filter": {"stars": "eq"}},
    {"id": "product_of_review", "entity": "product", "scope": RELATIONSHIP},
]

#: (strategy, query) -> why its plan cannot find what it should: a planner gap, not a migration bug. Those plans are
#: left out of the main checks; ``test_query_plan_gaps`` asserts (strict xfail) that each gap is still there.
NO_JOIN = (
    "the planner counts the relationship as stored with the Product (resolver._colocated), so the plan of "
    "'a Product with its Reviews' has no read of the reviews"
)
NO_REFERENCE = (
    "the plan reads product_id in the single collection's review documents, which hold the link in links[].target"
)
GAPS: dict[tuple[str, str], str] = {
    ("extended-ref", "product_by_title"): NO_JOIN,
    ("bucket", "product_by_title"): NO_JOIN,
    ("single-collection", "product_by_title"): NO_JOIN,
    ("single-collection", "reviews_of_product"): NO_REFERENCE,
    ("single-collection", "product_of_review"): NO_REFERENCE,
    ("bucket", "reviews_of_product"): (
        "a limit of 50 reviews becomes a limit of ceil(50 / 60) = 1 bucket document, but a product's reviews may "
        "be spread over several partly filled buckets: the plan misses those in the other buckets"
    ),
}


def with_queries(strategy: str | None = None, database: str = "shop") -> dict[str, Any]:
    """The live migration tests' shop project, with the queries above (and another strategy)."""
    data = copy.deepcopy(BASE) | {"queries": copy.deepcopy(QUERIES), "database": database}
    if strategy is not None:
        data["relationships"][0]["strategy"] = strategy
    return data


def rename_city(data: dict[str, Any], to: str) -> None:
    """City -> ``to`` in the Shop entity and in the query that filters on it."""
    shop = next(e for e in data["entities"] if e["id"] == "shop")
    next(f for f in shop["fields"] if f["name"] == "city")["name"] = to
    query = next(q for q in data["queries"] if q["id"] == "shops_in_city")
    query["filter"] = {to: "eq"}


@dataclass
class Truth:
    """The OLD samples' logical records: shops' cities, products' titles, each review's product and stars."""

    city: dict[Any, Any]
    title: dict[Any, Any]
    review: dict[str, tuple[Any, Any]]


def _where(design: Design, project: Project) -> Storage:
    where = storage(design, project, RELATIONSHIP)
    assert where is not None and where.parent is not None, "the relationship is kept at the top level"
    return where


def link(design: Design, project: Project, samples: dict[str, list[dict[str, Any]]]) -> Truth:
    """Name every review (a unique text, stars 1-3) and tie it to exactly one product; return the truth.

    Embedded and bucketed reviews keep the product they are in; referenced ones get product ``i % n``.
    """
    where = _where(design, project)
    products = [d for d in samples[where.parent] if where.discriminator is None or d[where.discriminator] == "product"]
    n = len(products)
    reviews = list(records(design, "review", _home_of(design, "review"), samples.get(_home_of(design, "review"), [])))
    assert len(reviews) >= 4, "the OLD samples hold reviews"
    for i, (_doc, review) in enumerate(reviews):
        review["text"] = f"review {i}"
        review["stars"] = i % 3 + 1
    if where.refs is not None:  # each product lists its own reviews
        for j, product in enumerate(products):
            product[where.refs] = [r["_id"] for i, (_, r) in enumerate(reviews) if i % n == j]
    elif where.links is not None:
        for i, (_, review) in enumerate(reviews):
            review[where.links] = [{where.link_target: products[i % n]["_id"], where.link_type: "product"}]
    elif where.ref is not None and where.bucket is None:
        assert where.subset is None, "a subset's copies would not follow a new link"
        for i, (_, review) in enumerate(reviews):
            _put(review, where.ref, products[i % n]["_id"])
    return truth(design, project, samples)


def _home_of(design: Design, entity: str) -> str:
    where = home(design, entity)
    assert where is not None, entity
    return where.collection


def _put(doc: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        doc = doc.setdefault(part, {})
    doc[last] = value


def truth(design: Design, project: Project, documents: dict[str, list[dict[str, Any]]]) -> Truth:
    """The logical records of documents of ``design`` (the OLD samples), read through where it keeps the link."""
    where = _where(design, project)
    shops = list(records(design, "shop", _home_of(design, "shop"), documents.get(_home_of(design, "shop"), [])))
    products = [p for _, p in records(design, "product", where.parent, documents.get(where.parent, []))]
    holders: dict[Any, Any] = {}
    if where.refs is not None:
        for product in products:
            for rid in product.get(where.refs) or []:
                assert rid not in holders, "a review listed under two products"
                holders[rid] = product["_id"]
    out: dict[str, tuple[Any, Any]] = {}
    coll = _home_of(design, "review")
    for doc, review in records(design, "review", coll, documents.get(coll, [])):
        if where.embed is not None:
            parent = doc["_id"]
        elif where.refs is not None:
            parent = holders.get(review["_id"])
        elif where.links is not None:
            parent = review[where.links][0][where.link_target]
        else:
            parent = pick(doc, where.ref) if where.bucket is not None else pick(review, where.ref or "")
        assert parent is not None and review["text"] not in out, review
        out[review["text"]] = (parent, review["stars"])
    return Truth(
        {s["_id"]: s["city"] for _, s in shops},
        {p["_id"]: p["title"] for p in products},
        out,
    )


def expected(truth: Truth, plan: QueryPlan, params: dict[str, Any], review_names: dict[Any, set[str]]) -> Found:
    """What a run of ``plan`` with ``params`` should find, from the truth alone (``review_names``: the design's
    review ids -> the reviews' names, for a parameter that is a review's id)."""
    (value,) = params.values()
    reviews = truth.review
    if plan.id == "shops_in_city":
        return Found(frozenset(s for s, c in truth.city.items() if c == value), frozenset())
    if plan.id == "product_by_title":
        own = frozenset(p for p, t in truth.title.items() if t == value)
        return Found(own, frozenset((RELATIONSHIP, r) for r, (p, _) in reviews.items() if p in own))
    if plan.id == "reviews_of_product":
        return Found(frozenset(r for r, (p, _) in reviews.items() if p == value), frozenset())
    if plan.id == "reviews_by_stars":
        return Found(frozenset(r for r, (_, s) in reviews.items() if s == value), frozenset())
    if plan.id == "product_of_review":
        return Found(frozenset(reviews[name][0] for name in review_names.get(value, ())), frozenset())
    raise AssertionError(f"no expectation for {plan.id}")


def review_names(design: Design, documents: dict[str, list[dict[str, Any]]]) -> dict[Any, set[str]]:
    """The id a query takes for "one review" in ``design`` -> the names of the reviews it stands for: a review's own
    ``_id``, or that of the document holding it (a bucket of reviews)."""
    coll = _home_of(design, "review")
    out: dict[Any, set[str]] = {}
    for doc, review in records(design, "review", coll, documents.get(coll, [])):
        out.setdefault(review.get("_id", doc["_id"]), set()).add(review["text"])
    return out


#: runs a script of plan runs against one design's documents and returns the lines it printed
Runner = Callable[[str], list[str]]


def runs_of(
    design: Design, documents: dict[str, list[dict[str, Any]]], only: set[str] | None = None
) -> list[tuple[QueryPlan, dict[str, Any]]]:
    """Every resolved plan of ``design`` (of the queries ``only`` names, when given) with each parameter set its
    stored documents give."""
    out: list[tuple[QueryPlan, dict[str, Any]]] = []
    for plan in design.queries:
        if plan.unresolved or (only is not None and plan.id not in only):
            continue
        entity = plan.entity if plan.main == 0 else plan.scope.first_entity  # type: ignore[union-attr]
        assert entity is not None
        sets = param_sets(design, plan, entity, documents.get(plan.steps[0].collection, []))
        assert sets and all(sets), (plan.id, "no parameter values in the stored documents")
        out += [(plan, params) for params in sets]
    return out


def compare(old: dict[str, set[Found]], new: dict[str, set[Found]]) -> None:
    """A query resolved in both designs finds the same groups of logical records in NEW as in OLD."""
    for query, seen in new.items():
        if query in old:
            assert seen == old[query], f"{query}: the NEW design finds other records than the OLD one"


def run_and_check(
    design: Design,
    project: Project,
    documents: dict[str, list[dict[str, Any]]],
    runner: Runner,
    want: Truth,
    gaps: bool = False,
) -> dict[str, set[Found]]:
    """Run every resolved query of ``design`` with the parameters its ``documents`` give; each run finds exactly
    what the truth says. Returns per query the groups of records found. The queries of a known planner gap
    (``GAPS``) are left out, or with ``gaps`` they are the only ones run."""
    strategy = project.relationships[0].strategy
    gap = {q for s, q in GAPS if s == strategy}
    every = {p.id for p in design.queries}
    runs = runs_of(design, documents, gap if gaps else every - gap)
    printed = results(runner(script(design.database, runs)))
    assert len(printed) == len(runs), "one result per run"
    names = review_names(design, documents)
    out: dict[str, set[Found]] = {}
    for (plan, params), steps in zip(runs, printed, strict=True):
        got = found(design, project, plan, params, steps, KEY)
        should = expected(want, plan, params, names)
        assert got == should, (plan.id, params, got, should)
        out.setdefault(plan.id, set()).add(got)
    return out
