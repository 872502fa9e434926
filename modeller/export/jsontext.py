"""Fast JSON text, byte-identical to the standard writers the exporters used before.

An export of 1,000 collections writes about 2,600 JSON texts. ``json.dumps``
with ``indent`` runs the pure-Python encoder (a generator per nesting level),
and ``bson.json_util.dumps`` first copies every document through a generic
converter; together they took about half of the export. The two writers here
handle the types the exporters produce with one type dispatch per value and
fall back to the standard code for anything else, so the text never differs:

- :func:`indented` equals ``json.dumps(value, indent=n, ensure_ascii=False)``;
- :func:`canonical_ejson` equals ``bson.json_util.dumps(value,
  json_options=CANONICAL_JSON_OPTIONS, ensure_ascii=False)``.

Tests compare both against the standard writers on every sample.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from typing import Any

from bson import Binary, Decimal128, Int64, ObjectId, json_util

_encode = json.encoder.encode_basestring  # the C version of what ensure_ascii=False uses
_INT32_LOW, _INT32_HIGH = -(2**31), 2**31
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_ONE_MS = dt.timedelta(milliseconds=1)
_CANONICAL = json_util.CANONICAL_JSON_OPTIONS
_INF = float("inf")


def _float_text(value: float) -> str:
    """``json``'s spelling of a float (``allow_nan`` is on by default)."""
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return float.__repr__(value)


def _key_text(key: Any) -> str | None:
    """A dict key as ``json`` writes it, or None when ``json`` would need its generic path."""
    kind = type(key)
    if kind is str:
        return _encode(key)
    if kind is bool:
        return '"true"' if key else '"false"'
    if key is None:
        return '"null"'
    if kind is int:
        return '"' + int.__repr__(key) + '"'
    if kind is float:
        return '"' + _float_text(key) + '"'
    return None


class Rendered:
    """JSON text :func:`indented` wrote at nesting 0, embedded as is (re-indented) in a larger value.

    The setup script shows each validator that ``validators/*.json`` already
    holds; writing it once saves a third of the setup script's time.
    """

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


def indented(value: Any, indent: int = 2) -> str:
    """``json.dumps(value, indent=indent, ensure_ascii=False)``, several times faster."""
    parts: list[str] = []
    _indented(value, parts, "\n", " " * indent, indent)
    return "".join(parts)


def _indented(value: Any, parts: list[str], newline: str, step: str, indent: int) -> None:
    """Append ``value`` at the nesting whose line start is ``newline`` (``"\\n"`` plus its indentation)."""
    kind = type(value)
    if kind is str:
        parts.append(_encode(value))
    elif kind is dict:
        if not value:
            parts.append("{}")
            return
        start = len(parts)
        inner = newline + step
        separator = "{" + inner
        for key, item in value.items():
            key_text = _key_text(key)
            if key_text is None:  # a key json converts some other way (or refuses): the generic path
                del parts[start:]
                parts.append(_fallback(value, newline, indent))
                return
            parts.append(separator + key_text + ": ")
            _indented(item, parts, inner, step, indent)
            separator = "," + inner
        parts.append(newline + "}")
    elif kind is list or kind is tuple:
        if not value:
            parts.append("[]")
            return
        inner = newline + step
        separator = "[" + inner
        for item in value:
            parts.append(separator)
            _indented(item, parts, inner, step, indent)
            separator = "," + inner
        parts.append(newline + "]")
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif kind is int:
        parts.append(int.__repr__(value))
    elif kind is float:
        parts.append(_float_text(value))
    elif kind is Rendered:
        parts.append(value.text.replace("\n", newline))
    else:
        parts.append(_fallback(value, newline, indent))


def _fallback(value: Any, newline: str, indent: int) -> str:
    """The standard encoder for a value of another type, re-indented to sit at its nesting.

    JSON text has no raw newline inside strings, so every newline is layout.
    """
    return json.dumps(value, indent=indent, ensure_ascii=False).replace("\n", newline)


def canonical_ejson(value: Any) -> str:
    """Canonical Extended JSON on one line, as ``bson.json_util.dumps`` writes it."""
    parts: list[str] = []
    _ejson(value, parts)
    return "".join(parts)


def _ejson(value: Any, parts: list[str]) -> None:
    kind = type(value)
    if kind is dict:
        start = len(parts)
        separator = "{"
        for key, item in value.items():
            if type(key) is not str:  # json_util converts odd keys its own way
                del parts[start:]
                parts.append(_ejson_fallback(value))
                return
            parts.append(separator + _encode(key) + ": ")
            _ejson(item, parts)
            separator = ", "
        parts.append("}" if separator == ", " else "{}")
    elif kind is str:
        parts.append(_encode(value))
    elif kind is int:
        if _INT32_LOW <= value < _INT32_HIGH:
            parts.append('{"$numberInt": "' + int.__repr__(value) + '"}')
        else:
            parts.append('{"$numberLong": "' + int.__repr__(value) + '"}')
    elif kind is ObjectId:
        parts.append('{"$oid": "' + str(value) + '"}')
    elif kind is dt.datetime:
        aware = value if value.utcoffset() is not None else value.replace(tzinfo=dt.UTC)
        parts.append('{"$date": {"$numberLong": "' + str((aware - _EPOCH) // _ONE_MS) + '"}}')
    elif kind is list:
        separator = "["
        for item in value:
            parts.append(separator)
            _ejson(item, parts)
            separator = ", "
        parts.append("]" if separator == ", " else "[]")
    elif value is None:
        parts.append("null")
    elif kind is bool:
        parts.append("true" if value else "false")
    elif kind is float and value == value and value not in (_INF, -_INF):
        parts.append('{"$numberDouble": "' + float.__repr__(value) + '"}')
    elif kind is Int64:
        parts.append('{"$numberLong": "' + str(value) + '"}')
    elif kind is Decimal128:
        parts.append('{"$numberDecimal": ' + _encode(str(value)) + "}")
    elif kind is Binary or kind is bytes:
        subtype = value.subtype if kind is Binary else 0
        data = base64.b64encode(value).decode()
        parts.append('{"$binary": {"base64": "' + data + '", "subType": "' + f"{subtype:02x}" + '"}}')
    else:
        parts.append(_ejson_fallback(value))


def _ejson_fallback(value: Any) -> str:
    return json_util.dumps(value, json_options=_CANONICAL, ensure_ascii=False)
