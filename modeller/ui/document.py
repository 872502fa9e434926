"""``ProjectDocument``: the one object that changes the project, and says what changed.

Orange's ``Scheme`` is a QObject with signals; our model is plain pydantic, so
this class plays that role. Commands (``modeller.ui.commands``) call its
primitive methods; views subscribe to its fine-grained signals and never
write the model themselves. Each primitive is the exact inverse of another, so
every command can be symmetric. The model is immutable: a primitive swaps in a
new :class:`Project` that shares every object it does not replace, and a
command keeps the old and the new object, so undo brings back the very object.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Entity, Override, Position, Project, Query, Relationship
from modeller.model.conventions import collection_name
from modeller.model.names import snake
from modeller.model.unique_names import name_key
from modeller.ui.ids import slug, unique, used_ids

T = TypeVar("T")


#: The name of a project nobody has named yet; its first save names it after the file.
UNTITLED = "Untitled"


def project_stem(path: Path) -> str:
    """``blog.modeller.json`` -> ``blog``: the file's name as the user wrote it."""
    return path.name.removesuffix(".json").removesuffix(".modeller")


def empty_project(name: str = UNTITLED) -> Project:
    """What File > New shows: a named project with nothing in it."""
    return Project(format=FORMAT_NAME, format_version=FORMAT_VERSION, name=name)


