"""Safe text for generated code: JS string literals, JS values and one-line comments.

Every user-supplied name is hostile (quotes, backslashes, newlines, ``</script>``,
``${...}``, ``*/``, U+2028). Generated code therefore never splices a name raw:
names become JSON string literals, and comments are forced onto one line with
every control and bidi character escaped.
"""

from __future__ import annotations

import json
import re
from typing import Any

from modeller.export.jsontext import canonical_ejson, indented
from modeller.model.text import BIDI_CONTROLS, neutralize

#: characters JSON writes raw that a reader of the script would not see as they are: DEL, C1, bidi controls
_INVISIBLE = re.compile("[\x7f-\x9f" + BIDI_CONTROLS + "]")


def harden(text: str) -> str:
    """Escape what JSON leaves alone but JS, an HTML ``<script>`` host or a code viewer would misread.

    ``text`` is JSON, so a bidi control or a C1 character can only sit inside a
    string literal, where ``\\uXXXX`` is the same value and no longer reorders
    or hides the code around it when the script is reviewed.
    """
    return _visible(text.replace("</", "<\\/").replace("<!--", "<\\u0021--"))


def _visible(text: str) -> str:
    """JSON text with line separators, DEL, C1 and bidi controls as ``\\uXXXX`` (inside strings: the same value)."""
    escaped = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    if _INVISIBLE.search(escaped) is None:
        return escaped
    return _INVISIBLE.sub(lambda m: f"\\u{ord(m.group()):04x}", escaped)


#: a ``"__proto__"`` key of JSON text: the opening quote follows ``{`` or ``,`` (inside a JSON string every
#: quote is escaped, so neither this nor a key merely ending in ``__proto__`` can match)
_PROTO_KEY = re.compile(r'([{,]\s*)"__proto__"(\s*:)')


def keep_proto_keys(json_text: str) -> str:
    """JSON text as a JS expression in which a ``"__proto__"`` key stays a key.

    In a JS object literal ``"__proto__": value`` sets the object's prototype,
    so the key vanishes (quoting does not help); the computed key
    ``["__proto__"]: value`` defines an own property, which mongosh's BSON
    serializer sends like any other.
    """
    if "__proto__" not in json_text:  # the usual case: one scan
        return json_text
    return _PROTO_KEY.sub(r'\1["__proto__"]\2', json_text)


def js_json(json_text: str) -> str:
    """JSON text (a document, an Extended JSON row) as a JS expression that evaluates to the same data."""
    return keep_proto_keys(harden(json_text))


def js_string(value: str) -> str:
    """A JS string literal that evaluates to exactly ``value``.

    JSON string syntax is a subset of JS string syntax (once U+2028/U+2029 are
    escaped); ``</`` becomes ``<\\/`` so the script can be embedded in HTML.
    """
    return harden(json.dumps(value, ensure_ascii=False))


def py_string(value: str) -> str:
    """A Python string literal that evaluates to exactly ``value`` (the generated pydantic models).

    JSON string syntax means the same in Python (``\\"``, ``\\\\``, ``\\n``,
    ``\\uXXXX``); what a reader would not see is escaped as in :func:`harden`.
    A project never holds a lone surrogate (the loader refuses it), so no
    ``\\ud8xx`` pair, which Python would read as two characters, is written.
    """
    return _visible(json.dumps(value, ensure_ascii=False))


def js_key(name: str) -> str:
    """A property name for a JS object literal: quoted, and computed for ``__proto__`` (see :func:`keep_proto_keys`)."""
    text = js_string(name)
    return f"[{text}]" if name == "__proto__" else text


def js_value(value: Any, indent: int | None = None) -> str:
    """A JSON-compatible Python value (dicts, lists, scalars) as a JS expression.

    Keys are always quoted (``a-b`` stays data) and ``__proto__`` is a computed key (:func:`keep_proto_keys`).
    """
    if indent is not None:
        return js_json(indented(value, indent))
    return js_json(json.dumps(value, ensure_ascii=False))


def ejson_text(canonical_text: str) -> str:
    """Canonical Extended JSON text as a JS expression holding exactly those BSON values.

    mongosh writes a JS number that is a whole value in int32 range as an int, so a
    double ``3.0`` or a long written as a plain number would change type (and a long
    beyond 2**53, its value); ``EJSON.deserialize(..., { relaxed: false })`` makes a
    ``$numberDouble`` a Double, a ``$numberLong`` a Long, and so on.
    """
    return f"EJSON.deserialize({js_json(canonical_text)}, {{ relaxed: false }})"


def js_exact(value: Any) -> str:
    """A value holding BSON types (float, Int64, Decimal128, datetime...) as a JS expression that keeps each type."""
    return ejson_text(canonical_ejson(value))


def one_line(text: str) -> str:
    """Text safe inside a ``//`` comment (or a Markdown line): no line terminator, control or bidi character survives.

    A newline, CR, U+2028 or U+2029 would end a ``//`` comment and turn the
    rest of a name into code; a bidi override would make the comment read
    differently from the code around it (Trojan Source).
    """
    return neutralize(text)


def comment(text: str) -> str:
    """A ``//`` comment line; names inside it should already be quoted with :func:`quoted`."""
    return "// " + one_line(text).replace("</", "<\\/").rstrip()


def quoted(name: str) -> str:
    """A name as it appears inside comments and reports: JSON-quoted, on one line."""
    return one_line(harden(json.dumps(name, ensure_ascii=False)))
