"""The fix of a bloated document (RULES.md 39): move the cold fields to a new "details" entity, one-to-one.

The new entity is named in the user's words ("Movie details", unique in the project) and holds exactly
the cold fields; the relationship says the details are read rarely (``read_together`` is their share of the
declared reads), so the engine keeps them in a collection of their own with a reference to the main
document. Queries that show a moved field keep working: their projection names the field through the new
relationship (``movie_details.plot``) and they join it; a query that filters or sorts on a moved field, and
any other reference the model keeps to one (an index, a shard key, a copied or aggregated field), is
something only the user can rearrange, so then there is no automatic fix and the reason says why.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from typing import Any

from modeller.model.conventions import embed_field, extended_ref_field, subset_field
from modeller.model.ids import slug
from modeller.model.labels import query_numbers, query_words, relationship_words
from modeller.model.names import snake
from modeller.model.project import Entity, Field, Query, Relationship
from modeller.rules.framework.findings import Change, Fix, SubjectRef
from modeller.rules.physical.facts import Context
from modeller.rules.settings import Settings


@dataclass(frozen=True, slots=True)
class Taken:
    """The names a new entity must not take: entity names, collection names and the shared id space of entities,
    relationships and queries.

    Read from the indexes the analysis already has (entities and relationships by id, the design's collections);
    only entity names and query ids are gathered here, once per model (``RuleView`` -> ``of``).
    """

    names: frozenset[str]
    collections: tuple[Container[str], ...]
    ids: tuple[Container[str], ...]

    @classmethod
    def of(cls, ctx: Context, collections: tuple[Container[str], ...]) -> Taken:
        names = frozenset(e.name for e in ctx.project.entities)
        return cls(names, collections, (ctx.entities, ctx.rel_by_id, frozenset(q.id for q in ctx.queries)))

    def has_id(self, ident: str) -> bool:
        return any(ident in ids for ids in self.ids)

    def has_collection(self, name: str) -> bool:
        return any(name in held for held in self.collections)


def details_name(taken: Taken, entity: Entity) -> str:
    """ "<Entity> details", numbered when an entity already has the name or would take the collection."""
    base = f"{entity.name} details"
    name, n = base, 1
    while name in taken.names or taken.has_collection(snake(name)):
        n += 1
        name = f"{base} {n}"
    return name


def split_fix(
    ctx: Context, taken: Taken, entity: Entity, cold: Sequence[Field], settings: Settings
) -> tuple[Fix | None, str]:
    """The fix moving ``cold`` out of ``entity``, or None and the one-line reason there is none."""
    names = {f.name for f in cold}
    refusal = _kept_reference(ctx, entity, names)
    if refusal:
        return None, refusal
    name = details_name(taken, entity)
    new_id = _free_id(taken, slug(name), set())
    rel_id = _free_id(taken, slug(f"{entity.id}_to_details"), {new_id})
    rel = Relationship(id=rel_id, one=entity.id, many=new_id, cardinality="one-to-one")
    via = embed_field(rel, Entity(id=new_id, name=name, fields=tuple(cold)))
    if via in {f.name for f in entity.fields if f.name not in names}:
        return None, f"{entity.name} already has a field {via!r}, the name its details would be joined as"
    own = ctx.queries_of.get(entity.id, [])
    needing = [q for q in own if not q.projection or any(_head(p) in names for p in q.projection)]
    total = sum(_weight(q, settings) for q in own)
    share = sum(_weight(q, settings) for q in needing) / total if total else 0.0
    if share >= settings.read_together_min:
        return None, f"{share:.0%} of the declared reads of {entity.name} show the moved fields"

    rel_data: dict[str, Any] = {
        "id": rel_id,
        "one": entity.id,
        "many": new_id,
        "cardinality": "one-to-one",
        "read_together": round(share, 2),
    }
    rates = [q.per_sec for q in needing if q.per_sec is not None]
    if rates:
        rel_data["reads_per_sec"] = sum(rates)
    data: dict[str, Any] = {"id": new_id, "name": name}
    if entity.count is not None:
        data["count"] = entity.count
    data["fields"] = [f.model_dump(mode="json", exclude_defaults=True) for f in cold]
    changes = [Change("add", SubjectRef("entity", new_id), "", data)]
    changes += [Change("remove", SubjectRef("entity", entity.id), "fields", f.name) for f in cold]
    changes.append(Change("add", SubjectRef("relationship", rel_id), "", rel_data))
    for q in needing:
        subject = SubjectRef("query", q.id)
        if q.projection:
            moved = [f"{via}.{p}" if _head(p) in names else p for p in q.projection]
            changes.append(Change("set", subject, "projection", moved))
        changes.append(Change("append", subject, "joins", rel_id))
    moved_names = ", ".join(f.name for f in cold)
    return (
        Fix(
            f"move {moved_names} to a new entity {name} (one-to-one with {entity.name}, read with it only when a "
            "query shows them)",
            tuple(changes),
        ),
        "",
    )


def _free_id(taken: Taken, stem: str, also: set[str]) -> str:
    """``stem``, or ``stem_2``, ``stem_3``... whichever no entity, relationship or query (nor ``also``) has."""
    ident, n = stem, 1
    while taken.has_id(ident) or ident in also:
        n += 1
        ident = f"{stem}_{n}"
    return ident


def _words(ctx: Context, rel: Relationship) -> str:
    return relationship_words(ctx.entities[rel.one].name, ctx.entities[rel.many].name)


def _head(path: str) -> str:
    return path.split(".", 1)[0]


def _weight(q: Query, settings: Settings) -> float:
    """A query's rate; one marked hot without a rate runs at least at the hot threshold, any other once a second."""
    if q.per_sec is not None:
        return q.per_sec
    return settings.hot_per_sec if q.hot else 1.0


def _kept_reference(ctx: Context, entity: Entity, cold: set[str]) -> str:
    """What else in the model names a cold field (the fix cannot move it along), or "".

    Looks only at the entity's own annotations, queries and relationships, and at the queries of the entities
    related to it (the only ones that can name its fields through a generated name): proportional to the entity.
    """
    for declared in entity.indexes:
        hit = next((k for k, _ in declared.keys if _head(k) in cold), None)
        if hit is not None:
            return f"an index of {entity.name} includes {hit}"
    named = [("the shard key", k) for k in entity.shard_key or ()]
    if entity.timeseries is not None:
        named += [("the time series", k) for k in (entity.timeseries.time_field, entity.timeseries.meta_field) if k]
    if entity.archive is not None:
        named.append(("the archive rule", entity.archive.age_field))
    for what, path in named:
        if _head(path) in cold:
            return f"{what} of {entity.name} uses {path}"
    for q in ctx.queries_of.get(entity.id, []):
        hit = next((k for k in (*q.filter, *(k for k, _ in q.sort)) if _head(k) in cold), None)
        if hit is not None:
            return (
                f"query {query_words(q, entity.name, query_numbers(ctx.project).get(q.id))} filters or sorts on {hit}"
            )
    #: related entity id -> the names its documents or queries give this entity
    heads: dict[str, set[str]] = {}
    for facts in ctx.rels_of_one.get(entity.id, []):
        rel = facts.rel
        heads.setdefault(facts.many_id, set()).add(extended_ref_field(rel, entity))
        if any(d.direction == "one-to-many" and _head(d.field) in cold for d in rel.denormalize):
            return f"relationship {_words(ctx, rel)} copies a moved field of {entity.name}"
    for facts in ctx.rels_of_many.get(entity.id, []):
        rel = facts.rel
        heads.setdefault(facts.one_id, set()).update((embed_field(rel, entity), subset_field(rel, entity)))
        if any(d.direction == "many-to-one" and _head(d.field) in cold for d in rel.denormalize):
            return f"relationship {_words(ctx, rel)} copies a moved field of {entity.name}"
        if any(a.field is not None and _head(a.field) in cold for a in rel.aggregates):
            return f"relationship {_words(ctx, rel)} aggregates a moved field of {entity.name}"
    for other, via in heads.items():
        if other == entity.id:
            continue
        for q in ctx.queries_of.get(other, []):
            for path in (*q.filter, *(k for k, _ in q.sort), *q.projection):
                parts = path.split(".")
                if len(parts) > 1 and parts[0] in via and parts[1] in cold:
                    words = query_words(q, ctx.entities[other].name, query_numbers(ctx.project).get(q.id))
                    return f"query {words} reads {path} of {entity.name}"
    return ""
