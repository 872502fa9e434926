"""Sample documents that follow the resolved design.

Values come from :mod:`modeller.export.values` (Faker by field name and type, the
model's ``faker`` key first; a string field by its meaning on its entity, see
:mod:`modeller.export.meanings`: the ``name`` of a Product is a product's name).
Documents are built in two passes: first every document's own values (so every ``_id``
exists), then the links between them in dependency order: references (each resolves to a
generated document of the referenced collection), extended references and denormalized
copies (equal to their source values), child-reference arrays (consistent with the
parent references of the same relationship), subsets (the latest K children), computed
values (agree with the children they summarize). Bucket documents get ``count`` equal to
their readings and exact min/max/sum. Polymorphic collections get at least one document
per variant. Everything is drawn from ``random.Random`` instances seeded from ``(seed,
collection)``: the same seed gives the same bytes.

Sizes are capped so samples stay readable and a 1,000-collection export stays
fast, always inside what the design requires:

- an array with a bound (one-to-few embedding, ``maxItems``) gets 1..min(bound,
  :data:`_ARRAY_CAP`) elements, an unbounded one 1..:data:`_ARRAY_CAP`: always
  a size in the issue's 1..max; the validator's ``minItems`` wins over the cap;
- a subset holds the latest children of its One, up to the subset size (not
  capped: it is the relationship's own bound);
- a bucket document holds 1..min(bucket size, :data:`_BUCKET_CAP`,
  ``maxItems``) readings (at least ``minItems``), and its count field equals
  the number of readings it holds; min/max/sum are computed from them.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType
from typing import Any

from bson import Decimal128, Int64, ObjectId, json_util
from bson.decimal128 import create_decimal128_context

from modeller.export.jsontext import canonical_ejson
from modeller.export.literals import quoted
from modeller.export.meanings import entity_kind, subtype_value
from modeller.export.validators import collection_schema
from modeller.export.values import DATE_START, ValueFactory, normalize, truncate_ms
from modeller.model.project import Project
from modeller.rules.physical.companions import HAS_OVERFLOW, outlier_arrays
from modeller.rules.physical.design import CollectionDesign, Design, IndexDesign, ShapeNode
from modeller.runtime.gc_pause import collector_paused

#: Nodes whose value needs other documents; filled in the second pass, in this order.
_LINK_RANK = {"parent-ref": 0, "extended-ref": 1, "child-refs": 2, "denormalized": 3, "subset": 4, "computed": 5}
#: Upper bound of generated array sizes (samples stay readable); validator minItems still wins.
_ARRAY_CAP = 3
#: Upper bound of readings per sample bucket.
_BUCKET_CAP = 6
#: Longest gap between two sample readings: a year, the server's longest bucket span (bucketMaxSpanSeconds);
#: a file's interval_s of 10^15 s would put the readings past the year 9999 that a date can hold
_MAX_INTERVAL_S = 365 * 24 * 3600.0

_MISSING: Any = object()
_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
#: BSON types :meth:`_Builder._coerce` converts to
_SCALAR_KINDS = frozenset({"string", "int", "long", "double", "decimal", "bool"})
#: the Python type a value of each of those BSON types has in the samples
_PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "int": int,
    "long": Int64,
    "double": float,
    "decimal": Decimal128,
    "bool": bool,
}
#: The schema of a property the validator does not describe (read-only, shared).
_NO_SCHEMA: Mapping[str, Any] = MappingProxyType({})

#: What :meth:`_Builder._fill` does with a node (decided once per shape, see :meth:`_Builder._plan`).
_ID, _STAT, _LINKED, _BUCKET_ITEMS, _DISCRIMINATOR, _OWN_VALUE = range(6)


class SampleError(ValueError):
    """The design cannot be sampled (e.g. a ``faker`` key naming no Faker provider)."""


@dataclass(slots=True)
class _Link:
    """A value to fill in the second pass."""

    rank: int
    coll: CollectionDesign
    index: int
    doc: dict[str, Any]
    container: dict[str, Any]
    node: ShapeNode
    schema: Mapping[str, Any]
    #: the shape nodes describing ``container`` (to find the reference a copy belongs to)
    siblings: list[ShapeNode]


def sample_documents(design: Design, project: Project, n: int = 5, seed: int = 0) -> dict[str, list[dict[str, Any]]]:
    """``n`` documents per collection (at least one per variant), keyed by collection name, in design order.

    Fewer when a unique index allows no more distinct values (see :func:`samples_and_notices`).
    """
    return samples_and_notices(design, project, n, seed)[0]


def samples_and_notices(
    design: Design, project: Project, n: int = 5, seed: int = 0
) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """:func:`sample_documents`, and a line per collection that got fewer: the unique indexes that allow no more."""
    if n < 0:
        raise SampleError(f"the number of samples must be 0 or more, not {n}")
    # Thousands of small dicts and no reference cycles: the cyclic GC only costs time here (about 25 %).
    with collector_paused():
        builder = _Builder(design, project, n, seed)
        docs = builder.build()
    notices = [
        f"{len(docs[name])} sample document(s) for {quoted(name)} instead of {n}: the unique index(es) "
        f"{', '.join(map(quoted, indexes))} allow no more distinct values"
        for name, indexes in builder.limited.items()
    ]
    return docs, notices


_ROWS: dict[int, tuple[Sequence[Mapping[str, Any]], list[str]]] = {}
_ROWS_LIMIT = 4096


def canonical_rows(docs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each document as one line of canonical Extended JSON.

    The setup script and the sample files show the same text; an export of
    1,000 collections serializes each list once (memoized by list identity).
    """
    hit = _ROWS.get(id(docs))
    if hit is not None and hit[0] is docs:
        return hit[1]
    rows = [canonical_ejson(doc) for doc in docs]
    if len(_ROWS) >= _ROWS_LIMIT:
        _ROWS.clear()
    _ROWS[id(docs)] = (docs, rows)
    return rows


def samples_json(docs: Iterable[Mapping[str, Any]]) -> str:
    """``samples/<collection>.json``: a JSON array of canonical Extended JSON, one document per line.

    One line per document keeps the files diff-friendly and ``mongoimport --jsonArray`` reads them as is.
    """
    items = docs if isinstance(docs, list) else list(docs)
    rows = canonical_rows(items)
    if not rows:
        return "[]\n"
    return "[\n  " + ",\n  ".join(rows) + "\n]\n"


def get_path(doc: Any, path: str) -> Any:
    """The value at a dotted path (first element of an array on the way), or ``_MISSING``."""
    value = doc
    for part in path.split("."):
        if isinstance(value, list):
            value = value[0] if value else _MISSING
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def index_entries(doc: Mapping[str, Any], paths: Sequence[str], caseless: bool = False) -> set[str]:
    """The entries ``doc`` makes in an index over ``paths``: one per element of an array on the way.

    A missing value is indexed as null, as the server does (two documents
    without the field clash in a unique index); ``caseless`` compares strings
    as a collation of strength 1 or 2 does (ignoring case).
    """
    per_key = [sorted({_entry_text(v, caseless) for v in _indexed_values(doc, path)}) for path in paths]
    return {"|".join(combination) for combination in itertools.product(*per_key)}


