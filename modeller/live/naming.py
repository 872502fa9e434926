"""Names for what inference finds: an entity per collection ("people" -> Person), ids that stay unique."""

from __future__ import annotations

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


def unique(base: str, taken: set[str], sep: str = "_") -> str:
    """``base``, or ``base_2``, ``base_3``... whichever is free; records the result in ``taken``."""
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}{sep}{n}"
    taken.add(name)
    return name
