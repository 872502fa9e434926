"""Groups of similar fields (``release_US``, ``release_France``, ...): the attribute pattern's input.

Fields that share a name stem (before the first or after the last ``_``)
and a value type are one attribute group; the attribute pattern turns such
a group into an array of ``{k, v}`` sub-documents with one compound index.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from modeller.model.project import Field

#: only scalar fields can become the ``v`` of a key/value pair
_SCALAR_SKIP = frozenset({"object", "array"})


@dataclass(frozen=True, slots=True)
class AttributeGroup:
    """Fields that differ only by one part of their name: that part becomes ``k``, the value ``v``."""

    stem: str
    type: str
    #: (field name, its key: the part of the name that differs)
    members: tuple[tuple[str, str], ...]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.members]

    @property
    def array(self) -> str:
        """The array field the group becomes (``release`` -> ``releases``)."""
        return self.stem if self.stem.endswith("s") else self.stem + "s"


def attribute_groups(fields: Iterable[Field], minimum: int) -> list[AttributeGroup]:
    """Groups of at least ``minimum`` scalar fields of one type sharing a stem, largest first, each field in one."""
    candidates: dict[tuple[str, str, str], list[tuple[str, str]]] = {}
    for f in fields:
        if f.type in _SCALAR_SKIP or "_" not in f.name.strip("_"):
            continue
        head, _, tail = f.name.partition("_")
        start, _, last = f.name.rpartition("_")
        if head and tail:
            candidates.setdefault(("prefix", head, f.type), []).append((f.name, tail))
        if start and last:
            candidates.setdefault(("suffix", last, f.type), []).append((f.name, start))
    taken: set[str] = set()
    out: list[AttributeGroup] = []
    for (_, stem, kind), members in sorted(candidates.items(), key=lambda item: -len(item[1])):
        free = tuple(m for m in members if m[0] not in taken)
        if len(free) < minimum:
            continue
        taken.update(name for name, _ in free)
        out.append(AttributeGroup(stem, kind, free))
    return out
