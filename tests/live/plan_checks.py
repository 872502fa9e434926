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
from dataclasses import dataclass, field, replace
from typing import Any

from chat_members import CHAT  # (tests/review: on the path, tests/live/conftest.py)
from plan_runner import Found, found, home, in_sort_order, param_sets, pick, records, results, script
from test_mongosh_migration import BASE
from test_review_many_to_many_copies import _both_sides

from modeller.model.project import Project, Query
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


def with_queries(strategy: str | None = None, database: str = "shop") -> dict[str, Any]:
    """The live migration tests' shop project, with the queries above (and another strategy)."""
    data = copy.deepcopy(BASE) | {"queries": copy.deepcopy(QUERIES), "database": database}
    if strategy is not None:
        data["relationships"][0]["strategy"] = strategy
    return data


MEMBERS = "room_members"
#: the review tests' many-to-many (Room <-> User members), asked from both sides
MN_QUERIES: list[dict[str, Any]] = [
    {"id": "users_of_room", "entity": "user", "scope": MEMBERS},
    {"id": "rooms_of_user", "entity": "room", "scope": MEMBERS},
    {"id": "room_by_title", "entity": "room", "filter": {"title": "eq"}, "joins": [MEMBERS]},
    {"id": "user_by_handle", "entity": "user", "filter": {"handle": "eq"}, "joins": [MEMBERS]},
]


def chat(strategy: str, database: str) -> dict[str, Any]:
    """The review tests' chat project with the queries above and ``strategy`` for its members."""
    data = copy.deepcopy(CHAT) | {"queries": copy.deepcopy(MN_QUERIES), "database": database}
    data["relationships"][0]["strategy"] = strategy
    return data


def chat_truth(design: Design, project: Project, samples: dict[str, list[dict[str, Any]]]) -> Truth:
    """The memberships the OLD samples hold (two-way: the Rooms' arrays made to agree with the Users')."""
    _both_sides(samples, _where(design, project, MEMBERS))
    return truth(design, project, samples, {"room": "_id", "user": "_id"}, MEMBERS)


def rename_city(data: dict[str, Any], to: str) -> None:
    """City -> ``to`` in the Shop entity and in the query that filters on it."""
    shop = next(e for e in data["entities"] if e["id"] == "shop")
    next(f for f in shop["fields"] if f["name"] == "city")["name"] = to
    query = next(q for q in data["queries"] if q["id"] == "shops_in_city")
    query["filter"] = {to: "eq"}


@dataclass
class Truth:
    """The OLD samples' logical records: per entity, each record's key (``key[entity]``, a path of the record) and
    field values; and the (One key, N key) pairs the relationship links. ``aliases``: NEW field name -> OLD."""

    key: dict[str, str]
    fields: dict[str, dict[Any, dict[str, Any]]]
    relationship: str
    one: str
    many: str
    links: set[tuple[Any, Any]]
    aliases: dict[str, str] = field(default_factory=dict)


def _where(design: Design, project: Project, rel_id: str = RELATIONSHIP) -> Storage:
    where = storage(design, project, rel_id)
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
    return truth(design, project, samples, KEY)


def _home_of(design: Design, entity: str) -> str:
    where = home(design, entity)
    assert where is not None, entity
    return where.collection


