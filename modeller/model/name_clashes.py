"""Two things that would claim one field of a document: a variant redeclaring an entity field with another
type, a discriminator that is also a field, a computed value named like a field.

Each loads as pydantic data but yields documents the generated validator refuses (the end-to-end fuzzer
found all three), so they are refused at load with what to rename.
"""

from __future__ import annotations

from collections.abc import Callable

from modeller.model.project import Entity, Relationship

Report = Callable[[str, str], None]


def check_subtypes(entity: Entity, where: str, report: Report) -> None:
    """Variants agree with the entity on the fields they share; the discriminator is nobody's field."""
    if entity.subtypes is None:
        return
    types = {f.name: f.type for f in entity.fields}
    name = entity.subtypes.discriminator
    if name == "_id":
        report(
            f"{where}.subtypes.discriminator",
            "the discriminator cannot be '_id': every document keeps its own _id; choose another name (e.g. 'type')",
        )
    elif name in types and types[name] != "string":
        report(
            f"{where}.subtypes.discriminator",
            f"the discriminator {name[:80]!r} holds the variant names, but the entity declares it as "
            f"{types[name]}: make that field a string or choose another discriminator",
        )
    for variant, fields in entity.subtypes.variants.items():
        for j, field in enumerate(fields):
            at = f"{where}.subtypes.variants[{variant!r}][{j}]"
            if field.name == name:
                report(
                    at, f"{field.name[:80]!r} is the discriminator: the variant cannot declare it; rename this field"
                )
            elif field.name in types and types[field.name] != field.type:
                report(
                    at,
                    f"the entity declares {field.name[:80]!r} as {types[field.name]}; a variant cannot make it "
                    f"{field.type}: use the same type or rename the variant's field",
                )


def check_aggregates(rel: Relationship, one: Entity | None, where: str, report: Report) -> None:
    """A computed value of the One must not take the name of one of its fields."""
    if one is None or not rel.aggregates:
        return
    taken = {"_id", *(f.name for f in one.fields)}
    if one.subtypes is not None:
        taken.add(one.subtypes.discriminator)
        taken.update(f.name for fields in one.subtypes.variants.values() for f in fields)
    for j, agg in enumerate(rel.aggregates):
        if agg.name in taken:
            report(
                f"{where}.aggregates[{j}].name",
                f"{one.name[:80]} already has a field {agg.name[:80]!r}: give the computed value another name",
            )
