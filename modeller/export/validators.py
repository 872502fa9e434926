"""Validators: the engine's ``$jsonSchema`` per collection, and the same as standard JSON Schema.

The ``$jsonSchema`` is taken from the design as is (the engine owns it). The
JSON Schema (draft 2020-12) is a mechanical translation for application code
that exchanges documents as *relaxed Extended JSON* (``bson.json_util`` with
``RELAXED_JSON_OPTIONS``, or ``EJSON.stringify`` in JavaScript): ObjectIds are
``{"$oid": ...}``, dates ``{"$date": "<ISO-8601>"}``, decimals
``{"$numberDecimal": ...}``, ints and longs plain integers.
"""

from __future__ import annotations

import copy
from typing import Any

from modeller.export.jsontext import indented
from modeller.rules.physical.design import CollectionDesign

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_INT32 = (-(2**31), 2**31 - 1)

#: Extended JSON wrappers, shared through ``$defs``.
_DEFS: dict[str, dict[str, Any]] = {
    "objectId": {
        "type": "object",
        "properties": {"$oid": {"type": "string", "pattern": "^[0-9a-fA-F]{24}$"}},
        "required": ["$oid"],
        "additionalProperties": False,
    },
    "date": {
        "type": "object",
        "properties": {"$date": {"type": "string", "format": "date-time"}},
        "required": ["$date"],
        "additionalProperties": False,
    },
    "decimal": {
        "type": "object",
        "properties": {"$numberDecimal": {"type": "string"}},
        "required": ["$numberDecimal"],
        "additionalProperties": False,
    },
    "binData": {
        "type": "object",
        "properties": {
            "$binary": {
                "type": "object",
                "properties": {"base64": {"type": "string"}, "subType": {"type": "string", "pattern": "^[0-9a-f]{2}$"}},
                "required": ["base64", "subType"],
                "additionalProperties": False,
            }
        },
        "required": ["$binary"],
        "additionalProperties": False,
    },
}

#: ``$jsonSchema`` keywords copied unchanged (they mean the same in draft 2020-12).
_PLAIN_KEYWORDS = (
    "title",
    "description",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "required",
)


def collection_schema(coll: CollectionDesign) -> dict[str, Any]:
    """The collection's ``$jsonSchema`` (the engine may store it bare or wrapped)."""
    validator = coll.validator or {}
    if set(validator) == {"$jsonSchema"}:
        inner = validator["$jsonSchema"]
        return dict(inner) if isinstance(inner, dict) else {}
    return dict(validator)


def validator_document(coll: CollectionDesign) -> dict[str, Any]:
    """What ``createCollection``'s ``validator`` option takes: ``{"$jsonSchema": ...}``."""
    return {"$jsonSchema": collection_schema(coll)}


_TEXTS: dict[int, tuple[CollectionDesign, str]] = {}
_TEXTS_LIMIT = 4096


def validator_text(coll: CollectionDesign) -> str:
    """The validator document as two-space indented JSON (no final newline).

    ``validators/<collection>.json`` and the setup script show the same text;
    an export serializes it once (memoized by the collection's identity: the
    engine's designs are not mutated, and the entry keeps the object alive).
    """
    hit = _TEXTS.get(id(coll))
    if hit is not None and hit[0] is coll:
        return hit[1]
    text = indented(validator_document(coll))
    if len(_TEXTS) >= _TEXTS_LIMIT:
        _TEXTS.clear()
    _TEXTS[id(coll)] = (coll, text)
    return text


def validator_json(coll: CollectionDesign) -> str:
    """``validators/<collection>.json``: the validator as a JSON file (two-space indent)."""
    return validator_text(coll) + "\n"


def json_schema(coll: CollectionDesign, database: str | None = None) -> dict[str, Any]:
    """The collection's documents as JSON Schema draft 2020-12 over relaxed Extended JSON."""
    return _json_schema(coll, database, copies=True)


