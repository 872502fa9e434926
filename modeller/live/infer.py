"""Infer a project from sampled documents: entities, typed fields, embedded and referenced relationships.

Pure: it takes what the sources collected (:class:`CollectionSample`), never a
connection. The strategy found in the data (``embed``, ``parent-ref``,
``child-refs``, ``two-way``, ``extended-ref``) is written as the relationship's
explicit strategy, so the engine's findings say what it would change and why.

Thresholds (docs/inference.md repeats them):

- a field seen with several BSON types is declared with the commonest as its
  ``type`` and the others (null among them) as its ``other_types``, so its
  validator accepts every document it came from; a field seen only as null, or
  with a type the format has no name for, or an array of elements of several
  types is left undeclared and named in its collection's description
  (:mod:`modeller.live.mixed`);
- ``enum``: a string field held by at least :data:`ENUM_MIN_DOCS` documents, with
  2 to :data:`ENUM_MAX` distinct values, each seen at least :data:`ENUM_MIN_EACH`
  times, that look like codes (no spaces, not capitalised words: "shipped" or
  "EUR", never "Berlin");
- an embedded array's ``max`` (its validator's ``maxItems``) has headroom: the
  first of 1, 2, 5, 10, 20, 50... at least 1.5 times the longest array seen,
  since a sample seldom holds the longest; plain arrays get no ``max_items``;
- reference: at least :data:`REF_MATCH` of a field's sampled values are ``_id`` s
  of one other collection (the live source looks the candidates up, so sampling
  does not hide matches);
- cardinality from the largest count of N per One: at most the engine's
  ``few_max`` (100) one-to-few, at most ``refarray_max`` (2,000) one-to-many,
  above it one-to-squillions (RULES.md §2).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from modeller.live.collstats import StorageStats
from modeller.live.collstats import describe as describe_storage
from modeller.live.mixed import HEAD as MIXED_HEAD
from modeller.live.mixed import Mixed
from modeller.live.mixed import note as mixed_note
from modeller.live.naming import entity_label, unique
from modeller.live.renames import rename_advice, renamed_fields
from modeller.live.schema_input import SchemaCollection, SchemaReader
from modeller.live.stats import CollectionStats, FieldStats, is_monotonic, percentile
from modeller.model.checks import check_project
from modeller.model.layered_layout import laid_out
from modeller.model.names import check_field_name, plural, singular, snake
from modeller.model.project import (
    ArrayItems,
    Denormalization,
    Entity,
    Field,
    Index,
    Project,
    Relationship,
    TimeSeries,
)
from modeller.model.text import shown
from modeller.model.vocabulary import FIELD_TYPES, FORMAT_NAME, FORMAT_VERSION, OTHER_TYPES
from modeller.rules.settings import Settings

ENUM_MAX = 12
ENUM_MIN_DOCS = 50
ENUM_MIN_EACH = 5
REF_MATCH = 0.8
#: where ``check_project`` locates a problem of one declared index
_INDEX_PATH = re.compile(r"\$\.entities\[(\d+)\]\.indexes\[(\d+)\]")
#: types whose values can be another collection's ``_id`` without the field's name saying so
_REF_TYPES = frozenset({"objectId"})
#: types that are references only when the field's name ends in ``id``/``ids`` (a plain number rarely is one)
_NAMED_REF_TYPES = frozenset({"string", "int", "long"})


@dataclass
class CollectionSample:
    """One collection as a source saw it: sampled statistics, its size, declared indexes and options."""

    stats: CollectionStats
    count: int | None = None  # the server's count of all documents (None: the sample is everything)
    server: StorageStats | None = None  # $collStats: the server's count and data size, where it gave them
    indexes: Sequence[Mapping[str, Any]] = ()  # listIndexes output
    options: Mapping[str, Any] = field(default_factory=dict)  # listCollections options
    notes: list[str] = field(default_factory=list)  # what the source could not read, for the description

    @property
    def name(self) -> str:
        return self.stats.name

    @property
    def scale(self) -> float:
        """All documents per sampled document (1 when everything was read)."""
        sampled = self.stats.documents
        return max(1.0, (self.count or sampled) / sampled) if sampled else 1.0


@dataclass
class _Ref:
    """A field of ``holder`` whose values are ``_id`` s of ``target``."""

    holder: str  # collection holding the field
    field: str
    target: str
    kind: str  # "parent" (scalar), "child" (array of ids), "extended" (object with _id), "child-extended"
    stats: FieldStats
    #: the array of sub-documents whose elements hold the field (``items`` of ``items[].product_id``), if any
    array: str | None = None
    #: fields next to it in those elements that copy the target's (an extended reference)
    copies: tuple[str, ...] = ()

    @property
    def many(self) -> str:
        """What holds the reference: the collection, or its embedded array as ``entity_of`` keys it."""
        return self.holder if self.array is None else _array_key(self.holder, self.array)


@dataclass
class _Link:
    """What the data shows between one One and one N collection, merged into one relationship."""

    one: str
    many: str
    refs: list[_Ref] = field(default_factory=list)


class Inferrer:
    """Builds the project; one instance per inference (it holds the ids given so far)."""

    def __init__(
        self,
        samples: Sequence[CollectionSample],
        known_ids: Mapping[str, Iterable[Any]] | None = None,
        settings: Settings | None = None,
        schemas: Sequence[SchemaCollection] = (),
    ) -> None:
        self.samples = {s.name: s for s in samples}
        self.schemas = list(schemas)
        self.settings = settings or Settings()
        self.known: dict[str, set[Any]] = {}
        for s in samples:
            id_stats = s.stats.fields.get("_id")
            self.known[s.name] = set(id_stats.values) if id_stats else set()
        for name, ids in (known_ids or {}).items():
            self.known.setdefault(name, set()).update(ids)
        #: what the project could not keep as the server has it, one line each (``infer_project``'s notices)
        self.notices: list[str] = []
        self.entity_ids: set[str] = set()
        self.entity_names: set[str] = set()
        self.rel_ids: set[str] = set()
        self.entity_of: dict[str, str] = {}
        self.entities: list[Entity] = []
        self.relationships: list[Relationship] = []
        #: of the collection being read: its fields held with several types, and what its arrays' lengths were
        self._mixed: list[Mixed] = []
        self._lengths: list[str] = []
        #: (collection, array) -> the fields of its elements that are references (or their copies)
        self._element_fields: dict[tuple[str, str], set[str]] = {}

    # ----- references -----
    def _target(self, holder: str, name: str, stats: FieldStats | None) -> str | None:
        """The collection whose ``_id`` s the field's values are, if one clearly is."""
        if stats is None or not stats.values:
            return None
        kind = stats.commonest_type()
        named = name.lower().endswith(("id", "ids"))
        if kind not in _REF_TYPES and not (named and kind in _NAMED_REF_TYPES):
            return None
        values = set(stats.values)
        best, best_share = None, 0.0
        for other, ids in self.known.items():
            if not ids or (other == holder and name == "_id"):
                continue
            share = len(values & ids) / len(values)
            if share > best_share:
                best, best_share = other, share
        return best if best_share >= REF_MATCH else None

    def find_refs(self) -> list[_Ref]:
        refs: list[_Ref] = []
        for holder, sample in self.samples.items():
            for name, stats in sample.stats.fields.items():
                if name == "_id" or not _legal(name):
                    continue
                kind = stats.commonest_type()
                if kind in ("array",) and stats.items is not None:
                    items = stats.items
                    if items.commonest_type() == "object" and items.fields:
                        key = "_id" if "_id" in items.fields else "id" if "id" in items.fields else None
                        target = self._target(holder, key, items.fields.get(key)) if key else None
                        if target:
                            refs.append(_Ref(holder, name, target, "child-extended", stats))
                        else:
                            refs += self._element_refs(holder, name, items.fields)
                        continue
                    target = self._target(holder, name, items)
                    if target:
                        refs.append(_Ref(holder, name, target, "child", stats))
                elif kind == "object" and stats.fields and "_id" in stats.fields:
                    target = self._target(holder, "_id", stats.fields["_id"])
                    if target:
                        refs.append(_Ref(holder, name, target, "extended", stats))
                else:
                    target = self._target(holder, name, stats)
                    if target:
                        refs.append(_Ref(holder, name, target, "parent", stats))
        return refs

    def _element_refs(self, holder: str, array: str, fields: Mapping[str, FieldStats]) -> list[_Ref]:
        """References held by the elements of an embedded array (``items[].product_id``): parent references of
        the embedded entity, with the fields next to them that copy the referenced collection's (same name, same
        type, and where both were sampled, the same values)."""
        refs: list[_Ref] = []
        taken: set[str] = set()
        for name, stats in fields.items():
            if name in ("_id", "id") or not _legal(name) or stats.commonest_type() in ("array", "object"):
                continue
            target = self._target(holder, name, stats)
            if target is None or target not in self.samples:
                continue
            theirs = self.samples[target].stats.fields
            copies = tuple(
                k
                for k, mine in fields.items()
                if k not in taken and k != name and k != "_id" and k in theirs and _copies(mine, theirs[k])
            )
            taken.update(copies)
            refs.append(_Ref(holder, name, target, "parent", stats, array=array, copies=copies))
        return [r for r in refs if r.field not in taken]

    # ----- the project -----
    def infer(self, name: str, database: str | None = None) -> Project:
        refs = self.find_refs()
        consumed = {(r.holder, r.field) for r in refs if r.array is None}
        self._element_fields = {}
        for ref in refs:
            if ref.array:
                self._element_fields.setdefault((ref.holder, ref.array), set()).update((ref.field, *ref.copies))
        for coll, sample in self.samples.items():
            self._collection_entity(coll, sample, consumed)
        for schema in self.schemas:
            self._schema_entity(schema)
        links: dict[tuple[str, str], _Link] = {}
        for ref in refs:
            one, many = (ref.holder, ref.target) if ref.kind in ("child", "child-extended") else (ref.target, ref.many)
            links.setdefault((one, many), _Link(one, many)).refs.append(ref)
        for link in links.values():
            if link.many in self.entity_of:  # an array past the entity limit has no entity of its own
                self._reference_relationship(link)
        return Project(
            format=FORMAT_NAME,
            format_version=FORMAT_VERSION,
            name=name,
            database=database,
            description="Inferred by `modeller infer` from sampled documents; "
            "relationship strategies are the ones found in the data.",
            entities=tuple(self.entities),
            relationships=tuple(self.relationships),
        )

    def _new_entity_id(self, base: str) -> str:
        entity_id = unique(snake(base)[:90] or "entity", self.entity_ids)
        return entity_id

    def _collection_entity(self, coll: str, sample: CollectionSample, consumed: set[tuple[str, str]]) -> None:
        entity_id = self._new_entity_id(singular(coll))
        self.entity_of[coll] = entity_id
        label = self._new_label(coll)
        skipped: list[str] = []
        self._mixed, self._lengths = [], []
        slot = len(self.entities)  # the collection's entity goes before the entities embedded in it
        fields = self._fields(
            sample.stats.fields,
            sample.stats.documents,
            sample,
            entity_id,
            skipped,
            exclude={f for h, f in consumed if h == coll},
            top=True,
        )
        notes = list(sample.notes)
        if skipped:
            notes.append(
                f"fields the model cannot name were left out: {', '.join(shown(repr(s), 60) for s in skipped[:10])}"
            )
        options = sample.options
        if options.get("capped"):
            notes.append(f"capped collection (size {options.get('size')}, max {options.get('max')})")
        if options.get("validator"):
            notes.append("the collection has a validator")
        sparse = [str(spec.get("name")) for spec in sample.indexes if spec.get("sparse")]
        if sparse:  # the format has no sparse: the index is kept plain, and drift and apply name the difference
            names = ", ".join(shown(repr(n), 80) for n in sparse[:5])
            notes.append(f"sparse on the server, plain in the project: index {names}")
            self.notices.append(
                f"{shown(repr(coll), 80)}: index {names} is sparse on the server; the project format has no sparse "
                "option, so it is kept as a plain index (drift and apply report the difference)"
            )
        for rename in renamed_fields(sample.stats):  # both names are declared (optional): the user picks one
            notes.append(
                f"{shown(repr(rename.old), 80)} (older documents) and {shown(repr(rename.new), 80)} (newer) never "
                "occur together: probably one field renamed half-way"
            )
            self.notices.append(rename_advice(coll, rename, sample.stats.documents))
        notes += self._lengths
        if self._mixed:  # last: drift reads the paths back from this sentence to the end
            notes.append(mixed_note(self._mixed))
        timeseries = _timeseries(options.get("timeseries"))
        count = sample.count if sample.count is not None else sample.stats.documents
        self.entities.insert(
            slot,
            Entity(
                id=entity_id,
                name=label,
                collection=coll,
                description=_describe(_sampled(sample), notes),
                count=count,
                timeseries=timeseries,
                indexes=tuple(_indexes(sample.indexes)),
                fields=tuple(fields),
            ),
        )

    def _schema_entity(self, source: SchemaCollection) -> None:
        """A collection known by its ``$jsonSchema`` validator: fields, required, enums, arrays, subtypes."""
        entity_id = self._new_entity_id(singular(source.name))
        label = self._new_label(source.name)
        skipped: list[str] = []
        slot = len(self.entities)

        def embed(name: str, items: Mapping[str, Any], bound: Any) -> None:
            many_id = self._add_embedded_entity(source.name, name, lambda _many_id: reader.fields(items, 1))
            top = bound if isinstance(bound, int) and not isinstance(bound, bool) and bound >= 0 else None
            self.relationships.append(
                Relationship(
                    id=unique(f"{entity_id}_{snake(name)}"[:95], self.rel_ids),
                    one=entity_id,
                    many=many_id,
                    name=name,
                    cardinality=self.cardinality(top) if top is not None else "one-to-many",
                    max=top,
                    strategy="embed",
                )
            )

        reader = SchemaReader(embed, _legal, skipped)
        fields = reader.fields(source.schema, top=True)
        notes = [f"read from the $jsonSchema validator in {shown(source.origin, 200)}"]
        if skipped:
            notes.append(
                f"fields the model cannot name were left out: {', '.join(shown(repr(s), 60) for s in skipped[:10])}"
            )
        self.entities.insert(
            slot,
            Entity(
                id=entity_id,
                name=label,
                collection=source.name,
                description=_describe("", notes),
                subtypes=reader.subtypes(source.schema, fields),
                fields=tuple(fields),
            ),
        )

    def _fields(
        self,
        fields: Mapping[str, FieldStats],
        holders: int,
        sample: CollectionSample,
        entity_id: str,
        skipped: list[str],
        exclude: set[str] = frozenset(),  # type: ignore[assignment]
        top: bool = False,
        prefix: str = "",
    ) -> list[Field]:
        """The declared fields of one level; ``prefix`` spells their parent's path as drift does (``items[].``)."""
        out: list[Field] = []
        for name, stats in fields.items():
            if name in exclude:
                continue
            if not _legal(name):
                skipped.append(name)
                continue
            kind = stats.commonest_type()
            if name == "_id" and top and kind == "objectId":
                continue  # the engine's default identity
            mixed = _mixed_types(stats)
            others = () if mixed is None else _other_types(stats, kind)
            if others is None or kind is None:  # only nulls, or what ``other_types`` cannot name: left undeclared
                self._mixed.append(Mixed(prefix + name, mixed or dict(stats.types), stats.count))
                continue
            if kind == "array" and stats.lengths:
                p50, p95, top_len = (percentile(stats.lengths, q) for q in (0.5, 0.95, 1.0))
                self._lengths.append(f"'{prefix}{name}': array length p50 {p50}, p95 {p95}, max {top_len}")
            if (
                kind == "array"
                and stats.items is not None
                and stats.items.commonest_type() == "object"
                and stats.items.fields
                and len(self.entities) + len(self.entity_ids) < 10_000
                and not others  # an embedded array's validator takes only arrays: a null or a string there stays a field
            ):
                self._embedded(name, stats, sample, entity_id, skipped, prefix)
                continue
            out.append(self._field(name, stats, kind, holders, sample, skipped, top, prefix, others))
        return out

    def _field(
        self,
        name: str,
        stats: FieldStats,
        kind: str,
        holders: int,
        sample: CollectionSample,
        skipped: list[str],
        top: bool,
        prefix: str = "",
        others: tuple[str, ...] = (),
    ) -> Field:
        """A field of type ``kind`` (and ``others``, the types it also holds, commonest first); what inference
        noted goes to the entity, never into the field's description, which the validators carry to production."""
        extra: dict[str, Any] = {"other_types": others} if others else {}
        ftype = kind
        present = stats.present
        if present:
            extra["bytes"] = _value_bytes(ftype, stats.bytes_total / present)
        if ftype == "object" and stats.fields:
            extra["fields"] = tuple(
                self._fields(stats.fields, stats.types["object"], sample, "", skipped, prefix=f"{prefix}{name}.")
            )
        elif ftype == "array" and stats.items is not None:
            items = self._items(stats.items, sample, skipped, f"{prefix}{name}[].")
            if items is not None:
                extra["items"] = items
            # no max_items: the longest array of a sample is no bound (the entity's description gives the lengths)
        if ftype == "string" and all(other == "null" for other in others):  # an enum would refuse the others
            enum = _enum(stats)
            if enum is not None:
                extra["enum"] = enum
        if stats.values and ftype in ("string", "int", "long", "objectId", "date"):
            extra["distinct"] = _distinct(stats, sample)
        if top and is_monotonic(stats.order):
            extra["monotonic"] = True
        return Field(
            name=name,
            type=ftype,
            required=(stats.nulls == 0 or "null" in others) and stats.count == holders and holders > 0,
            **extra,
        )

    def _items(self, items: FieldStats, sample: CollectionSample, skipped: list[str], path: str) -> ArrayItems | None:
        """The element of an array whose elements are all of one type (``_mixed_types`` said so)."""
        kind = items.commonest_type()
        if kind is None:
            return None
        ftype = kind
        extra: dict[str, Any] = {}
        if ftype == "object" and items.fields:
            extra["fields"] = tuple(self._fields(items.fields, items.types["object"], sample, "", skipped, prefix=path))
        elif ftype == "array" and items.items is not None:
            inner = self._items(items.items, sample, skipped, path + "[].")
            if inner is not None:
                extra["items"] = inner
        if ftype == "string":
            enum = _enum(items)
            if enum is not None:
                extra["enum"] = enum
        if items.present:
            extra["bytes"] = _value_bytes(ftype, items.bytes_total / items.present)
        return ArrayItems(type=ftype, **extra)

    def _new_label(self, name: str) -> str:
        """An entity name from a collection or array name, unique among the inferred ones ("people" -> "Person")."""
        return unique(entity_label(singular(name)), self.entity_names, sep=" ", key=snake)

    def _add_embedded_entity(self, holder: str, name: str, fields_of: Callable[[str], Sequence[Field]]) -> str:
        """A new entity for the sub-documents of ``holder.name``; ``fields_of(its id)`` reads their fields."""
        many_id = self._new_entity_id(singular(name))
        label = self._new_label(name)
        fields = fields_of(many_id)
        self.entities.append(
            Entity(
                id=many_id,
                name=label,
                description=f"Embedded in {shown(holder, 80)}.{shown(name, 80)}",
                fields=tuple(fields),
            )
        )
        return many_id

    def _embedded(
        self, name: str, stats: FieldStats, sample: CollectionSample, one_id: str, skipped: list[str], prefix: str
    ) -> None:
        """An array of sub-documents: an entity of its own, embedded in its holder."""
        assert stats.items is not None and stats.items.fields is not None
        items = stats.items
        # a reference in the elements of a top-level array is a relationship of its own, not a field
        refs = self._element_fields.get((sample.name, name), set()) if not prefix else set()
        many_id = self._add_embedded_entity(
            sample.name,
            name,
            lambda new_id: self._fields(
                items.fields or {},
                items.types["object"],
                sample,
                new_id,
                skipped,
                exclude=refs,
                prefix=f"{prefix}{name}[].",
            ),
        )
        if not prefix:
            self.entity_of[_array_key(sample.name, name)] = many_id
        lengths = stats.lengths
        longest = percentile(lengths, 1.0)
        self._add_relationship(
            one_id,
            many_id,
            name=name,
            strategy="embed",
            typical=percentile(lengths, 0.5),
            top=longest,
            bound=headroom(longest),  # the validator's maxItems: the sample's longest is no bound
            many_standalone=False,
        )

    def _reference_relationship(self, link: _Link) -> None:
        one_id, many_id = self.entity_of[link.one], self.entity_of[link.many]
        kinds = {r.kind for r in link.refs}
        by_kind = {r.kind: r for r in link.refs}
        name = inverse = None
        denormalize: list[Denormalization] = []
        one_fields = {f.name for f in self._entity(one_id).fields}
        many_fields = {f.name for f in self._entity(many_id).fields}
        typical = top = 0
        optional = False
        if "child" in kinds or "child-extended" in kinds:
            ref = by_kind.get("child") or by_kind["child-extended"]
            field_name = ref.field
            name = plural(field_name[:-4]) if field_name.endswith("_ids") and len(field_name) > 4 else field_name
            lengths = ref.stats.lengths
            typical, top = percentile(lengths, 0.5), percentile(lengths, 1.0)
            if ref.kind == "child-extended" and ref.stats.items and ref.stats.items.fields:
                denormalize += [
                    Denormalization(field=k, direction="many-to-one")
                    for k in ref.stats.items.fields
                    if k not in ("_id", "id") and k in many_fields
                ]
        if "parent" in kinds or "extended" in kinds:
            ref = by_kind.get("extended") or by_kind["parent"]
            inverse = ref.field[:-3] if ref.kind == "parent" and ref.field.endswith("_id") else ref.field
            optional = ref.stats.count < self._holders(ref)  # half the orders without customer_id: not required
            if ref.kind == "extended" and ref.stats.fields:
                denormalize += [
                    Denormalization(field=k, direction="one-to-many")
                    for k in ref.stats.fields
                    if k != "_id" and k in one_fields
                ]
            denormalize += [Denormalization(field=k, direction="one-to-many") for k in ref.copies if k in one_fields]
            if not top:  # N per One from how often each One's id appears among the N
                id_stats = by_kind["parent"].stats if "parent" in kinds else (ref.stats.fields or {}).get("_id")
                if id_stats is not None:
                    typical, top = _per_one(list(id_stats.values.values()), self.samples[ref.holder].scale)
        flat = any(r.copies for r in link.refs)  # copies next to the reference, not in an object holding it
        if denormalize and not flat:
            strategy = "extended-ref"
        elif kinds & {"child", "child-extended"} and kinds & {"parent", "extended"}:
            strategy = "two-way"
        elif kinds & {"child", "child-extended"}:
            strategy = "child-refs"
        else:
            strategy = "parent-ref"  # with copies next to it when ``flat`` (the engine names them so too)
        self._add_relationship(
            one_id,
            many_id,
            name=name,
            inverse=inverse if inverse != name else None,
            strategy=strategy,
            typical=typical,
            top=top,
            many_standalone=True,
            denormalize=tuple(denormalize),
            optional=optional,
        )

    def _holders(self, ref: _Ref) -> int:
        """How many sampled documents (or elements of the embedded array) could hold the reference."""
        stats = self.samples[ref.holder].stats
        if ref.array is None:
            return stats.documents
        array = stats.fields.get(ref.array)
        return array.items.types.get("object", 0) if array is not None and array.items is not None else 0

    def _entity(self, entity_id: str) -> Entity:
        return next(e for e in self.entities if e.id == entity_id)

    def _add_relationship(
        self,
        one_id: str,
        many_id: str,
        *,
        name: str | None,
        strategy: str,
        typical: int,
        top: int,
        many_standalone: bool,
        inverse: str | None = None,
        denormalize: tuple[Denormalization, ...] = (),
        bound: int | None = None,
        optional: bool = False,
    ) -> None:
        """``top`` is the largest N per One seen (the class follows it); ``bound`` the ``max`` written, if another."""
        rel_id = unique(f"{one_id}_{snake(name or many_id)}"[:95], self.rel_ids)
        self.relationships.append(
            Relationship(
                id=rel_id,
                one=one_id,
                many=many_id,
                name=name if name and _legal(name) else None,
                inverse=inverse if inverse and _legal(inverse) else None,
                cardinality=self.cardinality(top),
                typical=typical,
                max=max(top if bound is None else bound, typical),
                many_standalone=many_standalone,
                strategy=strategy,
                denormalize=denormalize,
                optional=optional,
            )
        )

    def cardinality(self, top: int) -> str:
        """The seeds' class for the largest N per One seen (RULES.md §2 thresholds)."""
        if top <= self.settings.few_max:
            return "one-to-few"
        if top <= self.settings.refarray_max:
            return "one-to-many"
        return "one-to-squillions"


