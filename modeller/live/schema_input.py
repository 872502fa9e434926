"""``modeller infer FILE`` with a ``$jsonSchema`` validator: entities, fields, required, enums and arrays (pure).

A validator file is recognised by its shape, in any of the spellings people
keep one in: ``{"$jsonSchema": {...}}`` (a validator), ``{"validator":
{"$jsonSchema": ...}}`` (``createCollection``/``collMod`` options or a
``listCollections`` entry, whose ``name``/``create``/``collMod`` names the
collection), or a bare schema ``{"bsonType": "object", "properties": ...}``.
Otherwise the collection is named by the file (``orders.schema.json`` ->
``orders``). From the schema: ``bsonType`` (or JSON Schema ``type``) -> the
field's type, ``required`` -> required, ``enum``, ``description``, nested
``properties`` -> sub-documents, ``items``/``maxItems`` -> arrays (an array of
sub-documents -> an embedded entity whose bound is ``maxItems``), and
``oneOf`` branches that each fix one value of a shared field -> subtypes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from modeller.model.project import ArrayItems, Field, Subtypes

#: JSON Schema ``type`` and ``$jsonSchema`` aliases -> the model's field types
_TYPES = {
    "string": "string",
    "int": "int",
    "integer": "int",
    "long": "long",
    "double": "double",
    "number": "double",
    "decimal": "decimal",
    "bool": "bool",
    "boolean": "bool",
    "date": "date",
    "objectId": "objectId",
    "object": "object",
    "array": "array",
    "binData": "binData",
    "timestamp": "date",
}
MAX_DEPTH = 20


@dataclass
class SchemaCollection:
    """One collection's validator as read from a file."""

    name: str
    schema: Mapping[str, Any]
    origin: str  # the file, for messages and the entity's description


def find_schema(data: Any) -> tuple[Mapping[str, Any], str | None] | None:
    """``(the $jsonSchema, the collection it names or None)`` when ``data`` is a validator in a known spelling."""
    if not isinstance(data, Mapping):
        return None
    named = next((data[k] for k in ("collMod", "create", "name") if isinstance(data.get(k), str)), None)
    for holder in (data, data.get("options"), data.get("validator"), (data.get("options") or {}).get("validator")):
        if isinstance(holder, Mapping):
            inner = holder.get("validator") if isinstance(holder.get("validator"), Mapping) else holder
            schema = inner.get("$jsonSchema") if isinstance(inner, Mapping) else None
            if isinstance(schema, Mapping):
                return schema, named
    if ("bsonType" in data or data.get("type") == "object") and isinstance(data.get("properties"), Mapping):
        return data, named
    return None


def _types(schema: Mapping[str, Any]) -> tuple[str | None, bool]:
    """(the model type of the first non-null type, whether null is allowed)."""
    raw = schema.get("bsonType", schema.get("type"))
    kinds = [raw] if isinstance(raw, str) else [k for k in raw if isinstance(k, str)] if isinstance(raw, list) else []
    nullable = "null" in kinds
    for kind in kinds:
        if kind != "null":
            return _TYPES.get(kind, "string"), nullable
    if "enum" in schema:
        return "string", nullable
    if isinstance(schema.get("properties"), Mapping):
        return "object", nullable
    if "items" in schema:
        return "array", nullable
    return None, nullable


