"""Editors bound to a path inside one model object; a refused value shows its reason inline.

A panel builds a :class:`ModelForm`, adds editors for the keys it shows and
gives the form an ``apply(path, value)`` callback. The callback builds a
validated copy (``modeller.ui.edits.updated``) and pushes a command, or
returns the model's reason, which the form shows under the widget. The
widget keeps the refused text until focus leaves, then shows the model's
value again: never a dialog, never a half-applied edit.
"""

from __future__ import annotations

import heapq
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from modeller.ui.edits import PathStep

#: apply(path, value) -> None when applied, else the reason it was refused
Apply = Callable[[Sequence[PathStep], Any], str | None]


class Refused(ValueError):
    """Text that cannot even be parsed (``"abc"`` in a number box)."""


def error_label() -> QLabel:
    """The hidden, wrapping red label under an editor that says why a value was refused."""
    label = QLabel()
    label.setWordWrap(True)
    label.setStyleSheet("color: #c0392b;")
    label.setVisible(False)
    return label


class ComboDelegate(QStyledItemDelegate):
    """A fixed-choice combo box for one table column."""

    def __init__(self, choices: Sequence[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.choices = list(choices)

    def createEditor(
        self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QWidget:
        combo = QComboBox(parent)
        combo.addItems(self.choices)
        return combo

    def setEditorData(self, editor: QWidget, index: QModelIndex | QPersistentModelIndex) -> None:
        assert isinstance(editor, QComboBox)
        editor.setCurrentText(str(index.data() or ""))

    def setModelData(
        self, editor: QWidget, model: QAbstractItemModel, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        assert isinstance(editor, QComboBox)
        model.setData(index, editor.currentText())


def get_in(model: Any, path: Sequence[PathStep]) -> Any:
    value = model
    for step in path:
        if value is None:
            return None
        if isinstance(step, int):
            value = value[step]
        elif isinstance(value, dict):
            value = value.get(step)
        else:
            value = getattr(value, step, None)
    return value


def parse_number(text: str, integer: bool) -> int | float | None:
    """``""`` -> None, ``"10,000"``/``"1e6"`` -> numbers; anything else is refused with a reason."""
    clean = text.strip().replace(",", "").replace("_", "")
    if not clean:
        return None
    try:
        value = float(clean)
    except ValueError:
        raise Refused(f"{text.strip()!r} is not a number") from None
    if integer:
        if not value.is_integer():
            raise Refused(f"{text.strip()!r} must be a whole number")
        return int(value)
    return int(value) if value.is_integer() and "." not in clean and "e" not in clean.lower() else value


def format_number(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return f"{value:g}"
    return str(value)


class Editor:
    """One bound widget: path, parse/format, inline error label."""

    def __init__(self, form: ModelForm, path: Sequence[PathStep], widget: QWidget, label: str, tip: str) -> None:
        self.form = form
        self.path = list(path)
        self.widget = widget
        self.error = error_label()
        self.error.setObjectName("error_" + "_".join(str(p) for p in path))
        widget.setToolTip(tip)
        self.label = label
        self.refused = False

    def value(self) -> Any:
        raise NotImplementedError

    def show(self, value: Any) -> None:
        raise NotImplementedError

    def submit(self) -> None:
        """Parse and apply the widget's value."""
        try:
            value = self.value()
        except Refused as err:
            self.set_error(str(err))
            return
        problem = self.form.apply(self.path, value)
        self.set_error(problem)

    def set_error(self, problem: str | None) -> None:
        self.refused = problem is not None
        self.error.setText(problem or "")
        self.error.setVisible(problem is not None)

    def finish(self) -> None:
        """Focus left: a refused value gives way to the model's value, the reason stays visible."""
        if self.refused:
            reason = self.error.text()
            self.form.reload_one(self)
            self.set_error(f"Not applied: {reason}" if not reason.startswith("Not applied") else reason)
            self.refused = True


class LeavingLine(QLineEdit):
    """A line edit that says when focus leaves it, also when its text did not change since the last Enter
    (Qt emits ``editingFinished`` on leaving only for changed text)."""

    focus_left = Signal()

    def focusOutEvent(self, event: QFocusEvent) -> None:
        super().focusOutEvent(event)
        self.focus_left.emit()


class LineEditor(Editor):
    """A one-line box applied per keystroke, or (``on_finish``) on Enter or on leaving the box.

    Applying per keystroke would leave a half-typed value applied when the whole one is refused: "Perso" of a
    taken "Person", or "2" of a typical count of 20 above a maximum of 10. Such a value is one edit and one undo
    step. A refused value stays in the box with its reason after Enter, to be fixed there; leaving the box brings
    the model's value back.
    """

    def __init__(
        self, form: ModelForm, path: Sequence[PathStep], label: str, tip: str, on_finish: bool = False
    ) -> None:
        self.line = LeavingLine()
        super().__init__(form, path, self.line, label, tip)
        self.on_finish = on_finish
        if on_finish:
            self.line.editingFinished.connect(self.submit)
            self.line.focus_left.connect(self.finish)
        else:
            self.line.textEdited.connect(lambda _text: self.submit())
            self.line.editingFinished.connect(self.finish)

    def submit(self) -> None:
        super().submit()
        if self.on_finish and not self.refused:
            self.line.setModified(False)

    def being_typed(self) -> bool:
        """A value typed but not applied yet: a change elsewhere must not wipe it."""
        return self.on_finish and self.line.hasFocus() and self.line.isModified()


class TextEditor(LineEditor):
    """Free text, applied per keystroke; a name (``on_finish``) is applied on Enter or on leaving the box."""

    def __init__(
        self, form: ModelForm, path: Sequence[PathStep], label: str, tip: str, optional: bool, on_finish: bool = False
    ) -> None:
        super().__init__(form, path, label, tip, on_finish)
        self.optional = optional

    def value(self) -> Any:
        text = self.line.text()
        return None if self.optional and not text.strip() else text

    def show(self, value: Any) -> None:
        if self.being_typed():
            return
        text = "" if value is None else str(value)
        if self.line.text() != text:
            self.line.setText(text)


class NumberEditor(LineEditor):
    """A number, applied on Enter or on leaving the box (a count's leading digits are not the count)."""

    def __init__(self, form: ModelForm, path: Sequence[PathStep], label: str, tip: str, integer: bool) -> None:
        super().__init__(form, path, label, tip, on_finish=True)
        self.line.setPlaceholderText("not set")
        self.integer = integer

    def value(self) -> Any:
        return parse_number(self.line.text(), self.integer)

    def show(self, value: Any) -> None:
        if self.being_typed() or (self.line.hasFocus() and self._typed_equals(value)):
            return  # keep "10,000" as typed while the box has focus
        text = format_number(value)
        if self.line.text() != text:
            self.line.setText(text)

    def _typed_equals(self, value: Any) -> bool:
        try:
            return bool(self.value() == value)
        except Refused:
            return False


class ListEditor(Editor):
    """Comma-separated names (enum values, projection, shard key)."""

    def __init__(
        self, form: ModelForm, path: Sequence[PathStep], label: str, tip: str, empty_is_none: bool, numbers: bool
    ) -> None:
        self.line = QLineEdit()
        self.line.setPlaceholderText("comma-separated")
        super().__init__(form, path, self.line, label, tip)
        self.empty_is_none = empty_is_none
        self.numbers = numbers
        self.line.textEdited.connect(lambda _text: self.submit())
        self.line.editingFinished.connect(self.finish)

    def value(self) -> Any:
        items: list[Any] = [part.strip() for part in self.line.text().split(",") if part.strip()]
        if self.numbers:
            items = [parse_number(item, False) if _numeric(item) else item for item in items]
        if not items:
            return None if self.empty_is_none else []
        return items

    def show(self, value: Any) -> None:
        if self.line.hasFocus():
            try:
                typed = self.value()
            except Refused:
                pass
            else:
                if not value or typed == value:
                    return  # the user is typing: an empty or equal model value must not reset the box
        text = ", ".join(str(v) for v in value or [])
        if self.line.text() != text:
            self.line.setText(text)


def _numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


class LongTextEditor(Editor):
    def __init__(self, form: ModelForm, path: Sequence[PathStep], label: str, tip: str, optional: bool) -> None:
        self.text = QPlainTextEdit()
        self.text.setTabChangesFocus(True)
        self.text.setFixedHeight(64)
        super().__init__(form, path, self.text, label, tip)
        self.optional = optional
        self.text.textChanged.connect(self._changed)
        self._loading = False

    def _changed(self) -> None:
        if not self._loading:
            self.submit()

    def value(self) -> Any:
        text = self.text.toPlainText()
        return None if self.optional and not text.strip() else text

    def show(self, value: Any) -> None:
        text = "" if value is None else str(value)
        if self.text.toPlainText() != text:
            self._loading = True
            self.text.setPlainText(text)
            self._loading = False


class JsonEditor(Editor):
    """A JSON value on one line (partial filter, collation, example); applied on Enter or leaving the box.

    Half-typed JSON is never valid, so unlike the other boxes it is not
    applied per keystroke; a refused text stays in the box, with the reason
    under it, until the user fixes it.
    """

    def __init__(self, form: ModelForm, path: Sequence[PathStep], label: str, tip: str, placeholder: str) -> None:
        self.line = QLineEdit()
        self.line.setPlaceholderText(placeholder)
        super().__init__(form, path, self.line, label, tip)
        self.line.editingFinished.connect(self.submit)

    def value(self) -> Any:
        text = self.line.text().strip()
        if not text:
            return None
        try:
            return json.loads(text)
        except ValueError as err:
            raise Refused(f"not valid JSON: {err}") from None

    def show(self, value: Any) -> None:
        text = "" if value is None else json.dumps(value, ensure_ascii=False)
        try:
            if self.line.hasFocus() and self.value() == value:
                return
        except Refused:
            if self.line.hasFocus():
                return
        if self.line.text() != text:
            self.line.setText(text)


class CheckEditor(Editor):
    def __init__(self, form: ModelForm, path: Sequence[PathStep], label: str, tip: str) -> None:
        self.box = QCheckBox(label)
        super().__init__(form, path, self.box, label, tip)
        self.box.toggled.connect(self._toggled)
        self._loading = False

    def _toggled(self, _checked: bool) -> None:
        if not self._loading:
            self.submit()

    def value(self) -> Any:
        return self.box.isChecked()

    def show(self, value: Any) -> None:
        self._loading = True
        self.box.setChecked(bool(value))
        self._loading = False


#: a combo with more choices than this sizes its popup from its longest texts instead of measuring every row
MEASURED_CHOICES = 200


class ChoicesModel(QAbstractListModel):
    """``(text, value)`` choices of a combo box as a list model: no widget item per choice, so a list of
    10,000 entities costs its rows only when the open popup shows them (issue 16: refilling three entity
    combos item by item held the window 0.7 s when a 10,000-entity project opened)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._choices: list[tuple[str, Any]] = []
        self._rows: dict[Any, int] = {}

    def set_choices(self, choices: Sequence[tuple[str, Any]]) -> None:
        """Replace the choices: only changed texts emit a signal when the values stay the same, in order."""
        new = list(choices)
        if new == self._choices:
            return
        old = self._choices
        if len(new) == len(old) and all(a[1] == b[1] for a, b in zip(new, old, strict=True)):
            self._choices = new
            for row, (a, b) in enumerate(zip(new, old, strict=True)):
                if a[0] != b[0]:
                    self.dataChanged.emit(self.index(row), self.index(row))
            return
        self.beginResetModel()
        self._choices = new
        self._rows = {value: row for row, (_text, value) in enumerate(new)}
        self.endResetModel()

    def set_text(self, value: Any, text: str) -> None:
        """One choice's text changed (a renamed entity): one row's signal."""
        row = self.row_of(value)
        if row >= 0 and self._choices[row][0] != text:
            self._choices[row] = (text, value)
            self.dataChanged.emit(self.index(row), self.index(row))

    def row_of(self, value: Any) -> int:
        """The row holding ``value``, -1 when it is not a choice (a dictionary lookup, not a scan)."""
        return self._rows.get(value, -1)

    def texts(self) -> list[str]:
        return [text for text, _value in self._choices]

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._choices)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._choices):
            return None
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return self._choices[index.row()][0]
        if role == Qt.ItemDataRole.UserRole:
            return self._choices[index.row()][1]
        return None


class ChoiceEditor(Editor):
    def __init__(
        self, form: ModelForm, path: Sequence[PathStep], label: str, tip: str, choices: Sequence[tuple[str, Any]]
    ) -> None:
        self.combo = QComboBox()
        # long explanations ("single-collection — both entity types in one ...") must not widen the dock;
        # the open list still shows them in full
        self.combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.combo.setMinimumContentsLength(14)
        super().__init__(form, path, self.combo, label, tip)
        self._loading = False
        self._shared: ChoicesModel | None = None
        self._kept: Any = None
        self.set_choices(choices)
        self.combo.currentIndexChanged.connect(self._changed)

    def set_choices(self, choices: Sequence[tuple[str, Any]]) -> None:
        if self._shared is not None:
            self._shared.set_choices(choices)
            return
        self._loading = True
        current = self.combo.currentData()
        self.combo.clear()
        for text, value in choices:
            self.combo.addItem(text, value)
        index = self.combo.findData(current)
        if index >= 0:
            self.combo.setCurrentIndex(index)
        self._fit_popup()
        self._loading = False

    def use_model(self, model: ChoicesModel) -> None:
        """Take the choices from a list model that others may share (the project's entities): the combo shows
        the model's rows, nothing is copied, and a reset of the model keeps the chosen value."""
        self._loading = True
        self._shared = model
        self.combo.setModel(model)
        model.modelAboutToBeReset.connect(self._hold)
        model.modelReset.connect(self._restore)
        self._fit_popup()
        self._loading = False

    def _hold(self) -> None:
        # the combo picks a row of its own while the model resets: that is not the user choosing
        self._loading = True
        self._kept = self.combo.currentData()

    def _restore(self) -> None:
        row = self._find(self._kept)
        if row >= 0:
            self.combo.setCurrentIndex(row)
        self._fit_popup()
        self._loading = False

    def _find(self, value: Any) -> int:
        return self._shared.row_of(value) if self._shared is not None else self.combo.findData(value)

    def _fit_popup(self) -> None:
        """The open list as wide as its longest choice; a long list is measured by its longest texts only."""
        view = self.combo.view()
        if self.combo.count() <= MEASURED_CHOICES or self._shared is None:
            width = view.sizeHintForColumn(0)
        else:
            metrics = view.fontMetrics()
            width = max(metrics.horizontalAdvance(t) for t in heapq.nlargest(20, self._shared.texts(), key=len))
        view.setMinimumWidth(width + 24)

    def _changed(self, _index: int) -> None:
        if not self._loading:
            self.submit()

    def value(self) -> Any:
        return self.combo.currentData()

    def show(self, value: Any) -> None:
        self._loading = True
        index = self._find(value)
        self.combo.setCurrentIndex(index if index >= 0 else 0)
        self._loading = False


class ModelForm(QWidget):
    """A vertical form of bound editors for one model object."""

    def __init__(self, apply: Apply, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.apply = apply
        self.editors: list[Editor] = []
        #: each labelled row's field widget, by its editor's path (see set_label)
        self._holders: dict[tuple[PathStep, ...], QWidget] = {}
        self.model: Any = None
        self.layout_ = QFormLayout(self)
        self.layout_.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.layout_.setLabelAlignment(Qt.AlignmentFlag.AlignRight)

    def _add(self, editor: Editor, with_label: bool = True) -> Editor:
        holder = QWidget()
        box = QVBoxLayout(holder)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(1)
        box.addWidget(editor.widget)
        box.addWidget(editor.error)
        if with_label:
            self.layout_.addRow(editor.label, holder)
            self._holders[tuple(editor.path)] = holder
        else:
            self.layout_.addRow(holder)
        self.editors.append(editor)
        return editor

    def set_label(self, path: Sequence[PathStep], text: str, tip: str) -> None:
        """Name a row anew (a label that depends on the object shown); its undo text follows."""
        editor = self.editor(path)
        editor.label = text
        editor.widget.setToolTip(tip)
        holder = self._holders.get(tuple(editor.path))
        label = self.layout_.labelForField(holder) if holder is not None else None
        if isinstance(label, QLabel) and label.text() != text:
            label.setText(text)

    def set_row_visible(self, path: Sequence[PathStep], visible: bool) -> None:
        """Show or hide a labelled row (a key that only some objects have, as a many-to-many's other bound)."""
        holder = self._holders.get(tuple(self.editor(path).path))
        if holder is not None:
            self.layout_.setRowVisible(holder, visible)

    def label_of(self, path: Sequence[PathStep]) -> str:
        """What the form calls the value at ``path`` (its row's label without a closing "(…)" aside, for undo
        texts: "Edit index 1 of Task: TTL", not "…: expire_after_s"), else the key."""
        found = next((e.label for e in self.editors if e.path == list(path) and e.label), None)
        return re.sub(r"\s*\([^()]*\)$", "", found) if found else str(path[-1])

    def text(self, path: Sequence[PathStep], label: str, tip: str, optional: bool = True) -> TextEditor:
        return self._add(TextEditor(self, path, label, tip, optional))  # type: ignore[return-value]

    def name(self, path: Sequence[PathStep], label: str, tip: str, optional: bool = True) -> TextEditor:
        """A name box: applied on Enter or leaving the box (see :class:`TextEditor`)."""
        return self._add(TextEditor(self, path, label, tip, optional, on_finish=True))  # type: ignore[return-value]

    def number(self, path: Sequence[PathStep], label: str, tip: str, integer: bool = False) -> NumberEditor:
        return self._add(NumberEditor(self, path, label, tip, integer))  # type: ignore[return-value]

    def names(
        self, path: Sequence[PathStep], label: str, tip: str, empty_is_none: bool = False, numbers: bool = False
    ) -> ListEditor:
        return self._add(ListEditor(self, path, label, tip, empty_is_none, numbers))  # type: ignore[return-value]

    def long_text(self, path: Sequence[PathStep], label: str, tip: str, optional: bool = True) -> LongTextEditor:
        return self._add(LongTextEditor(self, path, label, tip, optional))  # type: ignore[return-value]

    def json(self, path: Sequence[PathStep], label: str, tip: str, placeholder: str = "JSON, e.g. {}") -> JsonEditor:
        return self._add(JsonEditor(self, path, label, tip, placeholder))  # type: ignore[return-value]

    def row(self, label: str, widget: QWidget) -> None:
        """A row for a widget that is not bound to a key (the id box)."""
        self.layout_.addRow(label, widget)

    def add(self, editor: Editor, with_label: bool = True) -> Editor:
        """Add an editor of a panel's own kind (index keys, ...)."""
        return self._add(editor, with_label)

    def check(self, path: Sequence[PathStep], label: str, tip: str) -> CheckEditor:
        return self._add(CheckEditor(self, path, label, tip), with_label=False)  # type: ignore[return-value]

    def choice(
        self, path: Sequence[PathStep], label: str, tip: str, choices: Sequence[tuple[str, Any]]
    ) -> ChoiceEditor:
        return self._add(ChoiceEditor(self, path, label, tip, choices))  # type: ignore[return-value]

    def load(self, model: Any) -> None:
        """Show ``model``; a change from outside (undo, another panel) clears stale errors."""
        self.model = model
        for editor in self.editors:
            if not (editor.refused and editor.widget.hasFocus()):
                editor.set_error(None)
                editor.show(get_in(model, editor.path))

    def reload_one(self, editor: Editor) -> None:
        if self.model is not None:
            editor.show(get_in(self.model, editor.path))

    def editor(self, path: Sequence[PathStep]) -> Editor:
        """The editor bound to ``path`` (tests and panels look editors up by their key)."""
        wanted = list(path)
        return next(e for e in self.editors if e.path == wanted)