def _array_key(holder: str, array: str) -> str:
    """``entity_of``'s key for the entity embedded in ``holder``'s array ``array`` (no collection is named so)."""
    return f"{holder}\x00{array}[]"


def _copies(mine: FieldStats, theirs: FieldStats) -> bool:
    """Whether a field next to a reference copies the referenced document's field of the same name: one type,
    and where both kept their values, most of this one's values among the other's."""
    kind = mine.commonest_type()
    if kind is None or kind != theirs.commonest_type() or kind in ("array", "object"):
        return False
    if not mine.values or not theirs.values:
        return True
    return len(set(mine.values) & set(theirs.values)) >= REF_MATCH * len(mine.values)


def infer_project(
    samples: Sequence[CollectionSample],
    *,
    name: str,
    database: str | None = None,
    known_ids: Mapping[str, Iterable[Any]] | None = None,
    schemas: Sequence[SchemaCollection] = (),
    notices: list[str] | None = None,
) -> Project:
    """The project the sampled collections (and the collections known by a validator) show, laid out as the
    GUI's import lays it out (One above Many), so ``modeller infer``'s cards do not stand in one row.

    What the project could not keep (an index on a path no sampled document holds) is named in its collection's
    description and, one line each, appended to ``notices`` for the caller to show."""
    inferrer = Inferrer(samples, known_ids, schemas=schemas)
    project = inferrer.infer(name, database)
    out = notices if notices is not None else []
    out += inferrer.notices
    return laid_out(_indexes_the_format_allows(project, out))


