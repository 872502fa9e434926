"""Undoable edits: small symmetric ``QUndoCommand`` s that touch only the document.

Orange's ``document/commands.py`` is the model: each command records what it
needs to undo itself at ``redo`` time; a delete is a parent command whose
children undo in reverse order, so original positions come back exactly.
"""

from modeller.ui.commands.composite import (
    DeleteCommand,
    PasteCommand,
    delete_command,
    paste_command,
)
from modeller.ui.commands.entity import AddEntityCommand, EditEntityCommand, RemoveEntityCommand
from modeller.ui.commands.layout import MoveCommand
from modeller.ui.commands.project import EditProjectCommand
from modeller.ui.commands.query import AddQueryCommand, EditQueryCommand, RemoveQueryCommand
from modeller.ui.commands.relationship import (
    AddRelationshipCommand,
    EditRelationshipCommand,
    RemoveRelationshipCommand,
)

__all__ = [
    "AddEntityCommand",
    "AddQueryCommand",
    "AddRelationshipCommand",
    "DeleteCommand",
    "EditEntityCommand",
    "EditProjectCommand",
    "EditQueryCommand",
    "EditRelationshipCommand",
    "MoveCommand",
    "PasteCommand",
    "RemoveEntityCommand",
    "RemoveQueryCommand",
    "RemoveRelationshipCommand",
    "delete_command",
    "paste_command",
]
