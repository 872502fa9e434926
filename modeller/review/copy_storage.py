"""Where a design keeps one relationship, as the migration's copy steps need it (collections, top-level paths).

The copy steps of a strategy change (``strategy_copies``, ``pattern_copies``) compare the OLD and the NEW
:class:`Storage` of a relationship and call the script's helpers with the names they hold; :class:`Calls`
renders those calls, every name through the one quoting function.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from modeller.export.literals import js_string, js_value
from modeller.model.project import Project
from modeller.rules.physical.design import BucketDesign, Design, ShapeNode


@dataclass(frozen=True, slots=True)
class Storage:
    """Where one design keeps one relationship (collections by name, top-level paths)."""

    parent: str | None = None
    child: str | None = None
    #: the embedded N in the parent, and whether it is one document (one-to-one) rather than an array
    embed: str | None = None
    single: bool = False
    #: the embedded element keeps an _id of its own
    item_id: bool = False
    #: where the One is in the parent's documents: ``""`` at the top, else the path of the sub-document it is
    #: embedded as (the One's id is then ``<one_path>._id``)
    one_path: str = ""
    #: a many-to-many: each N belongs to several Ones (its embedded copies, bucket items, links are per One)
    shared: bool = False
    #: the array of N ids in the parent (child-refs, two-way; not elements with copies)
    refs: str | None = None
    #: the reference to the One in each N: a field, or the extended reference's ``<ext>._id``
    ref: str | None = None
    #: ``ref`` is an array of One ids in each N (a many-to-many's parent-ref or two-way), not one id
    ref_array: bool = False
    ext: str | None = None
    #: ``ext`` is an array of ``{_id, copies}``, one per One (a many-to-many's extended references)
    ext_array: bool = False
    #: (copy name, source path) of an extended reference
    copies: tuple[tuple[str, str], ...] = ()
    #: subset pattern: the One's array of copies of its latest N, how many it keeps, its order and its copies
    subset: str | None = None
    subset_k: int = 0
    subset_sort: tuple[str, int] | None = None
    subset_copies: tuple[tuple[str, str], ...] = ()
    #: bucket pattern: the N's collection holds bucket documents (``ref`` is the series field)
    bucket: BucketDesign | None = None
    #: (copy name, source path in the One) of the fields a bucket document copies from its series' One
    bucket_copies: tuple[tuple[str, str], ...] = ()
    #: the unique indexes (names) of the N's collection besides ``_id``
    unique: tuple[str, ...] = ()
    #: the N's collection is a native time series collection (its documents cannot be reshaped in place)
    timeseries: bool = False
    #: single collection pattern: the N's documents live in the One's collection (``child == parent``), told
    #: apart by ``discriminator`` (the entity ids ``one_type`` / ``many_type``), linked by ``links``
    discriminator: str | None = None
    links: str | None = None
    #: the fields of a ``links`` element: the linked document's _id and its type
    link_target: str = ""
    link_type: str = ""
    one_type: str = ""
    many_type: str = ""


def storage(design: Design, project: Project, rel_id: str) -> Storage | None:
    """How ``design`` stores ``rel_id``, or None when it is not migrated here: the N embedded deeper than one level
    below its One, or the One embedded in an array (the One may be a sub-document of another entity's documents)."""
    rel = next((r for r in project.relationships if r.id == rel_id), None)
    if rel is None:
        return None
    roots = {c.root: c for c in design.collections}
    parent, child = roots.get(rel.one), roots.get(rel.many)
    top = parent.shape if parent is not None else []
    one_at = design.embedded.get(rel.one)
    if parent is None and one_at is not None:  # the One is a sub-document (never in an array) of another's document
        parent = design.collection(one_at.collection)
        node = _node_at(parent.shape, one_at.path) if parent is not None else None
        if parent is None or node is None or node.bson_type != "object" or through_array(parent.shape, one_at.path):
            return None
        top = node.children
    prefix = f"{one_at.path}." if one_at is not None and parent is not None and parent.root != rel.one else ""
    out: dict[str, object] = {"parent": parent.name if parent else None, "child": child.name if child else None}
    out["one_path"] = prefix.rstrip(".")
    out["shared"] = rel.cardinality == "many-to-many"
    if parent is not None and child is None and rel.many in parent.entities and parent.discriminator is not None:
        links = next((n for n in parent.shape if n.role == "child-refs" and n.relationship is None), None)
        link = links.items.children if links is not None and links.items is not None else []
        target = next((c.name for c in link if c.role == "child-refs"), None)
        kind = next((c.name for c in link if c.role == "discriminator"), None)
        if links is None or target is None or kind is None or rel.many not in parent.variants:
            return None
        child = parent
        out.update(
            child=parent.name,
            discriminator=parent.discriminator,
            links=links.name,
            link_target=target,
            link_type=kind,
            one_type=rel.one,
            many_type=rel.many,
        )
    placement = design.embedded.get(rel.many)
    if placement is not None and parent is not None and placement.collection == parent.name:
        if not placement.path.startswith(prefix) or "." in placement.path.removeprefix(prefix):
            return None
        node = _node_at(parent.shape, placement.path)
        element = node.items if node is not None and node.items is not None else node
        out.update(
            embed=placement.path,
            single=node is not None and node.bson_type == "object",
            item_id=element is not None and any(c.name == "_id" for c in element.children),
        )
    for node in top:
        if node.relationship == rel_id and node.role == "child-refs" and _bare_ids(node):
            out["refs"] = prefix + node.name
        elif node.relationship == rel_id and node.role == "subset" and node.items is not None:
            copies = tuple((c.name, c.source.path) for c in node.items.children if c.source is not None)
            out.update(subset=node.name, subset_k=node.max_items or 10, subset_sort=node.sort, subset_copies=copies)
    if child is not None and child.timeseries is not None:
        out["timeseries"] = True
    if child is not None:
        out["unique"] = tuple(i.name for i in child.indexes if i.unique and [k for k, _ in i.keys] != ["_id"])
    if child is not None and child.bucket is not None:
        items = next((n for n in child.shape if n.name == child.bucket.items_field), None)
        if items is None or items.items is None:
            return None
        copied = tuple(
            (n.name, n.source.path)
            for n in child.shape
            if n.role == "denormalized" and n.source is not None and n.source.entity == rel.one
        )
        out.update(bucket=child.bucket, bucket_copies=copied)
    for node in child.shape if child else []:
        if node.relationship != rel_id:
            continue
        if node.role == "parent-ref" and node.bson_type != "array":
            out["ref"] = node.name
        elif node.role == "parent-ref" and node.items is not None and node.items.bson_type != "object":
            out.update(ref=node.name, ref_array=True)
        elif node.role == "extended-ref" and node.bson_type == "object":
            out["ext"] = node.name
            out["copies"] = tuple((c.name, c.source.path) for c in node.children if c.source and c.name != "_id")
        elif node.role == "extended-ref" and node.items is not None:
            out.update(ext=node.name, ext_array=True)
            out["copies"] = tuple((c.name, c.source.path) for c in node.items.children if c.source and c.name != "_id")
    if out.get("ref") is None and out.get("ext") is not None:
        out["ref"] = f"{out['ext']}._id"
        out["ref_array"] = bool(out.get("ext_array"))
    return Storage(**out)  # type: ignore[arg-type]


def _node_at(shape: list[ShapeNode], path: str) -> ShapeNode | None:
    """The node at a dotted path of a shape (through sub-documents)."""
    node = None
    for part in path.split("."):
        node = next((n for n in shape if n.name == part), None)
        if node is None:
            return None
        shape = node.children
    return node


def through_array(shape: list[ShapeNode], path: str) -> bool:
    """Whether a dotted path passes through an array (its sub-document is then one of many)."""
    for part in path.split("."):
        node = next((n for n in shape if n.name == part), None)
        if node is None or node.items is not None:
            return True
        shape = node.children
    return False


def _bare_ids(node: ShapeNode) -> bool:
    return node.items is not None and node.items.bson_type != "object"


@dataclass(slots=True)
class Calls:
    """The helper calls of one data step; each call gets its own marker key, named after the helper it calls
    (``004-strategy-changed-copy-out``; ``-2``, ``-3`` when the step calls it again)."""

    step: str
    label: str
    lines: list[str] = field(default_factory=list)
    #: (the key scripts before named steps gave the call, ``<step>-<n>``; its key now): :meth:`renames` says them
    renamed: list[tuple[str, str]] = field(default_factory=list)

    def key(self, helper: str) -> str:
        """The next call's marker key: the step and the helper's name in words."""
        base = f"{self.step}-{re.sub(r'(?<=[a-z0-9])(?=[A-Z])', '-', helper).lower()}"
        taken = {now for _, now in self.renamed}
        key, n = base, 1
        while key in taken:
            n += 1
            key = f"{base}-{n}"
        self.renamed.append((f"{self.step}-{len(self.lines)}", key))
        return key

    def renames(self) -> list[str]:
        """The line that takes over the markers a run of an earlier script left under the numbered keys, so a
        script written now resumes where that run stopped (nothing when the step calls no helper)."""
        pairs = [[was, now] for was, now in self.renamed]
        return [f"  renameMarkers({js_value(pairs)});"] if pairs else []

    def __call__(self, name: str, *args: object, one: str = "") -> None:
        """A helper call; ``one``: the path of the sub-document the One is embedded as, when it is not the
        document itself (passed after the label: the helpers default to the document's ``_id``)."""
        rendered = ", ".join(js_string(a) if isinstance(a, str) else js_value(a) for a in (self.key(name), *args))
        tail = f", {js_string(one + '._id')}" if one else ""
        self.lines.append(f"  {name}({rendered}, {js_string(self.label)}{tail});")

    def migrate(self, collection: str, filter_: object, update: object) -> None:
        """A batched ``updateMany`` of the migration's own ``migrate`` helper."""
        self.lines.append(
            f"  migrate({js_string(self.key('migrate'))}, {js_string(collection)}, {js_value(filter_)}, {js_value(update)}, "
            f"{js_string(self.label)});"
        )
