"""Whether a relationship's references are indexed, read from the resolved collections' indexes.

The advice a user reads about a reference ("store a reference to the Product in each Review") says whether the
design indexes it from this one fact — the indexes the export creates — so it never promises an index the design
leaves out (the engine indexes a reference only when a plan reads through it: a join, a sync, a query filter).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from modeller.rules.physical.design import CollectionDesign, IndexDesign, ShapeNode
from modeller.rules.physical.naming import keys_text, plural_label
from modeller.rules.physical.plans import RelPlan

#: the resolved collection that holds an entity's documents, by entity id (None: not resolved)
Lookup = Callable[[str], CollectionDesign | None]
#: the nodes of one relationship in a document, breadth first: (depth, path prefix, node); depth 0 is the top level
Placed = list[tuple[int, str, ShapeNode]]


@dataclass(slots=True)
class _ByRelationship:
    """One collection's nodes by the relationship they belong to: the top level at once, the levels below when
    first asked (most references are top-level fields; the document is walked once, not once per question)."""

    coll: CollectionDesign
    top: dict[str, Placed]
    below: dict[str, Placed] | None = None


#: id(collection) -> its nodes by relationship, kept through one pass over every relationship
RefMemo = dict[int, _ByRelationship]


def _by_relationship(coll: CollectionDesign, memo: RefMemo) -> _ByRelationship:
    entry = memo.get(id(coll))
    if entry is None or entry.coll is not coll:
        top: dict[str, Placed] = {}
        for node in coll.shape:
            rel = node.relationship
            if rel is not None:
                top.setdefault(rel, []).append((0, "", node))
        entry = memo[id(coll)] = _ByRelationship(coll, top)
    return entry


def _below_by_relationship(nodes: list[ShapeNode]) -> dict[str, Placed]:
    """The nodes under the top level by relationship, level by level (breadth first), siblings in document order."""
    out: dict[str, Placed] = {}
    level: list[tuple[str, list[ShapeNode]]] = [("", nodes)]
    depth = 0
    while level:
        below: list[tuple[str, list[ShapeNode]]] = []
        for prefix, siblings in level:
            for node in siblings:
                rel = node.relationship
                if rel is not None and depth:
                    out.setdefault(rel, []).append((depth, prefix, node))
                children = node.items.children if node.items is not None else node.children
                if children:
                    below.append((f"{prefix}{node.name}.", children))
        level = below
        depth += 1
    return out


def _first_ref(placed: Placed, roles: tuple[str, ...]) -> str | None:
    """The reference's path among one relationship's nodes, breadth first: at the shallowest depth holding one,
    the first node with one of ``roles`` (``.id`` for arrays of ``{id, ...}`` objects), else the first extended
    reference's ``_id``."""
    extended: str | None = None
    depth = -1
    for at, prefix, node in placed:
        if at != depth:
            if extended is not None:
                return extended
            depth = at
        role = node.role
        if role in roles:
            items = node.items
            path = prefix + node.name
            return f"{path}.id" if items is not None and items.bson_type == "object" else path
        if extended is None and role == "extended-ref" and "parent-ref" in roles:
            extended = f"{prefix}{node.name}._id"
    return extended


def _indexed_ref_path(coll: CollectionDesign, rel_id: str, roles: tuple[str, ...], memo: RefMemo) -> str | None:
    """The shallowest path in ``coll``'s documents of a node of ``rel_id`` with one of ``roles`` (``_first_ref``),
    read from the collection's nodes by relationship: the top level first, the levels below only when it has none
    (the reference is mostly a top-level field)."""
    entry = _by_relationship(coll, memo)
    found = _first_ref(entry.top.get(rel_id, []), roles)
    if found is not None:
        return found
    if entry.below is None:
        entry.below = _below_by_relationship(coll.shape)
    return _first_ref(entry.below.get(rel_id, []), roles)


def _holders(plan: RelPlan) -> list[tuple[str, bool]]:
    """(entity id, holds the reference to the other side as the N) of each side that keeps a reference: the N
    (``product_id``, ``items.product_id``, ``author._id``) and, in a many-to-many kept two-way or one-way from
    the One, the One's array."""
    facts = plan.facts
    if facts.rel.cardinality != "many-to-many":
        return [(facts.many_id, True)]
    if plan.strategy == "child-refs":  # one-way: only the One's array of N ids
        return [(facts.one_id, False)]
    return [(facts.many_id, True), (facts.one_id, False)] if plan.strategy == "two-way" else [(facts.many_id, True)]


def leading_index(coll: CollectionDesign, path: str) -> IndexDesign | None:
    """The first index of ``coll`` whose first key is ``path`` (it serves an equality on the reference)."""
    for index in coll.indexes:  # a loop, not next(genexpr): asked once or twice per relationship
        keys = index.keys
        if keys and keys[0][0] == path:
            return index
    return None


def reference_index_words(plan: RelPlan, lookup: Lookup, memo: RefMemo | None = None) -> str:
    """What the design indexes of the relationship's references, in the user's words ("" when it keeps none):
    ``product_id in reviews is indexed ({product_id: 1})`` or why it is not. ``memo`` keeps each collection's
    nodes by relationship between the calls of one pass over every relationship (None: one call's own)."""
    facts = plan.facts
    memo = {} if memo is None else memo
    parts: list[str] = []
    for eid, held_by_n in _holders(plan):
        coll = lookup(eid)
        if coll is None:
            continue
        coll_name = coll.name
        roles = ("parent-ref",) if held_by_n else ("child-refs",)
        path = _indexed_ref_path(coll, facts.rel_id, roles, memo)
        if path is None:
            continue
        index = leading_index(coll, path)
        if index is not None:
            parts.append(f"{path} in {coll_name} is indexed ({keys_text(index.keys)})")
            continue
        if held_by_n:
            finds = f"the {plural_label(facts.many.name)} of one {facts.one.name}"
        else:
            finds = f"the {plural_label(facts.one.name)} of one {facts.many.name}"
        parts.append(f"{path} in {coll_name} is not indexed (no declared query or sync looks up {finds} by it)")
    return "; ".join(parts)
