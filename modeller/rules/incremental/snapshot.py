"""Flat copies of the model objects' contents, to notice an object changed in place between two analyses.

The incremental analyser keys its results on object identity, which is only
sound while nobody mutates a kept object. A snapshot holds, per kind of
object, *columns*: every object's attribute values one after the other
(plus each object's attribute count), and a copy of every list and dict it
holds (``fields``, ``indexes``...), one column per such attribute.
The columns are read with C-level calls (``gc.get_referents`` lists what a
dict refers to: its values), so checking a whole model costs no
Python-level work per object: a later call reads the attribute values again
and compares them with ``==`` (identical items compare in one pointer test),
and compares each list or dict with its copy (one C-level ``==`` per
container). The attribute names of a model object are fixed by its class
(pydantic rejects unknown ones), so the values in order and their count
identify its content; a dict's keys in order (``Query.filter``) are a column
too (a dict's ``==`` ignores their order).
"""

from __future__ import annotations

import copy
import gc
import itertools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from modeller.model.project import Project

#: (the size of each object's part, every item of every object's part)
Column = tuple[list[int], list[Any]]
#: reads one flat column of a list of objects
Reader = Callable[[Sequence[dict[str, Any]]], Column]


#: an object's attribute dict, read through the descriptor: ``vars``/``getattr`` pass through pydantic's
#: ``__getattr__`` hook, several times slower per object
_dict_of = BaseModel.__dict__["__dict__"].__get__


def _attributes(dicts: Sequence[dict[str, Any]]) -> Column:
    """Each object's attribute count, and its attribute values in order (C-level reads)."""
    return list(map(len, dicts)), gc.get_referents(*dicts)


def _keys(name: str) -> Reader:
    """A dict attribute's keys (a dict of str keys lists only its values as referents)."""
    get = operator.itemgetter(name)

    def read(dicts: Sequence[dict[str, Any]]) -> Column:
        parts = list(map(get, dicts))
        return list(map(len, parts)), list(itertools.chain.from_iterable(parts))

    return read


def _copy(part: Any) -> Any:
    """A copy of a container attribute's value (None and other immutable values are kept as they are)."""
    return part if part is None or type(part) is tuple else copy.copy(part)


def _copies(parts: list[Any]) -> list[Any]:
    """Copies of the containers ``parts``: C-level when all are lists, or all dicts."""
    for kind in (list, dict):
        try:
            return list(map(kind.copy, parts))
        except TypeError:
            pass
    return list(map(_copy, parts))


@dataclass(frozen=True, slots=True)
class Kind:
    """What is copied of one kind of object: flat columns, and the list/dict attributes copied per object."""

    readers: tuple[Reader, ...]
    containers: tuple[str, ...]


ENTITY = Kind((_attributes,), ("fields", "indexes", "shard_key"))
RELATIONSHIP = Kind((_attributes,), ("denormalize", "aggregates", "tree_ops"))
QUERY = Kind((_attributes, _keys("filter")), ("filter", "sort", "projection", "joins"))


def _splice(old: Column, new: Column, replaced: list[int]) -> None:
    """Put ``new``'s entries of the ``replaced`` objects in place of ``old``'s (one size per object)."""
    old_sizes, old_items = old
    new_sizes, new_items = new
    old_at = new_at = done = 0
    for i in replaced:  # ascending: offsets move forward only
        old_at += sum(itertools.islice(old_sizes, done, i))
        new_at += sum(itertools.islice(new_sizes, done, i))
        n_old, n_new = old_sizes[i], new_sizes[i]
        old_items[old_at : old_at + n_old] = new_items[new_at : new_at + n_new]
        old_sizes[i] = n_new
        old_at += n_new
        new_at += n_new
        done = i + 1


@dataclass(slots=True)
class Group:
    """The objects of one kind, in project order, and the columns of their contents."""

    objs: list[Any]
    columns: list[Column]
    #: per container attribute of ``kind``: a copy of each object's container
    held: list[list[Any]]
    kind: Kind

    @classmethod
    def of(cls, objs: Sequence[Any], kind: Kind) -> Group:
        dicts = list(map(_dict_of, objs))
        held = [_copies(list(map(operator.itemgetter(name), dicts))) for name in kind.containers]
        return cls(list(objs), [read(dicts) for read in kind.readers], held, kind)

    def same(self, objs: Sequence[Any]) -> bool:
        """Does every object still hold its copied content (``objs``: the copied objects, in order)?"""
        dicts = list(map(_dict_of, objs))
        return all(read(dicts) == column for read, column in zip(self.kind.readers, self.columns, strict=True)) and all(
            list(map(operator.itemgetter(name), dicts)) == held
            for name, held in zip(self.kind.containers, self.held, strict=True)
        )

    def then(self, objs: Sequence[Any], replaced: list[int]) -> bool:
        """Take ``objs`` as the group's objects (the same ones except at ``replaced`` positions, ascending); False
        when one of the other objects was changed in place (``objs`` as long as the copied list).

        Either way the group then holds the new objects and their contents at ``replaced`` positions, and the
        copied contents elsewhere, so :meth:`mutated` still answers right after a False answer.
        """
        for i in replaced:
            self.objs[i] = objs[i]
        same = True
        dicts = list(map(_dict_of, objs))
        for read, column in zip(self.kind.readers, self.columns, strict=True):
            now = read(dicts)
            if replaced:
                _splice(column, now, replaced)
            # equal sizes align the items object by object: equal items <=> every other object is unchanged
            same = same and now == column
        for name, held in zip(self.kind.containers, self.held, strict=True):
            parts = list(map(operator.itemgetter(name), dicts))
            for i in replaced:
                held[i] = _copy(parts[i])
            same = same and parts == held
        return same

    def mutated(self, objs: Sequence[Any]) -> bool:
        """Is an object of this group, still in ``objs``, changed in place?"""
        if len(objs) == len(self.objs) and all(map(operator.is_, self.objs, objs)):
            return not self.same(objs)
        kept = {id(o) for o in objs}  # the group holds its objects: an id cannot be reused meanwhile
        for read, (sizes, items) in zip(self.kind.readers, self.columns, strict=True):
            at = 0
            for i, obj in enumerate(self.objs):
                size = sizes[i]
                if id(obj) in kept and read([_dict_of(obj)]) != ([size], items[at : at + size]):
                    return True
                at += size
        for name, held in zip(self.kind.containers, self.held, strict=True):
            for obj, copied in zip(self.objs, held, strict=True):
                if id(obj) in kept and [_dict_of(obj)[name]] != [copied]:
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
            Group.of(project.entities, ENTITY),
            Group.of(project.relationships, RELATIONSHIP),
            Group.of(project.queries, QUERY),
        )

    def mutated(self, project: Project) -> bool:
        """Was an object of the previous analysis changed in place (same object, other content)?"""
        return (
            self.ents.mutated(project.entities)
            or self.rels.mutated(project.relationships)
            or self.queries.mutated(project.queries)
        )
