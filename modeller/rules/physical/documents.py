"""Document shapes: what each collection's documents look like after the strategies are applied.

Besides the tree of :class:`ShapeNode`, the builder records *routes*: how a
logical path a query names (``owner.name``, ``parts.name``, ``host.ipaddr``,
``rating_avg``) maps to a physical path (``parts.name``, ``ipaddr``,
``rating.avg``), or that it needs a join because nothing was copied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from modeller.model.project import ArrayItems, Entity, Field
from modeller.model.vocabulary import AggregateOp
from modeller.rules.physical.design import BsonType, BucketDesign, Computation, ShapeNode, Source
from modeller.rules.physical.facts import NUMERIC_TYPES, Context
from modeller.rules.physical.naming import (
    child_refs_field,
    collection_name,
    embed_field,
    extended_ref_field,
    parent_ref_field,
    plural,
    snake,
    subset_field,
)
from modeller.rules.physical.plans import CopyPlan, RelPlan
from modeller.rules.physical.sizes import DOC_OVERHEAD, TYPE_BYTES, array_bytes, element_overhead

BSON: dict[str, BsonType] = {
    "string": "string",
    "int": "int",
    "long": "long",
    "double": "double",
    "decimal": "decimal",
    "bool": "bool",
    "date": "date",
    "objectId": "objectId",
    "object": "object",
    "array": "array",
    "binData": "binData",
    "uuid": "binData",
    "point": "object",
}
JOIN = object()  # route result: the path needs a join


@dataclass(slots=True)
class Route:
    """Where a logical name of an entity lives in the entity's element."""

    path: str
    #: the entity whose fields continue below this name (embedded entities)
    entity: str | None = None
    #: the only sub-names available below (copies); None = any field of ``entity``
    only: dict[str, str] | None = None
    rel: str | None = None


@dataclass(slots=True)
class BucketPlan:
    entity: str
    design: BucketDesign
    series_rel: str | None


