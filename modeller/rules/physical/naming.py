"""Names in the engine: the documented convention of ``modeller.model.conventions``, and plurals for prose.

``snake``/``plural`` are memoized in ``modeller.model.names`` (the engine asks for
the same names thousands of times per analysis).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from modeller.model.conventions import (
    child_refs_field,
    collection_name,
    embed_field,
    extended_ref_field,
    former_parent_ref_field,
    parent_ref_field,
    subset_field,
)
from modeller.model.names import plural, snake

__all__ = [
    "child_refs_field",
    "collection_name",
    "embed_field",
    "extended_ref_field",
    "former_parent_ref_field",
    "keys_text",
    "parent_ref_field",
    "plural",
    "plural_label",
    "snake",
    "subset_field",
]

_IRREGULAR = {"person": "people", "child": "children", "man": "men", "woman": "women", "datum": "data"}


# one entry per entity name: 4,096 entries thrashed at 10,000 entities (~32,000 misses per analysis)
@lru_cache(maxsize=32768)
def plural_label(name: str) -> str:
    """The plural of an entity's display name for messages: "Order item" -> "Order items".

    Only the last word changes; irregular nouns keep their capital ("Person" -> "People").
    Generated field names keep using ``plural``: this is for prose only.
    """
    head, _, last = name.rpartition(" ")
    irregular = _IRREGULAR.get(last.lower())
    if irregular is not None:
        word = irregular.capitalize() if last[:1].isupper() else irregular
    elif last.isascii() and last[:1].isalpha():  # other scripts have no -s plural
        word = plural(last)
    else:
        return name
    return f"{head} {word}" if head else word


def keys_text(keys: list[tuple[str, Any]]) -> str:
    """An index's keys as a reader sees them in a message, in the user's field names: ``{status: 1, text: 'text'}``
    (never the generated index name, ``status_1_text_text``)."""
    return "{" + ", ".join([f"{k}: {v if not isinstance(v, str) else repr(v)}" for k, v in keys]) + "}"
