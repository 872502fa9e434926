"""Tiny helpers to write mongosh snippets whose names come from users (always quoted)."""

from __future__ import annotations

import json
from typing import Any


def q(name: str) -> str:
    """A JS string literal / object key for any user-supplied name (quotes, newlines, ``</script>`` safe)."""
    if name.isascii() and name.isprintable() and '"' not in name and "\\" not in name and "</" not in name:
        return f'"{name}"'  # what json.dumps gives for printable ASCII without quote or backslash
    return json.dumps(name, ensure_ascii=True).replace("</", "<\\/")


def obj(pairs: list[tuple[str, str]]) -> str:
    """``{"a": expr, ...}`` with quoted keys and raw JS expressions as values."""
    return "{" + ", ".join(f"{q(k)}: {v}" for k, v in pairs) + "}"


def coll(name: str) -> str:
    """``db.getCollection("name")``: works for every legal collection name, unlike ``db.name``."""
    return f"db.getCollection({q(name)})"


def value(v: Any) -> str:
    return json.dumps(v, ensure_ascii=True).replace("</", "<\\/")