@dataclass(slots=True)
class ShapeBuilder:
    """Builds shapes with sizes; one instance per analysis."""

    ctx: Context
    plans: dict[str, RelPlan]
    embedded_in: dict[str, list[str]]  # entity -> rel ids embedding it
    buckets: dict[str, BucketPlan]
    #: id(node) -> (average bytes, maximum bytes, node): holding the node keeps its id from being reused by
    #: a later unsized node once a merge drops it (one of two same-named fields)
    sizes: dict[int, tuple[int, int, ShapeNode]] = field(default_factory=dict)
    routes: dict[str, dict[str, Route]] = field(default_factory=dict)
    #: (rel id, copy name) -> path of the copy relative to the target entity's element
    copy_paths: dict[tuple[str, str, str], str] = field(default_factory=dict)
    _names: dict[str, str] = field(default_factory=dict)

    # ----- sizes -----
    def _size(self, node: ShapeNode, avg: int, mx: int) -> ShapeNode:
        self.sizes[id(node)] = (avg, mx, node)
        return node

    def size_of(self, node: ShapeNode) -> tuple[int, int]:
        entry = self.sizes.get(id(node))
        a, m = (8, 8) if entry is None else (entry[0], entry[1])
        o = element_overhead(node.name)
        return a + o, m + o

    def _object_size(self, children: list[ShapeNode]) -> tuple[int, int]:
        """Sizes of a sub-document: the sum of its elements (type byte, name, value) and the document overhead."""
        avg = mx = DOC_OVERHEAD
        for c in children:
            a, m = self.size_of(c)
            avg += a
            mx += m
        return avg, mx

    def doc_size(self, nodes: list[ShapeNode]) -> tuple[int, int]:
        return self._object_size(nodes)

    # ----- declared fields -----
    def field_node(self, f: Field | ArrayItems, name: str, variant: str | None = None) -> ShapeNode:
        """The node of a declared field (or array element) with its size; one call per node of the tree."""
        t = f.type
        node = ShapeNode(
            name,
            BSON[t],
            field_type=t if t == "uuid" or t == "point" else None,
            # an array element (ArrayItems) has no flags or description of its own
            required=isinstance(f, Field) and f.required,
            unique=isinstance(f, Field) and f.unique,
            enum=list(f.enum) if f.enum else None,
            variant=variant,
            faker=f.faker,
            example=f.example,
            description=f.description if isinstance(f, Field) else None,
        )
        sizes = self.sizes
        if t == "string":
            b = f.bytes
            b = (self.ctx.settings.default_string_bytes if b is None else b) + 5
            sizes[id(node)] = (b, b, node)
            return node
        if t == "object":
            children = node.children = [self.field_node(c, c.name) for c in (f.fields or ())]
            if not children and f.bytes is not None:
                sizes[id(node)] = (f.bytes, f.bytes, node)
                return node
            a, m = self._object_size(children)
            sizes[id(node)] = (a, m, node)
            return node
        if t == "array":
            s = self.ctx.settings
            items = f.items
            if items is not None:
                item_node = self.field_node(items, "items")
                a, m, _ = sizes[id(item_node)]
            else:
                item_node = ShapeNode("items", "string")
                a = m = s.default_string_bytes + 5
                sizes[id(item_node)] = (a, m, item_node)
            node.items = item_node
            max_items = f.max_items if isinstance(f, Field) else None
            node.max_items = max_items
            n_max = max_items if max_items is not None else s.default_array_max
            n_avg = min(n_max, s.default_array_items)
            sizes[id(node)] = (array_bytes(n_avg, a), array_bytes(n_max, m), node)
            return node
        if t == "point":
            node.children = [
                self._size(ShapeNode("type", "string", enum=["Point"], required=True), 10, 10),
                self._size(
                    ShapeNode(
                        "coordinates",
                        "array",
                        required=True,
                        max_items=2,
                        items=self._size(ShapeNode("0", "double"), 8, 8),
                    ),
                    40,
                    40,
                ),
            ]
            b = TYPE_BYTES["point"]
        else:
            b = f.bytes
            if b is None:
                b = TYPE_BYTES.get(t, 8)
        sizes[id(node)] = (b, b, node)
        return node

    # ----- entities -----
    def has_identity(self, entity: Entity) -> bool:
        """Embedded elements keep an ``_id`` when other documents refer to them."""
        return any(self.plans[f.rel_id].strategy != "embed" for f in self.ctx.rels_of_one[entity.id])

    def id_node(self, entity: Entity) -> ShapeNode:
        declared = self.ctx.field(entity.id, "_id")
        if declared is not None:
            node = self.field_node(declared, "_id")
            node.role, node.required = "id", True
            return node
        return self._size(ShapeNode("_id", "objectId", role="id", required=True, entity=entity.id), 12, 12)

    def ref_type(self, entity: Entity) -> BsonType:
        declared = self.ctx.field(entity.id, "_id")
        return BSON[declared.type] if declared is not None else "objectId"

    def entity_nodes(self, entity: Entity, stack: tuple[str, ...], root: bool) -> list[ShapeNode]:
        """The shape of one document (or embedded element) of ``entity``."""
        routes: dict[str, Route] = {}
        nodes: list[ShapeNode] = []
        if root or self.has_identity(entity):
            nodes.append(self.id_node(entity))
        routes["_id"] = Route("_id")
        #: declared names that get no node of their own here (the declared ``_id``, the discriminator)
        skip: set[str] = set()
        if self.ctx.field(entity.id, "_id") is not None:
            skip.add("_id")
        subtypes = entity.subtypes
        if subtypes is not None:
            disc = subtypes.discriminator
            skip.add(disc)
            declared = next((f for f in entity.fields if f.name == disc), None)
            node = ShapeNode(
                disc,
                "string",
                role="discriminator",
                required=True,
                enum=list(subtypes.variants),
                entity=entity.id,
            )
            if declared is not None:
                node.description = declared.description
                node.faker, node.example = declared.faker, declared.example
            nodes.append(self._size(node, 16, 16))
            routes[disc] = Route(disc)
        field_node = self.field_node
        for f in entity.fields:
            name = f.name
            if name in skip:
                continue
            nodes.append(field_node(f, name))
            routes[name] = Route(name)
        if subtypes is not None:
            for variant, fields in subtypes.variants.items():
                for f in fields:
                    nodes.append(field_node(f, f.name, variant=variant))
                    routes.setdefault(f.name, Route(f.name))
        for facts in self.ctx.rels_of_many[entity.id]:
            plan = self.plans[facts.rel_id]
            if plan.strategy == "embed" or (entity.id in self.buckets and plan.strategy == "bucket"):
                if plan.strategy == "bucket":
                    self._copies_flat(plan, nodes, routes)
                continue
            nodes.extend(self._many_side(plan, routes))
        for facts in self.ctx.rels_of_one[entity.id]:
            plan = self.plans[facts.rel_id]
            nodes.extend(self._one_side(plan, routes, (*stack, entity.id)))
        self.routes[entity.id] = routes
        return nodes

    def _ref_node(self, plan: RelPlan, name: str, array: bool) -> ShapeNode:
        one = plan.facts.one
        t = self.ref_type(one)
        ref_coll = self.collection_of(one.id)
        if not array:
            node = ShapeNode(
                name,
                t,
                role="parent-ref",
                required=True,
                nullable=plan.facts.self_ref,  # the root of a tree has no parent (Manual: parent: null)
                entity=one.id,
                relationship=plan.facts.rel_id,
                ref_collection=ref_coll,
                source=Source(one.id, "_id"),
            )
            return self._size(node, 12, 12)
        item = self._size(ShapeNode("items", t, role="parent-ref", entity=one.id, ref_collection=ref_coll), 12, 12)
        node = ShapeNode(
            name,
            "array",
            role="parent-ref",
            entity=one.id,
            relationship=plan.facts.rel_id,
            ref_collection=ref_coll,
            items=item,
        )
        n = plan.facts.n_typ
        return self._size(node, array_bytes(n, 12), array_bytes(max(n, 1) * 4, 12))

    def _many_side(self, plan: RelPlan, routes: dict[str, Route]) -> list[ShapeNode]:
        facts = plan.facts
        rel, one = facts.rel, facts.one
        out: list[ShapeNode] = []
        if plan.strategy == "single-collection":
            return out
        if plan.strategy == "child-refs":
            self._copies_flat(plan, out, routes)
            role = extended_ref_field(rel, one)
            routes.setdefault(role, Route(role, only=self._only_copies(plan, "flat"), rel=plan.facts.rel_id))
            return out
        ref_name = parent_ref_field(rel, one)
        if rel.cardinality == "many-to-many":
            ref_name = f"{rel.inverse or snake(one.name)}_ids"
        if plan.strategy == "extended-ref":
            ext = extended_ref_field(rel, one)
            if plan.keep_ref_field:
                out.append(self._ref_node(plan, ref_name, False))
                routes[ref_name] = Route(ref_name)
            else:
                routes[ref_name] = Route(f"{ext}._id")
            children = [
                self._size(
                    ShapeNode(
                        "_id",
                        self.ref_type(one),
                        role="parent-ref",
                        required=True,
                        entity=one.id,
                        ref_collection=self.collection_of(one.id),
                        source=Source(one.id, "_id"),
                    ),
                    12,
                    12,
                )
            ]
            only = {"_id": f"{ext}._id"}
            for cp in plan.copies:
                if cp.location == "extended":
                    children.append(self._copy_node(plan, cp))
                    only[cp.denorm.field] = f"{ext}.{cp.name}"
                    self.copy_paths[(plan.facts.rel_id, cp.denorm.field, cp.denorm.direction)] = f"{ext}.{cp.name}"
            node = ShapeNode(
                ext,
                "object",
                role="extended-ref",
                required=True,
                nullable=plan.facts.self_ref,  # the root of a tree has no parent to copy
                entity=one.id,
                relationship=plan.facts.rel_id,
                ref_collection=self.collection_of(one.id),
                children=children,
            )
            out.append(self._size(node, *self._object_size(children)))
            routes[ext] = Route(ext, only=only, rel=plan.facts.rel_id)
            return out
        out.append(self._ref_node(plan, ref_name, rel.cardinality == "many-to-many"))
        routes[ref_name] = Route(ref_name)
        self._copies_flat(plan, out, routes)
        role = extended_ref_field(rel, one)
        routes.setdefault(
            role, Route(role, only={"_id": ref_name, **self._only_copies(plan, "flat")}, rel=plan.facts.rel_id)
        )
        return out

    def _only_copies(self, plan: RelPlan, location: str) -> dict[str, str]:
        return {cp.denorm.field: cp.name for cp in plan.copies if cp.location == location}

    def _copies_flat(self, plan: RelPlan, out: list[ShapeNode], routes: dict[str, Route]) -> None:
        for cp in plan.copies:
            if cp.location == "flat":
                out.append(self._copy_node(plan, cp))
                routes.setdefault(cp.name, Route(cp.name))
                self.copy_paths[(plan.facts.rel_id, cp.denorm.field, cp.denorm.direction)] = cp.name

    def _copy_node(self, plan: RelPlan, cp: CopyPlan) -> ShapeNode:
        if cp.field is not None:
            node = self.field_node(cp.field, cp.name)
            node.unique = False
            node.required = cp.field.required and cp.location != "subset"
        else:
            node = self._size(ShapeNode(cp.name, "string"), 29, 29)
        node.role = "denormalized"
        node.source = Source(cp.source.id, cp.denorm.field)
        node.entity = cp.source.id
        node.relationship = plan.facts.rel_id
        return node

    def _one_side(self, plan: RelPlan, routes: dict[str, Route], stack: tuple[str, ...]) -> list[ShapeNode]:
        facts = plan.facts
        rel, many = facts.rel, facts.many
        # the field name the One side gives the N side: only these strategies store something under it
        name = embed_field(rel, many) if plan.strategy in ("embed", "child-refs", "two-way", "subset") else ""
        out: list[ShapeNode] = []
        if plan.strategy == "embed":
            if many.id in stack:
                return out
            children = self.entity_nodes(many, stack, root=False)
            a, m = self._object_size(children)
            if rel.cardinality == "one-to-one":
                node = ShapeNode(
                    name, "object", role="embedded", entity=many.id, relationship=plan.facts.rel_id, children=children
                )
                out.append(self._size(node, a, m))
            else:
                item = self._size(
                    ShapeNode("items", "object", role="embedded", entity=many.id, children=children), a, m
                )
                node = ShapeNode(
                    name,
                    "array",
                    role="embedded",
                    entity=many.id,
                    relationship=plan.facts.rel_id,
                    items=item,
                    max_items=facts.n_max if (facts.max_declared or not facts.unbounded) else None,
                )
                out.append(self._size(node, array_bytes(facts.n_typ, a), array_bytes(facts.n_max, m)))
            routes[name] = Route(name, entity=many.id, rel=plan.facts.rel_id)
        elif plan.strategy in ("child-refs", "two-way"):
            copies = [cp for cp in plan.copies if cp.location == "child-array"]
            t = self.ref_type(many)
            ref_coll = self.collection_of(many.id)
            max_items = facts.n_max if (facts.max_declared or not facts.unbounded) else None
            if copies:
                children = [
                    self._size(
                        ShapeNode(
                            "id",
                            t,
                            role="child-refs",
                            required=True,
                            entity=many.id,
                            ref_collection=ref_coll,
                            source=Source(many.id, "_id"),
                        ),
                        12,
                        12,
                    )
                ]
                only: dict[str, str] = {"_id": f"{name}.id", "id": f"{name}.id"}
                for cp in copies:
                    children.append(self._copy_node(plan, cp))
                    only[cp.denorm.field] = f"{name}.{cp.name}"
                    self.copy_paths[(plan.facts.rel_id, cp.denorm.field, cp.denorm.direction)] = f"{name}.{cp.name}"
                a, m = self._object_size(children)
                item = self._size(
                    ShapeNode(
                        "items", "object", role="child-refs", entity=many.id, children=children, ref_collection=ref_coll
                    ),
                    a,
                    m,
                )
                field_name = name
            else:
                item = self._size(
                    ShapeNode("items", t, role="child-refs", entity=many.id, ref_collection=ref_coll), 12, 12
                )
                a = m = 12
                field_name = child_refs_field(rel, many)
                only = {"_id": field_name}
            node = ShapeNode(
                field_name,
                "array",
                role="child-refs",
                entity=many.id,
                relationship=plan.facts.rel_id,
                ref_collection=ref_coll,
                items=item,
                max_items=max_items,
            )
            out.append(self._size(node, array_bytes(facts.n_typ, a), array_bytes(facts.n_max, m)))
            routes[field_name] = Route(field_name)
            routes.setdefault(name, Route(name, only=only, rel=plan.facts.rel_id))
        elif plan.strategy == "subset":
            k = plan.subset_k or 10
            sub = subset_field(rel, many)
            copies = [cp for cp in plan.copies if cp.location == "subset"]
            children = []
            only = {}
            for cp in copies:
                children.append(self._copy_node(plan, cp))
                only[cp.denorm.field] = f"{sub}.{cp.name}"
                self.copy_paths[(plan.facts.rel_id, cp.denorm.field, cp.denorm.direction)] = f"{sub}.{cp.name}"
            a, m = self._object_size(children)
            # the full set of the N side stays in its own collection: the subset's elements are copies from it
            ref_coll = self.collection_of(many.id)
            item = self._size(
                ShapeNode("items", "object", role="subset", entity=many.id, children=children, ref_collection=ref_coll),
                a,
                m,
            )
            node = ShapeNode(
                sub,
                "array",
                role="subset",
                entity=many.id,
                relationship=plan.facts.rel_id,
                ref_collection=ref_coll,
                items=item,
                max_items=k,
                sort=subset_sort(self.ctx, many),
            )
            out.append(self._size(node, array_bytes(min(k, facts.n_typ), a), array_bytes(k, m)))
            routes[name] = Route(sub, only=only, rel=plan.facts.rel_id)
            routes[sub] = Route(sub, only=only, rel=plan.facts.rel_id)
        out.extend(self._computed(plan, routes))
        return out

    def _computed(self, plan: RelPlan, routes: dict[str, Route]) -> list[ShapeNode]:
        """Aggregates of the N side stored in the One (computed pattern); ``x_count``/``x_sum`` group as ``x``."""
        rel = plan.facts.rel
        if not rel.aggregates:
            return []
        groups: dict[str, list[tuple[str, str, str | None]]] = {}
        prefixes = [a.name.rsplit("_", 1)[0] for a in rel.aggregates if "_" in a.name]
        order: list[str] = []
        for agg in rel.aggregates:
            head, _, tail = agg.name.rpartition("_")
            if head and prefixes.count(head) >= 2 and tail:
                groups.setdefault(head, []).append((agg.name, tail, agg.field))
                key = head
            else:
                groups.setdefault("", []).append((agg.name, agg.name, agg.field))
                key = ""
            if key not in order:
                order.append(key)
            del key
        out: list[ShapeNode] = []
        ops = {a.name: a.op for a in rel.aggregates}
        # an average is maintained from a sum and a count: add them when missing
        for head in order:
            entries = groups[head]
            nodes = []
            for logical, name, fld in entries:
                nodes.append(self._computed_node(plan, name, ops[logical], fld))
                routes[logical] = Route(f"{head}.{name}" if head else name)
            if head:
                present = {ops[e[0]] for e in entries}
                avg_field = next((e[2] for e in entries if ops[e[0]] == "avg"), None)
                if "avg" in present and "sum" not in present:
                    nodes.append(self._computed_node(plan, "sum", "sum", avg_field))
                if "avg" in present and "count" not in present:
                    nodes.append(self._computed_node(plan, "count", "count", None))
                node = ShapeNode(
                    head,
                    "object",
                    role="computed",
                    relationship=plan.facts.rel_id,
                    children=nodes,
                    entity=plan.facts.many_id,
                )
                out.append(self._size(node, *self._object_size(nodes)))
            else:
                out.extend(nodes)
        return out

    def _computed_node(self, plan: RelPlan, name: str, op: str, fld: str | None) -> ShapeNode:
        t: BsonType = "long" if op == "count" else "double"
        if op in ("min", "max") and fld is not None:
            f = self.ctx.field(plan.facts.many_id, fld)
            if f is not None and f.type in BSON and f.type not in ("object", "array"):
                t = BSON[f.type]
        node = ShapeNode(
            name,
            t,
            role="computed",
            relationship=plan.facts.rel_id,
            computation=Computation(plan.facts.rel_id, cast(AggregateOp, op), fld),
        )
        return self._size(node, 8, 8)

    # ----- buckets -----
    def bucket_nodes(self, entity: Entity, bucket: BucketPlan) -> list[ShapeNode]:
        b = bucket.design
        routes: dict[str, Route] = {"_id": Route("_id")}
        nodes: list[ShapeNode] = [self.id_node(entity)]
        if bucket.series_rel is not None:
            plan = self.plans[bucket.series_rel]
            nodes.append(self._ref_node(plan, b.series_field, False))
        else:
            meta = self.ctx.field(entity.id, b.series_field)
            node = (
                self.field_node(meta, b.series_field)
                if meta is not None
                else self._size(ShapeNode(b.series_field, "string"), 29, 29)
            )
            node.required = True
            nodes.append(node)
        routes[b.series_field] = Route(b.series_field)
        for name in (b.start_field, b.end_field):
            nodes.append(
                self._size(
                    ShapeNode(
                        name,
                        "date",
                        role="bucket-stat",
                        required=True,
                        entity=entity.id,
                        description=f"time of the {'first' if name == b.start_field else 'last'}"
                        " measurement in the bucket",
                    ),
                    8,
                    8,
                )
            )
        nodes.append(
            self._size(
                ShapeNode(
                    "count",
                    "int",
                    role="bucket-stat",
                    required=True,
                    entity=entity.id,
                    description=f"measurements in the bucket (at most {b.size})",
                ),
                4,
                4,
            )
        )
        if b.value_field is not None:
            for stat in ("sum", "min", "max"):
                nodes.append(
                    self._size(
                        ShapeNode(
                            stat,
                            "double",
                            role="bucket-stat",
                            required=True,
                            entity=entity.id,
                            source=Source(entity.id, b.value_field),
                            description=f"{stat} of {b.value_field} over the bucket",
                        ),
                        8,
                        8,
                    )
                )
        for facts in self.ctx.rels_of_many[entity.id]:
            plan = self.plans[facts.rel_id]
            self._copies_flat(plan, nodes, routes)
        children = []
        for f in entity.fields:
            if f.name == b.series_field:
                continue
            children.append(self.field_node(f, f.name))
        a, m = self._object_size(children)
        item = self._size(ShapeNode("items", "object", role="bucket-items", entity=entity.id, children=children), a, m)
        nodes.append(
            self._size(
                ShapeNode(
                    b.items_field,
                    "array",
                    role="bucket-items",
                    required=True,
                    entity=entity.id,
                    items=item,
                    max_items=b.size,
                ),
                array_bytes(b.size, a),
                array_bytes(b.size, m),
            )
        )
        for f in entity.fields:
            if f.name == b.time_field:
                routes[f.name] = Route(b.start_field)
            elif f.name != b.series_field:
                routes[f.name] = Route(f"{b.items_field}.{f.name}")
        self.routes[entity.id] = routes
        return nodes

    def collection_of(self, entity_id: str) -> str:
        name = self._names.get(entity_id)
        if name is None:
            name = self._names[entity_id] = collection_name(self.ctx.entities[entity_id])
        return name


