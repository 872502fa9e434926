"""Which names MongoDB accepts, and how the engine derives names.

Names come from users and must be treated as hostile: anything a server would
refuse is caught here, with a message that says what to type instead.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic_core import PydanticCustomError

_ID = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]{0,99}$")
_DB_FORBIDDEN = set('/\\. "$*<>:|?\x00')


def check_id(value: str) -> str:
    """Ids are machine keys used in references and layouts: keep them plain."""
    if not _ID.match(value):
        raise PydanticCustomError(
            "id",
            "id {value} must start with a letter or '_' and use only letters, digits, '_' or '-' "
            "(at most 100 characters)",
            {"value": repr(value[:80])},
        )
    return value


#: Names a JavaScript object literal does not keep as a key: ``{"__proto__": x}`` sets the object's
#: prototype instead, so the generated mongosh (validators, sample documents) would silently lose the field.
JS_MANGLED_NAMES = frozenset({"__proto__"})


def check_field_name(value: str) -> str:
    """MongoDB field names: not empty, no leading '$', no NUL; no '.' (it means a path here).

    Also none that the generated mongosh scripts cannot carry (``__proto__``).
    """
    if value in JS_MANGLED_NAMES:
        raise PydanticCustomError(
            "field_name",
            "field name {value} cannot be written in the generated mongosh scripts (JavaScript treats it as "
            "the object's prototype); rename it, e.g. to {suggestion}",
            {"value": repr(value), "suggestion": repr(value.strip("_") or "field")},
        )
    if value.startswith("$"):
        raise PydanticCustomError(
            "field_name",
            "field name {value} starts with '$', which MongoDB reserves for operators; rename it",
            {"value": repr(value[:80])},
        )
    if "\x00" in value:
        raise PydanticCustomError("field_name", "field name contains a NUL character; remove it", {})
    if "." in value:
        raise PydanticCustomError(
            "field_name",
            "field name {value} contains '.', which MongoDB reads as a path into a sub-document; "
            "use '_' or declare a nested 'object' field",
            {"value": repr(value[:80])},
        )
    return value


def check_collection_name(value: str) -> str:
    """MongoDB collection names: not empty, no '$', no NUL, not 'system.*'."""
    if not value:
        raise PydanticCustomError("collection_name", "collection name is empty; type a name", {})
    if "$" in value or "\x00" in value:
        raise PydanticCustomError(
            "collection_name",
            "collection name {value} contains '$' or NUL, which MongoDB refuses; remove it",
            {"value": repr(value[:80])},
        )
    if value.startswith("system."):
        raise PydanticCustomError(
            "collection_name",
            "collection name {value} starts with 'system.', which MongoDB reserves; rename it",
            {"value": repr(value[:80])},
        )
    if len(value.encode("utf-8")) > 200:
        raise PydanticCustomError("collection_name", "collection name is longer than 200 bytes; shorten it", {})
    return value


def check_database_name(value: str) -> str:
    """MongoDB database names: at most 64 bytes, none of ``/\\. "$*<>:|?`` or NUL."""
    bad = sorted(set(value) & _DB_FORBIDDEN)
    if bad:
        raise PydanticCustomError(
            "database_name",
            "database name {value} contains {bad}, which MongoDB refuses; remove them",
            {"value": value[:80], "bad": " ".join(repr(c) for c in bad)},
        )
    if len(value.encode("utf-8")) > 63:
        raise PydanticCustomError("database_name", "database name is longer than 63 bytes; shorten it", {})
    return value


_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)


def database_name_for(project_name: str) -> str:
    """A database name MongoDB accepts, made from a project's name: ``"Shop & Stock"`` -> ``"shop_stock"``.

    File > New offers it; the user may type another. Word characters only, lower case (two databases whose
    names differ only by case cannot live on one server), at most 63 bytes.
    """
    name = snake(project_name) if _NON_WORD.sub("", project_name) else "untitled"
    while len(name.encode("utf-8")) > 63:
        name = name[:-1]
    return name.rstrip("_")


@lru_cache(maxsize=16384)  # the engine asks for the same few hundred names thousands of times per analysis
def snake(name: str) -> str:
    """``"Log Message"`` -> ``"log_message"``; the base of every generated name.

    The result is always a legal field and collection name (word characters
    only), whatever the user typed.
    """
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    out = _NON_WORD.sub("_", spaced).strip("_").lower()
    return out or "x"


@lru_cache(maxsize=16384)
def plural(word: str) -> str:
    """A naive English plural, good enough for generated field names."""
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


#: plurals the suffix rules below would get wrong
_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman", "data": "datum"}


@lru_cache(maxsize=4096)
def singular(word: str) -> str:
    """The naive singular ``plural`` undoes: ``"rooms"`` -> ``"room"``, ``"Categories"`` -> ``"Category"``.

    A name that does not end like a plural (``"owner"``, ``"status"``, ``"class"``) is kept as it is.
    """
    lower = word.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower.endswith("ies") and len(word) > 3:
        return word[:-3] + "y"
    if lower.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is")) and len(word) > 1:
        return word[:-1]
    return word