class ProjectDocument(QObject):
    """Owner of the :class:`Project` and its :class:`QUndoStack`."""

    entity_added = Signal(str)
    entity_removed = Signal(str)
    entity_changed = Signal(str)
    relationship_added = Signal(str)
    relationship_removed = Signal(str)
    relationship_changed = Signal(str)
    query_added = Signal(str)
    query_removed = Signal(str)
    query_changed = Signal(str)
    #: ids of the entities whose card position changed
    layout_changed = Signal(list)
    #: project-level keys (name, database, ...) changed
    project_changed = Signal()
    #: the whole project was replaced (New, Open, Revert): views rebuild
    project_reset = Signal()
    #: any change at all (coalesced consumers such as the analysis use it)
    changed = Signal()
    #: the file path changed (title bar, recent files)
    path_changed = Signal()

    def __init__(self, project: Project | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._project = project if project is not None else empty_project()
        self._path: Path | None = None
        # id -> object indexes for O(1) lookups, built on first use and kept up to date by each edit (edit ->
        # findings <= 200 ms at 10,000 entities: rebuilding them after every edit was tens of ms); None: to build
        self._entities: dict[str, Entity] | None = None
        self._relationships: dict[str, Relationship] | None = None
        self.undo_stack = QUndoStack(self)
        for signal in (
            self.entity_added,
            self.entity_removed,
            self.entity_changed,
            self.relationship_added,
            self.relationship_removed,
            self.relationship_changed,
            self.query_added,
            self.query_removed,
            self.query_changed,
            self.layout_changed,
            self.project_changed,
            self.project_reset,
        ):
            signal.connect(self.changed)

    # ----------------------------------------------------------------- reading
    @property
    def project(self) -> Project:
        """The current project: immutable, each edit swaps in a new one (change it only through commands)."""
        return self._project

    @property
    def path(self) -> Path | None:
        return self._path

    def set_path(self, path: Path | None) -> None:
        self._path = path
        self.path_changed.emit()

    def is_modified(self) -> bool:
        return not self.undo_stack.isClean()

    def entity(self, entity_id: str) -> Entity | None:
        if self._entities is None:
            self._entities = _index(self._project.entities)
        return self._entities.get(entity_id)

    def relationship(self, rel_id: str) -> Relationship | None:
        if self._relationships is None:
            self._relationships = _index(self._project.relationships)
        return self._relationships.get(rel_id)

    def query(self, query_id: str) -> Query | None:
        return next((q for q in self._project.queries if q.id == query_id), None)

    def position(self, entity_id: str) -> Position | None:
        return self._project.layout.get(entity_id)

    def relationships_of(self, entity_id: str) -> list[Relationship]:
        return [r for r in self._project.relationships if entity_id in (r.one, r.many)]

    def unique_id(self, base: str, taken: set[str] | None = None) -> str:
        """A fresh legal id from ``base`` ("Log Message" -> ``log_message``, ``log_message_2``).

        ``taken`` holds ids a multi-object command has handed out but not inserted yet.
        """
        return unique(slug(base), used_ids(self._project) | (taken or set()))

    def unique_entity_name(self, base: str, also: Iterable[str] = ()) -> str:
        """``base`` or ``base 2``, ``base 3``...: a name no entity (nor one of ``also``) has or derives."""
        names = {name_key(e.name) for e in self._project.entities} | {name_key(n) for n in also}
        collections = {collection_name(e) for e in self._project.entities} | {snake(n) for n in also}

        def taken(name: str) -> bool:  # the same name, or the same derived collection (model/unique_names.py)
            return name_key(name) in names or snake(name) in collections

        if not taken(base):
            return base
        n = 2
        while taken(f"{base} {n}"):
            n += 1
        return f"{base} {n}"

    def unique_query_name(self, base: str) -> str:
        """``base`` or ``base 2``...: query names are unique, ignoring case (model/unique_names.py)."""
        names = {name_key(q.name) for q in self._project.queries if q.name}
        n, name = 1, base
        while name_key(name) in names:
            n += 1
            name = f"{base} {n}"
        return name

    # ----------------------------------------------------------------- editing
    def push(self, command: QUndoCommand) -> None:
        """Run ``command`` and record it (the only way views change the model)."""
        self.undo_stack.push(command)

    def reset(self, project: Project, path: Path | None = None, *, modified: bool = False) -> None:
        """Replace the whole project (New/Open/Revert/restore): history starts afresh."""
        self.undo_stack.clear()
        self._project = project
        self._entities = self._relationships = None
        self._path = path
        self.project_reset.emit()
        self.path_changed.emit()
        if modified:
            # a restored recovery file differs from what is on disk
            self.undo_stack.resetClean()
        self.undo_stack.cleanChanged.emit(self.undo_stack.isClean())

    # --- primitives: called by commands only, each paired with its inverse
    # each swaps in a new project holding the new tuple (or layout); every object it does not touch is
    # kept, so the analyser re-checks only what an edit replaced
    def _update(self, **update: Any) -> None:
        self._project = self._project.model_copy(update=update)

    def insert_entity(self, index: int, entity: Entity, position: Position | None) -> None:
        self._entities = _added(self._entities, entity, len(self._project.entities))
        ents = self._project.entities
        if position is None:
            self._update(entities=(*ents[:index], entity, *ents[index:]))
        else:
            layout = {**self._project.layout, entity.id: position}
            self._update(entities=(*ents[:index], entity, *ents[index:]), layout=layout)
        self.entity_added.emit(entity.id)

    def remove_entity(self, entity_id: str) -> tuple[int, Entity, Position | None]:
        self._entities = _removed(self._entities, entity_id, len(self._project.entities))
        ents = self._project.entities
        index = next(i for i, e in enumerate(ents) if e.id == entity_id)
        layout = self._project.layout
        position = layout.get(entity_id)
        if position is None:
            self._update(entities=_without(ents, index))
        else:
            self._update(entities=_without(ents, index), layout={k: v for k, v in layout.items() if k != entity_id})
        self.entity_removed.emit(entity_id)
        return index, ents[index], position

    def replace_entity(self, entity: Entity) -> Entity:
        self._entities = _replaced(self._entities, entity, len(self._project.entities))
        ents = self._project.entities
        index = next(i for i, e in enumerate(ents) if e.id == entity.id)
        self._update(entities=_with(ents, index, entity))
        self.entity_changed.emit(entity.id)
        return ents[index]

    def insert_relationship(self, index: int, rel: Relationship) -> None:
        self._relationships = _added(self._relationships, rel, len(self._project.relationships))
        rels = self._project.relationships
        self._update(relationships=(*rels[:index], rel, *rels[index:]))
        self.relationship_added.emit(rel.id)

    def remove_relationship(self, rel_id: str) -> tuple[int, Relationship]:
        self._relationships = _removed(self._relationships, rel_id, len(self._project.relationships))
        rels = self._project.relationships
        index = next(i for i, r in enumerate(rels) if r.id == rel_id)
        self._update(relationships=_without(rels, index))
        self.relationship_removed.emit(rel_id)
        return index, rels[index]

    def replace_relationship(self, rel: Relationship) -> Relationship:
        self._relationships = _replaced(self._relationships, rel, len(self._project.relationships))
        rels = self._project.relationships
        index = next(i for i, r in enumerate(rels) if r.id == rel.id)
        self._update(relationships=_with(rels, index, rel))
        self.relationship_changed.emit(rel.id)
        return rels[index]

    def insert_query(self, index: int, query: Query) -> None:
        queries = self._project.queries
        self._update(queries=(*queries[:index], query, *queries[index:]))
        self.query_added.emit(query.id)

    def remove_query(self, query_id: str) -> tuple[int, Query]:
        queries = self._project.queries
        index = next(i for i, q in enumerate(queries) if q.id == query_id)
        self._update(queries=_without(queries, index))
        self.query_removed.emit(query_id)
        return index, queries[index]

    def replace_query(self, query: Query) -> Query:
        queries = self._project.queries
        index = next(i for i, q in enumerate(queries) if q.id == query.id)
        self._update(queries=_with(queries, index, query))
        self.query_changed.emit(query.id)
        return queries[index]

    def set_positions(self, positions: dict[str, Position | None]) -> dict[str, Position | None]:
        """Set (or clear, with None) card positions; returns the previous ones."""
        layout = self._project.layout
        old: dict[str, Position | None] = {key: layout.get(key) for key in positions}
        self._project = self._project.with_positions(positions)  # validates the new positions only
        self.layout_changed.emit(list(positions))
        return old

    def replace_overrides(self, overrides: Sequence[Override]) -> tuple[Override, ...]:
        """Set the recorded overrides of findings; returns the previous ones."""
        old = self._project.overrides
        self._update(overrides=tuple(overrides))
        self.project_changed.emit()
        return old

    def replace_project_settings(self, project: Project) -> Project:
        """Swap in a project that differs only in project-level keys (name, database, ...)."""
        old = self._project
        self._project = project.model_copy(
            update={
                "entities": old.entities,
                "relationships": old.relationships,
                "queries": old.queries,
                "layout": old.layout,
                "overrides": old.overrides,
            }
        )
        self.project_changed.emit()
        return old


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


Ided = TypeVar("Ided", bound=_Identified)


def _index(items: Sequence[Ided]) -> dict[str, Ided]:
    """id -> object; with a repeated id (a broken file) the last one, as a lookup always gave."""
    return {x.id: x for x in items}


def _kept(index: dict[str, Ided] | None, count: int) -> dict[str, Ided] | None:
    """The index, if it can follow an edit of a list of ``count`` objects: one entry per object (unique ids; a
    file with a repeated id has its index built again after every edit)."""
    return index if index is not None and len(index) == count else None


def _added(index: dict[str, Ided] | None, item: Ided, count: int) -> dict[str, Ided] | None:
    """The index of ``count`` objects with ``item`` added (None: built again when next read)."""
    index = _kept(index, count)
    if index is None or item.id in index:
        return None
    index[item.id] = item
    return index


def _removed(index: dict[str, Ided] | None, item_id: str, count: int) -> dict[str, Ided] | None:
    """The index of ``count`` objects without ``item_id``."""
    index = _kept(index, count)
    if index is not None:
        index.pop(item_id, None)
    return index


def _replaced(index: dict[str, Ided] | None, item: Ided, count: int) -> dict[str, Ided] | None:
    """The index of ``count`` objects with ``item`` in place of the object holding its id."""
    index = _kept(index, count)
    if index is not None:
        index[item.id] = item
    return index


def _with(items: tuple[T, ...], index: int, item: T) -> tuple[T, ...]:
    """``items`` with the one at ``index`` replaced."""
    return (*items[:index], item, *items[index + 1 :])


def _without(items: tuple[T, ...], index: int) -> tuple[T, ...]:
    return items[:index] + items[index + 1 :]
