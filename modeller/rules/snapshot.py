"""Copies of the model objects' contents, to notice an object changed in place between two analyses.

The incremental analyser keys its results on object identity, which is only
sound while nobody mutates a kept object. Each object's attribute dict and
the lists (and dicts) it holds are copied once; a later call compares the
copies with the live objects in C (``map(operator.ne, ...)``), so checking a
whole model costs no Python-level work per object and no new copies.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from modeller.model.project import Project


def _copy_each(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """Copies of an object's lists and dicts (None stays None)."""
    return tuple(None if v is None else v.copy() for v in values)


#: (read a part of an object, copy that part)
Part = tuple[Callable[[Any], Any], Callable[[Any], Any]]

#: the attribute dict (assignments) and, in one tuple, the lists and dicts it holds (appends, item edits)
ENTITY_PARTS: tuple[Part, ...] = (
    (vars, dict.copy),
    (operator.attrgetter("fields", "indexes", "shard_key"), _copy_each),
)
REL_PARTS: tuple[Part, ...] = (
    (vars, dict.copy),
    (operator.attrgetter("denormalize", "aggregates", "tree_ops"), _copy_each),
)
QUERY_PARTS: tuple[Part, ...] = (
    (vars, dict.copy),
    (operator.attrgetter("filter", "sort", "projection", "joins"), _copy_each),
)


@dataclass(slots=True)
class Group:
    """The objects of one kind, in project order, and per part a copy of each object's part."""

    objs: list[Any]
    copies: list[list[Any]]
    parts: tuple[Part, ...]

    @classmethod
    def of(cls, objs: Sequence[Any], parts: tuple[Part, ...]) -> Group:
        return cls(list(objs), [list(map(copy, map(read, objs))) for read, copy in parts], parts)

    def same(self, objs: Sequence[Any]) -> bool:
        """Does every object still hold its copied content (``objs``: the copied objects, in order)?"""
        return all(
            all(map(operator.eq, copies, map(read, objs)))
            for (read, _), copies in zip(self.parts, self.copies, strict=True)
        )

    def then(self, objs: Sequence[Any], replaced: list[int]) -> bool:
        """Take ``objs`` as the group's objects (the same ones except at ``replaced`` positions); False when one of
        the other objects was changed in place (``objs`` as long as the copied list).

        Updated in place (copying the columns would touch every copy): after a False answer the group holds
        the new objects and their copies at ``replaced`` positions, so :meth:`mutated` still answers right.
        """
        for i in replaced:
            self.objs[i] = objs[i]
        for (read, copy), column in zip(self.parts, self.copies, strict=True):
            for i in replaced:
                column[i] = copy(read(objs[i]))
            if not all(map(operator.eq, column, map(read, objs))):
                return False
        return True

    def mutated(self, objs: Sequence[Any]) -> bool:
        """Is an object of this group, still in ``objs``, changed in place?"""
        if len(objs) == len(self.objs) and all(map(operator.is_, self.objs, objs)):
            return not self.same(objs)
        kept = {id(o) for o in objs}  # the group holds its objects: an id cannot be reused meanwhile
        for i, obj in enumerate(self.objs):
            if id(obj) in kept:
                for (read, _), copies in zip(self.parts, self.copies, strict=True):
                    if copies[i] != read(obj):
                        return True
        return False


@dataclass(slots=True)
class Snapshot:
    """Entities, relationships and queries of the last analysis, with copies of their contents."""

    ents: Group
    rels: Group
    queries: Group

    @classmethod
    def of(cls, project: Project) -> Snapshot:
        return cls(
            Group.of(project.entities, ENTITY_PARTS),
            Group.of(project.relationships, REL_PARTS),
            Group.of(project.queries, QUERY_PARTS),
        )

    def mutated(self, project: Project) -> bool:
        """Was an object of the previous analysis changed in place (same object, other content)?"""
        return (
            self.ents.mutated(project.entities)
            or self.rels.mutated(project.relationships)
            or self.queries.mutated(project.queries)
        )
