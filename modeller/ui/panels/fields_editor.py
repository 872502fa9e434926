"""The field table of an entity: add, remove, nest, reorder (buttons or drag), edit types and flags.

The tree mirrors the model's field list. Every change rebuilds the whole
list from the tree and hands it to ``apply_fields``; the model validates it
(a sub-field under a string field is refused with the model's reason) and the
tree is reloaded from the model, so it never drifts from the document.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QDropEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from modeller.model import Field
from modeller.model.vocabulary import FIELD_TYPES
from modeller.ui.panels.form import ComboDelegate, ModelForm, error_label

DATA = Qt.ItemDataRole.UserRole
COL_NAME, COL_TYPE, COL_ITEMS, COL_REQUIRED, COL_UNIQUE = range(5)
HEADERS = ("Name", "Type", "Items", "Req", "Uniq")

#: yes/no keys: unticked means "not set", so the file stays free of ``false`` defaults
FLAGS = frozenset({"required", "unique", "immutable", "counter", "monotonic", "exact"})

#: apply_fields(list of field dicts, detail) -> None when applied, else the reason. ``detail`` names the
#: edited box (field name, its index path, the key) so typing in one box merges into one undo entry
ApplyFields = Callable[[list[dict[str, Any]], "Detail | None"], str | None]
Detail = tuple[str, tuple[int, ...], str]


class FieldTree(QTreeWidget):
    """Tree with internal drag-and-drop; says when a drop reordered fields."""

    reordered = Signal()

    def dropEvent(self, event: QDropEvent) -> None:
        super().dropEvent(event)
        self.reordered.emit()


def field_data(field: Field) -> dict[str, Any]:
    return field.model_dump(mode="python", exclude_defaults=True)


def children_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Sub-fields of an object field or of the objects inside an array field."""
    if data.get("fields"):
        return list(data["fields"])
    items = data.get("items")
    while isinstance(items, dict):
        if items.get("fields"):
            return list(items["fields"])
        items = items.get("items")
    return []


def _strip_children(data: dict[str, Any]) -> dict[str, Any]:
    own = copy.deepcopy(data)
    own.pop("fields", None)
    items = own.get("items")
    if isinstance(items, dict):
        items.pop("fields", None)
    return own


def _with_children(own: dict[str, Any], children: list[dict[str, Any]]) -> dict[str, Any]:
    data = copy.deepcopy(own)
    if data.get("type") == "array":
        if children:
            items = data.setdefault("items", {"type": "object"})
            items["type"] = "object"
            items["fields"] = children
        return data
    if children or data.get("type") == "object":
        data["fields"] = children
    return data


