"""The sentence an inferred entity's description uses for fields it left undeclared (held with several types).

Written by ``modeller.live.mixed`` (inference), read back by ``drift`` (such a field is not "not in the
design") and by the ``mixed-types`` rule (``modeller check`` names them): a field of several types the format
can name is declared with ``other_types``; this sentence keeps the rest (only nulls, a type with no name in the
format, an array of mixed elements) and every mixed field of a file written before that key.
"""

from __future__ import annotations

import re

#: the sentence's head; the entries follow it, each "`path`: type in n, other in m (share)", joined by "; "
HEAD = "held with several types (or only null), so left undeclared (no validator or generated model checks them):"
_ENTRY = re.compile(r"`([^`]+)`: ([^;`]*)")


def undeclared_entries(description: str | None) -> list[tuple[str, str]]:
    """(path, its types in words) of each field the description's :data:`HEAD` sentence names."""
    if not description or HEAD not in description:
        return []
    return [(path, words.strip()) for path, words in _ENTRY.findall(description.split(HEAD, 1)[1])]


def undeclared_paths(description: str | None) -> set[str]:
    """The paths the description's :data:`HEAD` sentence names (none when it has no such sentence)."""
    return {path for path, _ in undeclared_entries(description)}
