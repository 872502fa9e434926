"""A query's ``scope`` ("the N of one One", or "the One of an N") in the physical form of the resolved design.

The user names a relationship; the strategy the engine resolved decides how
the query finds its documents:

- ``reference``: the N hold a reference to their One (parent-ref, two-way,
  extended-ref, subset, bucket): an equality on it, the leading key in ESR;
- ``ids``: the One holds an array of the N's ids (child-refs): read the One,
  then ``_id: {$in: ...}`` over its array (two round trips);
- ``embedded``: the N live inside their One (embed): read the One's document
  by ``_id``; the N come with it (no extra query);
- ``holder``: "the One of an N" where the One holds the N's ids: an equality
  on that array (multikey);
- ``via-many``: "the One of an N" where the N holds the reference: read the N,
  then its One by ``_id`` (two round trips);
- ``inside``: "the One of an N" embedded in it: the N has no document of its
  own, so there is nothing to look it up by (the plan says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from modeller.model.project import Query
from modeller.rules.physical.facts import Context, RelFacts
from modeller.rules.physical.naming import embed_field, extended_ref_field, parent_ref_field, plural_label

if TYPE_CHECKING:
    from modeller.rules.physical.resolver import Resolution

#: the single collection pattern's ``links: [{target, doc_type}]`` (``resolver._links_node``): each N's element
#: names the _id of its One; the N's documents hold no other reference to it
LINKS = "links"
LINK_TARGET = f"{LINKS}.target"

ScopeKind = Literal["reference", "ids", "embedded", "holder", "via-many", "inside"]


@dataclass(frozen=True, slots=True)
class Scope:
    """How one query's scope is served."""

    relationship: str
    kind: ScopeKind
    #: the equality the query's own read makes, as a path of its collection (None: no equality of its own)
    path: str | None
    #: the reference a first read fetches (``ids``: the One's array; ``via-many``: the N's reference); the
    #: resolver may not know it yet (another unit's routes), the planner always does
    first_path: str | None
    #: the entity whose document the first read fetches (``ids``: the One; ``via-many``: the N)
    first_entity: str | None
    #: the value the application supplies, in the user's words ("Host": the id of one Host)
    param: str
    #: the scope in the user's words: "the Log messages of one Host"
    label: str
    #: the v1 name of the equality (``host_id``): ESR reasons keep naming the key the index holds
    ref_name: str


def scope_label(facts: RelFacts, entity_id: str) -> str:
    """The scope in words: "the Tasks of one Person" (query on the N side), "the Person of one Task" (One side; "the Rooms of one User" for a many-to-many)."""
    if entity_id == facts.many_id:
        return f"the {plural_label(facts.many.name)} of one {facts.one.name}"
    if facts.rel.cardinality == "many-to-many":  # one N belongs to several Ones
        return f"the {plural_label(facts.one.name)} of one {facts.many.name}"
    return f"the {facts.one.name} of one {facts.many.name}"


def resolve_scope(ctx: Context, res: Resolution, q: Query) -> Scope | None:
    """The physical form of ``q.scope`` on the resolved design (None: no scope, or it does not touch the query)."""
    if q.scope is None:
        return None
    facts = ctx.rel_by_id.get(q.scope)
    plan = res.plans.get(q.scope)
    if facts is None or plan is None or q.entity not in (facts.one_id, facts.many_id):
        return None
    strategy = plan.strategy
    one, rel = facts.one, facts.rel
    ref_name = parent_ref_field(rel, one)
    on_many = q.entity == facts.many_id  # the N of one One (a self-reference reads the children of one node)
    param = one.name if on_many else facts.many.name
    label = scope_label(facts, q.entity)

    def scope(kind: ScopeKind, path: str | None, first_path: str | None = None, first: str | None = None) -> Scope:
        return Scope(q.scope or "", kind, path, first_path, first, param, label, ref_name)

    ref = res.resolve_path(facts.many_id, ref_name)
    if strategy == "extended-ref":
        ref = res.resolve_path(facts.many_id, f"{extended_ref_field(rel, one)}._id")
    if strategy == "single-collection" and shares_collection(res, facts):
        ref = ref_name = LINK_TARGET  # (no ``<one>_id``: the reasons name the key the index holds)
    if on_many:
        if strategy == "embed":
            return scope("embedded", "_id" if res.location.get(facts.one_id, ("", ""))[1] == "" else None)
        if strategy == "child-refs":  # the query's own read is by _id whatever the array's path (ESR needs no more)
            return scope("ids", "_id", _one_array(res, facts), facts.one_id)
        bucket = res.buckets.get(facts.many_id)
        if strategy == "bucket" and bucket is not None and bucket.series_rel == q.scope:
            return scope("reference", bucket.design.series_field)
        return scope("reference", ref)
    if strategy in ("child-refs", "two-way"):
        return scope("holder", _one_array(res, facts))
    if strategy == "embed":
        return scope("inside", None)
    return scope("via-many", "_id", ref, facts.many_id)


def shares_collection(res: Resolution, facts: RelFacts) -> bool:
    """The single collection pattern applies: the N's documents sit next to their One's, linked by ``links``."""
    one, many = res.location.get(facts.one_id), res.location.get(facts.many_id)
    return one is not None and one == many and one[1] == "" and facts.one_id != facts.many_id


def _one_array(res: Resolution, facts: RelFacts) -> str | None:
    """The path of the N's ids in the One's array of references (``task_ids``, or ``tasks.id`` with copies)."""
    name = embed_field(facts.rel, facts.many)  # the route the One side gives its array (documents.ShapeBuilder)
    path = res.resolve_path(facts.one_id, f"{name}._id")
    return None if path is None or path == f"{name}._id" else path


def esr_scope(ctx: Context, res: Resolution, q: Query) -> tuple[str, str] | None:
    """The scope's leading equality for ESR (``esr.plan_query``): its path and the reason the index key gets."""
    return esr_key(resolve_scope(ctx, res, q))


def esr_key(scope: Scope | None) -> tuple[str, str] | None:
    """(path, reason) of a resolved scope's equality; None when the query's own read has none."""
    if scope is None or scope.path is None:
        return None
    if scope.kind == "reference":  # the reference's path: user._id when an extended reference holds the id
        return scope.path, f"Equality: the query filters {scope.path} = value"
    if scope.kind == "holder":
        return scope.path, f"Equality: {scope.label}: the array {scope.path} holds the id it is looked up by"
    return scope.path, f"Equality: {scope.label}, read by _id"
