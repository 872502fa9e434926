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


def choose_tree_model(ops: Iterable[str], parent_field: str, static: bool) -> TreeModel:
    """The tree model for the operations ``ops`` (Manual "Model Tree Structures").

    ``static``: the tree is declared as not changing (no writes): nested sets
    are then the fastest answer to subtree queries.
    """
    wanted = set(ops)
    moves = "move" in wanted
    if "subtree" in wanted and static and not moves and "ancestors" not in wanted:
        return TreeModel(
            "nested sets",
            (("left", "int"), ("right", "int"), (parent_field, "objectId")),
            (("left", 1), ("right", 1)),
            "a subtree is find({left: {$gt: node.left}, right: {$lt: node.right}}) on the (left, right) index",
            "any insert or move renumbers left/right of a large part of the tree (fit for static trees only)",
        )
    if "ancestors" in wanted or ("subtree" in wanted and moves):
        return TreeModel(
            "array of ancestors",
            (("ancestors", "array"), (parent_field, "objectId")),
            (("ancestors", 1),),
            "a subtree is find({ancestors: node._id}); the breadcrumb is the node's own ancestors array "
            "(one read, no $graphLookup)",
            "moving a node rewrites the ancestors of every node in its subtree (one updateMany)",
        )
    if "subtree" in wanted:
        return TreeModel(
            "materialized path",
            (("path", "string"), (parent_field, "objectId")),
            (("path", 1),),
            "a subtree is find({path: /^,Books,Programming,/}) (a prefix regex on the indexed path), "
            "and sorting by path lists it in tree order",
            "moving a node rewrites the path prefix of every node in its subtree",
        )
    if wanted == {"children"}:
        return TreeModel(
            "child references",
            (("children", "array"),),
            (("children", 1),),
            "a node's children are the ids in its children array (one read); a node may have several parents",
            "moving a node is two updates (pull from the old parent, push into the new one)",
        )
    return TreeModel(
        "parent references",
        ((parent_field, "objectId"),),
        ((parent_field, 1),),
        f"children are find({{{parent_field}: node._id}}) on the {parent_field} index; the parent is one read "
        "by _id; deeper walks need $graphLookup",
        f"moving a node is one update of its {parent_field}",
    )
