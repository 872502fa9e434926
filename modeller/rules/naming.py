"""The naming convention of ``modeller.model.conventions`` with ``snake``/``plural`` memoized.

``snake`` is two regex passes; the engine asks for the same few hundred
names thousands of times per analysis (every reference, copy and collection
name), so the results are cached. The functions mirror
``modeller.model.conventions`` exactly (``tests/rules/test_naming.py``
checks that they agree).
"""

from __future__ import annotations

from functools import lru_cache

from modeller.model import names as _names
from modeller.model.project import Entity, Relationship

#: bounded: user-typed names are arbitrary, the cache must not grow with every keystroke forever
snake = lru_cache(maxsize=16384)(_names.snake)
plural = lru_cache(maxsize=16384)(_names.plural)


def collection_name(entity: Entity) -> str:
    return entity.collection or snake(entity.name)


def parent_ref_field(rel: Relationship, one: Entity) -> str:
    return f"{rel.inverse or snake(one.name)}_id"


def child_refs_field(rel: Relationship, many: Entity) -> str:
    return f"{snake(many.name)}_ids"


def embed_field(rel: Relationship, many: Entity) -> str:
    if rel.name:
        return rel.name
    return snake(many.name) if rel.cardinality == "one-to-one" else plural(snake(many.name))


def subset_field(rel: Relationship, many: Entity) -> str:
    return "recent_" + (rel.name or plural(snake(many.name)))


def extended_ref_field(rel: Relationship, one: Entity) -> str:
    return rel.inverse or snake(one.name)


_IRREGULAR = {"person": "people", "child": "children", "man": "men", "woman": "women", "datum": "data"}


@lru_cache(maxsize=4096)
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
        word = _names.plural(last)
    else:
        return name
    return f"{head} {word}" if head else word
