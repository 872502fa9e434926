"""Flat copies of the model objects' contents, to notice an object changed in place between two analyses.

The incremental analyser keys its results on object identity, which is only
sound while nobody mutates a kept object. A snapshot holds, per kind of
object, *columns*: every object's attribute values one after the other
(plus each object's attribute count), and likewise the items of the lists
and dicts it holds (``fields``, ``indexes``...) with each container's size.
The columns are read with C-level calls (``gc.get_referents`` lists what a
dict or list refers to: a dict's values, a list's items), so checking a
whole model costs no Python-level work per object: a later call builds the
columns again and compares them with ``==`` (identical items compare in one
pointer test). The attribute names of a model object are fixed by its class
(pydantic rejects unknown ones), so the values in order and their count
identify its content; a dict's keys (``Query.filter``) are columns too.
"""

from __future__ import annotations

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
#: reads one column of a list of objects
Reader = Callable[[Sequence[dict[str, Any]]], Column]


#: an object's attribute dict, read through the descriptor: ``vars``/``getattr`` pass through pydantic's
#: ``__getattr__`` hook, several times slower per object
_dict_of = BaseModel.__dict__["__dict__"].__get__


def _attributes(dicts: Sequence[dict[str, Any]]) -> Column:
    """Each object's attribute count, and its attribute values in order (C-level reads)."""
    return list(map(len, dicts)), gc.get_referents(*dicts)


def _items(*names: str) -> Reader:
    """The list (or dict) attributes ``names`` of each object: the size of each (None: 0) and their items (a dict's
    values), object after object."""
    get = operator.itemgetter(*names)

    def read(dicts: Sequence[dict[str, Any]]) -> Column:
        # the containers in order, None included (a tuple lists every item as a referent)
        parts = gc.get_referents(*map(get, dicts)) if len(names) > 1 else list(map(get, dicts))
        # None is no container: gc.get_referents skips it, its size is 0
        return list(map(operator.length_hint, parts)), gc.get_referents(*parts)

    return read


def _keys(name: str) -> Reader:
    """A dict attribute's keys (a dict of str keys lists only its values as referents)."""
    get = operator.itemgetter(name)

    def read(dicts: Sequence[dict[str, Any]]) -> Column:
        parts = list(map(get, dicts))
        return list(map(len, parts)), list(itertools.chain.from_iterable(parts))

    return read


#: per kind of object: (reader, sizes per object) of each column
ENTITY_READERS: tuple[tuple[Reader, int], ...] = ((_attributes, 1), (_items("fields", "indexes", "shard_key"), 3))
REL_READERS: tuple[tuple[Reader, int], ...] = ((_attributes, 1), (_items("denormalize", "aggregates", "tree_ops"), 3))
QUERY_READERS: tuple[tuple[Reader, int], ...] = (
    (_attributes, 1),
    (_items("filter", "sort", "projection", "joins"), 4),
    (_keys("filter"), 1),
)


def _splice(old: Column, new: Column, replaced: list[int], stride: int) -> None:
    """Put ``new``'s entries of the ``replaced`` objects in place of ``old``'s (``stride`` sizes per object)."""
    old_sizes, old_items = old
    new_sizes, new_items = new
    old_at = new_at = done = 0
    for i in replaced:  # ascending: offsets move forward only
        first, end = i * stride, (i + 1) * stride
        old_at += sum(itertools.islice(old_sizes, done, first))
        new_at += sum(itertools.islice(new_sizes, done, first))
        n_old, n_new = sum(old_sizes[first:end]), sum(new_sizes[first:end])
        old_items[old_at : old_at + n_old] = new_items[new_at : new_at + n_new]
        old_sizes[first:end] = new_sizes[first:end]
        old_at += n_new
        new_at += n_new
        done = end


@dataclass(slots=True)
class Group:
    """The objects of one kind, in project order, and the columns of their contents."""

    objs: list[Any]
    columns: list[Column]
    readers: tuple[tuple[Reader, int], ...]

    @classmethod
    def of(cls, objs: Sequence[Any], readers: tuple[tuple[Reader, int], ...]) -> Group:
        dicts = list(map(_dict_of, objs))
        return cls(list(objs), [read(dicts) for read, _ in readers], readers)

    def same(self, objs: Sequence[Any]) -> bool:
        """Does every object still hold its copied content (``objs``: the copied objects, in order)?"""
        dicts = list(map(_dict_of, objs))
        return all(read(dicts) == column for (read, _), column in zip(self.readers, self.columns, strict=True))

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
        for (read, stride), column in zip(self.readers, self.columns, strict=True):
            now = read(dicts)
            if replaced:
                _splice(column, now, replaced, stride)
            # equal sizes align the items object by object: equal items <=> every other object is unchanged
            same = same and now == column
        return same

    def mutated(self, objs: Sequence[Any]) -> bool:
        """Is an object of this group, still in ``objs``, changed in place?"""
        if len(objs) == len(self.objs) and all(map(operator.is_, self.objs, objs)):
            return not self.same(objs)
        kept = {id(o) for o in objs}  # the group holds its objects: an id cannot be reused meanwhile
        for (read, stride), (sizes, items) in zip(self.readers, self.columns, strict=True):
            at = 0
            for i, obj in enumerate(self.objs):
                mine = sizes[i * stride : (i + 1) * stride]
                size = sum(mine)
                if id(obj) in kept and read([_dict_of(obj)]) != (mine, items[at : at + size]):
                    return True
                at += size
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
            Group.of(project.entities, ENTITY_READERS),
            Group.of(project.relationships, REL_READERS),
            Group.of(project.queries, QUERY_READERS),
        )

    def mutated(self, project: Project) -> bool:
        """Was an object of the previous analysis changed in place (same object, other content)?"""
        return (
            self.ents.mutated(project.entities)
            or self.rels.mutated(project.relationships)
            or self.queries.mutated(project.queries)
        )