def reference_candidates(sample: CollectionSample, limit: int = 200) -> list[Any]:
    """Values of ``sample`` that may be other collections' ``_id`` s (a live source looks these up)."""
    out: list[Any] = []
    for name, stats in sample.stats.fields.items():
        if name == "_id":
            continue
        for part_name, part in _candidate_stats(name, stats):
            kind = part.commonest_type()
            if kind in _REF_TYPES or (kind in _NAMED_REF_TYPES and part_name.lower().endswith(("id", "ids"))):
                out.extend(list(part.values)[:limit])
    return out


def _candidate_stats(name: str, stats: FieldStats) -> list[tuple[str, FieldStats]]:
    """(name, values) of what ``find_refs`` may take for a reference: the field, its elements, an element's or a
    sub-document's ``_id``, and the scalar fields of an embedded array's elements (``items[].product_id``)."""
    parts = [(name, stats)]
    if stats.items is not None:
        parts.append((name, stats.items))
        if stats.items.fields:
            parts += [
                (k, sub) for k, sub in stats.items.fields.items() if sub.commonest_type() not in ("array", "object")
            ]
    if stats.fields and "_id" in stats.fields:
        parts.append(("_id", stats.fields["_id"]))
    return parts


def _legal(name: str) -> bool:
    try:
        check_field_name(name)
    except ValueError:
        return False
    return 0 < len(name) <= 200


