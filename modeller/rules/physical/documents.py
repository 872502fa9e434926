"""Document shapes: what each collection's documents look like after the strategies are applied.

Besides the tree of :class:`ShapeNode`, the builder records *routes*: how a
logical path a query names (``owner.name``, ``parts.name``, ``host.ipaddr``,
``rating_avg``) maps to a physical path (``parts.name``, ``ipaddr``,
``rating.avg``), or that it needs a join because nothing was copied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from modeller.model.project import ArrayItems, Entity, Field, Relationship
from modeller.model.vocabulary import AggregateOp
from modeller.rules.physical.attributes import AttributeGroup
from modeller.rules.physical.companions import HAS_OVERFLOW, REVISION, revision_node
from modeller.rules.physical.design import BsonType, BucketDesign, Computation, ShapeNode, Source
from modeller.rules.physical.facts import NUMERIC_TYPES, Context, RelFacts, ones_per_many
from modeller.rules.physical.naming import (
    child_refs_field,
    collection_name,
    embed_field,
    extended_ref_field,
    former_parent_ref_field,
    parent_ref_field,
    plural,
    snake,
    subset_field,
)
from modeller.rules.physical.plans import CopyPlan, RelPlan
from modeller.rules.physical.sizes import DOC_OVERHEAD, TYPE_BYTES, array_bytes, element_overhead, present_bytes
from modeller.rules.physical.trees import tree_model_of

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
#: the version the documents of an entity with a ``schema_change`` are written with (version 1: without the field)
SCHEMA_VERSION_NEW = 2


def distinct_name(name: str, taken: set[str]) -> str:
    """The first ``<name>_<n>`` (n = 2, 3, ...) not in ``taken``; a trailing ``_id``/``_ids`` stays last."""
    head, suffix = name, ""
    for end in ("_ids", "_id"):
        if name.endswith(end) and len(name) > len(end):
            head, suffix = name[: -len(end)], end
            break
    n = 2
    while f"{head}_{n}{suffix}" in taken:
        n += 1
    return f"{head}_{n}{suffix}"


def _reuse_declared_refs(made: list[ShapeNode], nodes: list[ShapeNode]) -> list[ShapeNode]:
    """``made`` without the parent references the document already declares, which become those fields.

    A user who keeps ``tenant_id`` in every Event and draws Tenant -> Event means that field: it
    becomes the reference (its type, words and requiredness kept, required when the relationship
    is) instead of a second one beside it (``tenant_2_id``), which the validator would require of
    every insert that writes only the user's field.
    """
    declared = {n.name: n for n in nodes if n.role == "field"}
    kept: list[ShapeNode] = []
    for node in made:
        own = declared.get(node.name) if node.role == "parent-ref" else None
        if own is None or (own.bson_type == "array") != (node.bson_type == "array"):
            kept.append(node)
            continue
        own.role, own.entity, own.relationship = "parent-ref", node.entity, node.relationship
        own.ref_collection, own.source = node.ref_collection, node.source
        own.required = own.required or node.required
        own.nullable = own.nullable or node.nullable
        if own.items is not None and node.items is not None:
            own.items.role, own.items.entity, own.items.ref_collection = "parent-ref", node.entity, node.ref_collection
    return kept


def _moved(path: str, old: str, new: str) -> str:
    """``path`` with its first segment ``old`` renamed to ``new``."""
    if path == old:
        return new
    return new + path[len(old) :] if path.startswith(old + ".") else path


@dataclass(slots=True)
class Route:
    """Where a logical name of an entity lives in the entity's element."""

    path: str
    #: the entity whose fields continue below this name (embedded entities)
    entity: str | None = None
    #: the only sub-names available below (copies); None = any field of ``entity``
    only: dict[str, str] | None = None
    rel: str | None = None
    #: attribute pattern: the field is the ``v`` of the pair whose ``k`` is this key (``path`` is ``<array>.v``)
    key: str | None = None


