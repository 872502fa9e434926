"""Resolve dotted field paths (``specs.ram``, ``addresses.city``) on an entity."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from modeller.model.project import ArrayItems, Entity, Field


def all_fields(entity: Entity) -> list[Field]:
    """The entity's own fields followed by every subtype variant's fields."""
    fields = list(entity.fields)
    if entity.subtypes is not None:
        for variant in entity.subtypes.variants.values():
            fields.extend(variant)
    return fields


def sub_fields(field: Field | ArrayItems) -> tuple[Field, ...]:
    """Sub-fields of an object field, or of the objects inside an array (at any depth): the one walk every
    reader of nested fields takes."""
    node = field
    while not node.fields and node.items is not None:
        node = node.items
    return node.fields or ()


def find_field(fields: Iterable[Field], path: str) -> Field | None:
    """The field at a dotted path, or None. Array elements are crossed implicitly.

    Several fields may share a name at one level (each subtype of a polymorphic
    entity may declare its own ``specs``), so every candidate is followed.
    """
    current: list[Field] = list(fields)
    found: list[Field] = []
    for part in path.split("."):
        found = [f for f in current if f.name == part]
        if not found:
            return None
        current = [child for f in found for child in sub_fields(f)]
    return found[0]


def iter_paths(fields: Iterable[Field], prefix: str = "") -> Iterator[tuple[str, Field]]:
    """Every (dotted path, field) pair, depth first, in declaration order."""
    for field in fields:
        path = f"{prefix}{field.name}"
        yield path, field
        yield from iter_paths(sub_fields(field), path + ".")


def depth(fields: Iterable[Field]) -> int:
    """Nesting depth: 1 for flat fields, +1 per sub-document or array level."""
    best = 0
    stack: list[tuple[Field | ArrayItems, int]] = [(f, 1) for f in fields]
    while stack:
        node, level = stack.pop()
        best = max(best, level)
        if node.fields:
            stack.extend((f, level + 1) for f in node.fields)
        if node.items is not None:
            stack.append((node.items, level + 1))
    return best