def _json_schema(coll: CollectionDesign, database: str | None, copies: bool) -> dict[str, Any]:
    """:func:`json_schema`; ``copies=False`` shares values with the validator (only to serialize them)."""
    used: set[str] = set()
    body = _translate(collection_schema(coll), used, copies)
    where = f"{database}.{coll.name}" if database else coll.name
    out: dict[str, Any] = {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": coll.name,
        "description": (
            f"Documents of the MongoDB collection {where} as relaxed Extended JSON "
            "(generated from its $jsonSchema validator)."
        ),
    }
    for key, value in body.items():
        if key not in ("title", "description"):
            out[key] = value
    if used:
        out["$defs"] = {name: copy.deepcopy(_DEFS[name]) if copies else _DEFS[name] for name in sorted(used)}
    return out


def json_schema_text(coll: CollectionDesign, database: str | None = None) -> str:
    """``schema/<collection>.schema.json``."""
    return indented(_json_schema(coll, database, copies=False)) + "\n"


def _translate(schema: Any, used: set[str], copies: bool = True) -> dict[str, Any]:
    """Translate one ``$jsonSchema`` (sub)schema; ``used`` collects the ``$defs`` it needs.

    ``copies=False`` shares keyword values (enums, required lists) with ``schema``.
    """
    if not isinstance(schema, dict):
        return {}
    out: dict[str, Any] = {}
    for key in _PLAIN_KEYWORDS:
        if key in schema:
            out[key] = copy.deepcopy(schema[key]) if copies else schema[key]
    types: list[dict[str, Any]] = []
    if "bsonType" in schema:
        names = schema["bsonType"] if isinstance(schema["bsonType"], list) else [schema["bsonType"]]
        types = [_bson_type(str(name), used) for name in names]
    elif "type" in schema:
        names = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        types = [{"type": "integer" if name == "integer" else name} for name in names]
    if len(types) == 1:
        out.update(types[0])
    elif types:
        out["anyOf"] = types
    if "properties" in schema:
        out["properties"] = {name: _translate(sub, used, copies) for name, sub in schema["properties"].items()}
    if "patternProperties" in schema:
        out["patternProperties"] = {
            pat: _translate(sub, used, copies) for pat, sub in schema["patternProperties"].items()
        }
    if "additionalProperties" in schema:
        extra = schema["additionalProperties"]
        out["additionalProperties"] = extra if isinstance(extra, bool) else _translate(extra, used, copies)
    if "items" in schema:
        items = schema["items"]
        if isinstance(items, list):
            out["prefixItems"] = [_translate(sub, used, copies) for sub in items]
        else:
            out["items"] = _translate(items, used, copies)
    for key in ("oneOf", "anyOf", "allOf"):
        if key in schema:
            translated = [_translate(sub, used, copies) for sub in schema[key]]
            if key == "anyOf" and "anyOf" in out:
                out["allOf"] = [*out.get("allOf", []), {"anyOf": out.pop("anyOf")}]
            out[key] = translated
    if "not" in schema:
        out["not"] = _translate(schema["not"], used, copies)
    return out


def _bson_type(name: str, used: set[str]) -> dict[str, Any]:
    """One ``bsonType`` as the JSON shape relaxed Extended JSON gives it."""
    if name == "string":
        return {"type": "string"}
    if name == "int":
        return {"type": "integer", "minimum": _INT32[0], "maximum": _INT32[1]}
    if name == "long":
        return {"type": "integer"}
    if name == "double":
        return {"type": "number"}
    if name == "bool":
        return {"type": "boolean"}
    if name == "object":
        return {"type": "object"}
    if name == "array":
        return {"type": "array"}
    if name == "null":
        return {"type": "null"}
    if name == "number":
        used.add("decimal")
        return {"anyOf": [{"type": "number"}, {"$ref": "#/$defs/decimal"}]}
    if name in _DEFS:
        used.add(name)
        return {"$ref": f"#/$defs/{name}"}
    # A BSON type with no JSON counterpart here (regex, timestamp, ...): say so, accept anything.
    return {"description": f"BSON type {name!r} (no JSON Schema mapping)"}