#: the nodes whose presence an average size weighs: declared fields and their copies (``required`` says whether
#: every document holds them); references, embedded documents and pattern fields are there whenever the design is
_WEIGHED = frozenset({"field", "denormalized"})


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
    routes: dict[str, dict[str, Route]] = field(default_factory=dict)
    #: (rel id, copy name) -> path of the copy relative to the target entity's element
    copy_paths: dict[tuple[str, str, str], str] = field(default_factory=dict)
    #: rel id -> the name its embedded N got in the One when the convention's name was taken (``user_2``)
    embed_names: dict[str, str] = field(default_factory=dict)
    _names: dict[str, str] = field(default_factory=dict)

    # ----- sizes -----
    @staticmethod
    def _size(node: ShapeNode, avg: int, mx: int) -> ShapeNode:
        node.value_avg, node.value_max = avg, mx
        return node

    @staticmethod
    def value_size(node: ShapeNode) -> tuple[int, int]:
        """(average, maximum) bytes of a node's value, without its name: the one size of a field or array that every
        figure about it shows (the document sizes add them up, the array warnings quote them)."""
        return node.value_avg, node.value_max

    def _object_size(self, children: list[ShapeNode]) -> tuple[int, int]:
        """Sizes of a sub-document: the sum of its elements (type byte, name, value) and the document overhead; on
        average an optional declared field (or its copy) counts as often as documents hold it."""
        avg = mx = DOC_OVERHEAD
        settings = self.ctx.settings
        for c in children:
            o = element_overhead(c.name)
            a = c.value_avg + o
            avg += a if c.required or c.role not in _WEIGHED else present_bytes(a, False, settings)
            mx += c.value_max + o
        return avg, mx

    def doc_size(self, nodes: list[ShapeNode]) -> tuple[int, int]:
        return self._object_size(nodes)

    # ----- declared fields -----
    def field_node(self, f: Field | ArrayItems, name: str, variant: str | None = None) -> ShapeNode:
        """The node of a declared field (or array element) with its size; one call per node of the tree."""
        t = f.type
        # only what differs from the defaults is set: a call with ten keywords costs twice one with none, and this
        # runs once per node of every document (speed only: DESIGN.md's cold analysis near 250 ms at 1,000 entities)
        node = ShapeNode(name, BSON[t])
        if t == "uuid" or t == "point":
            node.field_type = t
        if isinstance(f, Field):  # an array element (ArrayItems) has no flags or description of its own
            if f.required:
                node.required = True
            if f.unique:
                node.unique = True
            if f.description is not None:
                node.description = f.description
            if f.other_types:
                others = (BSON.get(o, o) for o in f.other_types)  # "null" is no field type: it stays itself
                node.other_types = tuple(dict.fromkeys(o for o in others if o != node.bson_type))
        if f.enum:
            node.enum = list(f.enum)
        if variant is not None:
            node.variant = variant
        if f.faker is not None:
            node.faker = f.faker
        if f.example is not None:
            node.example = f.example
        if t == "string":
            b = f.bytes
            b = (self.ctx.settings.default_string_bytes if b is None else b) + 5
            node.value_avg = node.value_max = b
            return node
        if t == "object":
            children = node.children = [self.field_node(c, c.name) for c in (f.fields or ())]
            if not children and f.bytes is not None:
                node.value_avg = node.value_max = f.bytes
                return node
            node.value_avg, node.value_max = self._object_size(children)
            return node
        if t == "array":
            s = self.ctx.settings
            items = f.items
            if items is not None:
                item_node = self.field_node(items, "items")
                a, m = item_node.value_avg, item_node.value_max
            else:
                item_node = ShapeNode("items", "string")
                a = m = item_node.value_avg = item_node.value_max = s.default_string_bytes + 5
            node.items = item_node
            max_items = f.max_items if isinstance(f, Field) else None
            node.max_items = max_items
            n_max = max_items if max_items is not None else s.default_array_max
            n_avg = min(n_max, s.default_array_items)
            node.value_avg, node.value_max = array_bytes(n_avg, a), array_bytes(n_max, m)
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
        node.value_avg = node.value_max = b
        return node

    # ----- entities -----
    def has_identity(self, entity: Entity) -> bool:
        """Embedded elements keep an ``_id`` when other documents refer to them, or when they are elements of an
        array whose own fields change after insert: one element is then updated by its ``_id`` (arrayFilters), as
        the Extended Reference Pattern article's edited comments keep theirs while an order's line items (written
        once, the CN seed) have none."""
        if any(self.plans[f.rel_id].strategy != "embed" for f in self.ctx.rels_of_one[entity.id]):
            return True
        if not any(f.updates_per_sec and not f.immutable for f in entity.fields):
            return False
        return any(
            self.plans[f.rel_id].strategy == "embed" and f.rel.cardinality != "one-to-one"
            for f in self.ctx.rels_of_many[entity.id]
        )

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
        pairs = self._attribute_pairs(entity) if root else {}
        for f in entity.fields:
            name = f.name
            if name in skip:
                continue
            pair = pairs.get(name)
            if pair is not None:
                group, key = pair
                if group.array not in routes:
                    nodes.append(self._attribute_node(group, f))
                    routes[group.array] = Route(group.array)
                routes[name] = Route(f"{group.array}.v", key=key)
                continue
            node = field_node(f, name)
            if (
                f.counter
                and not f.exact
                and (f.updates_per_sec or 0) >= self.ctx.settings.approximation_updates_per_sec
            ):
                node.write_every = self.ctx.settings.approximation_step  # a hot counter that need not be exact
            nodes.append(node)
            routes[name] = Route(name)
        if root and entity.history and REVISION not in routes:
            nodes.append(self._size(revision_node(entity.name), 4, 4))
            routes[REVISION] = Route(REVISION)
        if root and entity.schema_change and "schema_version" not in routes:
            nodes.append(self._schema_version_node(entity))
            routes["schema_version"] = Route("schema_version")
        if subtypes is not None:
            for variant, fields in subtypes.variants.items():
                for f in fields:
                    nodes.append(field_node(f, f.name, variant=variant))
                    routes.setdefault(f.name, Route(f.name))
        taken = {n.name for n in nodes}
        for facts in self.ctx.rels_of_many[entity.id]:
            plan = self.plans[facts.rel_id]
            if embeds(plan) or (entity.id in self.buckets and plan.strategy == "bucket"):
                if plan.strategy == "bucket":
                    self._copies_flat(plan, nodes, routes)
                continue
            before = dict(routes)
            made = _reuse_declared_refs(self._many_side(plan, routes), nodes)
            nodes.extend(self._tell_apart(plan, made, taken, routes, before))
        for facts in self.ctx.rels_of_one[entity.id]:
            plan = self.plans[facts.rel_id]
            before = dict(routes)
            nodes.extend(
                self._tell_apart(plan, self._one_side(plan, routes, (*stack, entity.id)), taken, routes, before)
            )
        self.routes[entity.id] = routes
        return nodes

    def _tell_apart(
        self, plan: RelPlan, made: list[ShapeNode], taken: set[str], routes: dict[str, Route], before: dict[str, Route]
    ) -> list[ShapeNode]:
        """Rename what a relationship adds under a name the document already has (``user`` -> ``user_2``).

        Two relationships can give one name (an extended reference ``user`` and an
        embedded one-to-one User; both sides of a self many-to-many as ``person_ids``):
        the later one gets the first free ``<name>_<n>`` (before a trailing ``_id``/``_ids``),
        and the routes and copy paths it made follow; a logical name it took over
        goes back to its first owner.
        """
        rel_id = plan.facts.rel_id
        for node in made:
            old = node.name
            if old not in taken:
                taken.add(old)
                continue
            new = distinct_name(old, taken)
            taken.add(new)
            node.name = new
            if node.role == "embedded":
                self.embed_names[rel_id] = new
            for key, route in list(routes.items()):
                if before.get(key) is route:
                    continue
                route.path = _moved(route.path, old, new)
                if route.only is not None:
                    route.only = {k: _moved(v, old, new) for k, v in route.only.items()}
            if old in before and routes.get(old) is not before[old]:
                routes[new] = routes[old]
                routes[old] = before[old]
            for copy_key, copy_path in self.copy_paths.items():
                if copy_key[0] == rel_id:
                    self.copy_paths[copy_key] = _moved(copy_path, old, new)
        return made

    def _schema_version_node(self, entity: Entity) -> ShapeNode:
        """``schema_version: 2`` in documents of the new shape; documents without it are still version 1."""
        node = ShapeNode(
            "schema_version",
            "int",
            enum=[SCHEMA_VERSION_NEW],
            description=f"{SCHEMA_VERSION_NEW} for {entity.name} documents in the new shape; documents without it are "
            "version 1 until migrated (schema versioning)",
        )
        return self._size(node, 4, 4)

    def _attribute_pairs(self, entity: Entity) -> dict[str, tuple[AttributeGroup, str]]:
        """Field name -> (its group, its key) for the groups of similar fields that queries filter or sort on."""
        queried = {name for q in self.ctx.queries_of[entity.id] for name in (*q.filter, *(k for k, _ in q.sort))}
        if not queried:
            return {}
        groups = self.ctx.attribute_groups(entity)
        if not groups:  # most entities: no group, no need for the sets below
            return {}
        taken = {f.name for f in entity.fields}
        # a field with an index or a unique constraint of its own keeps it: as a pair, it would apply to every key
        indexed = {key for index in entity.indexes for key, _ in index.keys} | {
            f.name for f in entity.fields if f.unique
        }
        out: dict[str, tuple[AttributeGroup, str]] = {}
        for group in groups:
            if group.array in taken or not queried.intersection(group.names) or indexed.intersection(group.names):
                continue  # the array's name is a field of its own, no query asks for the group, or a member is indexed
            out.update((name, (group, key)) for name, key in group.members)
        return out

    def _attribute_node(self, group: AttributeGroup, sample: Field) -> ShapeNode:
        """``<array>: [{k, v}]``: the group's fields as key/value pairs (attribute pattern)."""
        keys = [key for _, key in group.members]
        k = self._size(ShapeNode("k", "string", required=True, enum=keys), 24, 24)
        v = self.field_node(sample, "v")
        v.required, v.unique, v.enum, v.description = True, False, None, None
        a, m = self._object_size([k, v])
        item = self._size(ShapeNode("items", "object", children=[k, v]), a, m)
        node = ShapeNode(
            group.array,
            "array",
            items=item,
            max_items=len(keys),
            attribute=True,
            description=f"{', '.join(group.names[:3])}{', ...' if len(keys) > 3 else ''} as key/value pairs "
            "(attribute pattern)",
        )
        n = len(keys)
        return self._size(node, array_bytes(n, a), array_bytes(n, m))

    def _ref_node(self, plan: RelPlan, name: str, array: bool) -> ShapeNode:
        one = plan.facts.one
        t = self.ref_type(one)
        ref_coll = self.collection_of(one.id)
        if not array:
            node = ShapeNode(
                name,
                t,
                role="parent-ref",
                required=not plan.facts.rel.optional,
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
        n, most, node.max_items = _ones_of_one_n(plan.facts)
        return self._size(node, array_bytes(n, 12), array_bytes(most, 12))

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
        many_to_many = rel.cardinality == "many-to-many"
        if plan.strategy == "extended-ref":
            ext = extended_ref_field(rel, one)
            # the One's id is kept once, inside the sub-document, as the Extended Reference Pattern article's
            # documents do ({_id, user: {_id, name, phone}}): a query on <role>_id reads <role>._id
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
            out.append(self._extended_node(plan, ext, children, many_to_many))
            routes[ext] = Route(ext, only=only, rel=plan.facts.rel_id)
            return out
        out.append(self._ref_node(plan, ref_name, many_to_many))
        routes[ref_name] = Route(ref_name)
        former = former_parent_ref_field(rel, one)
        if former is not None:  # a query written with the array's former name reads the array
            routes.setdefault(former, Route(ref_name))
        if facts.self_ref:
            out.extend(self._tree_nodes(plan, routes))
        self._copies_flat(plan, out, routes)
        role = extended_ref_field(rel, one)
        routes.setdefault(
            role, Route(role, only={"_id": ref_name, **self._only_copies(plan, "flat")}, rel=plan.facts.rel_id)
        )
        return out

    def _extended_node(self, plan: RelPlan, name: str, children: list[ShapeNode], many_to_many: bool) -> ShapeNode:
        """The extended reference ``{_id, copies}`` to the One; an array of them when one N belongs to several
        Ones (a many-to-many: a User in several Rooms holds one ``{_id, title}`` per Room, as its reference
        array holds one id per Room)."""
        one = plan.facts.one
        ref_coll = self.collection_of(one.id)
        a, m = self._object_size(children)
        if not many_to_many:
            node = ShapeNode(
                name,
                "object",
                role="extended-ref",
                required=not plan.facts.rel.optional,
                nullable=plan.facts.self_ref,  # the root of a tree has no parent to copy
                entity=one.id,
                relationship=plan.facts.rel_id,
                ref_collection=ref_coll,
                children=children,
            )
            return self._size(node, a, m)
        item = self._size(
            ShapeNode(
                "items", "object", role="extended-ref", entity=one.id, children=children, ref_collection=ref_coll
            ),
            a,
            m,
        )
        node = ShapeNode(
            name,
            "array",
            role="extended-ref",
            required=True,
            entity=one.id,
            relationship=plan.facts.rel_id,
            ref_collection=ref_coll,
            items=item,
        )
        n, most, node.max_items = _ones_of_one_n(plan.facts)
        return self._size(node, array_bytes(n, a), array_bytes(most, m))

    def _tree_nodes(self, plan: RelPlan, routes: dict[str, Route]) -> list[ShapeNode]:
        """The fields of the tree model the rules chose (``numbers["tree_model"]``) besides the parent reference."""
        model = tree_model_of(plan)
        if model is None:
            return []
        one = plan.facts.one
        ref_coll = self.collection_of(one.id)
        out: list[ShapeNode] = []
        for name, kind in model.fields:
            if name in routes:
                continue  # the parent reference, already there
            if name == "ancestors":
                t = self.ref_type(one)
                item = self._size(
                    ShapeNode("items", t, role="parent-ref", entity=one.id, ref_collection=ref_coll), 12, 12
                )
                node = ShapeNode(
                    name,
                    "array",
                    role="parent-ref",
                    entity=one.id,
                    ref_collection=ref_coll,
                    items=item,
                    description=f"ids of every {one.name} above this one, root first (tree: array of ancestors)",
                    tree=name,
                )
                depth = max(1, self.ctx.settings.default_array_items)
                out.append(self._size(node, array_bytes(depth, 12), array_bytes(self.ctx.settings.max_nesting, 12)))
            elif name == "path":
                node = ShapeNode(
                    name,
                    "string",
                    description=f"ids of the {one.name} above this one as ',root,...,parent,' (tree: materialized path)",
                    tree=name,
                )
                b = self.ctx.settings.default_string_bytes * 4 + 5
                out.append(self._size(node, b, b))
            else:
                node = ShapeNode(
                    name,
                    BSON[kind],
                    description=f"nested-set bound of this {one.name}'s subtree (tree: nested sets)",
                    tree=name,
                )
                out.append(self._size(node, 4, 4))
            routes[name] = Route(name)
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

    def _subset_id(self, many: Entity) -> ShapeNode:
        """The ``_id`` of the N a subset element copies (its source, as the element's other copies name theirs)."""
        node = self.id_node(many)
        # required: the sync finds an edited or deleted source's copy by it (the push copies it into every element)
        node.source, node.required = Source(many.id, "_id"), True
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
            # copies kept in sync find their element by the source's _id when it changes or goes (SD11/SD12's
            # edited elements keep theirs); copies that never change (a log line) need none
            children = [self._subset_id(many)] if any(subset_synced(cp) for cp in copies) else []
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
        elif plan.strategy == "parent-ref" and outlier_bound_of(plan) is not None:
            out.extend(self._outlier_nodes(plan, routes, stack))
        out.extend(self._computed(plan, routes))
        return out

    def _outlier_nodes(self, plan: RelPlan, routes: dict[str, Route], stack: tuple[str, ...]) -> list[ShapeNode]:
        """The outlier pattern: up to ``bound`` N embedded in the One, and the flag that says the rest overflowed.

        The N are elements like embedded ones (their own references included), each with an ``_id``: an element
        moves from the array to an overflow document and stays the same item.
        """
        facts = plan.facts
        rel, many = facts.rel, facts.many
        bound = outlier_bound_of(plan) or 1
        name = embed_field(rel, many)
        children = self.entity_nodes(many, stack, root=False) if many.id not in stack else []
        if not children or children[0].name != "_id":
            children.insert(0, self.id_node(many))
        a, m = self._object_size(children)
        item = self._size(ShapeNode("items", "object", role="embedded", entity=many.id, children=children), a, m)
        array = ShapeNode(
            name,
            "array",
            role="embedded",
            entity=many.id,
            relationship=facts.rel_id,
            items=item,
            max_items=bound,
            description=f"the first {bound} {plural(snake(many.name))}; the rest are in "
            f"{self.collection_of(facts.one.id)}_overflow (outlier pattern)",
        )
        flag = ShapeNode(
            HAS_OVERFLOW,
            "bool",
            description=f"true when this document has more than {bound} {plural(snake(many.name))} (outlier pattern)",
        )
        routes.setdefault(name, Route(name, entity=many.id, rel=facts.rel_id))
        routes.setdefault(HAS_OVERFLOW, Route(HAS_OVERFLOW))
        typical = min(facts.n_typ, bound)
        return [
            self._size(array, array_bytes(typical, a), array_bytes(bound, m)),
            self._size(flag, 1, 1),
        ]

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
    paged = plan.numbers.get("bucket_time_field") if plan is not None else None  # a paged read's time field
    time_field = (
        ts.time_field if ts is not None else paged or next((f.name for f in entity.fields if f.type == "date"), "t")
    )
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


def embeds(plan: RelPlan) -> bool:
    """The One holds the N's documents: embedded, or up to a bound with the rest in its overflow (outlier pattern);
    either way the N has no collection of its own through this relationship."""
    return plan.strategy == "embed" or (plan.strategy == "parent-ref" and outlier_bound_of(plan) is not None)


def subset_synced(cp: CopyPlan) -> bool:
    """A subset's copy follows later changes of its source (neither a never-synced snapshot nor a value that never
    changes, like a log line's immutable fields): its element keeps the source's ``_id``."""
    mutable = cp.field is None or not cp.field.immutable
    return mutable and cp.sync != "none" and cp.denorm.staleness != "forever"


def strategy_label(strategy: str, bound: int | None) -> str:
    """What a strategy does in a few words: ``parent-ref``, or under the outlier pattern ``embed up to 48 +
    overflow`` (the strategy stays parent-ref, but the typical N live in the One)."""
    return f"embed up to {bound:,} + overflow" if strategy == "parent-ref" and bound is not None else strategy


def many_to_many_holds(strategy: str, cardinality: str, one: str, many: str) -> str:
    """What the documents hold where the strategy's name says otherwise: a many-to-many's "parent-ref" is an array
    of ids in each N, not one reference (tryout a15 item 8); "" for every other strategy and cardinality."""
    if cardinality != "many-to-many":
        return ""
    if strategy == "parent-ref":
        return f"an array of {one} ids in each {many}"
    if strategy == "two-way":
        return f"an array of ids on each side, {one} ids in each {many} and {many} ids in each {one}"
    return ""


def outlier_bound_of(plan: RelPlan) -> int | None:
    """How many N the One embeds under the outlier pattern (None: the plan does not apply it)."""
    bound = plan.rec.numbers.get("outlier_bound")
    if bound is None or plan.strategy != plan.rec.strategy or plan.chosen_by != "engine":
        return None
    return int(bound)


def max_ones_of(rel: Relationship) -> int | None:
    """The declared most Ones per N: ``max_ones`` of a many-to-many (kept but not read on other cardinalities, so
    a cardinality changed back and forth loses nothing)."""
    return rel.max_ones if rel.cardinality == "many-to-many" else None


def _ones_of_one_n(facts: RelFacts) -> tuple[int, int, int | None]:
    """Typical and most Ones one N belongs to, as its array of their ids counts them, and the array's maxItems:
    a many-to-many's declared ``max_ones``, else no bound and four times the typical number for the sizes."""
    n = ones_per_many(facts)
    bound = max_ones_of(facts.rel)
    if bound is None:
        return n, max(n, 1) * 4, None
    return min(n, bound), bound, bound
