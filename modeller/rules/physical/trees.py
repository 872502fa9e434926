"""The five tree models of the Manual, and which one a hierarchy's ``tree_ops`` call for.

A self-referencing relationship is a tree; the operations the application
runs on it (``tree_ops``) choose how each node stores its place: a parent
reference, an array of child references, an array of ancestors (with the
parent), a materialized path string, or nested-set bounds. This module holds
the choice as data (the node fields and the index it needs) so the rule that
reports it and any exporter speak of the same design.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from modeller.rules.physical.naming import child_refs_field, parent_ref_field

if TYPE_CHECKING:
    from modeller.rules.physical.plans import RelPlan


@dataclass(frozen=True, slots=True)
class TreeModel:
    """One of the Manual's tree models: the fields a node holds, the index, and how the tree operations run."""

    name: str
    #: (field, BSON type) each node stores besides its own fields
    fields: tuple[tuple[str, str], ...]
    #: the index the model needs (dotted path, direction)
    index: tuple[tuple[str, int], ...]
    #: how the declared operations run, in words
    reads: str
    #: what a move of a node costs
    move_cost: str


#: the names a vote records (``numbers["tree_model"]``); the design builds the model's fields from it
PARENT_REFS, CHILD_REFS, ANCESTORS, PATH, NESTED_SETS = (
    "parent references",
    "child references",
    "array of ancestors",
    "materialized path",
    "nested sets",
)


def choose_tree_model_name(ops: Iterable[str], static: bool) -> str:
    """The Manual's tree model for the operations ``ops`` ("Model Tree Structures").

    ``static``: the tree is declared as not changing (no writes): nested sets
    are then the fastest answer to subtree queries.
    """
    wanted = set(ops)
    moves = "move" in wanted
    if "subtree" in wanted and static and not moves and "ancestors" not in wanted:
        return NESTED_SETS
    if "ancestors" in wanted or ("subtree" in wanted and moves):
        return ANCESTORS
    if "subtree" in wanted:
        return PATH
    if wanted == {"children"}:
        return CHILD_REFS
    return PARENT_REFS


def tree_model(name: str, parent_field: str, children_field: str) -> TreeModel:
    """The fields, index and costs of the tree model ``name`` for a node whose references are named as given."""
    if name == NESTED_SETS:
        return TreeModel(
            name,
            (("left", "int"), ("right", "int"), (parent_field, "objectId")),
            (("left", 1), ("right", 1)),
            "a subtree is find({left: {$gt: node.left}, right: {$lt: node.right}}) on the (left, right) index",
            "any insert or move renumbers left/right of a large part of the tree (fit for static trees only)",
        )
    if name == ANCESTORS:
        return TreeModel(
            name,
            (("ancestors", "array"), (parent_field, "objectId")),
            (("ancestors", 1),),
            "a subtree is find({ancestors: node._id}); the breadcrumb is the node's own ancestors array "
            "(one read, no $graphLookup)",
            "moving a node rewrites the ancestors of every node in its subtree (one updateMany)",
        )
    if name == PATH:
        return TreeModel(
            name,
            (("path", "string"), (parent_field, "objectId")),
            (("path", 1),),
            "a subtree is find({path: /^,Books,Programming,/}) (a prefix regex on the indexed path), "
            "and sorting by path lists it in tree order",
            "moving a node rewrites the path prefix of every node in its subtree",
        )
    if name == CHILD_REFS:
        return TreeModel(
            name,
            ((children_field, "array"),),
            ((children_field, 1),),
            f"a node's children are the ids in its {children_field} array (one read); a node may have several parents",
            "moving a node is two updates (pull from the old parent, push into the new one)",
        )
    return TreeModel(
        PARENT_REFS,
        ((parent_field, "objectId"),),
        ((parent_field, 1),),
        f"children are find({{{parent_field}: node._id}}) on the {parent_field} index; the parent is one read "
        "by _id; deeper walks need $graphLookup",
        f"moving a node is one update of its {parent_field}",
    )


def tree_model_of(plan: RelPlan) -> TreeModel | None:
    """The tree model a strategy rule chose for a self-referencing relationship (None: none, or the user
    stores the tree otherwise)."""
    name = plan.rec.numbers.get("tree_model")
    facts = plan.facts
    if name is None or not facts.self_ref or plan.strategy != plan.rec.strategy:
        return None
    return tree_model(name, parent_ref_field(facts.rel, facts.one), child_refs_field(facts.rel, facts.one))
