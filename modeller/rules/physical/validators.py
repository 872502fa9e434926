"""``$jsonSchema`` validators generated from document shapes.

Nested ``properties``, ``required``, ``bsonType``, ``maxItems`` for bounded
arrays, ``enum``; polymorphic collections get the shared fields at the top
and one ``oneOf`` branch per variant (discriminator value + its fields).
"""

from __future__ import annotations

from typing import Any

from modeller.rules.physical.design import ShapeNode


def node_schema(node: ShapeNode) -> dict[str, Any]:
    kinds = [node.bson_type, *node.other_types]
    if node.nullable and "null" not in kinds:
        kinds.append("null")
    schema: dict[str, Any] = {"bsonType": kinds if len(kinds) > 1 else node.bson_type}
    if node.enum:
        # an enum refuses what it does not list: a null the field may hold is listed
        schema["enum"] = [*node.enum, None] if "null" in node.other_types and None not in node.enum else list(node.enum)
    if node.description:
        schema["description"] = node.description
    if node.bson_type == "object":
        if node.children:
            # an embedded element of an entity with subtypes: a variant's field is not every element's
            _add_properties(schema, node.children, variants_required=False)
    elif node.bson_type == "array":
        if node.max_items is not None:
            schema["maxItems"] = node.max_items
        if node.items is not None:
            schema["items"] = node_schema(node.items)
    return schema


def object_schema(children: list[ShapeNode]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    _add_properties(out, children)
    return out


def _add_properties(schema: dict[str, Any], children: list[ShapeNode], variants_required: bool = True) -> None:
    """``properties`` (and ``required`` when any) of a sub-document, added to ``schema`` in that order."""
    props: dict[str, Any] = {}
    required: list[str] = []
    for child in children:
        props[child.name] = node_schema(child)
        if child.variant is not None and not variants_required:
            continue
        if child.required and child.name not in required:
            required.append(child.name)
    schema["properties"] = props
    if required:
        schema["required"] = required


def collection_validator(shape: list[ShapeNode], discriminator: str | None = None) -> dict[str, Any]:
    """The ``validator`` option of ``createCollection`` for documents of ``shape``."""
    shared = [n for n in shape if n.variant is None]
    schema: dict[str, Any] = {"bsonType": "object"}
    schema.update(object_schema(shared))
    variants: dict[str, list[ShapeNode]] = {}
    for node in shape:
        if node.variant is not None:
            variants.setdefault(node.variant, []).append(node)
    disc = next((n for n in shared if n.role == "discriminator"), None)
    if disc is not None and disc.enum:
        branches = []
        for value in disc.enum:
            nodes = variants.get(str(value), [])
            branch: dict[str, Any] = {"properties": {disc.name: {"enum": [value]}}}
            body = object_schema(nodes)
            branch["properties"].update(body["properties"])
            if body.get("required"):
                branch["required"] = body["required"]
            branches.append(branch)
        schema["oneOf"] = branches
    return {"$jsonSchema": schema}