class SchemaReader:
    """Fields of one schema; arrays of sub-documents are handed to ``embed`` (the inferrer makes them entities)."""

    def __init__(self, embed: Any, legal: Any, skipped: list[str]) -> None:
        self.embed = embed  # (field name, element schema, maxItems or None) -> None
        self.legal = legal  # name -> bool
        self.skipped = skipped

    def fields(self, schema: Mapping[str, Any], depth: int = 0, top: bool = False) -> list[Field]:
        props = schema.get("properties")
        if not isinstance(props, Mapping) or depth > MAX_DEPTH:
            return []
        required = {r for r in schema.get("required") or () if isinstance(r, str)}
        out: list[Field] = []
        for name, prop in props.items():
            if not isinstance(prop, Mapping):
                continue
            if not self.legal(name):
                self.skipped.append(str(name))
                continue
            kind, nullable = _types(prop)
            if kind is None or (top and name == "_id" and kind == "objectId"):
                continue  # no type to go by; or the default identity
            items = prop.get("items")
            if (
                kind == "array"
                and depth == 0
                and isinstance(items, Mapping)
                and _types(items)[0] == "object"
                and isinstance(items.get("properties"), Mapping)
                and items["properties"]
            ):
                self.embed(name, items, prop.get("maxItems"))
                continue
            out.append(self.field(name, prop, kind, name in required and not nullable, depth))
        return out

    def field(self, name: str, prop: Mapping[str, Any], kind: str, required: bool, depth: int) -> Field:
        extra: dict[str, Any] = {}
        if kind == "object":
            sub = self.fields(prop, depth + 1)
            if sub:
                extra["fields"] = tuple(sub)
        elif kind == "array":
            items = prop.get("items")
            if isinstance(items, Mapping):
                element = self.items(items, depth + 1)
                if element is not None:
                    extra["items"] = element
            if isinstance(prop.get("maxItems"), int) and prop["maxItems"] >= 0:
                extra["max_items"] = prop["maxItems"]
        enum = _enum(prop)
        if enum is not None:
            extra["enum"] = enum
        description = prop.get("description") if isinstance(prop.get("description"), str) else None
        return Field(name=name, type=kind, required=required, description=description or None, **extra)

    def items(self, schema: Mapping[str, Any], depth: int) -> ArrayItems | None:
        kind, _ = _types(schema)
        if kind is None:
            return None
        extra: dict[str, Any] = {}
        if kind == "object":
            sub = self.fields(schema, depth + 1)
            if sub:
                extra["fields"] = tuple(sub)
        elif kind == "array" and isinstance(schema.get("items"), Mapping):
            inner = self.items(schema["items"], depth + 1)
            if inner is not None:
                extra["items"] = inner
        enum = _enum(schema)
        if enum is not None:
            extra["enum"] = enum
        return ArrayItems(type=kind, **extra)

    def subtypes(self, schema: Mapping[str, Any], shared: list[Field]) -> Subtypes | None:
        """``oneOf`` branches that each fix one value of a shared field -> that field is the discriminator."""
        branches = schema.get("oneOf")
        if not isinstance(branches, list) or not branches:
            return None
        variants: dict[str, tuple[Field, ...]] = {}
        discriminator = None
        for branch in branches:
            props = branch.get("properties") if isinstance(branch, Mapping) else None
            if not isinstance(props, Mapping):
                return None
            fixed = [
                (k, v["enum"][0])
                for k, v in props.items()
                if isinstance(v, Mapping) and isinstance(v.get("enum"), list) and len(v["enum"]) == 1
            ]
            if len(fixed) != 1 or (discriminator is not None and fixed[0][0] != discriminator):
                return None
            discriminator, value = fixed[0]
            rest = {"properties": {k: v for k, v in props.items() if k != discriminator}, **_required(branch)}
            variants[str(value)] = tuple(self.fields(rest, 1))
        if discriminator is None or discriminator not in {f.name for f in shared}:
            return None
        return Subtypes(discriminator=discriminator, variants=variants)


def _required(branch: Mapping[str, Any]) -> dict[str, Any]:
    return {"required": branch["required"]} if isinstance(branch.get("required"), list) else {}


def _enum(schema: Mapping[str, Any]) -> tuple[Any, ...] | None:
    values = schema.get("enum")
    if not isinstance(values, list) or not values:
        return None
    if all(isinstance(v, str) for v in values) or all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    ):
        return tuple(dict.fromkeys(values))
    return None
