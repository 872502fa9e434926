"""Names the engine gives to generated things, in one place.

The convention (documented in docs/file-format.md) is:

- collection of an entity: its ``collection`` or ``snake(name)`` ("Log Message" -> ``log_message``);
- parent reference in each N: ``<inverse or snake(one)>_id`` (``host_id``, ``owner_id``); a many-to-many
  keeps an array of them, ``<singular(inverse) or snake(one)>_ids`` (``room_ids``, also for ``inverse: "rooms"``);
- child references in the One: ``<snake(many)>_ids`` (``part_ids``);
- embedded N in the One: the relationship's ``name`` or ``plural(snake(many))`` (``addresses``);
  a one-to-one embeds as ``snake(many)``;
- latest-K subset in the One: ``recent_<name or plural(snake(many))>`` (``recent_logmsgs``);
- extended reference in each N: ``<inverse or snake(one)>`` holding ``{_id, ...copied fields}``.

Queries may name these generated paths, so model validation needs them too.
"""

from __future__ import annotations

from modeller.model.names import plural, singular, snake
from modeller.model.project import Entity, Relationship


def collection_name(entity: Entity) -> str:
    return entity.collection or snake(entity.name)


def parent_ref_field(rel: Relationship, one: Entity) -> str:
    """The field in each N that refers to its One: the one name the shape, indexes, plans, validators, samples,
    sync updates and migrations take it from (a many-to-many holds an array of them)."""
    if rel.cardinality == "many-to-many":
        return f"{singular(rel.inverse) if rel.inverse else snake(one.name)}_ids"
    return parent_ref_name(rel.inverse, one.name)


def former_parent_ref_field(rel: Relationship, one: Entity) -> str | None:
    """The name files may still give a many-to-many's array in each N (``host_id`` for ``host_ids``): queries
    written before the array had its own name keep working and read the array; None for other cardinalities."""
    if rel.cardinality != "many-to-many":
        return None
    former = parent_ref_name(rel.inverse, one.name)
    return former if former != parent_ref_field(rel, one) else None


def parent_ref_name(inverse: str | None, one_name: str) -> str:
    """The parent reference's name from the relationship's ``inverse`` and the One's display name (file data)."""
    return f"{inverse or snake(one_name)}_id"


def child_refs_field(rel: Relationship, many: Entity) -> str:
    return f"{snake(many.name)}_ids"


def embed_field(rel: Relationship, many: Entity) -> str:
    if rel.name:
        return rel.name
    return snake(many.name) if rel.cardinality == "one-to-one" else plural(snake(many.name))


def subset_field(rel: Relationship, many: Entity) -> str:
    return "recent_" + (rel.name or plural(snake(many.name)))


def extended_ref_field(rel: Relationship, one: Entity) -> str:
    return rel.inverse or snake(one.name)
