"""Acting on advice: apply a finding's fix, or keep the design and record why.

Both are ordinary commands through the document, so one click is one undo
entry: :class:`ApplyFixCommand` runs one addition per new entity or relationship and
one edit per touched subject as its parts (:attr:`DocumentCommand.kids`); :class:`OverrideCommand` records the user's note in
``project.overrides`` (and, for a relationship, in its ``decision``) so the
engine keeps reporting the finding, marked as overridden.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from modeller.model import Decision, Entity, Override, Position, Query, Relationship, Subject
from modeller.model.ids import used_ids
from modeller.rules.framework.findings import Change, Finding, Fix, SubjectRef
from modeller.ui.commands.base import DocumentCommand
from modeller.ui.commands.entity import AddEntityCommand, EditEntityCommand
from modeller.ui.commands.query import EditQueryCommand
from modeller.ui.commands.relationship import AddRelationshipCommand, EditRelationshipCommand
from modeller.ui.edits import EditRefused, dump, set_in, validated

if TYPE_CHECKING:
    from modeller.ui.document import ProjectDocument

Editable = Entity | Relationship | Query
#: how far right of its linked card a fix's new entity is placed (a card's width and a gap)
BESIDE_DX = 320.0


def _current(document: ProjectDocument, subject: SubjectRef) -> Editable:
    """The live object a change targets, or :class:`EditRefused` naming what is missing."""
    found: Editable | None
    if subject.kind == "entity":
        found = document.entity(subject.id)
    elif subject.kind == "relationship":
        found = document.relationship(subject.id)
    elif subject.kind == "query":
        found = document.query(subject.id)
    else:
        raise EditRefused(f"a fix cannot edit a {subject.kind} directly ({subject.id})")
    if found is None:
        raise EditRefused(f"the {subject.kind} {subject.id!r} no longer exists")
    return found


def _get_in(data: Any, path: Sequence[str]) -> Any:
    for step in path:
        if not isinstance(data, dict):
            return None
        data = data.get(step)
    return data


def _apply_change(data: dict[str, Any], change: Change) -> dict[str, Any]:
    """Plain model data with one change applied (``key`` may be a dotted path)."""
    path = change.key.split(".")
    value = change.value
    if change.op in ("append", "remove"):
        current = _get_in(data, path)
        if current is not None and not isinstance(current, (list, tuple)):
            raise EditRefused(f"{change.key} is not a list; cannot {change.op} items of it")
        if change.op == "append":
            value = [*(current or []), value]
        else:
            kept = [item for item in current or [] if _item_name(item) != value]
            if len(kept) == len(current or []):
                raise EditRefused(f"{change.key} has no {value!r} any more; nothing to remove")
            value = kept
    elif change.op != "set":
        raise EditRefused(f"unknown change operation {change.op!r}")
    return set_in(data, path, value)  # type: ignore[no-any-return]


def _item_name(item: Any) -> Any:
    """What a ``remove`` change names a list item by: a field's ``name``, or a plain item itself."""
    return item.get("name") if isinstance(item, dict) else item


Added = Entity | Relationship


def added_objects(document: ProjectDocument, fix: Fix) -> list[Added]:
    """The validated new entities and relationships of a fix's ``add`` changes (in the fix's order).

    Raises :class:`EditRefused` when an id or an entity name is taken by now (the project changed since the
    analysis) or the data is refused.
    """
    taken = used_ids(document.project)
    names = {e.name for e in document.project.entities}
    out: list[Added] = []
    for change in fix.changes:
        if change.op != "add":
            continue
        kind, ident = change.subject.kind, change.subject.id
        if kind == "entity":
            new: Added = validated(Entity, change.value)
        elif kind == "relationship":
            new = validated(Relationship, change.value)
        else:
            raise EditRefused(f"a fix cannot add a {kind} ({ident})")
        if new.id != ident:
            raise EditRefused(f"the new {kind} is called {new.id!r}, not {ident!r}")
        if new.id in taken:
            raise EditRefused(f"the id {new.id!r} is already used in this project; rename that object and try again")
        if isinstance(new, Entity):
            if new.name in names:
                raise EditRefused(f"an entity is already called {new.name!r}; rename it and try again")
            names.add(new.name)
        taken.add(new.id)
        out.append(new)
    return out


def fixed_objects(document: ProjectDocument, fix: Fix) -> list[Editable]:
    """The new, validated version of every subject the fix touches (in first-touched order).

    Raises :class:`EditRefused` when a change no longer fits the model (the
    subject was deleted, or the value is refused), so the panel can say why.
    """
    order: list[tuple[str, str]] = []
    data: dict[tuple[str, str], dict[str, Any]] = {}
    types: dict[tuple[str, str], type[Editable]] = {}
    for change in fix.changes:
        if change.op == "add":
            continue  # a new object: ``added_objects``
        key = (change.subject.kind, change.subject.id)
        if key not in data:
            obj = _current(document, change.subject)
            order.append(key)
            data[key] = dump(obj)
            types[key] = type(obj)
        data[key] = _apply_change(data[key], change)
    return [validated(types[key], data[key]) for key in order]


