"""Validation across the whole project, each problem located by a JSON path.

Runs after the per-object pydantic validation. It never raises: it returns
every problem, so ``modeller validate`` and the GUI can list them all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from modeller.model.conventions import (
    child_refs_field,
    collection_name,
    embed_field,
    extended_ref_field,
    former_parent_ref_field,
    parent_ref_field,
    subset_field,
)
from modeller.model.name_clashes import check_aggregates, check_subtypes
from modeller.model.names import check_collection_name
from modeller.model.paths import all_fields, depth, find_field
from modeller.model.project import Entity, Field, Project, Relationship
from modeller.model.server_limits import check_entity
from modeller.model.unique_names import check_unique_names
from modeller.model.vocabulary import FORMAT_NAME

#: MongoDB refuses documents nested deeper than 100 levels.
MAX_NESTING = 100


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a project: where (a JSON path) and what to do."""

    path: str
    message: str
    #: a second place the problem involves (the first of two entities with one name), named in ``message``
    other: str | None = None

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class _Paths:
    """Which dotted paths a query or index may name on each entity.

    The generated names of an entity are worked out the first time a path of it is not one of its own fields
    (most paths are): naming every relationship's fields up front was a fifth of the checks at 10,000 entities.
    """

    def __init__(self, project: Project, entities: dict[str, Entity]) -> None:
        self._entities = entities
        #: entity id -> the relationships it is an end of, in the project's order
        self._relationships: dict[str, list[Relationship]] = {}
        for rel in project.relationships:
            self._relationships.setdefault(rel.one, []).append(rel)
            if rel.many != rel.one:
                self._relationships.setdefault(rel.many, []).append(rel)
        self._generated: dict[str, dict[str, Entity | None]] = {}

    def generated(self, entity_id: str) -> dict[str, Entity | None]:
        """Generated name -> entity whose fields it holds (None: a bare reference), on ``entity_id``."""
        known = self._generated.get(entity_id)
        if known is not None:
            return known
        names: dict[str, Entity | None] = {}
        entities = self._entities
        for rel in self._relationships.get(entity_id, ()):
            one, many = entities.get(rel.one), entities.get(rel.many)
            if one is None or many is None:
                continue
            if many.id == entity_id:
                names[parent_ref_field(rel, one)] = None
                former = former_parent_ref_field(rel, one)
                if former is not None:
                    names[former] = None
                names[extended_ref_field(rel, one)] = one
            if one.id == entity_id:
                names[child_refs_field(rel, many)] = None
                names[embed_field(rel, many)] = many
                names[subset_field(rel, many)] = many
                for agg in rel.aggregates:
                    names[agg.name] = None
        self._generated[entity_id] = names
        return names

    def missing(self, where: str, path: str, entity: Entity) -> Problem:
        """The problem of a path that does not exist, naming the joined entity for a related field (``owner.nme``)."""
        head, _, rest = path.partition(".")
        target = self.generated(entity.id).get(head)
        if target is not None and rest:
            return Problem(
                where,
                f"{target.name!r} (joined as {head!r}) has no field {rest!r}; "
                f"name a field of {target.name!r} or fix the name",
            )
        return _missing(where, path, entity)

    def exists(self, entity: Entity, path: str) -> bool:
        if path == "_id" or find_field(_fields(entity), path) is not None:
            return True
        head, _, rest = path.partition(".")
        generated = self.generated(entity.id)
        if head not in generated:
            return False
        target = generated[head]
        if not rest:
            return True
        # the entity a generated name holds has generated names too: ``items.product_id`` is the reference of the
        # embedded Item to its Product (the index ``apply`` creates for it, which ``infer`` reads back)
        return target is not None and self.exists(target, rest)


def _fields(entity: Entity) -> Sequence[Field]:
    """:func:`all_fields` without the copy when the entity has no subtypes (the usual case)."""
    return entity.fields if entity.subtypes is None else all_fields(entity)


