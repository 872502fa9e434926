"""Entity and query names are unique, ignoring case: text a user reads names things by them, not by ids.

A relationship's role names are fields too (its ``name`` in the One, its ``inverse`` in the N): one named like
a field the entity already has would give that entity two fields of one name, so it is refused as well.

Two entities called "Author" (or "Author" and "author") read as one in every
finding, and both derive the collection ``author``: the engine would merge
them into one polymorphic collection told apart by generated ids. Names that
differ but derive one collection ("Log Message", "LogMessage") are refused
too, unless both entities set ``collection``: sharing a collection is then a
deliberate choice. The loader, ``modeller validate`` and the GUI's renames all
ask this module, so they refuse the same names with the same reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from modeller.model.conventions import collection_name
from modeller.model.project import Entity, Project, Query, Relationship

#: report(path, message, other_path): the other path is the second place of the clash
Report = Callable[[str, str, str], None]


def name_key(name: str) -> str:
    """What makes two names the same to a reader: case and runs of spaces do not count."""
    return " ".join(name.split()).casefold()


def _entity_clash(entity: Entity, other: Entity) -> str | None:
    """Why ``entity`` cannot live next to ``other`` under its name; None when both can."""
    if name_key(entity.name) == name_key(other.name):
        return f"another entity is already called {other.name[:80]!r}; entity names must be unique (ignoring case)"
    if entity.collection is not None and other.collection is not None:
        return None  # both name their collection: a shared one is deliberate
    mine = collection_name(entity)
    if mine == collection_name(other):
        return (
            f"{entity.name[:80]!r} and {other.name[:80]!r} would both be stored in collection {mine[:80]!r} "
            "(a collection name derives from the entity name); choose another name, or set 'collection' on both "
            "to keep them in one collection on purpose"
        )
    return None


#: the role attributes of a relationship and the end whose document holds the field each names
_ROLES = (("name", "one"), ("inverse", "many"))


def _role_fields(rel: Relationship, entity: Entity) -> list[tuple[str, str]]:
    """(attribute, role) of each role of ``rel`` that names a field ``entity`` already has."""
    clashes = []
    for attr, end in _ROLES:
        role = getattr(rel, attr)
        if role is not None and getattr(rel, end) == entity.id and any(f.name == role for f in entity.fields):
            clashes.append((attr, role))
    return clashes


def _role_message(attr: str, role: str, holder: str) -> str:
    what = "role name" if attr == "name" else "inverse name"
    return (
        f"{holder[:80]!r} already has a field {role[:80]!r}; the relationship would store its links in a second "
        f"field of that name: choose another {what} (or rename the field)"
    )


def name_refused(project: Project, new: Entity | Query | Relationship) -> str | None:
    """Why the edited ``new`` (replacing the object with its id) clashes with another's name; None when it fits."""
    if isinstance(new, Relationship):
        for end in {new.one, new.many}:
            entity = next((e for e in project.entities if e.id == end), None)
            for attr, role in _role_fields(new, entity) if entity is not None else []:
                return _role_message(attr, role, entity.name)  # type: ignore[union-attr]
        for other in project.relationships:
            if other.id == new.id:
                continue
            for attr, end in (("name", "one"), ("inverse", "many")):
                role = getattr(new, attr)
                if role is not None and getattr(other, attr) == role and getattr(other, end) == getattr(new, end):
                    holder = next((e.name for e in project.entities if e.id == getattr(new, end)), "")
                    return (
                        f"another relationship of {holder[:80]!r} is already called {role[:80]!r}; both would store "
                        f"their links in one field of {holder[:80]!r}"
                    )
        return None
    if isinstance(new, Query):
        if new.name is None or not new.name.strip():
            return None
        for query in project.queries:
            if query.id != new.id and query.name is not None and name_key(query.name) == name_key(new.name):
                return (
                    f"another query is already called {query.name[:80]!r}; query names must be unique (ignoring case)"
                )
        return None
    for entity in project.entities:
        if entity.id != new.id:
            problem = _entity_clash(new, entity)
            if problem is not None:
                return problem
    for rel in project.relationships:
        for attr, role in _role_fields(rel, new):
            end = rel.one if attr == "name" else rel.many
            far = next((e.name for e in project.entities if e.id == (rel.many if end == rel.one else rel.one)), "")
            return (
                f"the relationship with {far[:80]!r} stores its links in field {role[:80]!r} of {new.name[:80]!r}; "
                "a field of that name would be a second one: choose another field name (or rename the relationship's "
                f"{'role' if attr == 'name' else 'inverse'})"
            )
    return None