def _caseless(index: IndexDesign) -> bool:
    collation = index.collation or {}
    return isinstance(collation, dict) and collation.get("strength") in (1, 2)


def _indexed_values(doc: Any, path: str) -> list[Any]:
    current = [doc]
    for part in path.split("."):
        found: list[Any] = []
        for value in current:
            if isinstance(value, list):
                found.extend(v.get(part) if isinstance(v, dict) else None for v in value)
            elif isinstance(value, dict):
                found.append(value.get(part))
            else:
                found.append(None)
        current = found
    flat: list[Any] = []
    for value in current:
        flat.extend(value if isinstance(value, list) and value else [value])
    return flat


def _entry_text(value: Any, caseless: bool) -> str:
    if caseless and isinstance(value, str):
        value = value.casefold()
    return json_util.dumps(value, json_options=json_util.CANONICAL_JSON_OPTIONS, sort_keys=True)


def _container(doc: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The sub-document holding the last key of ``path`` (None when an array or a gap is on the way)."""
    container: Any = doc
    for part in path.split(".")[:-1]:
        container = container.get(part) if isinstance(container, dict) else None
    return container if isinstance(container, dict) else None


def property_schema(schema: Mapping[str, Any] | None, name: str, variant: str | None = None) -> Mapping[str, Any]:
    """The subschema of property ``name`` (looking into ``oneOf``/``anyOf``/``allOf`` branches).

    The validator's own dict, not a copy: samples only read schemas, and a
    stable object lets the builder cache its plan per schema.
    """
    if not schema:
        return _NO_SCHEMA
    props = schema.get("properties")
    if isinstance(props, dict) and isinstance(props.get(name), dict):
        return props[name]
    branches = [b for key in ("oneOf", "anyOf", "allOf") for b in schema.get(key, []) if isinstance(b, dict)]
    if variant is not None:
        matching = [b for b in branches if _branch_mentions(b, variant)]
        branches = matching + [b for b in branches if b not in matching]
    for branch in branches:
        found = property_schema(branch, name, variant)
        if found:
            return found
    return _NO_SCHEMA


def _branch_mentions(branch: Mapping[str, Any], variant: str) -> bool:
    props = branch.get("properties")
    if not isinstance(props, dict):
        return False
    return any(isinstance(p, dict) and variant in (p.get("enum") or []) for p in props.values())


def _ref_value(node: ShapeNode | None, value: Any) -> Any:
    """A referenced ``_id`` as the reference field holds it: a user's string ``tenant_id`` that refers to a
    Tenant holds the id's text (its validator asks for a string)."""
    if node is not None and node.bson_type == "string" and isinstance(value, ObjectId):
        return str(value)
    return value


def _drawn(
    pool: list[dict[str, Any]],
    free: Callable[[dict[str, Any]], bool],
    wanted: int,
    schema: Mapping[str, Any],
    rng: random.Random,
) -> list[dict[str, Any]]:
    """``wanted`` documents of ``pool`` drawn among the ``free`` ones (not listed by another One, or a One with room
    left), then topped up in order from the others while the validator's ``minItems`` needs more."""
    candidates = [doc for doc in pool if free(doc)]
    chosen = rng.sample(candidates, min(len(candidates), wanted))
    needed = min(int(schema.get("minItems", 0)), len(pool))
    if len(chosen) < needed:
        taken = {id(doc) for doc in chosen}
        chosen += [doc for doc in pool if id(doc) not in taken][: needed - len(chosen)]
    return chosen


def _items_schema(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    items = schema.get("items")
    return items if isinstance(items, dict) else _NO_SCHEMA


def _number(value: Any) -> float | None:
    """A numeric sample value as a float (None for anything else)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Decimal128):
        return float(value.to_decimal())
    if isinstance(value, (int, float)):
        return float(value)
    return None


def _sort_key(value: Any) -> tuple[int, Any]:
    """Order mixed sample values: missing last, then numbers, dates, strings, the rest by text."""
    number = _number(value)
    if number is not None:
        return (0, number)
    if isinstance(value, dt.datetime):
        return (1, value.timestamp())
    if isinstance(value, str):
        return (2, value)
    if value is _MISSING or value is None:
        return (9, "")
    return (3, str(value))


#: a subtype's own number keeps within this share of its example (30 %: 6.1 -> 4.27..7.93)
_NEAR_EXAMPLE = 0.3


def _variant_at(coll: CollectionDesign, index: int) -> str | None:
    """The subtype of a collection's ``index``-th sample document (the variants take turns)."""
    return coll.variants[index % len(coll.variants)] if coll.variants else None


class _Builder:
    def __init__(self, design: Design, project: Project, n: int, seed: int) -> None:
        self.design = design
        self.project = project
        self.n = n
        self.seed = seed
        self.values = ValueFactory(seed)
        self.docs: dict[str, list[dict[str, Any]]] = {}
        self.by_id: dict[str, dict[Any, dict[str, Any]]] = {}
        self.by_entity = {c.entities[0]: c for c in design.collections if c.entities}
        #: the main collections, then their companions (revisions, archive, overflow) which reference them
        self.all = design.stored()
        self.by_name = {c.name: c for c in self.all}
        self.schemas = {c.name: collection_schema(c) for c in self.all}
        self.links: list[_Link] = []
        #: the documents a unique index left out, by id (held here, so no later document can reuse an id)
        self.left_out: dict[int, dict[str, Any]] = {}
        #: (relationship, collection, id key) -> ids its child-reference array may still take (_count_free_slots)
        self.free_slots: dict[tuple[str, str, Any], int] = {}
        #: relationship id -> its cardinality; (relationship, collection) -> keys of the N a One already lists
        self.cardinality = {r.id: r.cardinality for r in project.relationships}
        self.listed: dict[tuple[str, str], set[Any]] = {}
        self._plans: dict[tuple[int, int, str | None, str, bool], tuple[Any, Any, Any]] = {}
        self.unique_seen: dict[tuple[str, str], set[str]] = {}
        #: id(bucket document) -> the times its readings span (the document is alive while building)
        self.bucket_times: dict[int, list[dt.datetime]] = {}
        #: collection -> the unique indexes that left documents out (no more distinct values)
        self.limited: dict[str, list[str]] = {}
        #: collection -> paths with a one-key unique index (declared on the entity or for a unique field)
        self.unique_paths = {
            c.name: {ix.keys[0][0] for ix in c.indexes if ix.unique and len(ix.keys) == 1} for c in self.all
        }
        self.intervals = {
            e.id: e.timeseries.interval_s for e in project.entities if e.timeseries and e.timeseries.interval_s
        }
        # relationship id -> [(collection holding the parent reference, field)]: the back links.
        self.back_links: dict[str, list[tuple[str, str]]] = {}
        for coll in design.collections:
            for node in coll.shape:
                if node.role == "parent-ref" and node.relationship:
                    self.back_links.setdefault(node.relationship, []).append((coll.name, node.name))
        #: entity id -> its name; the kind of thing a name means ("person", "product" ...; see
        #: modeller.export.meanings) is worked out when a value first needs it (_entity_kind): the preview samples
        #: one collection of a 10,000-entity project, and reading every name cost it 0.4 s per selection (issue 16)
        self.entity_names = {e.id: e.name for e in project.entities}
        self._entity_kinds: dict[str, str | None] = {}
        #: id(shape node) -> the entity whose value it holds (values are chosen by field meaning on that entity)
        self.owners: dict[int, str | None] = {}
        #: ids of the nodes a subtype declares (and their children): their numbers keep near the subtype's example
        self.variant_nodes: set[int] = set()
        for coll in self.all:
            self._own(coll.shape, coll.entities[0] if coll.entities else None)
            self._mark_variant_nodes(coll.shape, inside=False)

    def _own(self, nodes: list[ShapeNode], entity: str | None) -> None:
        """Record the entity each node belongs to: a subtype's entity, else the one of the enclosing object."""
        for node in nodes:
            own = node.variant if node.variant in self.entity_names else entity
            self.owners.setdefault(id(node), own)
            inner = node.entity if node.entity in self.entity_names else own
            self._own(node.children, inner)
            if node.items is not None:
                self._own([node.items], inner)

    def _mark_variant_nodes(self, nodes: list[ShapeNode], inside: bool) -> None:
        for node in nodes:
            own = inside or node.variant is not None
            if own:
                self.variant_nodes.add(id(node))
            self._mark_variant_nodes(node.children, own)
            if node.items is not None:
                self._mark_variant_nodes([node.items], own)

    def _bounds(self, node: ShapeNode, schema: Mapping[str, Any]) -> tuple[Any, Any]:
        """The validator's bounds for a number, narrowed for a subtype's own field to a band around its example:
        a phone's screen stays near the phone's 6.1, a laptop's near 14.2 (the validator still wins)."""
        low, high = schema.get("minimum"), schema.get("maximum")
        example = _number(node.example)
        if example is None or id(node) not in self.variant_nodes:
            return low, high
        near_low, near_high = sorted((example * (1 - _NEAR_EXAMPLE), example * (1 + _NEAR_EXAMPLE)))
        lo = near_low if low is None else max(low, near_low)
        hi = near_high if high is None else min(high, near_high)
        return (lo, hi) if lo <= hi else (low, high)

    def _kind(self, node: ShapeNode) -> str | None:
        """The kind of thing the node's value describes: a copy's source entity, else the entity it belongs to."""
        entity = node.source.entity if node.source is not None else self.owners.get(id(node))
        return self._entity_kind(entity) if entity is not None else None

    def _entity_kind(self, entity: str) -> str | None:
        """The kind of thing ``entity``'s name (else its id) means; None for an id the project does not hold."""
        if entity not in self._entity_kinds:
            name = self.entity_names.get(entity)
            kind = entity_kind(normalize(name)) or entity_kind(normalize(entity)) if name is not None else None
            self._entity_kinds[entity] = kind
        return self._entity_kinds[entity]

    # -- pass 1: each document's own values ----------------------------------------------------------

    def build(self) -> dict[str, list[dict[str, Any]]]:
        for coll in self.all:
            rng = random.Random(f"{self.seed}/{coll.name}")
            count = max(self.n, len(coll.variants)) if coll.variants and self.n else self.n
            docs: list[dict[str, Any]] = []
            id_node = next((node for node in coll.shape if node.role == "id" or node.name == "_id"), None)
            for index in range(count):
                variant = _variant_at(coll, index)
                doc: dict[str, Any] = {}
                if id_node is None:
                    doc["_id"] = self.values.object_id(rng)
                self._fill(coll, index, doc, doc, coll.shape, self.schemas[coll.name], rng, variant, "", root=True)
                if coll.bucket is not None:
                    self._bucket_stats(coll, doc)
                docs.append(doc)
            docs = self._honour_unique_indexes(coll, docs, rng)
            self.docs[coll.name] = docs
            self.by_id[coll.name] = {self._key(doc.get("_id")): doc for doc in docs}
        if self.left_out:  # the links of left-out documents go in one pass, not one per collection
            self.links = [link for link in self.links if id(link.doc) not in self.left_out]
        self._resolve_links()
        for coll in self.design.collections:
            self._tree_fields(coll)
        for coll in self.design.companions:
            self._overflow_flags(coll)
        return self.docs

    def _overflow_flags(self, coll: CollectionDesign) -> None:
        """``has_overflow`` is true exactly on the documents an overflow sample points to (outlier pattern)."""
        parent = next((n for n in coll.shape if n.role == "parent-ref"), None)
        if parent is None or not outlier_arrays(coll.shape) or coll.companion_of not in self.docs:
            return
        pointed = {self._key(doc.get(parent.name)) for doc in self.docs[coll.name]}
        for doc in self.docs[coll.companion_of]:
            doc[HAS_OVERFLOW] = self._key(doc.get("_id")) in pointed

    def _tree_fields(self, coll: CollectionDesign) -> None:
        """Ancestors, materialized path and nested-set bounds follow the sample parent chain (they are derived)."""
        derived = [node for node in coll.shape if node.tree is not None]
        parent = next(
            (
                n
                for n in coll.shape
                if n.role == "parent-ref" and n.bson_type != "array" and n.ref_collection == coll.name
            ),
            None,
        )
        if not derived or parent is None:
            return
        docs = self.docs[coll.name]
        by_id = self.by_id[coll.name]
        chains: list[list[Any]] = []
        for doc in docs:
            chain: list[Any] = []
            seen = {self._key(doc.get("_id"))}
            up = doc.get(parent.name)
            while up is not None and self._key(up) not in seen and len(chain) < len(docs):
                chain.insert(0, up)
                seen.add(self._key(up))
                above = by_id.get(self._key(up))
                up = None if above is None else above.get(parent.name)
            chains.append(chain)
        children: dict[Any, list[int]] = {}
        for i, doc in enumerate(docs):
            children.setdefault(self._key(doc.get(parent.name)), []).append(i)
        bounds: dict[int, tuple[int, int]] = {}
        counter = 1
        stack: list[tuple[int, bool]] = [(i, False) for i in reversed(children.get(self._key(None), []))]
        left: dict[int, int] = {}
        while stack:
            i, done = stack.pop()
            if done:
                bounds[i] = (left[i], counter)
                counter += 1
                continue
            left[i] = counter
            counter += 1
            stack.append((i, True))
            stack.extend((j, False) for j in reversed(children.get(self._key(docs[i].get("_id")), [])))
        for i, doc in enumerate(docs):
            for node in derived:
                if node.tree == "ancestors":
                    doc[node.name] = list(chains[i])
                elif node.tree == "path":
                    doc[node.name] = "," + "".join(f"{value}," for value in chains[i])
                elif node.tree in ("left", "right"):
                    low, high = bounds.get(i, (2 * len(docs) + 2 * i + 1, 2 * len(docs) + 2 * i + 2))
                    doc[node.name] = low if node.tree == "left" else high

    def _fill(
        self,
        coll: CollectionDesign,
        index: int,
        doc: dict[str, Any],
        container: dict[str, Any],
        nodes: list[ShapeNode],
        schema: Mapping[str, Any],
        rng: random.Random,
        variant: str | None,
        path: str,
        root: bool = False,
    ) -> None:
        for node, sub, where, action, rank in self._plan(nodes, schema, variant, path, root):
            if action == _OWN_VALUE:
                container[node.name] = self._value(coll, index, doc, node, sub, rng, variant, where)
            elif action == _LINKED:
                container[node.name] = None  # keeps the shape's key order; filled in pass 2
                self.links.append(_Link(rank, coll, index, doc, container, node, sub, nodes))
            elif action == _ID and node.bson_type == "object":  # a compound _id: its own fields, as any object
                container[node.name] = self._value(coll, index, doc, node, sub, rng, variant, where)
            elif action == _ID:
                container[node.name] = self._id_value(coll, node, rng, index)
            elif action == _STAT:
                container[node.name] = None  # filled by _bucket_stats once the readings exist
            elif action == _BUCKET_ITEMS:
                container[node.name] = self._bucket_items(coll, index, doc, node, sub, rng, variant, where)
            else:
                choices = node.enum or sub.get("enum") or coll.variants or ["default"]
                container[node.name] = variant if variant is not None and variant in choices else rng.choice(choices)

    def _plan(
        self, nodes: list[ShapeNode], schema: Mapping[str, Any], variant: str | None, path: str, root: bool
    ) -> list[tuple[ShapeNode, Mapping[str, Any], str, int, int]]:
        """Per node of ``nodes``: its subschema, dotted path, what to do with it and its link rank.

        Every document of a collection walks the same shape with the same
        schema; deciding once per (shape, schema, variant, path) saves most of
        the sample time on large designs. The entry keeps ``nodes`` and
        ``schema`` alive, so their ids cannot be reused while cached.
        """
        key = (id(nodes), id(schema), variant, path, root)
        hit = self._plans.get(key)
        if hit is not None and hit[0] is nodes and hit[1] is schema:
            return hit[2]
        steps: list[tuple[ShapeNode, Mapping[str, Any], str, int, int]] = []
        # two nodes of one name (the engine let two fields claim it): the validator describes the last one
        last = {(node.name, node.variant): node for node in nodes}
        for node in nodes:
            if node.variant is not None and variant is not None and node.variant != variant:
                continue
            if last[(node.name, node.variant)] is not node:
                continue
            sub = property_schema(schema, node.name, variant)
            where = f"{path}.{node.name}" if path else node.name
            rank = 0
            if root and (node.role == "id" or node.name == "_id"):
                action = _ID
            elif node.role == "bucket-stat":
                action = _STAT
            elif node.role == "computed" and node.computation is None and node.bson_type == "object":
                action = _OWN_VALUE  # a group of computed values (count, sum, avg): each child is computed
            elif node.role in _LINK_RANK or node.source is not None or node.computation is not None:
                action = _LINKED
                rank = _LINK_RANK.get(node.role, 5 if node.computation is not None else 3)
            elif node.role == "bucket-items":
                action = _BUCKET_ITEMS
            elif node.role == "discriminator":
                action = _DISCRIMINATOR
            else:
                action = _OWN_VALUE
            steps.append((node, sub, where, action, rank))
        self._plans[key] = (nodes, schema, steps)
        return steps

    def _id_value(self, coll: CollectionDesign, node: ShapeNode, rng: random.Random, index: int) -> Any:
        if node.bson_type == "string":
            return f"{coll.name}-{index + 1}"
        if node.bson_type in ("int", "long"):
            value = index + 1
            return Int64(value) if node.bson_type == "long" else value
        if node.bson_type == "double":
            return float(index + 1)
        if node.bson_type == "decimal":
            return Decimal128(str(index + 1))
        if node.bson_type == "date":  # one a day from the sample window's start: distinct, as an _id must be
            return DATE_START + dt.timedelta(days=index)
        if node.field_type == "uuid" or node.bson_type == "binData":
            return self.values.uuid_value(rng)
        return self.values.object_id(rng)

    def _value(
        self,
        coll: CollectionDesign,
        index: int,
        doc: dict[str, Any],
        node: ShapeNode,
        schema: Mapping[str, Any],
        rng: random.Random,
        variant: str | None,
        path: str,
    ) -> Any:
        """A value for a node that needs nothing but itself."""
        enum = node.enum or schema.get("enum")
        if enum:
            return rng.choice(self._enum_choices(node, enum))
        if node.bson_type == "object":
            if node.field_type == "point":
                return self.values.point(rng)
            obj: dict[str, Any] = {}
            self._fill(coll, index, doc, obj, node.children, schema, rng, variant, path)
            return obj
        if node.bson_type == "array":
            return self._array(coll, index, doc, node, schema, rng, variant, path)
        if node.unique or path in self.unique_paths[coll.name]:
            return self._unique(coll, node, schema, rng, path, index, variant)
        return self._scalar(node, schema, rng, index, fresh=False, variant=variant)

    # -- unique indexes over several keys ------------------------------------------------------------

    def _honour_unique_indexes(
        self, coll: CollectionDesign, docs: list[dict[str, Any]], rng: random.Random
    ) -> list[dict[str, Any]]:
        """Documents whose entries in every unique index differ, as the server requires.

        One-key indexes are unique by construction (:meth:`_value`). For a
        compound one, a document that repeats an entry gets its own values of
        the keys drawn again; when the keys cannot take another combination
        (enums, booleans, references filled later), the document is left out:
        fewer samples, never a duplicate-key error on insert.
        """
        indexes = [ix for ix in coll.indexes if ix.unique]  # a partial one is held over all documents: safe
        if not indexes or len(docs) < 2:
            return docs
        slots = [[self._slot(coll, path) for path, _ in ix.keys] for ix in indexes]
        seen: list[set[str]] = [set() for _ in indexes]
        kept: list[dict[str, Any]] = []
        for index, doc in enumerate(docs):
            blocking = self._unique_clashes(coll, index, doc, indexes, slots, seen, rng)
            if not blocking:
                kept.append(doc)
            else:
                self.left_out[id(doc)] = doc
                limited = self.limited.setdefault(coll.name, [])
                limited.extend(name for name in blocking if name not in limited)
        return kept

    def _unique_clashes(
        self,
        coll: CollectionDesign,
        index: int,
        doc: dict[str, Any],
        indexes: list[IndexDesign],
        slots: list[list[tuple[ShapeNode, Mapping[str, Any]] | None]],
        seen: list[set[str]],
        rng: random.Random,
    ) -> list[str]:
        """Give ``doc`` unused entries in every index (drawing its key values again) and record them.

        Returns the names of the indexes it could not fit (empty when it fits).
        """
        clashes: list[int] = []
        for _attempt in range(24):
            entries = [index_entries(doc, [path for path, _ in ix.keys], _caseless(ix)) for ix in indexes]
            clashes = [i for i, found in enumerate(entries) if found & seen[i]]
            if not clashes:
                for i, found in enumerate(entries):
                    seen[i] |= found
                return []
            redraw = [
                (path, slot)
                for i in clashes
                for (path, _), slot in zip(indexes[i].keys, slots[i], strict=True)
                if slot is not None and _container(doc, path) is not None
            ]
            if not redraw:
                break
            path, (node, sub) = rng.choice(redraw)
            container = _container(doc, path)
            assert container is not None
            if node.enum or sub.get("enum"):
                container[node.name] = rng.choice(self._enum_choices(node, node.enum or sub["enum"]))
            else:
                container[node.name] = self._scalar(node, sub, rng, index, fresh=True, variant=_variant_at(coll, index))
        return [indexes[i].name for i in clashes]

    def _slot(self, coll: CollectionDesign, path: str) -> tuple[ShapeNode, Mapping[str, Any]] | None:
        """The node and schema of a key whose value the document draws itself (through sub-documents only)."""
        nodes = coll.shape
        schema: Mapping[str, Any] = self.schemas[coll.name]
        node: ShapeNode | None = None
        for part in path.split("."):
            node = next((n for n in nodes if n.name == part and n.variant is None), None)
            if node is None:
                return None
            schema = property_schema(schema, part)
            nodes = node.children if node.bson_type == "object" else []
        if node is None or node.bson_type in ("object", "array") or node.role != "field":
            return None
        if node.source is not None or node.computation is not None:
            return None
        return node, schema

    def _array(
        self,
        coll: CollectionDesign,
        index: int,
        doc: dict[str, Any],
        node: ShapeNode,
        schema: Mapping[str, Any],
        rng: random.Random,
        variant: str | None,
        path: str,
    ) -> list[Any]:
        low, high = self._array_bounds(node, schema)
        size = rng.randint(low, high)
        items = node.items
        item_schema = _items_schema(schema)
        if items is None:
            return [self.values.pooled("word", rng) for _ in range(size)]
        out: list[Any] = []
        for _ in range(size):
            if items.bson_type == "object" and items.field_type != "point":
                element: dict[str, Any] = {}
                self._fill(coll, index, doc, element, items.children, item_schema, rng, variant, path)
                out.append(element)
            else:
                out.append(self._value(coll, index, doc, items, item_schema, rng, variant, path))
        return out

    def _array_bounds(self, node: ShapeNode, schema: Mapping[str, Any]) -> tuple[int, int]:
        """Sample array size: 1..bound (capped for readability), never outside the validator's limits."""
        min_items = int(schema.get("minItems", 0))
        max_items = schema.get("maxItems", node.max_items)
        high = min(int(max_items), _ARRAY_CAP) if max_items is not None else 3
        low = max(min_items, 1 if high >= 1 else 0)
        high = max(high, low)
        if max_items is not None:
            high = min(high, int(max_items))
            low = min(low, high)
        return low, high

    def _scalar(
        self,
        node: ShapeNode,
        schema: Mapping[str, Any],
        rng: random.Random,
        index: int,
        fresh: bool,
        variant: str | None = None,
    ) -> Any:
        """A value of the node's type; a string by the field's meaning on its entity and, for a product's
        name, on the document's subtype ``variant`` (a laptop is not named like a desk lamp)."""
        if node.faker:
            value = self._from_faker(node, node.faker, rng, fresh)
            if value is not _MISSING:
                return value
        if node.example is not None and index == 0:
            value = self._coerce(node, node.example)
            if value is not _MISSING:
                return value
        kind = node.bson_type
        if kind == "string":
            provider = self.values.string_provider(node.name, self._kind(node))
            # a variant naming an entity (one collection holding several) already chose the kind
            if variant is not None and variant not in self.entity_names:
                named = subtype_value(provider, variant, rng)
                if named is not None:
                    return self._fit_string(named, schema)
            if provider == "word" and node.example is not None and not fresh:
                # a name the meaning tables do not know ("cpu", "camera"): the user's example reads truer than a
                # random word; unique values (fresh) still draw words
                example = self._coerce(node, node.example)
                if example is not _MISSING:
                    return self._fit_string(example, schema)
            text = self.values.fresh(provider, rng) if fresh else self.values.pooled(provider, rng)
            return self._fit_string(str(text), schema)
        if kind in ("int", "long"):
            value = self.values.int_value(node.name, rng, *self._bounds(node, schema))
            return Int64(value) if kind == "long" else value
        if kind == "double":
            return self.values.float_value(node.name, rng, *self._bounds(node, schema))
        if kind == "decimal":
            number = self.values.float_value(node.name, rng, *self._bounds(node, schema))
            return self.values.decimal_value(number)
        if kind == "bool":
            return rng.random() < 0.5
        if kind == "date":
            return self.values.date_value(node.name, rng)
        if kind == "objectId":
            return self.values.object_id(rng)
        if kind == "binData":
            return self.values.uuid_value(rng) if node.field_type == "uuid" else self.values.bin_value(rng)
        return None

    def _enum_choices(self, node: ShapeNode, enum: Sequence[Any]) -> list[Any]:
        """The enum values the node's BSON type can hold (as that type: ``2.0`` on an int field is ``2``).

        The validator checks both ``bsonType`` and ``enum``; a value of another
        type passes neither. When no value fits, the enum is used as is.
        """
        if node.bson_type not in _SCALAR_KINDS:
            return list(enum)
        fitting = []
        for value in enum:
            typed = self._coerce(node, value)
            if isinstance(value, bool):  # True == 1 in Python, not in BSON
                same = typed is value
            elif isinstance(typed, Decimal128) and isinstance(value, float):
                # the validator holds the double: the server compares a decimal with the double's own value
                # (34 digits), so NumberDecimal("0.1") is not the double 0.1 but that value is
                typed = Decimal128(create_decimal128_context().create_decimal(value))
                same = True
            elif isinstance(typed, Decimal128):
                same = typed.to_decimal() == Decimal(str(value))
            else:
                same = typed == value
            if typed is not _MISSING and same:
                fitting.append(typed)
        return fitting or list(enum)

    def _fit_string(self, text: str, schema: Mapping[str, Any]) -> str:
        max_length = schema.get("maxLength")
        if isinstance(max_length, int) and len(text) > max_length:
            text = text[:max_length]
        min_length = schema.get("minLength")
        if isinstance(min_length, int) and len(text) < min_length:
            text = text + "x" * (min_length - len(text))
        return text

    def _from_faker(self, node: ShapeNode, provider: str, rng: random.Random, fresh: bool) -> Any:
        if self.values.provider(provider) is None:
            raise SampleError(f"field {node.name!r}: 'faker' names {provider!r}, which is not a Faker provider")
        raw = self.values.fresh(provider, rng) if fresh else self.values.pooled(provider, rng)
        return self._coerce(node, raw)

    def _coerce(self, node: ShapeNode, raw: Any) -> Any:
        """``raw`` as the node's BSON type, or ``_MISSING`` when it cannot be (the type wins over the hint)."""
        kind = node.bson_type
        try:
            if kind == "string":
                return raw if isinstance(raw, str) else str(raw)
            if kind in ("int", "long") and not isinstance(raw, bool):
                value = int(raw) if isinstance(raw, (int, float, Decimal)) or str(raw).lstrip("-").isdigit() else None
                low, high = _INT32 if kind == "int" else _INT64
                if value is None or not low <= value <= high:  # a larger number would be stored as another type
                    return _MISSING
                return Int64(value) if kind == "long" else value
            if kind == "double" and isinstance(raw, (int, float, Decimal)) and not isinstance(raw, bool):
                return float(raw)
            if kind == "decimal" and isinstance(raw, (int, float, Decimal)) and not isinstance(raw, bool):
                return Decimal128(Decimal(str(raw)))
            if kind == "bool" and isinstance(raw, bool):
                return raw
            if kind == "date":
                if isinstance(raw, dt.datetime):
                    aware = raw if raw.tzinfo else raw.replace(tzinfo=dt.UTC)
                    return truncate_ms(aware.astimezone(dt.UTC))
                if isinstance(raw, dt.date):
                    return dt.datetime(raw.year, raw.month, raw.day, tzinfo=dt.UTC)
                if isinstance(raw, str):
                    parsed = dt.datetime.fromisoformat(raw.replace("Z", "+00:00"))
                    return self._coerce(node, parsed)
            if kind == "objectId" and isinstance(raw, str) and ObjectId.is_valid(raw):
                return ObjectId(raw)
            if kind == "object" and isinstance(raw, dict):
                return raw
            if kind == "array" and isinstance(raw, list):
                return raw
        except (ValueError, ArithmeticError):
            return _MISSING
        return _MISSING

    def _unique(
        self,
        coll: CollectionDesign,
        node: ShapeNode,
        schema: Mapping[str, Any],
        rng: random.Random,
        path: str,
        index: int,
        variant: str | None = None,
    ) -> Any:
        """A value not used yet by this field in this collection's samples."""
        seen = self.unique_seen.setdefault((coll.name, path), set())
        value: Any = None
        for _attempt in range(20):
            value = self._scalar(node, schema, rng, index, fresh=True, variant=variant)
            if self._key(value) not in seen:
                break
        else:
            if isinstance(value, str):
                value = self._fit_string(f"{value}-{index + 1}", {})
            elif isinstance(value, Int64):
                value = Int64(int(value) + 1000 * (index + 1))
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                value = value + 1000 * (index + 1)
        seen.add(self._key(value))
        return value

    @staticmethod
    def _key(value: Any) -> Any:
        """A hashable, type-aware identity for sample values (``1``, ``1.0``, ``True`` and ``Int64(1)`` differ)."""
        if isinstance(value, (str, int, float, ObjectId, dt.datetime)) or value is None:
            return (type(value).__name__, value)
        if isinstance(value, Decimal128):
            return ("decimal", value.bid)
        if isinstance(value, bytes):
            return (type(value).__name__, getattr(value, "subtype", None), bytes(value))
        return ("json", json_util.dumps(value, json_options=json_util.CANONICAL_JSON_OPTIONS, sort_keys=True))

    # -- buckets ---------------------------------------------------------------------------------------

    def _bucket_items(
        self,
        coll: CollectionDesign,
        index: int,
        doc: dict[str, Any],
        node: ShapeNode,
        schema: Mapping[str, Any],
        rng: random.Random,
        variant: str | None,
        path: str,
    ) -> list[Any]:
        bucket = coll.bucket
        items = node.items
        if bucket is None or items is None:
            return self._array(coll, index, doc, node, schema, rng, variant, path)
        item_schema = _items_schema(schema)
        limit = min(bucket.size, _BUCKET_CAP, int(schema.get("maxItems", bucket.size)))
        low = max(1, int(schema.get("minItems", 1)))
        count = rng.randint(low, max(low, limit))  # a validator minItems above the cap still wins
        interval = self._interval(coll)
        start = self.values.date_value(bucket.time_field, rng).replace(second=0, microsecond=0)
        readings: list[Any] = []
        stamps = [truncate_ms(start + dt.timedelta(seconds=interval * position)) for position in range(count)]
        # readings without a time field (a bucket forced on an entity that is no time series) still span a time
        self.bucket_times[id(doc)] = stamps
        for stamp in stamps:
            element: dict[str, Any] = {}
            self._fill(coll, index, doc, element, items.children, item_schema, rng, variant, path)
            if bucket.time_field in element or any(c.name == bucket.time_field for c in items.children):
                element[bucket.time_field] = stamp
            readings.append(element)
        return readings

    def _interval(self, coll: CollectionDesign) -> float:
        for entity in coll.entities:
            if entity in self.intervals:
                return min(float(self.intervals[entity]), _MAX_INTERVAL_S)
        return 60.0

    def _bucket_stats(self, coll: CollectionDesign, doc: dict[str, Any]) -> None:
        bucket = coll.bucket
        if bucket is None:
            return
        readings = doc.get(bucket.items_field) or []
        numbers = [
            v for v in (_number(r.get(bucket.value_field)) for r in readings if bucket.value_field) if v is not None
        ]
        raw_values = [
            r.get(bucket.value_field) for r in readings if bucket.value_field and r.get(bucket.value_field) is not None
        ]
        times = [r[bucket.time_field] for r in readings if isinstance(r.get(bucket.time_field), dt.datetime)]
        times = times or self.bucket_times.pop(id(doc), [])
        for node in coll.shape:
            if node.role != "bucket-stat":
                continue
            name = normalize(node.name)
            op = node.computation.op if node.computation is not None else None
            value: Any = _MISSING
            if node.name == bucket.start_field:
                value = min(times) if times else _MISSING
            elif node.name == bucket.end_field:
                value = max(times) if times else _MISSING
            elif op == "count" or name in ("count", "n", "size", "num_readings", "nsamples", "readings_count"):
                value = len(readings)
            elif op == "sum" or "sum" in name or "total" in name:
                value = self._typed_total(raw_values, numbers)
            elif op == "min" or name.startswith("min") or name.endswith("min"):
                value = min(raw_values, key=lambda v: _number(v) or 0.0) if raw_values else _MISSING
            elif op == "max" or name.startswith("max") or name.endswith("max"):
                value = max(raw_values, key=lambda v: _number(v) or 0.0) if raw_values else _MISSING
            elif op == "avg" or "avg" in name or "mean" in name:
                value = sum(numbers) / len(numbers) if numbers else _MISSING
            self._store(doc, node, self._cast(node, value))

    @staticmethod
    def _typed_total(raw_values: list[Any], numbers: list[float]) -> Any:
        if raw_values and all(isinstance(v, Decimal128) for v in raw_values):
            return Decimal128(sum((v.to_decimal() for v in raw_values), Decimal(0)))
        if raw_values and all(isinstance(v, int) and not isinstance(v, bool) for v in raw_values):
            return sum(int(v) for v in raw_values)
        return sum(numbers)

    @staticmethod
    def _cast(node: ShapeNode, value: Any) -> Any:
        """A computed number in the node's BSON type."""
        if value is _MISSING or value is None:
            return value
        kind = node.bson_type
        if isinstance(value, dt.datetime) or kind not in ("int", "long", "double", "decimal"):
            return value
        number = _number(value)
        if number is None:
            return value
        if kind == "int":
            return round(number)
        if kind == "long":
            return Int64(round(number))
        if kind == "double":
            return float(value.to_decimal()) if isinstance(value, Decimal128) else float(value)
        return value if isinstance(value, Decimal128) else Decimal128(Decimal(repr(float(number))))

    @staticmethod
    def _store(container: dict[str, Any], node: ShapeNode, value: Any) -> None:
        """Set the value, or drop the key of an optional field that has none."""
        if value is _MISSING or (value is None and not node.required):
            container.pop(node.name, None)
        else:
            container[node.name] = value

    # -- pass 2: links between documents -------------------------------------------------------------

    def _resolve_links(self) -> None:
        """Fill every link, then the links that filling added (a copy of an entity that has no collection)."""
        rngs: dict[str, random.Random] = {}
        self._count_free_slots()
        done = 0
        while done < len(self.links):
            batch = sorted(range(done, len(self.links)), key=lambda i: (self.links[i].rank, i))
            done = len(self.links)
            for position in batch:
                link = self.links[position]
                rng = rngs.get(link.coll.name)
                if rng is None:
                    rng = rngs[link.coll.name] = random.Random(f"{self.seed}/{link.coll.name}/links")
                value = self._link_value(link, rng)
                self._store(link.container, link.node, value)

    def _count_free_slots(self) -> None:
        """How many ids each document's child-reference array may still hold (the cap of its sample array).

        A two-way many-to-many keeps an id array on both sides (users' ``room_ids``, rooms' ``user_ids``):
        the N side's arrays are filled first and the One side lists the N documents that name it, so an N
        document names only Ones that still have room: both sides then name each other, within their caps.
        """
        self.free_slots.clear()
        for link in self.links:
            node = link.node
            if node.role == "child-refs" and node.relationship and link.container is link.doc:
                key = (node.relationship, link.coll.name, self._key(link.doc.get("_id")))
                self.free_slots[key] = self._array_bounds(node, link.schema)[1]

    def _target(self, node: ShapeNode) -> str | None:
        """The collection a reference or copy points into."""
        for candidate in (node, node.items):
            if candidate is None:
                continue
            if candidate.ref_collection and candidate.ref_collection in self.by_name:
                return candidate.ref_collection
            entity = candidate.source.entity if candidate.source is not None else candidate.entity
            if entity and entity in self.by_entity:
                return self.by_entity[entity].name
        return None

    def _link_value(self, link: _Link, rng: random.Random) -> Any:
        node = link.node
        if node.computation is not None and node.role not in ("subset", "child-refs"):
            return self._cast(node, self._computed(link))
        if node.role == "parent-ref":
            return self._parent_ref(link, rng)
        if node.role in ("child-refs", "subset"):
            return self._many(link, rng)
        if node.role == "extended-ref" or (node.bson_type in ("object", "array") and node.source is None):
            return self._copies(link, rng)
        return self._copy(link, rng)

    def _parent_ref(self, link: _Link, rng: random.Random) -> Any:
        node = link.node
        target = self._target(node)
        if target is None:
            return self._scalar(node, link.schema, rng, link.index, fresh=False)
        docs = self.docs[target]
        if target == link.coll.name and node.bson_type != "array":
            if link.container is not link.doc:  # an embedded element: it belongs to the document that holds it
                return link.doc.get("_id", _MISSING)
            # a tree: point to an earlier document; the first one is a root, whose parent the validator allows as null
            if link.index == 0:
                return None
            return docs[rng.randrange(link.index)]["_id"]
        docs = self._docs_of(target, node.entity)
        if not docs:
            return _MISSING
        if node.bson_type == "array":
            low, high = self._array_bounds(node, link.schema)
            wanted = rng.randint(low, high)
            slots, rel = self.free_slots, node.relationship or ""
            keys = [(rel, target, self._key(doc.get("_id"))) for doc in docs]
            if not rel or not any(key in slots for key in keys):
                return [_ref_value(node.items, doc["_id"]) for doc in rng.sample(docs, min(len(docs), wanted))]
            # the other side lists this document back: only Ones with room (an empty array when none has any),
            # unless the validator's minItems needs more
            room = {id(doc) for doc, key in zip(docs, keys, strict=True) if slots.get(key, 1) > 0}
            chosen = _drawn(docs, lambda doc: id(doc) in room, wanted, link.schema, rng)
            for doc in chosen:
                key = (rel, target, self._key(doc.get("_id")))
                if key in slots:
                    slots[key] -= 1
            return [_ref_value(node.items, doc["_id"]) for doc in chosen]
        return _ref_value(node, rng.choice(docs)["_id"])

    def _docs_of(self, target: str, entity: str | None) -> list[dict[str, Any]]:
        """The documents of ``target`` that are ``entity``'s: in a collection entities share, its doc_type only."""
        docs = self.docs.get(target) or []
        coll = self.by_name.get(target)
        if entity is None or coll is None or coll.discriminator != "doc_type" or entity not in coll.variants:
            return docs
        return [doc for doc in docs if doc.get("doc_type") == entity] or docs

    def _source_doc(self, link: _Link, target: str, rng: random.Random) -> dict[str, Any] | None:
        """The document a copy is taken from: the one this document references through the same relationship."""
        node = link.node
        docs = self.docs.get(target) or []
        if not docs:
            return None
        if node.relationship:
            for scope, nodes in ((link.container, link.siblings), (link.doc, link.coll.shape)):
                for sibling in nodes:
                    if sibling is node or sibling.relationship != node.relationship:
                        continue
                    value = scope.get(sibling.name)
                    if sibling.role == "extended-ref" and isinstance(value, dict):
                        value = value.get("_id")
                    elif sibling.role != "parent-ref":
                        continue
                    found = self.by_id[target].get(self._key(value))
                    if found is not None:
                        return found
            owner = self._owner(target, node.relationship, link.doc.get("_id"))
            if owner is not None:
                return owner
        return rng.choice(self._docs_of(target, node.source.entity if node.source is not None else node.entity))

    def _owner(self, target: str, relationship: str, own_id: Any) -> dict[str, Any] | None:
        """The document of ``target`` whose child-reference array (of ``relationship``) holds ``own_id``."""
        coll = self.by_name[target]
        wanted = self._key(own_id)
        for node in coll.shape:
            if node.role != "child-refs" or node.relationship != relationship:
                continue
            id_field = None
            if node.items is not None and node.items.bson_type == "object":
                id_field = next(
                    (
                        c.name
                        for c in node.items.children
                        if c.name == "_id" or (c.source is not None and c.source.path == "_id")
                    ),
                    None,
                )
            for doc in self.docs[target]:
                for element in doc.get(node.name) or []:
                    value = element.get(id_field) if isinstance(element, dict) and id_field else element
                    if self._key(value) == wanted:
                        return doc
        return None

    def _copy(self, link: _Link, rng: random.Random) -> Any:
        node = link.node
        source = node.source
        target = self._target(node)
        if source is None or target is None:
            return self._scalar(node, link.schema, rng, link.index, fresh=False)
        doc = self._source_doc(link, target, rng)
        if doc is None:
            return _MISSING
        value = self._fitting(node, self._from_source(doc, source.path))
        if value is _MISSING:
            # the source lacks it or holds another type (a bucket document keeps its fields in its readings and
            # its series value under the meta field's name): any value the validator takes
            return self._value(link.coll, link.index, link.doc, node, link.schema, rng, None, node.name)
        return value

    def _fitting(self, node: ShapeNode, value: Any) -> Any:
        """A copied ``value`` as the copy's scalar type, or ``_MISSING`` when it cannot be (then it is generated).

        A null copy is generated too unless the copy may be null: the validator wants the copy's type.
        """
        if value is None and not node.nullable:
            return _MISSING
        if value is _MISSING or value is None or node.bson_type not in _SCALAR_KINDS:
            return value
        if type(value) is _PYTHON_TYPES[node.bson_type]:
            return value
        return self._coerce(node, value)

    @staticmethod
    def _from_source(doc: Mapping[str, Any], path: str) -> Any:
        return doc.get("_id", _MISSING) if path == "_id" else get_path(doc, path)

    def _copies(self, link: _Link, rng: random.Random) -> Any:
        """An extended reference: ``{_id, copied fields}`` of the referenced document (or an array of them)."""
        node = link.node
        target = self._target(node)
        if target is None:
            return self._value(link.coll, link.index, link.doc, node, link.schema, rng, None, node.name)
        if node.bson_type == "array":
            docs = self.docs.get(target) or []
            low, high = self._array_bounds(node, link.schema)
            chosen = rng.sample(docs, min(len(docs), rng.randint(low, high)))
            return [self._element(node.items, d, _items_schema(link.schema), rng, link) for d in chosen]
        if node.nullable and target == link.coll.name:  # a tree, as in _parent_ref: the first document is a root
            if link.index == 0:
                return None
            return self._element(node, self.docs[target][rng.randrange(link.index)], link.schema, rng, link)
        doc = self._source_doc(link, target, rng)
        if doc is None:
            return _MISSING
        return self._element(node, doc, link.schema, rng, link)

    def _element(
        self,
        node: ShapeNode | None,
        source_doc: Mapping[str, Any],
        schema: Mapping[str, Any],
        rng: random.Random,
        link: _Link,
    ) -> Any:
        """One copy of ``source_doc`` shaped like ``node`` (an id, or an object of copied fields)."""
        if node is None or node.bson_type != "object":
            return source_doc.get("_id")
        out: dict[str, Any] = {}
        for child in node.children:
            sub = property_schema(schema, child.name)
            if child.source is not None:
                value = self._fitting(child, self._from_source(source_doc, child.source.path))
            elif child.name == "_id" or child.role in ("id", "parent-ref", "child-refs"):
                value = (
                    source_doc.get("_id", _MISSING)
                    if child.name == "_id" or child.role == "id"
                    else get_path(source_doc, child.name)
                )
            else:
                value = get_path(source_doc, child.name)
            if value is _MISSING:
                value = self._value(link.coll, link.index, link.doc, child, sub, rng, None, child.name)
            out[child.name] = value
        return out

    def _children(self, link: _Link, target: str | None) -> list[dict[str, Any]] | None:
        """The N-side documents that reference this document through the link's relationship, or None."""
        rel = link.node.relationship
        if not rel:
            return None
        own_id = self._key(link.doc.get("_id"))
        for coll_name, field in self.back_links.get(rel, []):
            if target is not None and coll_name != target:
                continue
            return [d for d in self.docs.get(coll_name, []) if own_id in self._keys(d.get(field))]
        return None

    def _keys(self, value: Any) -> list[Any]:
        """The keys of the ids a reference holds: one, or each of an array's (a many-to-many's id array)."""
        return [self._key(v) for v in value] if isinstance(value, list) else [self._key(value)]

    def _many(self, link: _Link, rng: random.Random) -> Any:
        """Child references or a subset: the N documents of this One (consistent with their parent refs)."""
        node = link.node
        target = self._target(node)
        low, high = self._array_bounds(node, link.schema)
        max_items = link.schema.get("maxItems", node.max_items)
        children = self._children(link, target)
        if children is None:
            children = self._unlisted(link, target, rng, rng.randint(low, high))
        if node.sort is not None:
            path, direction = node.sort
            children = sorted(children, key=lambda d: _sort_key(get_path(d, path)), reverse=direction < 0)
        if max_items is not None:
            children = children[: int(max_items)]
        item_schema = _items_schema(link.schema)
        return [self._element(node.items, child, item_schema, rng, link) for child in children]

    def _unlisted(self, link: _Link, target: str | None, rng: random.Random, wanted: int) -> list[dict[str, Any]]:
        """N documents for a One that lists its N (no back reference to follow): in a one-to-N each N belongs to one
        One, so a document already listed by another One is not drawn again (a many-to-many draws freely); the
        validator's ``minItems`` may still take listed ones when too few are left."""
        pool = self.docs.get(target, []) if target else []
        rel = link.node.relationship
        if not rel or self.cardinality.get(rel, "many-to-many") == "many-to-many":
            return rng.sample(pool, min(len(pool), wanted))
        listed = self.listed.setdefault((rel, target or ""), set())
        chosen = _drawn(pool, lambda doc: self._key(doc.get("_id")) not in listed, wanted, link.schema, rng)
        listed.update(self._key(doc.get("_id")) for doc in chosen)
        return chosen

    def _computed(self, link: _Link) -> Any:
        """The computed value over the N side: embedded elements of this document, or the N documents."""
        computation = link.node.computation
        assert computation is not None
        items: list[Any] | None = None
        for node in link.coll.shape:
            if node.role == "embedded" and node.relationship == computation.relationship:
                value = link.doc.get(node.name)
                items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
        if items is None:
            rel_link = _Link(
                link.rank,
                link.coll,
                link.index,
                link.doc,
                link.container,
                ShapeNode(name="", bson_type="array", relationship=computation.relationship),
                {},
                [],
            )
            items = self._children(rel_link, None) or []
            # _children reads the first back link; N documents kept as buckets stand for the readings they hold
            held = self.back_links.get(computation.relationship, [])
            bucket = self.by_name[held[0][0]].bucket if held else None
            if bucket is not None:
                items = [reading for doc in items for reading in doc.get(bucket.items_field) or []]
        if computation.op == "count":
            return len(items)
        raw = [get_path(item, computation.field or "") for item in items]
        raw = [v for v in raw if v is not _MISSING and _number(v) is not None]
        numbers = [float(_number(v) or 0.0) for v in raw]
        if computation.op == "sum":
            return self._typed_total(raw, numbers) if raw else 0
        if not numbers:
            return 0 if link.node.required else _MISSING
        if computation.op == "avg":
            return sum(numbers) / len(numbers)
        chosen = (
            min(raw, key=lambda v: _number(v) or 0.0)
            if computation.op == "min"
            else max(raw, key=lambda v: _number(v) or 0.0)
        )
        return chosen