def _put(doc: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        doc = doc.setdefault(part, {})
    doc[last] = value


def truth(
    design: Design,
    project: Project,
    documents: dict[str, list[dict[str, Any]]],
    key: dict[str, str],
    rel_id: str = RELATIONSHIP,
) -> Truth:
    """The logical records of ``documents`` (of ``design``), the links read through where it keeps ``rel_id``: an
    embedded or bucketed N belongs to the document holding it, else the One's array of ids, the N's reference (one
    id or an array), or the single collection's links say."""
    where = _where(design, project, rel_id)
    rel = next(r for r in project.relationships if r.id == rel_id)
    fields: dict[str, dict[Any, dict[str, Any]]] = {}
    for entity in project.entities:
        coll = _home_of(design, entity.id)
        names = [f.name for f in entity.fields]
        fields[entity.id] = {
            pick(r, key[entity.id]): {n: r.get(n) for n in names}
            for _, r in records(design, entity.id, coll, documents.get(coll, []))
        }
    one_key, many_key = key[rel.one], key[rel.many]
    links: set[tuple[Any, Any]] = set()
    ones = list(records(design, rel.one, where.parent, documents.get(where.parent, [])))
    many_coll = _home_of(design, rel.many)
    for doc, n in records(design, rel.many, many_coll, documents.get(many_coll, [])):
        if where.embed is not None or where.bucket is not None:
            parents = [doc["_id"] if where.embed is not None else pick(doc, where.ref or "")]
        elif where.links is not None:
            parents = [link[where.link_target] for link in n[where.links]]
        elif where.ref is not None:
            value = pick(n, where.ref)
            parents = value if isinstance(value, list) else [value]
        else:
            parents = []
        if where.refs is not None and where.ref is None:
            parents = [o["_id"] for _, o in ones if n["_id"] in (o.get(where.refs) or [])]
        links.update((p, pick(n, many_key)) for p in parents if p is not None)
    assert all(pick(o, one_key) == o["_id"] for _, o in ones), "the One side is named by its _id"
    return Truth(key, fields, rel_id, rel.one, rel.many, links)


def expected(truth: Truth, query: Query, scope_param: str | None, params: dict[str, Any], ids: Ids) -> Found:
    """What a run of ``query`` with ``params`` should find, from the truth alone (``ids``: per entity, the ids a
    query takes in the design run -> the keys of the records they stand for)."""
    own = set(truth.fields[query.entity])
    for name, op in query.filter.items():
        assert op == "eq", op
        old = truth.aliases.get(name, name)
        own = {k for k in own if truth.fields[query.entity][k][old] == params[name]}
    if query.scope is not None:
        assert query.scope == truth.relationship and scope_param is not None
        other = truth.one if query.entity == truth.many else truth.many
        given = ids[other].get(params[scope_param], set())
        if query.entity == truth.many:
            own &= {n for o, n in truth.links if o in given}
        else:
            own &= {o for o, n in truth.links if n in given}
    joined: set[tuple[str, Any]] = set()
    for rel_id in query.joins:
        assert rel_id == truth.relationship
        if query.entity == truth.one:
            joined |= {(rel_id, n) for o, n in truth.links if o in own}
        else:
            joined |= {(rel_id, o) for o, n in truth.links if n in own}
    return Found(frozenset(own), frozenset(joined))


def renamed(old: Project, new: Project) -> dict[str, str]:
    """NEW field name -> OLD name of each field renamed in place (a rename keeps the field's position)."""
    out: dict[str, str] = {}
    for entity in new.entities:
        before = next((e for e in old.entities if e.id == entity.id), None)
        for was, now in zip(before.fields if before else (), entity.fields, strict=False):
            if was.name != now.name:
                out[now.name] = was.name
    return out


#: per entity: an id a query takes -> the keys of the records it stands for
Ids = dict[str, dict[Any, set[Any]]]


def ids_of(design: Design, truth: Truth, documents: dict[str, list[dict[str, Any]]]) -> Ids:
    """Per entity, the id a query takes for one record in ``design`` -> the records' keys: a record's own ``_id``,
    or that of the document holding it (a bucket of reviews)."""
    out: Ids = {}
    for entity in truth.fields:
        coll = _home_of(design, entity)
        mine = out.setdefault(entity, {})
        for doc, record in records(design, entity, coll, documents.get(coll, [])):
            mine.setdefault(record.get("_id", doc["_id"]), set()).add(pick(record, truth.key[entity]))
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
    """A query resolved in both designs finds the same groups of logical records in NEW as in OLD.

    Empty groups are left out: parameters come from stored values, so one design asks for a Room without members
    (its ``_id``) where the other has no value to ask with (no User lists it)."""
    for query, seen in new.items():
        if query in old:
            now, before = {f for f in seen if f.own or f.joined}, {f for f in old[query] if f.own or f.joined}
            assert now == before, f"{query}: the NEW design finds other records than the OLD one"


@dataclass
class Planned:
    """The runs of one design's plans over its stored documents: the script to run, and the check of its output."""

    design: Design
    project: Project
    documents: dict[str, list[dict[str, Any]]]
    runs: list[tuple[QueryPlan, dict[str, Any]]]
    #: the OLD project, when this is the NEW design (its renamed fields are read under their OLD names)
    old: Project | None = None

    def script(self) -> str:
        return script(self.design.database, self.runs)

    def check(self, printed: list[str], want: Truth) -> dict[str, set[Found]]:
        """Each run found exactly what the truth says; per query, the groups of records found."""
        steps_of = results(printed)
        assert len(steps_of) == len(self.runs), "one result per run"
        ids = ids_of(self.design, want, self.documents)
        want = replace(want, aliases=want.aliases | renamed(self.old or self.project, self.project))
        queries = {q.id: q for q in self.project.queries}
        out: dict[str, set[Found]] = {}
        for (plan, params), steps in zip(self.runs, steps_of, strict=True):
            assert in_sort_order(self.design, plan, steps), (plan.id, "not in the plan's sort order")
            got = found(self.design, self.project, plan, params, steps, want.key)
            scope_param = plan.scope.param if plan.scope is not None else None
            should = expected(want, queries[plan.id], scope_param, params, ids)
            assert got == should, (plan.id, params, got, should)
            out.setdefault(plan.id, set()).add(got)
        return out


def planned(
    design: Design,
    project: Project,
    documents: dict[str, list[dict[str, Any]]],
    only: set[str] | None = None,
    old: Project | None = None,
) -> Planned:
    """Every resolved query of ``design`` with the parameters its ``documents`` give; with ``only``, the queries it
    names."""
    return Planned(design, project, documents, runs_of(design, documents, only), old)


def run_and_check(
    design: Design,
    project: Project,
    documents: dict[str, list[dict[str, Any]]],
    runner: Runner,
    want: Truth,
    only: set[str] | None = None,
    old: Project | None = None,
) -> dict[str, set[Found]]:
    """:func:`planned`, run by ``runner``; each run finds exactly what the truth says."""
    runs = planned(design, project, documents, only, old)
    return runs.check(runner(runs.script()), want)
