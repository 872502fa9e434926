"""Names for what inference finds: an entity per collection ("people" -> Person), ids that stay unique."""

from __future__ import annotations

from collections.abc import Callable


def entity_label(word: str) -> str:
    """The display name of an entity from a snake or camel name: "order_item" -> "Order item"."""
    spaced = word.replace("_", " ").replace("-", " ").strip() or "Entity"
    return (spaced[:1].upper() + spaced[1:])[:200]


def unique(base: str, taken: set[str], sep: str = "_", key: Callable[[str], str] = str) -> str:
    """``base``, or ``base_2``, ``base_3``... whichever ``key`` finds free; records its key in ``taken``.

    Entity names pass ``key=snake``: names that differ only in case or spacing would derive one collection.
    """
    name, n = base, 1
    while key(name) in taken:
        n += 1
        name = f"{base}{sep}{n}"
    taken.add(key(name))
    return name