def subset_sort(ctx: Context, many: Entity) -> tuple[str, int] | None:
    """The subset keeps the latest elements: by the time series time field or the first date field."""
    if many.timeseries is not None:
        return (many.timeseries.time_field, -1)
    first_date = next((f.name for f in many.fields if f.type == "date"), None)
    return (first_date, -1) if first_date else None


def make_bucket(ctx: Context, entity: Entity, plan: RelPlan | None) -> BucketPlan:
    """The bucket document layout for a time series entity (CN seed: 60 readings, count/sum/min/max)."""
    ts = entity.timeseries
    time_field = ts.time_field if ts is not None else next((f.name for f in entity.fields if f.type == "date"), "t")
    if plan is not None:
        series = ts.meta_field if ts is not None and ts.meta_field else parent_ref_field(plan.facts.rel, plan.facts.one)
        size = plan.bucket_size or 60
    else:
        series = ts.meta_field if ts is not None and ts.meta_field else "series"
        size = ts.bucket_size if ts is not None and ts.bucket_size else 60
    value = next(
        (f.name for f in entity.fields if f.type in NUMERIC_TYPES and f.name not in (series, time_field)), None
    )
    items = plural(snake(entity.name))
    if items in (series, "start", "end", "count", "sum", "min", "max", "_id"):
        items = "items"
    design = BucketDesign(size=size, series_field=series, items_field=items, time_field=time_field, value_field=value)
    return BucketPlan(entity.id, design, plan.facts.rel_id if plan is not None else None)