def _edit_command(document: ProjectDocument, new: Editable) -> DocumentCommand:
    if isinstance(new, Entity):
        return EditEntityCommand(document, new)
    if isinstance(new, Relationship):
        return EditRelationshipCommand(document, new)
    return EditQueryCommand(document, new)


class ApplyFixCommand(DocumentCommand):
    """All changes of one fix as one undo entry ("Apply: Store tasks as parent references").

    New entities come first (each placed beside the entity a new relationship links it to), then the new
    relationships, then the edits, so every reference names an object that exists.
    """

    def __init__(self, document: ProjectDocument, fix: Fix, parent: DocumentCommand | None = None) -> None:
        super().__init__(document, f"Apply: {fix.description}", parent)
        self.fix = fix
        added = added_objects(document, fix)
        edits = fixed_objects(document, fix)
        rels = [obj for obj in added if isinstance(obj, Relationship)]
        for obj in added:
            if isinstance(obj, Entity):
                self.kids.append(AddEntityCommand(document, obj, _beside(document, obj, rels)))
        self.kids.extend(AddRelationshipCommand(document, rel) for rel in rels)
        self.kids.extend(_edit_command(document, new) for new in edits)


def _beside(document: ProjectDocument, entity: Entity, rels: list[Relationship]) -> Position | None:
    """A place to the right of the card a new relationship links ``entity`` to (None: the canvas places it)."""
    for rel in rels:
        other = rel.one if rel.many == entity.id else rel.many if rel.one == entity.id else None
        at = None if other is None else document.position(other)
        if at is not None:
            return Position(x=at.x + BESIDE_DX, y=at.y)
    return None


def apply_fix_command(document: ProjectDocument, finding: Finding) -> ApplyFixCommand:
    """The command applying ``finding``'s fix; :class:`EditRefused` when there is none or it no longer fits."""
    if finding.fix is None or not finding.fix.changes:
        raise EditRefused("this finding has no automatic fix")
    return ApplyFixCommand(document, finding.fix)


def override_key(rule: str, subject: SubjectRef | Subject) -> tuple[str, str, str]:
    return (rule, subject.kind, subject.id)


def find_override(document: ProjectDocument, finding: Finding) -> Override | None:
    """The override recorded for this finding's rule and subject, if any."""
    wanted = override_key(finding.rule, finding.subject)
    return next((o for o in document.project.overrides if override_key(o.rule, o.subject) == wanted), None)


class SetOverridesCommand(DocumentCommand):
    """Replace the project's override list (the primitive both override commands share)."""

    def __init__(
        self, document: ProjectDocument, overrides: list[Override], text: str, parent: DocumentCommand | None = None
    ) -> None:
        super().__init__(document, text, parent)
        self.new = list(overrides)
        self.old = list(document.project.overrides)

    def redo(self) -> None:
        self.document.replace_overrides(self.new)

    def undo(self) -> None:
        self.document.replace_overrides(self.old)


class OverrideCommand(DocumentCommand):
    """Keep the design against one finding: record the note; a relationship also gets a ``decision``.

    An existing override of the same rule and subject is replaced (editing the
    note), never duplicated.
    """

    def __init__(
        self, document: ProjectDocument, finding: Finding, note: str, parent: DocumentCommand | None = None
    ) -> None:
        super().__init__(document, f"Override {finding.rule}", parent)
        entry = validated(Override, {"rule": finding.rule, "subject": finding.subject.to_json(), "note": note})
        wanted = override_key(finding.rule, finding.subject)
        kept = [o for o in document.project.overrides if override_key(o.rule, o.subject) != wanted]
        self.kids.append(SetOverridesCommand(document, [*kept, entry], self.text()))
        if finding.subject.kind == "relationship":
            rel = document.relationship(finding.subject.id)
            if rel is not None:
                chosen = None if rel.strategy == "auto" else rel.strategy
                decision = validated(Decision, {"strategy": chosen, "note": note})
                self.kids.append(EditRelationshipCommand(document, rel.model_copy(update={"decision": decision})))


class RemoveOverrideCommand(DocumentCommand):
    """Take the advice into account again: drop the override (and the relationship's decision note)."""

    def __init__(self, document: ProjectDocument, finding: Finding, parent: DocumentCommand | None = None) -> None:
        super().__init__(document, f"Remove override {finding.rule}", parent)
        wanted = override_key(finding.rule, finding.subject)
        kept = [o for o in document.project.overrides if override_key(o.rule, o.subject) != wanted]
        self.kids.append(SetOverridesCommand(document, kept, self.text()))
        if finding.subject.kind == "relationship":
            rel = document.relationship(finding.subject.id)
            others = [o for o in kept if o.subject.kind == "relationship" and o.subject.id == finding.subject.id]
            if rel is not None and rel.decision is not None and not others:
                self.kids.append(EditRelationshipCommand(document, rel.model_copy(update={"decision": None})))
