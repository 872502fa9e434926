"""Turn pydantic's validation errors into located, human problems.

A user reads "expected one of 'one-to-one', ... got 'one-to-lots'" and
"missing required key 'cardinality'", never pydantic's type names or URLs.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from typing import Any

from pydantic import ValidationError

from modeller.model.text import shorten
from modeller.persistence.jsonpath import Path, PathPart

_KINDS = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "tuple_type": "a list of two items",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "none_required": "null",
}
# the names pydantic gives the members of a union in an error location
_UNION_TAGS = {
    "bool": "true or false",
    "int": "an integer",
    "float": "a number",
    "constrained-float": "a number",
    "str": "a string",
    "constrained-str": "a string",
    "constrained-int": "an integer",
}
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'")


def show(value: Any) -> str:
    """A short, JSON-flavoured rendering of a bad value for a message."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, str):
        return repr(shorten(value, 60))
    return shorten(repr(value), 40)


def _resolve(data: Any, loc: tuple[Any, ...]) -> tuple[Path, tuple[Any, ...], Any]:
    """Split pydantic's ``loc`` into the real JSON path, the trailing tags, and the value there."""
    path: list[PathPart] = []
    node = data
    for i, part in enumerate(loc):
        in_dict = isinstance(node, dict) and isinstance(part, str) and part in node
        if in_dict or (isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)):
            node = node[part]
        else:
            return tuple(path), tuple(loc[i:]), node
        path.append(part)
    return tuple(path), (), node


def _literal_message(expected: str, value: Any) -> str:
    options = _QUOTED.findall(expected)
    if len(options) <= 2 and " or " in expected and "," not in expected:
        message = f"expected {expected}, got {show(value)}"
    else:
        message = f"expected one of {expected.replace(' or ', ', ')}, got {show(value)}"
    if isinstance(value, str) and options:
        close = difflib.get_close_matches(value, options, n=1, cutoff=0.6)
        if close:
            message += f"; did you mean {close[0]!r}?"
    return message


def _message(err: dict[str, Any], path: Path, tags: tuple[Any, ...], value: Any) -> tuple[Path, str]:
    """The located message for one pydantic error (``path`` may be refined, e.g. to the bad key)."""
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if tags and tags[-1] == "[key]":
        # a dict key failed validation; ``path`` already ends at it when the key exists in the data
        if len(tags) > 1:
            key, path = tags[0], (*path, str(tags[0]))
        else:
            key = path[-1] if path else ""
        _, text = _message({**err, "loc": ()}, (), (), key)
        return path, f"key {show(key)}: {text}"
    if kind == "number" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return path, f"expected a number, got {show(value)}"
    if kind == "missing":
        missing = tags[0] if tags else (path[-1] if path else "?")
        if isinstance(missing, int):
            return path, f"missing item {missing}: expected a list of two items"
        return path, f"missing required key {missing!r}"
    if kind == "unknown_key":
        bad = ctx.get("key", "")
        if isinstance(value, dict):
            for key in value:
                if repr(str(key)[:80]) == bad:
                    return (*path, str(key)), err["msg"]
        return path, err["msg"]
    if kind == "extra_forbidden":
        return path, f"unknown key {show(path[-1] if path else '')}"
    if kind == "literal_error":
        return path, _literal_message(str(ctx.get("expected", "")), value)
    if kind in _KINDS:
        return path, f"expected {_KINDS[kind]}, got {show(value)}"
    if kind == "string_too_short":
        if ctx.get("min_length") == 1:
            return path, "must not be empty"
        return path, f"must have at least {ctx.get('min_length')} characters"
    if kind == "string_too_long":
        length = len(value) if isinstance(value, str) else "?"
        return path, f"is too long: {length} characters, at most {ctx.get('max_length')} allowed"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {
            "greater_than_equal": ("at least", "ge"),
            "greater_than": ("greater than", "gt"),
            "less_than_equal": ("at most", "le"),
            "less_than": ("less than", "lt"),
        }[kind]
        return path, f"must be {words[0]} {ctx.get(words[1])}, got {show(value)}"
    if kind == "too_short":
        least = ctx.get("min_length")
        return path, f"needs at least {least} item{'s' if least != 1 else ''}"
    if kind == "too_long":
        if isinstance(value, (list, tuple)) and ctx.get("max_length") == 2:
            return path, f"expected a list of two items, got {len(value)} items"
        return path, f"has too many items: at most {ctx.get('max_length')} allowed"
    if kind == "string_pattern_mismatch":
        if path and path[-1] == "server_version":
            return path, f"expected a version number such as '7.0' or '6.0.5', got {show(value)}"
        return path, f"{show(value)} does not match the pattern {ctx.get('pattern')!r}"
    if kind == "recursion_loop":
        return path, "nested too deeply"
    if kind == "bounds":
        return (*path, "max"), err["msg"]
    if kind == "aggregate":
        return path, err["msg"]
    if kind == "shape":
        key = re.match(r"'(\w+)'", err["msg"])
        return ((*path, key.group(1)) if key else path), err["msg"]
    return path, str(err["msg"])


def problems_from_validation(exc: ValidationError, data: Any) -> list[tuple[Path, str]]:
    """Every error of ``exc`` as (JSON path, message), union members folded into one message."""
    out: list[tuple[Path, str]] = []
    unions: dict[Path, tuple[list[str], Any]] = {}
    for details in exc.errors(include_url=False, include_context=True):
        err: dict[str, Any] = dict(details)
        path, tags, value = _resolve(data, tuple(err["loc"]))
        if tags and isinstance(tags[-1], str) and tags[-1] in _UNION_TAGS and len(tags) == 1:
            kinds, _ = unions.setdefault(path, ([], value))
            kind = _UNION_TAGS[tags[-1]]
            if err["type"].endswith(("_type", "_parsing")):
                if kind not in kinds:
                    kinds.append(kind)
                continue
            # a member accepted the type but refused the value (too long, NaN): say that
            out.append(_message(err, path, (), value))
            continue
        out.append(_message(err, path, tags, value))
    for path, (kinds, value) in unions.items():
        if any(p == path for p, _ in out):
            continue
        out.append((path, f"expected {_join(kinds)}, got {show(value)}"))
    return _dedupe(out)


def _join(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def _dedupe(items: Iterable[tuple[Path, str]]) -> list[tuple[Path, str]]:
    """First occurrences, in order (a union can report one problem through several members)."""
    return list(dict.fromkeys(items))