def _value_bytes(ftype: str, measured: float) -> int:
    """A field's ``bytes`` as the engine reads them: a string's are its text, the engine adds BSON's 5-byte
    length and terminator itself (the sample counted them), so they are not counted twice."""
    return max(0, round(measured) - (5 if ftype == "string" else 0))


def _mixed_types(stats: FieldStats) -> dict[str, int] | None:
    """The types of a field (or of its array's elements) that one declared type cannot hold; None when one can.

    Null counts as a type (a validator of ``bsonType: "string"`` refuses it), and so does a type the model has
    no name for (a regex, a timestamp).
    """
    kinds = {k: n for k, n in stats.types.items() if n}
    if len(kinds) > 1 or (kinds and next(iter(kinds)) not in FIELD_TYPES):
        return kinds
    if stats.items is not None and kinds.get("array"):
        inner = _mixed_types(stats.items)
        if inner is not None:
            return {f"array of {k}": n for k, n in inner.items()}
    return None


def _other_types(stats: FieldStats, kind: str | None) -> tuple[str, ...] | None:
    """The types a field holds besides ``kind``, commonest first, when ``other_types`` can name them all.

    None for a type the model has no name for (a regex, a timestamp), for a commonest type that is none of the
    field types, and for an array whose elements are of several types (``other_types`` describes the field, not its
    elements): such a field stays undeclared.
    """
    if kind not in FIELD_TYPES:
        return None
    ranked = sorted((k for k, n in stats.types.items() if n and k != kind), key=lambda k: (-stats.types[k], k))
    if any(k not in OTHER_TYPES for k in ranked):
        return None
    if stats.items is not None and stats.types.get("array") and _mixed_types(stats.items) is not None:
        return None
    return tuple(ranked)