def _names_of(entity: Entity, known: dict[str, set[str]]) -> set[str]:
    """The names of ``entity``'s top-level fields, kept in ``known`` by its id."""
    names = known.get(entity.id)
    if names is None:
        names = known[entity.id] = {field.name for field in entity.fields}
    return names


def check_unique_names(project: Project, report: Report, collections: Sequence[str] | None = None) -> None:
    """Report each entity or query whose name an earlier one already has, naming both places.

    ``collections``: each entity's :func:`collection_name`, when the caller has them already.
    """
    first: dict[str, int] = {}
    by_collection: dict[str, int] = {}
    entities = project.entities
    if collections is None:
        collections = [collection_name(e) for e in entities]
    for i, entity in enumerate(entities):
        key = name_key(entity.name)
        if key in first:
            j = first[key]
            report(
                f"$.entities[{i}].name",
                f"two entities are called {entity.name[:80]!r} (the other: $.entities[{j}].name); entity names "
                "must be unique, ignoring case: rename one of them",
                f"$.entities[{j}].name",
            )
            continue
        first[key] = i
        coll = collections[i]
        j = by_collection.get(coll, -1)
        if j >= 0 and (entity.collection is None or entities[j].collection is None):
            problem = _entity_clash(entity, entities[j])
            if problem is not None:
                report(
                    f"$.entities[{i}].name",
                    f"{problem} (the other: $.entities[{j}].name)",
                    f"$.entities[{j}].name",
                )
                continue
        by_collection.setdefault(coll, i)
    queries: dict[str, int] = {}
    for i, query in enumerate(project.queries):
        if query.name is None or not query.name.strip():
            continue
        key = name_key(query.name)
        if key in queries:
            j = queries[key]
            report(
                f"$.queries[{i}].name",
                f"two queries are called {query.name[:80]!r} (the other: $.queries[{j}].name); query names must be "
                "unique, ignoring case: rename one of them",
                f"$.queries[{j}].name",
            )
            continue
        queries[key] = i
    roles: dict[tuple[str, str, str], int] = {}
    by_id = {e.id: (i, e) for i, e in enumerate(entities)}
    #: entity id -> the names of its top-level fields, for the entities a role name was asked of
    field_names: dict[str, set[str]] = {}
    for i, rel in enumerate(project.relationships):
        for attr, end, side in (("name", rel.one, "one"), ("inverse", rel.many, "many")):
            role = getattr(rel, attr)
            if role is None:
                continue
            k, holder_entity = by_id.get(end, (-1, None))
            if holder_entity is not None and role in _names_of(holder_entity, field_names):
                f = next(n for n, field in enumerate(holder_entity.fields) if field.name == role)
                report(
                    f"$.relationships[{i}].{attr}",
                    f"{_role_message(attr, role, holder_entity.name)} (the field: $.entities[{k}].fields[{f}].name)",
                    f"$.entities[{k}].fields[{f}].name",
                )
                continue
            role_key = (attr, end, role)
            if role_key in roles:
                j = roles[role_key]
                holder = next((e.name for e in project.entities if e.id == end), end)
                report(
                    f"$.relationships[{i}].{attr}",
                    f"two relationships of {holder[:80]!r} are called {role[:80]!r} on its {side} side (the other: "
                    f"$.relationships[{j}].{attr}); both would store their links in one field {role[:80]!r} of "
                    f"{holder[:80]!r}: rename one of them",
                    f"$.relationships[{j}].{attr}",
                )
                continue
            roles[role_key] = i
