"""Right-click menus of the canvas: on a card, on a line, on the empty canvas.

Each entry does one undoable thing through a command (or only shows
something: the preview, the whole diagram). The window hands in what lives
outside the canvas (clipboard, queries, preview) as :class:`MenuHooks`, so
the menus stay testable without opening them: :meth:`CanvasMenus.menu_at`
builds the menu for a scene point and a test triggers its actions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu, QWidget

from modeller.model.vocabulary import CARDINALITIES, STRATEGIES
from modeller.ui.commands import delete_command
from modeller.ui.commands.relationship import set_relationship_command
from modeller.ui.edits import EditRefused

if TYPE_CHECKING:
    from modeller.ui.canvas.view import CanvasView


@dataclass(frozen=True)
class MenuHooks:
    """What the menus ask of the window."""

    duplicate: Callable[[], None]
    paste: Callable[[QPointF], None]
    can_paste: Callable[[], bool]
    add_query: Callable[[str], None]
    show_preview: Callable[[str], None]
    edit_fields: Callable[[str], None]
    notify: Callable[[str], None]


def _shortcut_text(keys: str) -> str:
    return QKeySequence(keys).toString(QKeySequence.SequenceFormat.NativeText)


class CanvasMenus:
    """Builds the menu for whatever is under the pointer."""

    def __init__(self, view: CanvasView, hooks: MenuHooks) -> None:
        self.view = view
        self.scene = view.canvas
        self.document = view.canvas.document
        self.hooks = hooks

    def menu_at(self, scene_point: QPointF, parent: QWidget | None = None) -> QMenu:
        """The menu of the card, line or empty canvas at ``scene_point``; the clicked object becomes selected."""
        menu = QMenu(parent or self.view)
        menu.setToolTipsVisible(True)
        card = self.scene.entity_item_at(scene_point)
        if card is not None:
            if not card.isSelected():
                self.scene.select_only(entity_ids=[card.entity_id])
            self._card_menu(menu, card.entity_id)
            return menu
        line = self.scene.line_at(scene_point)
        if line is not None:
            if not line.isSelected():
                self.scene.select_only(rel_ids=[line.rel_id])
            self._line_menu(menu, line.rel_id)
            return menu
        self.scene.clearSelection()
        self._canvas_menu(menu, scene_point)
        return menu

    # ------------------------------------------------------------ the three menus
    def _card_menu(self, menu: QMenu, entity_id: str) -> None:
        self._add(menu, "&Rename", lambda: self.view.rename_card(entity_id), "F2")
        self._add(menu, "Add &Field", lambda: self.view.add_field_on_card(entity_id), "Ctrl+Shift+F")
        self._add(menu, "Edit Fields…", lambda: self.hooks.edit_fields(entity_id), "Ctrl+Shift+Return")
        connect = menu.addMenu("&Connect to")
        connect.setToolTip("Add a one-to-many relationship from this entity to another one")
        for other in self.document.project.entities:
            label = other.name + (" (itself: a tree)" if other.id == entity_id else "")
            self._add(connect, label, lambda _c=False, o=other.id: self.scene.connect_entities(entity_id, o))
        menu.addSeparator()
        self._add(menu, "&Duplicate", self.hooks.duplicate, "Ctrl+D")
        self._add(menu, "&Delete", self._delete_selection, "Del")
        menu.addSeparator()
        self._add(menu, "Add &Query on This Entity", lambda: self.hooks.add_query(entity_id))
        self._add(menu, "Show in &Preview", lambda: self.hooks.show_preview(entity_id))

    def _line_menu(self, menu: QMenu, rel_id: str) -> None:
        rel = self.document.relationship(rel_id)
        if rel is None:
            return
        for key, title, values in (
            ("cardinality", "Set &Cardinality", CARDINALITIES),
            ("strategy", "Set &Strategy", STRATEGIES),
        ):
            sub = menu.addMenu(title)
            current = getattr(rel, key)
            for value in values:
                action = self._add(sub, value, lambda _c=False, k=key, v=value: self._set(rel_id, k, v))
                action.setCheckable(True)
                action.setChecked(value == current)
        menu.addSeparator()
        self._add(menu, "&Delete", self._delete_selection, "Del")
        self._add(menu, "Show in &Preview", lambda: self.hooks.show_preview(rel.one))

    def _canvas_menu(self, menu: QMenu, at: QPointF) -> None:
        self._add(menu, "Add &Entity Here", lambda: self.view.add_template("entity", at, snap=False))
        paste = self._add(menu, "&Paste Here", lambda: self.hooks.paste(at), "Ctrl+V")
        paste.setEnabled(self.hooks.can_paste())
        menu.addSeparator()
        self._add(menu, "&Fit to Window", self.view.fit_to_window, "Ctrl+9")

    # ------------------------------------------------------------ helpers
    def _add(self, menu: QMenu, text: str, slot: Callable[[], object], keys: str = "") -> QAction:
        action = menu.addAction(text)
        if keys:
            # shown only (the window's actions own the keys; a second owner would make both dead)
            action.setText(f"{text}\t{_shortcut_text(keys)}")
        action.triggered.connect(lambda _checked=False: slot())
        return action

    def _delete_selection(self) -> None:
        command = delete_command(
            self.document, self.scene.selected_entity_ids(), self.scene.selected_relationship_ids()
        )
        if command is not None:
            self.document.push(command)

    def _set(self, rel_id: str, key: str, value: str) -> None:
        rel = self.document.relationship(rel_id)
        if rel is None or getattr(rel, key) == value:
            return
        try:
            self.document.push(set_relationship_command(self.document, rel_id, key, value))
        except EditRefused as err:
            self.hooks.notify(f"Not changed: {err}")
