"""Collections that sit beside an entity's own: the prior revisions of a versioned document, the archive of
documents past their active life, the overflow of an outlier.

An entity declared with ``history`` keeps its current version in its collection and every prior revision in
``<collection>_revisions`` (document versioning); one declared with ``archive`` keeps documents past the
cut-off in ``<collection>_archive`` (or Atlas Online Archive), moved there by a scheduled job that reads the
age index of the main collection. A collection that embeds the typical N of a relationship up to a bound
(outlier pattern) keeps the items past it in ``<collection>_overflow``: documents keyed by their parent, each
holding up to the same bound, read only when the parent's ``has_overflow`` is true. The companions hold no entity of their own: exporters create them, rules
read their main collection.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from modeller.rules.physical.design import CollectionDesign, IndexDesign, ShapeNode
from modeller.rules.physical.esr import default_name
from modeller.rules.physical.facts import Context
from modeller.rules.physical.index_reasons import ARCHIVE, OVERFLOW, REVISIONS
from modeller.rules.physical.naming import snake
from modeller.rules.physical.validators import collection_validator

#: the field of a current document that counts its revisions (document versioning)
REVISION = "revision"
#: the flag of a document whose embedded N passed the bound (outlier pattern)
HAS_OVERFLOW = "has_overflow"


def revision_node(entity_name: str) -> ShapeNode:
    """``revision``: the number of the version a document holds (1 for the first)."""
    return ShapeNode(
        REVISION,
        "int",
        description=f"number of this {entity_name} version; prior ones are in the revisions collection "
        "(document versioning)",
    )


def companions(
    ctx: Context, coll: CollectionDesign, age_path: str | None, rules_for: Callable[[str], list[str]]
) -> list[CollectionDesign]:
    """The revisions and archive collections of ``coll``'s root entity (none when it declares neither)."""
    entity = ctx.entities[coll.root]
    out: list[CollectionDesign] = []
    own = [node for node in coll.shape if node.name != "_id"]
    if entity.history:
        ref = f"{snake(entity.name)}_id"
        id_node = ShapeNode("_id", "objectId", role="id", required=True)
        parent = ShapeNode(
            ref,
            "objectId",
            role="parent-ref",
            required=True,
            entity=entity.id,
            ref_collection=coll.name,
            description=f"the current {entity.name} this revision was replaced in",
        )
        shape = [id_node, parent, *(n for n in own if n.name != REVISION), _required(revision_node(entity.name))]
        keys = [(ref, 1), (REVISION, -1)]
        out.append(
            _companion(
                coll,
                f"{coll.name}_revisions",
                shape,
                IndexDesign(
                    keys=keys,
                    name=default_name(keys),
                    unique=True,
                    why=f"the revisions of one {entity.name}, newest first (document versioning)",
                    key_reasons=[f"Equality: revisions of one {entity.name}", "Sort: newest revision first"],
                    rules=rules_for(REVISIONS),
                ),
                f"prior revisions of {entity.name} documents, written with each update (document versioning)",
            )
        )
    if entity.archive is not None and age_path is not None:
        keys = [(age_path, 1)]
        out.append(
            _companion(
                coll,
                f"{coll.name}_archive",
                list(coll.shape),
                IndexDesign(
                    keys=keys,
                    name=default_name(keys),
                    why=f"archived {entity.name} documents are read by age (archive pattern)",
                    key_reasons=[f"Range: {age_path} of the archived documents"],
                    rules=rules_for(ARCHIVE),
                ),
                f"{entity.name} documents older than {entity.archive.cold_after_s // 86_400:,} days, moved by the "
                "archive job (archive pattern)",
            )
        )
    overflow = _overflow(entity.name, coll, rules_for)
    if overflow is not None:
        out.append(overflow)
    return out


def outlier_arrays(shape: list[ShapeNode]) -> list[ShapeNode]:
    """The bounded arrays of an outlier pattern in a document shape (none without the ``has_overflow`` flag)."""
    if not any(node.name == HAS_OVERFLOW for node in shape):
        return []
    return [
        node
        for node in shape
        if node.bson_type == "array" and node.role == "embedded" and node.relationship and node.max_items
    ]


def _overflow(
    entity_name: str, coll: CollectionDesign, rules_for: Callable[[str], list[str]]
) -> CollectionDesign | None:
    """``<collection>_overflow``: the N past the bound, in documents keyed by their parent (outlier pattern)."""
    arrays = outlier_arrays(coll.shape)
    if not arrays:
        return None
    ref = f"{snake(entity_name)}_id"
    parent = ShapeNode(
        ref,
        "objectId",
        role="parent-ref",
        required=True,
        entity=coll.root,
        ref_collection=coll.name,
        description=f"the {entity_name} whose items passed the bound (its has_overflow is true)",
    )
    shape = [ShapeNode("_id", "objectId", role="id", required=True), parent, *arrays]
    keys = [(ref, 1)]
    what = ", ".join(node.name for node in arrays)
    return _companion(
        coll,
        f"{coll.name}_overflow",
        shape,
        IndexDesign(
            keys=keys,
            name=default_name(keys),
            why=f"the overflow documents of one {entity_name}, read when its has_overflow is true (outlier pattern)",
            key_reasons=[f"Equality: overflow of one {entity_name}"],
            rules=rules_for(OVERFLOW),
        ),
        f"{what} of the few {entity_name} documents past the bound, in documents of up to "
        f"{max(node.max_items or 0 for node in arrays):,} each (outlier pattern)",
    )


def _required(node: ShapeNode) -> ShapeNode:
    return replace(node, required=True)


def _companion(
    main: CollectionDesign, name: str, shape: list[ShapeNode], index: IndexDesign, why: str
) -> CollectionDesign:
    coll = CollectionDesign(
        name=name,
        entities=list(main.entities[:1]),
        shape=shape,
        indexes=[index],
        validator={},
        avg_bytes=main.avg_bytes,
        max_bytes=main.max_bytes,
        why=why,
        companion_of=main.name,
        # revisions and archive copy the main shape: bucket documents stay buckets (their stats and readings)
        bucket=main.bucket if any(n.role in ("bucket-stat", "bucket-items") for n in shape) else None,
    )
    coll.validator = collection_validator(shape, None)
    return coll
