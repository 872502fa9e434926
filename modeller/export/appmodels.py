"""The application models of a design, language-neutral: named models, their fields and field types.

The pydantic and TypeScript exporters render the same plan, so both name a
sub-document the same way and agree on which fields are optional. The plan is
built from the resolved document shapes (not from the ``$jsonSchema``): a shape
node knows the embedded entity and the subtype it belongs to, which gives the
nested models the user's names. Names are made from the user's words (entity
and field names) as ASCII identifiers, unique in the generated file and never
one of the names the file imports (``reserved``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Set
from dataclasses import dataclass, field
from typing import Any

from modeller.model.project import Project
from modeller.rules.physical.design import CollectionDesign, Design, ShapeNode


@dataclass(frozen=True, slots=True)
class Scalar:
    """A BSON scalar (``bson`` is the ``bsonType``; ``enum`` the allowed values, if any)."""

    bson: str
    enum: tuple[Any, ...] | None = None


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A sub-document with declared fields: the model named ``name``."""

    name: str


@dataclass(frozen=True, slots=True)
class ArrayOf:
    """An array; ``items`` None when the element is not described; ``max_items`` its bound."""

    items: TypeRef | None
    max_items: int | None = None


@dataclass(frozen=True, slots=True)
class LiteralOf:
    """The discriminator of one subtype: exactly ``value``."""

    value: Any


@dataclass(frozen=True, slots=True)
class UnionOf:
    """A field the data holds with several types (its ``other_types``): any of ``options``."""

    options: tuple[TypeRef, ...]


TypeRef = Scalar | ModelRef | ArrayOf | LiteralOf | UnionOf


@dataclass(frozen=True, slots=True)
class FieldPlan:
    """One field of a model: its key in the document, its type, whether it must be there and may be null."""

    key: str
    type: TypeRef
    required: bool
    nullable: bool
    description: str | None = None


@dataclass(slots=True)
class ModelPlan:
    """One model (a document or a sub-document); ``base`` names the shared model a subtype extends."""

    name: str
    fields: list[FieldPlan]
    #: what the model describes, in the user's words (for a comment)
    about: str
    base: str | None = None


@dataclass(slots=True)
class CollectionPlan:
    """A collection's documents: one model, or a union of subtype models told apart by ``discriminator``."""

    collection: str
    name: str
    #: models in dependency order: every model after the models its fields use
    models: list[ModelPlan]
    #: subtypes: the discriminator's key and the model of each value (empty without subtypes)
    discriminator: str | None = None
    variants: list[tuple[Any, str]] = field(default_factory=list)


class Namer:
    """Unique identifiers made from user words; ``reserved`` and ``shared`` names are never given.

    ``shared`` is looked into, not copied: the pydantic exporter makes a namer per model, each avoiding every
    class name of the file, and copying those thousands of names per model made the export quadratic.
    """

    def __init__(self, reserved: Iterable[str], shared: Set[str] = frozenset()) -> None:
        self.taken = set(reserved)
        self.shared = shared

    def is_taken(self, name: str) -> bool:
        """Whether ``name`` was given or may not be."""
        return name in self.taken or name in self.shared

    def give(self, *words: str) -> str:
        """``give("order", "line items")`` -> ``OrderLineItems`` (``OrderLineItems2`` when taken)."""
        return self.free("".join(pascal(word) for word in words) or "Model")

    def free(self, base: str, suffix: str = "") -> str:
        """``base + suffix``, or ``base2 + suffix``, ... : the first not taken, now taken."""
        name, n = base + suffix, 1
        while self.is_taken(name):
            n += 1
            name = f"{base}{n}{suffix}"
        self.taken.add(name)
        return name


def pascal(text: str) -> str:
    """User words as a PascalCase ASCII identifier part: ``"line items"`` -> ``LineItems``, ``"été"`` -> ``Ete``."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    parts = [p for p in re.split(r"[^A-Za-z0-9]+", ascii_text) if p]
    out = "".join(p[0].upper() + p[1:] for p in parts)
    return f"M{out}" if out[:1].isdigit() else out


def plan(design: Design, project: Project, reserved: Iterable[str]) -> list[CollectionPlan]:
    """A plan per collection of ``design``, in the design's order, with names unique across all of them."""
    namer = Namer(reserved)
    names = {entity.id: entity.name for entity in project.entities}
    return [_collection(coll, names, namer) for coll in design.collections]


def _collection(coll: CollectionDesign, names: dict[str, str], namer: Namer) -> CollectionPlan:
    root_name = names.get(coll.root, coll.name)
    name = namer.give(root_name)
    about = f"collection {coll.name}"
    models: list[ModelPlan] = []
    disc = next((n for n in coll.shape if n.role == "discriminator" and n.variant is None), None)
    if disc is None or not disc.enum:
        fields = _fields([n for n in coll.shape if n.variant is None], name, names, namer, models)
        models.append(ModelPlan(name, fields, about))
        return CollectionPlan(coll.name, name, models)
    shared = namer.give(root_name, "shared")
    shared_fields = _fields([n for n in coll.shape if n.variant is None and n is not disc], name, names, namer, models)
    models.append(ModelPlan(shared, shared_fields, f"fields every subtype of {coll.name} has"))
    variants: list[tuple[Any, str]] = []
    for value in disc.enum:
        variant = namer.give(root_name, str(value))
        nodes = [n for n in coll.shape if n.variant == str(value)]
        own = _fields(nodes, variant, names, namer, models)
        tag = FieldPlan(disc.name, LiteralOf(value), required=True, nullable=False, description=disc.description)
        models.append(ModelPlan(variant, [tag, *own], f"{about}, subtype {value}", base=shared))
        variants.append((value, variant))
    return CollectionPlan(coll.name, name, models, disc.name, variants)


def _fields(
    nodes: list[ShapeNode], owner: str, names: dict[str, str], namer: Namer, models: list[ModelPlan]
) -> list[FieldPlan]:
    """One field per key: when the shape holds a key twice (it should not), the later node wins, as in the validator."""
    out: dict[str, FieldPlan] = {}
    for node in nodes:
        typ = _type(node, owner, names, namer, models)
        others = tuple(Scalar(kind) for kind in node.other_types if kind != "null")
        if others:
            typ = UnionOf((typ, *others))
        nullable = node.nullable or "null" in node.other_types
        out[node.name] = FieldPlan(node.name, typ, node.required, nullable, node.description)
    return list(out.values())


def _type(
    node: ShapeNode, owner: str, names: dict[str, str], namer: Namer, models: list[ModelPlan], label: str = ""
) -> TypeRef:
    """The type of ``node``; ``label`` names an array's element model after the array field."""
    if node.bson_type == "array":
        items = None if node.items is None else _type(node.items, owner, names, namer, models, node.name)
        return ArrayOf(items, node.max_items)
    if node.bson_type == "object" and node.children:
        return _sub_model(node, owner, names, namer, models, label or node.name)
    return Scalar(node.bson_type, tuple(node.enum) if node.enum else None)


def _sub_model(
    node: ShapeNode, owner: str, names: dict[str, str], namer: Namer, models: list[ModelPlan], label: str
) -> ModelRef:
    """A model for an object node: the embedded entity's name, else the owner's name and the field's."""
    if node.role == "embedded" and node.entity in names:
        name = namer.give(names[node.entity])
        about = f"{names[node.entity]} embedded in {owner}"
    else:
        name = namer.give(owner, label)
        about = f"sub-document {label} of {owner}"
    fields = _fields(node.children, name, names, namer, models)
    models.append(ModelPlan(name, fields, about))
    return ModelRef(name)