def _enum(stats: FieldStats) -> tuple[str, ...] | None:
    """Allowed values only on strong evidence: many documents, a few code-like values each seen many times."""
    values = stats.values
    if stats.values_full or not 2 <= len(values) <= ENUM_MAX or stats.present < ENUM_MIN_DOCS:
        return None
    if min(values.values()) < ENUM_MIN_EACH:
        return None
    if not all(isinstance(v, str) and _code_like(v) for v in values):
        return None
    return tuple(sorted(values))


def _code_like(value: str) -> bool:
    """A status or code ("shipped", "in_progress", "EUR"), not words of text ("Berlin", "New York")."""
    if not 0 < len(value) <= 40 or any(c.isspace() for c in value):
        return False
    return not (value[:1].isupper() and any(c.islower() for c in value[1:]))


def headroom(longest: int) -> int:
    """A bound above the longest array a sample held: the first of 1, 2, 5, 10, 20, 50... at least 1.5 times it."""
    want = 1.5 * longest
    bound = 1
    while bound < want:
        for step in (2, 5 / 2, 2):
            bound = round(bound * step)
            if bound >= want:
                break
    return bound


def _per_one(counts: list[int], scale: float) -> tuple[int, int]:
    """Typical and largest N per One from how often each One's id is among the sampled N.

    The median is scaled by the share sampled (a One with 3 N in a 40 % sample has about 7); the largest is
    the one seen, never scaled up (one One's count times the share overstates the maximum), but not below the
    typical number.
    """
    typical = round(percentile(counts, 0.5) * scale)
    return typical, max(percentile(counts, 1.0), typical)


