"""The index list of an entity: add, remove, and edit keys, name, unique, TTL, partial filter, collation.

The user's indexes are kept and critiqued by the engine (ESR order, unused,
redundant). Each detail box edits one key of one index through the entity
editor's ``apply``, so typing merges into one undo entry per box and a bad
value shows the model's reason under the box.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QListWidget, QPushButton, QVBoxLayout, QWidget

from modeller.model import Entity, Index
from modeller.ui.edits import PathStep
from modeller.ui.panels.form import Editor, ModelForm, Refused

#: apply(path, value, undo text, merge) -> None when applied, else the reason
ApplyEntity = Callable[[Sequence[PathStep], Any, str | None, bool], str | None]

KINDS = {"1": 1, "-1": -1, "asc": 1, "desc": -1, "text": "text", "2dsphere": "2dsphere", "hashed": "hashed"}


def parse_keys(text: str) -> list[list[Any]]:
    """``"owner_id, due: -1, place: 2dsphere"`` -> ``[["owner_id", 1], ["due", -1], ["place", "2dsphere"]]``."""
    keys: list[list[Any]] = []
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, kind = part.partition(":")
        name, kind = name.strip(), kind.strip()
        if not name:
            raise Refused(f"{part.strip()!r}: the field name is missing")
        if not sep:
            keys.append([name, 1])
            continue
        if kind.lower() not in KINDS:
            raise Refused(f"{name}: {kind or '(nothing)'!r} is not 1, -1, text, 2dsphere or hashed")
        keys.append([name, KINDS[kind.lower()]])
    if not keys:
        raise Refused("an index needs at least one key")
    return keys


def format_keys(keys: Sequence[Sequence[Any]] | None) -> str:
    return ", ".join(f"{name}: {kind}" for name, kind in keys or [])


def summary(index: Index) -> str:
    """One line for the list: name or keys, then the options that matter."""
    text = index.name or " · ".join(f"{name} {kind}" for name, kind in index.keys)
    extras = [
        word
        for word, on in (
            ("unique", index.unique),
            (f"TTL {index.expire_after_s} s", index.expire_after_s is not None),
            ("partial", index.partial is not None),
            ("collation", index.collation is not None),
        )
        if on
    ]
    return f"{text} — {', '.join(extras)}" if extras else text


class KeysEditor(Editor):
    """Index keys as ``field: direction`` pairs, comma-separated."""

    def __init__(self, form: ModelForm, path: Sequence[PathStep], label: str, tip: str) -> None:
        self.line = QLineEdit()
        self.line.setPlaceholderText("field: 1, other: -1")
        super().__init__(form, path, self.line, label, tip)
        self.line.textEdited.connect(lambda _text: self.submit())
        self.line.editingFinished.connect(self.finish)

    def value(self) -> Any:
        return parse_keys(self.line.text())

    def show(self, value: Any) -> None:
        text = format_keys(value)
        try:
            if self.line.hasFocus() and [list(k) for k in self.value()] == [list(k) for k in value or []]:
                return
        except Refused:
            pass
        if self.line.text() != text:
            self.line.setText(text)


class IndexesEditor(QWidget):
    """List of the entity's declared indexes with a detail form for the selected one."""

    def __init__(self, apply: ApplyEntity, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.apply = apply
        self.entity: Entity | None = None
        self.list = QListWidget()
        self.list.setObjectName("indexes")
        self.list.setMaximumHeight(96)
        self.list.setToolTip("Indexes you declare; the engine adds the ones your queries need and critiques these")
        self.list.currentRowChanged.connect(lambda _row: self._show_detail())
        self.empty = QLabel("No declared indexes. The engine proposes the ones your queries need (Preview ▸ Indexes).")
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet("color: palette(mid);")
        self.add_button = QPushButton("Add index")
        self.add_button.setToolTip("Declare an index on this entity (starts with its first field)")
        self.add_button.clicked.connect(self.add_index)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected index")
        self.remove_button.clicked.connect(self.remove_index)
        self.detail = ModelForm(self._apply_detail)
        d = self.detail
        self.keys = d.add(
            KeysEditor(
                d,
                ["keys"],
                "Keys",
                "Fields in index order, each with 1 (ascending), -1 (descending), text, 2dsphere or hashed.\n"
                "Equality fields first, then sort fields, then range fields (ESR).",
            )
        )
        d.name(["name"], "Name", "Index name (empty: MongoDB derives it from the keys)")
        d.check(["unique"], "Unique (no two documents share these values)", "Enforce uniqueness of the key values")
        d.number(["expire_after_s"], "TTL (s)", "Delete documents this many seconds after the date in the key", True)
        d.json(
            ["partial"],
            "Partial filter",
            'Index only documents matching this filter, e.g. {"status": "open"} (Enter applies)',
            '{"status": "open"}',
        )
        d.json(
            ["collation"],
            "Collation",
            'Language rules for string comparison, e.g. {"locale": "en", "strength": 2} (Enter applies)',
            '{"locale": "en", "strength": 2}',
        )
        buttons = QHBoxLayout()
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list)
        layout.addWidget(self.empty)
        layout.addLayout(buttons)
        layout.addWidget(self.detail)

    def load(self, entity: Entity) -> None:
        self.entity = entity
        row = self.list.currentRow()
        self.list.blockSignals(True)
        texts = [summary(index) for index in entity.indexes]
        if [self.list.item(i).text() for i in range(self.list.count())] != texts:
            self.list.clear()
            self.list.addItems(texts)
        self.list.setCurrentRow(min(max(row, 0), len(texts) - 1) if texts else -1)
        self.list.blockSignals(False)
        self.list.setVisible(bool(texts))
        self.empty.setVisible(not texts)
        self.remove_button.setEnabled(bool(texts))
        self._show_detail()

    def _show_detail(self) -> None:
        row = self.list.currentRow()
        index = self.entity.indexes[row] if self.entity is not None and 0 <= row < len(self.entity.indexes) else None
        self.detail.setVisible(index is not None)
        if index is not None:
            self.detail.load(index)

    def _apply_detail(self, path: Sequence[PathStep], value: Any) -> str | None:
        row = self.list.currentRow()
        if self.entity is None or not 0 <= row < len(self.entity.indexes):
            return "select an index first"
        text = f"Edit index {row + 1} of {self.entity.name}: {self.detail.label_of(path)}"
        return self.apply(["indexes", row, *path], value, text, True)

    def add_index(self) -> None:
        if self.entity is None:
            return
        first = self.entity.fields[0].name if self.entity.fields else "_id"
        indexes = [i.model_dump(exclude_defaults=True) for i in self.entity.indexes]
        problem = self.apply(["indexes"], [*indexes, {"keys": [[first, 1]]}], f"Add index on {self.entity.name}", False)
        if problem is None:
            self.list.setCurrentRow(self.list.count() - 1)

    def remove_index(self) -> None:
        row = self.list.currentRow()
        if self.entity is None or not 0 <= row < len(self.entity.indexes):
            return
        indexes = [i.model_dump(exclude_defaults=True) for i in self.entity.indexes]
        del indexes[row]
        self.apply(["indexes"], indexes, f"Remove index from {self.entity.name}", False)
