"""Whether a relationship's references are indexed, read from the resolved collections' indexes.

The advice a user reads about a reference ("store a reference to the Product in each Review") says whether the
design indexes it from this one fact — the indexes the export creates — so it never promises an index the design
leaves out (the engine indexes a reference only when a plan reads through it: a join, a sync, a query filter).
"""

from __future__ import annotations

from collections.abc import Callable

from modeller.rules.physical.design import CollectionDesign, IndexDesign, ShapeNode
from modeller.rules.physical.naming import keys_text, plural_label
from modeller.rules.physical.plans import RelPlan

#: the resolved collection that holds an entity's documents, by entity id (None: not resolved)
Lookup = Callable[[str], CollectionDesign | None]


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


def _ref_node_path(nodes: list[ShapeNode], rel_id: str, roles: tuple[str, ...]) -> str | None:
    """The shallowest path of a node of ``rel_id`` with one of ``roles`` (breadth first), ``.id`` for arrays of
    ``{id, ...}`` objects; an extended reference's ``_id`` when no plain reference sits at that depth.

    A level is searched before the next one is listed, and a level is kept as (path prefix, sibling nodes):
    the reference is mostly a top-level field, and a path is spelled only for what is returned or descended
    into (speed only: DESIGN.md's cold analysis near 250 ms at 1,000 entities; every relationship asks twice).
    """
    level: list[tuple[str, list[ShapeNode]]] = [("", nodes)]
    while level:
        extended: str | None = None
        for prefix, siblings in level:
            for node in siblings:
                if node.relationship != rel_id:
                    continue
                if node.role in roles:
                    items = node.items
                    path = prefix + node.name
                    return f"{path}.id" if items is not None and items.bson_type == "object" else path
                if extended is None and node.role == "extended-ref" and "parent-ref" in roles:
                    extended = f"{prefix}{node.name}._id"
        if extended is not None:
            return extended
        below: list[tuple[str, list[ShapeNode]]] = []
        for prefix, siblings in level:
            for node in siblings:
                children = node.items.children if node.items is not None else node.children
                if children:
                    below.append((f"{prefix}{node.name}.", children))
        level = below
    return None


def leading_index(coll: CollectionDesign, path: str) -> IndexDesign | None:
    """The first index of ``coll`` whose first key is ``path`` (it serves an equality on the reference)."""
    return next((i for i in coll.indexes if i.keys and i.keys[0][0] == path), None)


def reference_index_words(plan: RelPlan, lookup: Lookup) -> str:
    """What the design indexes of the relationship's references, in the user's words ("" when it keeps none):
    ``product_id in reviews is indexed ({product_id: 1})`` or why it is not."""
    facts = plan.facts
    parts: list[str] = []
    for eid, held_by_n in _holders(plan):
        coll = lookup(eid)
        if coll is None:
            continue
        coll_name = coll.name
        roles = ("parent-ref",) if held_by_n else ("child-refs",)
        path = _ref_node_path(coll.shape, facts.rel_id, roles)
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