def _distinct(stats: FieldStats, sample: CollectionSample) -> int:
    """Distinct values: as seen when the sample is all, else scaled when (nearly) every sampled value differs."""
    seen = len(stats.values)
    if stats.values_full or seen >= 0.9 * stats.present:
        return round(seen * sample.scale) if not stats.values_full else round(stats.present * sample.scale)
    return seen


def _indexes(raw: Sequence[Mapping[str, Any]]) -> Iterable[Index]:
    for spec in raw:
        if spec.get("name") == "_id_":
            continue
        keys = list((spec.get("key") or {}).items())
        if any(k.startswith("_fts") for k, _ in keys):
            weights = spec.get("weights") or {}
            keys = [(k, "text") for k in weights] or keys
        pairs = []
        for key, direction in keys:
            if isinstance(direction, float) and direction in (1.0, -1.0):
                direction = int(direction)
            if direction in (1, -1, "text", "2dsphere", "hashed") and not isinstance(direction, bool):
                pairs.append((key, direction))
        if not pairs or len(pairs) != len(keys):
            continue
        extra: dict[str, Any] = {}
        if spec.get("expireAfterSeconds") is not None:
            extra["expire_after_s"] = int(spec["expireAfterSeconds"])
        if spec.get("partialFilterExpression"):
            extra["partial"] = dict(spec["partialFilterExpression"])
        if spec.get("collation"):
            extra["collation"] = dict(spec["collation"])
        try:
            yield Index(keys=tuple(pairs), name=spec.get("name"), unique=bool(spec.get("unique")), **extra)
        except ValueError:
            continue  # an index the model cannot hold (a name too long, a key it refuses): left out


