"""Fields ``other_types`` cannot describe: inference leaves them undeclared and names them in the entity's description.

A field seen with several BSON types is declared with its ``other_types`` (the validator's ``bsonType`` lists each).
What that key cannot say (a field seen only as null, a type the format has no name for, an array whose elements
are of several types) is left out of the entity's fields, where nothing checks it (the validators set no
``additionalProperties: false`` and the generated models keep unknown keys), and the collection's entity names it
in one sentence of its description, which ``drift`` reads back (a field named there is not "in the database, not
in the design"). Files written before ``other_types`` name every mixed field that way and still work.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from modeller.model.mixed_fields import HEAD, undeclared_paths

if TYPE_CHECKING:
    from modeller.model.project import Project
    from modeller.rules.physical.design import Design

__all__ = ["HEAD", "Mixed", "note", "undeclared", "undeclared_paths"]


@dataclass(frozen=True)
class Mixed:
    """A field path (as drift spells it: ``total``, ``address.zip``, ``items[].unit_price``) and its types."""

    path: str
    types: Mapping[str, int]  # BSON type -> values of it (``null`` counted too)
    holders: int  # documents (or sub-documents) that hold the field

    def words(self) -> str:
        """```total`` double in 2,375, string in 125 (5 %) of 2,500`: the minority types with their share."""
        ranked = sorted(self.types.items(), key=lambda kv: (-kv[1], kv[0]))
        seen = sum(self.types.values()) or 1
        parts = [
            f"{kind} in {n:,}" + ("" if i == 0 else f" ({_percent(n, seen)})") for i, (kind, n) in enumerate(ranked)
        ]
        return f"`{self.path}`: {', '.join(parts)}"


def _percent(n: int, total: int) -> str:
    share = 100 * n / total
    return f"{share:.0f} %" if share >= 1 else "under 1 %"


def note(mixed: list[Mixed]) -> str:
    """The description's sentence naming ``mixed`` (empty for none)."""
    usable = [m for m in mixed if "`" not in m.path]
    return f"{HEAD} {'; '.join(m.words() for m in usable)}" if usable else ""


def undeclared(project: Project, design: Design) -> dict[str, set[str]]:
    """Collection -> the paths its entity's description names as left undeclared (for ``drift.compare``)."""
    entities = {e.id: e for e in project.entities}
    out: dict[str, set[str]] = {}
    for coll in design.collections:
        entity = entities.get(coll.root)
        paths = undeclared_paths(entity.description) if entity is not None else set()
        if paths:
            out[coll.name] = paths
    return out
