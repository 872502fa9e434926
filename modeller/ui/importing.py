"""What an import (from a database or from export files) does with the inferred project.

Either it becomes a new, unsaved project, or its entities are added to the
open one as ONE undo entry ("Import 3 collections from shop"). Collections
the open project already models are not imported twice: they are named in
the message, with the relationships to them that were left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from modeller.model import Project
from modeller.model.layered_layout import laid_out as laid_out  # the import dialogs' (and `infer`'s) layout
from modeller.model.text import shown
from modeller.ui.commands.composite import PasteCommand, paste_command

if TYPE_CHECKING:
    from modeller.ui.document import ProjectDocument

#: where an import goes: a new project, or into the open one
NEW_PROJECT, MERGE = "new", "merge"


@dataclass
class Imported:
    """An inferred project, laid out, and where it came from (for messages and the undo entry)."""

    project: Project
    origin: str  # "database shop" / "3 files"
    #: documents read per collection, in the order they were sampled
    documents: dict[str, int] = field(default_factory=dict)


@dataclass
class MergePlan:
    """What a merge adds, and what it leaves out and why."""

    command: PasteCommand | None
    skipped: list[str]  # collections the open project already has
    dropped_relationships: int


def merge_command(
    document: ProjectDocument, imported: Imported, existing: Iterable[str], offset: tuple[float, float]
) -> MergePlan:
    """One undoable command adding the imported entities (fresh ids and names) beside the open ones.

    ``existing`` are the collections the open project already models; their
    inferred entities, the sub-document entities embedded only in them and
    the relationships touching any of those are left out.
    """
    project = imported.project
    taken = set(existing)
    skip = {e.id for e in project.entities if e.collection is not None and e.collection in taken}
    skipped = sorted({e.collection for e in project.entities if e.id in skip and e.collection})
    growing = True
    while growing:  # sub-documents embedded in a skipped collection go with it
        growing = False
        for rel in project.relationships:
            many = next((e for e in project.entities if e.id == rel.many), None)
            if rel.one in skip and many is not None and many.collection is None and many.id not in skip:
                skip.add(many.id)
                growing = True
    entities = [e for e in project.entities if e.id not in skip]
    rels = [r for r in project.relationships if r.one not in skip and r.many not in skip]
    dropped = len(project.relationships) - len(rels)
    data = {
        "entities": [e.model_dump(mode="json", exclude_defaults=True) for e in entities],
        "relationships": [r.model_dump(mode="json", exclude_defaults=True) for r in rels],
        "layout": {k: v.model_dump() for k, v in project.layout.items() if k not in skip},
    }
    command = paste_command(document, data, offset)
    if command is not None:
        collections = sum(1 for e in entities if e.collection is not None)
        plural = "s" if collections != 1 else ""
        command.setText(f"Import {collections} collection{plural} from {shown(imported.origin, 100)}")
    return MergePlan(command, skipped, dropped)


def merge_message(plan: MergePlan, origin: str) -> str:
    """The status line after a merge: what was added, and what was left out (in the user's words)."""
    if plan.command is None:
        added = f"Nothing new from {origin}"
    else:
        added = f"{plan.command.text()}; Edit → Undo removes them again"
    if plan.skipped:
        names = ", ".join(shown(n, 60) for n in plan.skipped[:6]) + (" …" if len(plan.skipped) > 6 else "")
        added += f". Already in the project, not imported again: {names}"
    if plan.dropped_relationships:
        added += f" ({plan.dropped_relationships} relationship(s) to them left out)"
    return added