class FieldsEditor(QWidget):
    def __init__(self, apply_fields: ApplyFields, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.apply_fields = apply_fields
        self._loading = False
        self._committing = False
        self._pending: list[Field] | None = None
        self.tree = FieldTree()
        self.tree.setColumnCount(len(HEADERS))
        self.tree.setHeaderLabels(list(HEADERS))
        self.tree.header().setSectionResizeMode(COL_NAME, QHeaderView.ResizeMode.Stretch)
        for col in (COL_TYPE, COL_ITEMS, COL_REQUIRED, COL_UNIQUE):
            self.tree.header().setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setItemDelegateForColumn(COL_TYPE, ComboDelegate(FIELD_TYPES, self.tree))
        self.tree.setItemDelegateForColumn(COL_ITEMS, ComboDelegate(["", *FIELD_TYPES], self.tree))
        self.tree.setDragDropMode(QAbstractItemView.DragDropMode.InternalMove)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.SelectedClicked
        )
        self.tree.setToolTip(
            "Fields of the entity. Double-click to edit; drag to reorder or to nest under an object field.\n"
            "Req = required, Uniq = unique. Nested fields belong to an object field or to the objects in an array."
        )
        self.tree.setMinimumHeight(160)
        self.tree.itemChanged.connect(self._item_changed)
        self.tree.reordered.connect(self._commit)
        self.tree.currentItemChanged.connect(lambda *_: self._show_detail())
        self.error = error_label()
        buttons = QHBoxLayout()
        self.add_button = self._button("Add", "Add a field after the selected one (Ctrl+Shift+F)", self.add_field)
        self.nest_button = self._button(
            "Nest", "Add a sub-field inside the selected object or array field", self.add_nested
        )
        self.remove_button = self._button("Remove", "Remove the selected field and its sub-fields", self.remove_field)
        self.up_button = self._button("↑", "Move the selected field up", lambda: self.move_field(-1))
        self.down_button = self._button("↓", "Move the selected field down", lambda: self.move_field(1))
        # the key the Add button's tooltip names; only while the focus is in this editor (the canvas has its own)
        self.add_shortcut = QShortcut(QKeySequence("Ctrl+Shift+F"), self, self.add_field)
        self.add_shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        for button in (self.up_button, self.down_button):
            button.setFixedWidth(button.fontMetrics().horizontalAdvance("↑") + 24)
        for button in (self.add_button, self.nest_button, self.remove_button, self.up_button, self.down_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        self.detail = ModelForm(self._apply_detail)
        self.detail.text(["description"], "Description", "What the field holds")
        self.detail.names(
            ["enum"], "Enum", "Allowed values, comma-separated (empty: any value)", empty_is_none=True, numbers=True
        )
        self.detail.text(["faker"], "Faker", "Sample-data provider, e.g. name, email, date_time, sentence")
        self.detail.number(
            ["updates_per_sec"], "Updates/s", "How often this field is updated (copies of it must follow)"
        )
        self.detail.number(["expire_after_s"], "TTL (s)", "Delete documents this many seconds after this date", True)
        self.detail.number(["max_items"], "Max items", "Upper bound of an array's length", True)
        self.detail.number(["bytes"], "Bytes", "Average size of the value", True)
        self.detail.number(
            ["distinct"], "Distinct values", "How many different values the field takes (index selectivity)", True
        )
        self.detail.number(["reads_per_sec"], "Reads/s", "Reads that need this field, per second")
        self.detail.json(
            ["example"],
            "Example",
            'A typical value as JSON ("Ada", 42, {"lat": 1}); used in sample documents (Enter applies)',
            '"Ada Lovelace"',
        )
        self.detail.check(["immutable"], "Immutable (never changes once written)", "Never changes once written")
        self.detail.check(["counter"], "Counter (incremented often)", "Incremented often")
        self.detail.check(["monotonic"], "Monotonic (values only grow)", "Timestamps, counters, ObjectIds")
        self.detail.check(
            ["exact"],
            "Exact (no approximate value)",
            "An approximate counter or a periodically refreshed copy will not do (balances, stock)",
        )
        self.detail.setEnabled(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tree)
        layout.addLayout(buttons)
        layout.addWidget(self.error)
        layout.addWidget(self.detail)

    def _button(self, text: str, tip: str, slot: Callable[[], None]) -> QPushButton:
        button = QPushButton(text)
        button.setToolTip(tip)
        button.clicked.connect(slot)
        return button

    # ------------------------------------------------------------ model <-> tree
    def load(self, fields: list[Field]) -> None:
        if self._committing:
            # the tree is mid-signal (an edit or a drop): rebuild once it has returned
            if self._pending is None:
                QTimer.singleShot(0, self._load_pending)
            self._pending = fields
            return
        current = self._path_of(self.tree.currentItem())
        self._loading = True
        self.tree.clear()
        for field in fields:
            self.tree.addTopLevelItem(self._make_item(field_data(field)))
        self.tree.expandAll()
        self._loading = False
        self.error.setVisible(False)
        self._select_path(current)
        self._show_detail()

    def _load_pending(self) -> None:
        fields, self._pending = self._pending, None
        if fields is not None:
            self.load(fields)

    def _make_item(self, data: dict[str, Any]) -> QTreeWidgetItem:
        item = QTreeWidgetItem()
        flags = (
            Qt.ItemFlag.ItemIsEnabled
            | Qt.ItemFlag.ItemIsSelectable
            | Qt.ItemFlag.ItemIsEditable
            | Qt.ItemFlag.ItemIsUserCheckable
            | Qt.ItemFlag.ItemIsDragEnabled
            | Qt.ItemFlag.ItemIsDropEnabled
        )
        item.setFlags(flags)
        own = _strip_children(data)
        item.setData(COL_NAME, DATA, own)
        item.setText(COL_NAME, str(own.get("name", "")))
        item.setText(COL_TYPE, str(own.get("type", "")))
        items = own.get("items")
        item.setText(COL_ITEMS, str(items.get("type", "")) if isinstance(items, dict) else "")
        item.setCheckState(COL_REQUIRED, Qt.CheckState.Checked if own.get("required") else Qt.CheckState.Unchecked)
        item.setCheckState(COL_UNIQUE, Qt.CheckState.Checked if own.get("unique") else Qt.CheckState.Unchecked)
        for child in children_of(data):
            item.addChild(self._make_item(child))
        return item

    def _item_data(self, item: QTreeWidgetItem) -> dict[str, Any]:
        own = copy.deepcopy(item.data(COL_NAME, DATA) or {})
        own["name"] = item.text(COL_NAME)
        own["type"] = item.text(COL_TYPE)
        element = item.text(COL_ITEMS)
        if own["type"] == "array" and element:
            items = own.get("items") if isinstance(own.get("items"), dict) else {}
            items["type"] = element
            own["items"] = items
        elif own["type"] != "array":
            own.pop("items", None)
            own.pop("max_items", None)
        if own["type"] != "object":
            own.pop("fields", None)
        if own.get("other_types"):  # a type made the field's own is no longer one it also holds
            own["other_types"] = [t for t in own["other_types"] if t != own["type"]] or None
            if own["other_types"] is None:
                del own["other_types"]
        for key, col in (("required", COL_REQUIRED), ("unique", COL_UNIQUE)):
            if item.checkState(col) == Qt.CheckState.Checked:
                own[key] = True
            else:
                own.pop(key, None)
        children = [self._item_data(item.child(i)) for i in range(item.childCount())]
        return _with_children(own, children)

    def fields_data(self) -> list[dict[str, Any]]:
        return [self._item_data(self.tree.topLevelItem(i)) for i in range(self.tree.topLevelItemCount())]

    def _commit(self) -> None:
        if self._loading:
            return
        self._committing = True
        try:
            problem = self.apply_fields(self.fields_data(), None)
        finally:
            self._committing = False
        self.error.setText(f"Not applied: {problem}" if problem else "")
        self.error.setVisible(problem is not None)

    def _item_changed(self, _item: QTreeWidgetItem, _column: int) -> None:
        self._commit()

    # ------------------------------------------------------------ buttons
    def _new_name(self, siblings: list[str]) -> str:
        n = 1
        while f"field{n}" in siblings:
            n += 1
        return f"field{n}"

    def add_field(self) -> None:
        current = self.tree.currentItem()
        parent = current.parent() if current is not None else None
        container = parent if parent is not None else self.tree.invisibleRootItem()
        names = [container.child(i).text(COL_NAME) for i in range(container.childCount())]
        index = container.indexOfChild(current) + 1 if current is not None else container.childCount()
        self._loading = True
        item = self._make_item({"name": self._new_name(names), "type": "string"})
        container.insertChild(index, item)
        self._loading = False
        self.tree.setCurrentItem(item)
        self._commit()

    def add_nested(self) -> None:
        current = self.tree.currentItem()
        if current is None:
            return
        names = [current.child(i).text(COL_NAME) for i in range(current.childCount())]
        self._loading = True
        if current.text(COL_TYPE) not in ("object", "array"):
            current.setText(COL_TYPE, "object")
        item = self._make_item({"name": self._new_name(names), "type": "string"})
        current.addChild(item)
        current.setExpanded(True)
        self._loading = False
        self.tree.setCurrentItem(item)
        self._commit()

    def remove_field(self) -> None:
        current = self.tree.currentItem()
        if current is None:
            return
        container = current.parent() or self.tree.invisibleRootItem()
        self._loading = True
        container.removeChild(current)
        self._loading = False
        self._commit()

    def move_field(self, step: int) -> None:
        current = self.tree.currentItem()
        if current is None:
            return
        container = current.parent() or self.tree.invisibleRootItem()
        index = container.indexOfChild(current)
        target = index + step
        if not 0 <= target < container.childCount():
            return
        self._loading = True
        container.takeChild(index)
        container.insertChild(target, current)
        self._loading = False
        self.tree.setCurrentItem(current)
        self._commit()

    # ------------------------------------------------------------ detail form
    def _show_detail(self) -> None:
        item = self.tree.currentItem()
        self.detail.setEnabled(item is not None)
        data = self._item_data(item) if item is not None else {}
        self.detail.load(data)
        # an array's length bound means nothing on other types: the model would drop it silently
        self.detail.editor(["max_items"]).widget.setEnabled(data.get("type") == "array")

    def _apply_detail(self, path: list[Any], value: Any) -> str | None:
        item = self.tree.currentItem()
        if item is None:
            return "select a field first"
        before = copy.deepcopy(item.data(COL_NAME, DATA) or {})
        own = copy.deepcopy(before)
        key = str(path[0])
        if value is None or (value is False and key in FLAGS):
            own.pop(key, None)
        else:
            own[key] = value
        self._loading = True
        item.setData(COL_NAME, DATA, own)
        self._loading = False
        self._committing = True
        try:
            detail = (item.text(COL_NAME), tuple(self._path_of(item)), key)
            problem = self.apply_fields(self.fields_data(), detail)
        finally:
            self._committing = False
        if problem is not None:
            self._loading = True
            item.setData(COL_NAME, DATA, before)
            self._loading = False
        return problem

    # ------------------------------------------------------------ selection by path
    def _path_of(self, item: QTreeWidgetItem | None) -> list[int]:
        path: list[int] = []
        while item is not None:
            parent = item.parent()
            container = parent or self.tree.invisibleRootItem()
            path.insert(0, container.indexOfChild(item))
            item = parent
        return path

    def _select_path(self, path: list[int]) -> None:
        item: QTreeWidgetItem | None = None
        container = self.tree.invisibleRootItem()
        for index in path:
            if not 0 <= index < container.childCount():
                break
            item = container.child(index)
            container = item
        if item is not None:
            self.tree.setCurrentItem(item)

    def item_at(self, *path: int) -> QTreeWidgetItem:
        """The tree row at an index path (tests drive the table through it)."""
        item = self.tree.invisibleRootItem()
        for index in path:
            item = item.child(index)
        return item
