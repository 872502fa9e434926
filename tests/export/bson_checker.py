"""A BSON-aware ``$jsonSchema`` checker for tests: ``jsonschema`` plus a ``bsonType`` keyword.

MongoDB's ``$jsonSchema`` is draft 4 with ``bsonType`` added (and ``$ref``,
``definitions``, ``format`` unsupported). Documents are checked as the server
sees them: as BSON values loaded from canonical Extended JSON (int32 stays
``int``, int64 is ``Int64``, doubles are ``float``, dates ``datetime``); ``enum``
compares numbers by value across their BSON types, as the server does.
"""

from __future__ import annotations

import datetime as dt
import math
import uuid
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import jsonschema
from bson import Binary, Decimal128, Int64, ObjectId, Regex, Timestamp, json_util
from bson.decimal128 import create_decimal128_context
from jsonschema.exceptions import ValidationError

LOAD_OPTIONS = json_util.CANONICAL_JSON_OPTIONS.with_options(tz_aware=True, tzinfo=dt.UTC)

INT32 = (-(2**31), 2**31 - 1)


def is_bson_type(value: Any, name: str) -> bool:
    """Whether ``value`` (as pymongo decodes BSON) has the BSON type ``name``."""
    if name == "double":
        return type(value) is float
    if name == "string":
        return isinstance(value, str)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "binData":
        return isinstance(value, (Binary, uuid.UUID)) or type(value) is bytes
    if name == "objectId":
        return isinstance(value, ObjectId)
    if name == "bool":
        return isinstance(value, bool)
    if name == "date":
        return isinstance(value, dt.datetime)
    if name == "null":
        return value is None
    if name == "int":
        return type(value) is int and INT32[0] <= value <= INT32[1]
    if name == "long":
        return isinstance(value, Int64)
    if name == "decimal":
        return isinstance(value, Decimal128)
    if name == "number":
        return any(is_bson_type(value, kind) for kind in ("int", "long", "double", "decimal"))
    if name == "regex":
        return isinstance(value, Regex)
    if name == "timestamp":
        return isinstance(value, Timestamp)
    raise ValueError(f"unknown bsonType {name!r}")


def _bson_type(validator: Any, expected: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    names = expected if isinstance(expected, list) else [expected]
    if not any(is_bson_type(instance, name) for name in names):
        yield ValidationError(f"{instance!r} is not of bsonType {expected!r}")


def _numeric(value: Any) -> Decimal | None:
    """A BSON number's value (int, Int64, double, Decimal128) for comparing across types; None otherwise."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Decimal128):
        return value.to_decimal()
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float) and math.isfinite(value):
        return create_decimal128_context().create_decimal(value)  # the server compares a double's value to 34 digits
    return None


def _enum(validator: Any, enums: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """``enum`` as the server compares: numbers by value whatever their BSON type (``NumberDecimal("0.0")`` is ``0.0``),
    everything else as ``jsonschema`` does (``true`` is not ``1``)."""
    number = _numeric(instance)
    if number is not None and any(_numeric(value) == number for value in enums):
        return
    yield from jsonschema._keywords.enum(validator, enums, instance, schema)


def _is_number(checker: Any, instance: Any) -> bool:
    return is_bson_type(instance, "number")


_TYPES = jsonschema.Draft4Validator.TYPE_CHECKER.redefine("number", _is_number)
BsonValidator = jsonschema.validators.extend(
    jsonschema.Draft4Validator, validators={"bsonType": _bson_type, "enum": _enum}, type_checker=_TYPES
)


def unwrap(validator: dict[str, Any]) -> dict[str, Any]:
    """The ``$jsonSchema`` inside a ``{"$jsonSchema": ...}`` validator (or the schema itself)."""
    return validator["$jsonSchema"] if set(validator) == {"$jsonSchema"} else validator


def errors(validator: dict[str, Any], doc: Any) -> list[str]:
    """Every way ``doc`` breaks ``validator`` (empty when it passes), as readable lines."""
    checker = BsonValidator(unwrap(validator))
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(document)'}: {e.message[:200]}"
        for e in sorted(checker.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    ]


def load_docs(text: str) -> list[dict[str, Any]]:
    """Documents of a ``samples/<collection>.json`` file, as BSON values."""
    docs = json_util.loads(text, json_options=LOAD_OPTIONS)
    assert isinstance(docs, list)
    return docs