def _duplicates(values: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    dups: list[str] = []
    for value in values:
        if value in seen and value not in dups:
            dups.append(value)
        seen.add(value)
    return dups


def _check_fields(fields: Sequence[Field], path: str, out: list[Problem]) -> int:
    """Report the fields' problems; returns how deep they nest, as :func:`depth` counts (the checks walk the
    fields once, not twice: the walks were a third of the checks at 10,000 entities)."""
    names = [f.name for f in fields]
    if len(set(names)) < len(names):
        for dup in _duplicates(names):
            out.append(Problem(path, f"field name {dup!r} is used twice here; rename one of them"))
    deepest = 1 if fields else 0
    for i, field in enumerate(fields):
        level = 1 + _check_fields(field.fields, f"{path}[{i}].fields", out) if field.fields else 1
        items, sub, at = field.items, f"{path}[{i}].items", 2
        while items is not None:
            level = max(level, at + _check_fields(items.fields, f"{sub}.fields", out) if items.fields else at)
            items, sub, at = items.items, sub + ".items", at + 1
        deepest = max(deepest, level)
        if field.enum is not None and not field.enum:
            out.append(Problem(f"{path}[{i}].enum", "enum is empty; list the allowed values or remove 'enum'"))
    return deepest


def check_project(project: Project) -> list[Problem]:
    """Every cross-object problem of ``project``; empty when it is valid."""
    out: list[Problem] = []
    if project.format != FORMAT_NAME:
        out.append(Problem("$.format", f"expected {FORMAT_NAME!r}; this is not a Modeller project file"))

    for kind, items in (
        ("entities", project.entities),
        ("relationships", project.relationships),
        ("queries", project.queries),
    ):
        for dup in _duplicates(item.id for item in items):
            index = [item.id for item in items].index(dup)
            out.append(
                Problem(f"$.{kind}[{index}].id", f"id {dup!r} is used by more than one of {kind}; ids must be unique")
            )

    collections = [collection_name(e) for e in project.entities]
    check_unique_names(project, lambda path, message, other: out.append(Problem(path, message, other)), collections)
    entities = {e.id: e for e in project.entities}
    paths = _Paths(project, entities)

    def report(path: str, message: str) -> None:
        out.append(Problem(path, message))

    for i, entity in enumerate(project.entities):
        where = f"$.entities[{i}]"
        nesting = _check_fields(entity.fields, f"{where}.fields", out)
        check_entity(entity, where, report, project.server_version)
        if entity.collection is None:
            try:
                check_collection_name(collections[i])
            except ValueError as exc:
                out.append(Problem(f"{where}.name", f"{exc}; set 'collection' to a legal name"))
        if entity.subtypes is not None:
            nesting = max(nesting, *(depth(variant) for variant in entity.subtypes.variants.values()))
        if nesting > MAX_NESTING:
            out.append(
                Problem(
                    f"{where}.fields", f"fields are nested deeper than MongoDB's {MAX_NESTING} levels; flatten them"
                )
            )
        if entity.subtypes is not None:
            for name, variant in entity.subtypes.variants.items():
                _check_fields(variant, f"{where}.subtypes.variants[{name!r}]", out)
            check_subtypes(entity, where, report)
        for j, declared in enumerate(entity.indexes):
            for k, (key, _kind) in enumerate(declared.keys):
                if not paths.exists(entity, key):
                    out.append(_missing(f"{where}.indexes[{j}].keys[{k}]", key, entity))
        for j, key in enumerate(entity.shard_key or []):
            if not paths.exists(entity, key):
                out.append(_missing(f"{where}.shard_key[{j}]", key, entity))
        if entity.timeseries is not None:
            for attr in ("time_field", "meta_field"):
                value = getattr(entity.timeseries, attr)
                if value is not None and not paths.exists(entity, value):
                    out.append(_missing(f"{where}.timeseries.{attr}", value, entity))
        if entity.archive is not None and not paths.exists(entity, entity.archive.age_field):
            out.append(_missing(f"{where}.archive.age_field", entity.archive.age_field, entity))

    by_collection: dict[str, list[Entity]] = {}
    for entity, name in zip(project.entities, collections, strict=True):
        by_collection.setdefault(name, []).append(entity)
    for i, entity in enumerate(project.entities):
        if entity.timeseries is None:
            continue  # only a time series needs a collection of its own
        name = collections[i]
        others = [other.name for other in by_collection[name] if other is not entity]
        if others:
            out.append(
                Problem(
                    f"$.entities[{i}].collection",
                    f"collection {name!r} also holds {others[0]!r}, but a time series keeps its measurements in a "
                    "collection of its own; give one of them another 'collection'",
                )
            )
    rel_ids = {r.id for r in project.relationships}
    rels = {r.id: r for r in reversed(project.relationships)}  # the first of a duplicated id wins, as in the engine
    for i, rel in enumerate(project.relationships):
        where = f"$.relationships[{i}]"
        for end in ("one", "many"):
            ref = getattr(rel, end)
            if ref not in entities:
                out.append(Problem(f"{where}.{end}", f"no entity has id {ref!r}; point '{end}' at an existing entity"))
        if rel.tree_ops and rel.one != rel.many:
            out.append(
                Problem(
                    f"{where}.tree_ops", "tree_ops only apply to a relationship from an entity to itself; remove them"
                )
            )
        one, many = entities.get(rel.one), entities.get(rel.many)
        for j, denorm in enumerate(rel.denormalize):
            source = many if denorm.direction == "many-to-one" else one
            if source is not None and find_field(_fields(source), denorm.field) is None:
                out.append(_missing(f"{where}.denormalize[{j}].field", denorm.field, source))
        for j, agg in enumerate(rel.aggregates):
            if agg.field is not None and many is not None and find_field(_fields(many), agg.field) is None:
                out.append(_missing(f"{where}.aggregates[{j}].field", agg.field, many))
        check_aggregates(rel, one, where, report)

    for i, query in enumerate(project.queries):
        where = f"$.queries[{i}]"
        queried = entities.get(query.entity)
        if queried is None:
            out.append(Problem(f"{where}.entity", f"no entity has id {query.entity!r}; pick an existing entity"))
        else:
            for key in query.filter:
                if not paths.exists(queried, key):
                    out.append(_missing(f"{where}.filter[{key!r}]", key, queried))
            for j, (key, _direction) in enumerate(query.sort):
                if not paths.exists(queried, key):
                    out.append(_missing(f"{where}.sort[{j}]", key, queried))
            for j, key in enumerate(query.projection):
                if not paths.exists(queried, key):
                    out.append(paths.missing(f"{where}.projection[{j}]", key, queried))
        for j, rel_id in enumerate(query.joins):
            if rel_id not in rel_ids:
                out.append(
                    Problem(f"{where}.joins[{j}]", f"no relationship has id {rel_id!r}; name an existing relationship")
                )
        if query.scope is not None and queried is not None:
            problem = _scope_problem(query.scope, queried, rels, entities)
            if problem is not None:
                out.append(Problem(f"{where}.scope", problem))

    for key in project.layout:
        if key not in entities:
            out.append(Problem(f"$.layout[{key!r}]", f"no entity has id {key!r}; remove this layout entry"))
    return out


def _missing(path: str, name: str, entity: Entity) -> Problem:
    return Problem(path, f"{entity.name[:80]!r} has no field {name!r}; declare the field or fix the name")


def _scope_problem(
    rel_id: str, queried: Entity, rels: dict[str, Relationship], entities: dict[str, Entity]
) -> str | None:
    """Why ``scope`` cannot be this relationship: it must exist and touch the query's entity."""
    rel = rels.get(rel_id)
    if rel is None:
        return f"no relationship has id {rel_id!r}; pick a relationship of {queried.name!r} or remove the scope"
    if queried.id in (rel.one, rel.many):
        return None
    ends = [entities[e].name if e in entities else e for e in (rel.one, rel.many)]
    return (
        f"relationship {rel_id!r} links {ends[0]!r} and {ends[1]!r}, not {queried.name!r}; "
        f"pick a relationship of {queried.name!r} or remove the scope"
    )
