"""Names for what inference finds: an entity per collection ("people" -> Person), ids that stay unique."""

from __future__ import annotations

from collections.abc import Callable

_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman", "data": "datum"}


def singular(word: str) -> str:
    """A naive English singular of a collection or field name (the inverse of ``modeller.model.names.plural``)."""
    lower = word.lower()
    if lower in _IRREGULAR:
        return _IRREGULAR[lower]
    if lower.endswith("ies") and len(word) > 3:
        return word[:-3] + "y"
    if lower.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is")) and len(word) > 1:
        return word[:-1]
    return word


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