def _indexes_the_format_allows(project: Project, notices: list[str]) -> Project:
    """The project without the indexes it cannot hold, each named in a notice and its entity's description.

    The server indexes any path, the project format only the paths its entities hold (fields, and the names the
    relationships generate, ``items.product_id`` among them): an index on a field no sampled document held (a
    ``deleted_at`` nobody set yet) is left out, never a crash. ``check_project`` is the judge, as for the
    observed queries (``workload.add_queries``)."""
    refused: dict[int, dict[int, str]] = {}
    for problem in check_project(project):
        found = _INDEX_PATH.match(problem.path)
        if found:
            refused.setdefault(int(found[1]), {}).setdefault(int(found[2]), problem.message)
    if not refused:
        return project
    entities = list(project.entities)
    for number, reasons in refused.items():
        entity = entities[number]
        notes = []
        for at, reason in reasons.items():
            index = entity.indexes[at]
            what = f"index {shown(repr(index.name or '_'.join(f'{k}_{d}' for k, d in index.keys)), 120)}"
            notes.append(f"{what} left out: {shown(reason, 300)}")
            where = shown(repr(entity.collection or entity.name), 80)
            notices.append(f"{where}: {what} left out of the project: {shown(reason, 300)}")
        kept = tuple(ix for at, ix in enumerate(entity.indexes) if at not in reasons)
        text = entity.description or ""
        at = text.find(MIXED_HEAD)  # the undeclared fields' sentence stays last: drift reads it to the end
        head, tail = (text, "") if at < 0 else (text[:at].rstrip("; "), text[at:])
        description = _describe(head, [*notes, tail] if tail else notes)
        entities[number] = entity.model_copy(update={"indexes": kept, "description": description})
    return project.model_copy(update={"entities": tuple(entities)})


def _timeseries(options: Any) -> TimeSeries | None:
    if not isinstance(options, Mapping) or not isinstance(options.get("timeField"), str):
        return None
    interval = {"seconds": 1, "minutes": 60, "hours": 3600}.get(str(options.get("granularity")))
    try:
        return TimeSeries(time_field=options["timeField"], meta_field=options.get("metaField"), interval_s=interval)
    except ValueError:
        return None


def _sampled(sample: CollectionSample) -> str:
    head = f"{sample.stats.documents} documents sampled"
    return head if sample.server is None else f"{head}; {describe_storage(sample.server)}"


def _describe(head: str, notes: list[str]) -> str:
    text = "; ".join([head, *notes] if head else notes)
    return text[:2000]
