"""Entity indexes and archive, relationship aggregates and tree operations, the remaining field keys:
each edited through the properties panel, one undo entry per edit, bad values refused inline."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableWidgetItem

from modeller.ui.main_window import MainWindow
from modeller.ui.panels.fields_editor import FieldsEditor
from modeller.ui.panels.form import Editor

from .conftest import sample


def open_sample(window: MainWindow, name: str = "task-tracker") -> None:
    assert window.open_path(sample(name), ask=False)


def select_entity(window: MainWindow, entity_id: str) -> None:
    window.scene.select_only(entity_ids=[entity_id])
    assert window.properties.entity_editor.entity_id == entity_id


def type_into(qtbot, editor: Editor, text: str, enter: bool = False) -> None:
    widget = editor.widget
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClicks(widget, text)
    if enter:
        qtbot.keyClick(widget, Qt.Key.Key_Return)


def texts(stack) -> list[str]:
    return [stack.text(i) for i in range(stack.count())]


def test_indexes_add_edit_refuse_and_remove(window: MainWindow, qtbot) -> None:
    open_sample(window)
    original = window.document.entity("task")
    select_entity(window, "task")
    editor = window.properties.entity_editor.indexes
    assert editor.empty.isVisibleTo(window.properties) and not editor.detail.isVisibleTo(window.properties)
    stack = window.document.undo_stack

    editor.add_button.click()
    task = window.document.entity("task")
    assert [list(k) for k in task.indexes[0].keys] == [["description", 1]]
    assert texts(stack) == ["Add index on Task"] and editor.list.count() == 1

    keys = editor.detail.editor(["keys"])
    type_into(qtbot, keys, "owner_id, due_date: -1")
    assert [list(k) for k in window.document.entity("task").indexes[0].keys] == [["owner_id", 1], ["due_date", -1]]
    assert len(texts(stack)) == 2  # the whole typing gesture is one entry

    type_into(qtbot, keys, "due_date: up")
    assert "'up' is not 1, -1, text, 2dsphere or hashed" in keys.error.text()
    # typing applies each valid prefix ("due_date" alone is ascending); the refused text never reaches the model
    assert [list(k) for k in window.document.entity("task").indexes[0].keys] == [["due_date", 1]]
    type_into(qtbot, keys, "location: 2dsphere")
    assert [list(k) for k in window.document.entity("task").indexes[0].keys] == [["location", "2dsphere"]]
    assert not keys.error.isVisibleTo(window.properties)

    type_into(qtbot, editor.detail.editor(["name"]), "by_pl")
    assert window.document.entity("task").indexes[0].name is None  # a name is applied on Enter, not per keystroke
    type_into(qtbot, editor.detail.editor(["name"]), "by_place", enter=True)
    editor.detail.editor(["unique"]).widget.click()
    ttl = editor.detail.editor(["expire_after_s"])
    type_into(qtbot, ttl, "-3", enter=True)
    assert "greater than or equal to 0" in ttl.error.text()
    type_into(qtbot, ttl, "3600", enter=True)
    partial = editor.detail.editor(["partial"])
    type_into(qtbot, partial, '{"status": "open"', enter=True)
    assert partial.error.text().startswith("not valid JSON")
    type_into(qtbot, partial, "[1, 2]", enter=True)
    assert "valid dictionary" in partial.error.text()
    type_into(qtbot, partial, '{"status": "open"}', enter=True)
    assert not partial.error.isVisibleTo(window.properties)
    type_into(qtbot, editor.detail.editor(["collation"]), '{"locale": "fr", "strength": 1}', enter=True)

    index = window.document.entity("task").indexes[0]
    assert index.name == "by_place" and index.unique and index.expire_after_s == 3600
    assert index.partial == {"status": "open"} and index.collation == {"locale": "fr", "strength": 1}
    assert editor.list.item(0).text() == "by_place — unique, TTL 3600 s, partial, collation"
    assert texts(stack)[-5:] == [
        "Edit index 1 of Task: Name",
        "Edit index 1 of Task: Unique",
        "Edit index 1 of Task: TTL",
        "Edit index 1 of Task: Partial filter",
        "Edit index 1 of Task: Collation",
    ]

    editor.remove_button.click()
    assert window.document.entity("task").indexes == () and stack.undoText() == "Remove index from Task"
    stack.undo()
    assert window.document.entity("task").indexes == (index,)
    assert editor.detail.editor(["partial"]).widget.text() == '{"status": "open"}'
    while stack.canUndo():
        stack.undo()
    assert window.document.entity("task") == original


def test_archive_toggle_and_values(window: MainWindow, qtbot) -> None:
    open_sample(window)
    select_entity(window, "task")
    panel = window.properties.entity_editor
    panel.archive.setChecked(True)
    task = window.document.entity("task")
    assert task.archive is not None and task.archive.age_field == "due_date"  # the first date field
    assert window.document.undo_stack.undoText() == "Archive on"
    cold = panel.archive_form.editor(["archive", "cold_after_s"])
    type_into(qtbot, cold, "2.5", enter=True)
    assert "must be a whole number" in cold.error.text()
    type_into(qtbot, cold, "86400", enter=True)
    type_into(qtbot, panel.archive_form.editor(["archive", "age_field"]), "created_at")
    archive = window.document.entity("task").archive
    assert archive is not None and (archive.age_field, archive.cold_after_s) == ("created_at", 86400)
    assert window.document.undo_stack.count() == 3
    panel.archive.setChecked(False)
    assert window.document.entity("task").archive is None
    window.document.undo_stack.undo()
    assert window.document.entity("task").archive == archive and panel.archive.isChecked()


def test_entity_flags_and_shard_key(window: MainWindow, qtbot) -> None:
    open_sample(window)
    select_entity(window, "task")
    form = window.properties.entity_editor.form
    for key in ("append_only", "history", "schema_change"):
        form.editor([key]).widget.click()
    type_into(qtbot, form.editor(["shard_key"]), "owner_id, due_date")
    task = window.document.entity("task")
    assert task.append_only and task.history and task.schema_change
    assert task.shard_key == ("owner_id", "due_date")
    assert window.document.undo_stack.count() == 4


def test_aggregates_add_edit_refuse(window: MainWindow, qtbot) -> None:
    open_sample(window)
    window.scene.select_only(rel_ids=["person_tasks"])
    editor = window.properties.relationship_editor
    editor.add_aggregate_button.click()
    rel = window.document.relationship("person_tasks")
    assert [(a.name, a.op, a.field) for a in rel.aggregates] == [("tasks_count", "count", None)]
    assert window.document.undo_stack.undoText() == "Add aggregate"

    editor.aggregates.item(0, 1).setText("sum")
    assert "'sum' needs a 'field' to aggregate" in editor.aggregates_error.text()
    assert editor.aggregates_error.isVisibleTo(window.properties)
    assert window.document.relationship("person_tasks").aggregates[0].op == "count"

    editor.aggregates.blockSignals(True)
    editor.aggregates.setItem(0, 1, QTableWidgetItem("sum"))
    editor.aggregates.blockSignals(False)
    editor.aggregates.setItem(0, 2, QTableWidgetItem("hours"))
    editor.aggregates.item(0, 0).setText("open_hours")
    aggregate = window.document.relationship("person_tasks").aggregates[0]
    assert (aggregate.name, aggregate.op, aggregate.field) == ("open_hours", "sum", "hours")
    assert not editor.aggregates_error.isVisibleTo(window.properties)
    editor.aggregates.item(0, 0).setText("$bad")
    assert "starts with '$'" in editor.aggregates_error.text()
    assert window.document.relationship("person_tasks").aggregates[0].name == "open_hours"

    editor.aggregates.setCurrentCell(0, 0)
    count = window.document.undo_stack.count()
    editor.remove_aggregate()
    assert window.document.relationship("person_tasks").aggregates == ()
    assert window.document.undo_stack.count() == count + 1


def test_tree_operations_only_for_self_relationships(window: MainWindow) -> None:
    open_sample(window)
    window.scene.select_only(rel_ids=["person_tasks"])
    editor = window.properties.relationship_editor
    assert not editor.tree_box.isVisibleTo(window.properties)
    editor.many.combo.setCurrentIndex(editor.many.combo.findData("person"))  # Person manages Persons
    assert window.document.relationship("person_tasks").many == "person"
    assert editor.tree_box.isVisibleTo(window.properties)
    editor.tree_ops["ancestors"].setChecked(True)
    editor.tree_ops["move"].setChecked(True)
    assert window.document.relationship("person_tasks").tree_ops == ("ancestors", "move")
    assert window.document.undo_stack.undoText() == "Edit tree operations"


def test_inverse_name_refused_inline(window: MainWindow, qtbot) -> None:
    open_sample(window)
    window.scene.select_only(rel_ids=["person_tasks"])
    inverse = window.properties.relationship_editor.form.editor(["inverse"])
    type_into(qtbot, inverse, "own.er", enter=True)
    assert "'.'" in inverse.error.text() or "dot" in inverse.error.text()
    type_into(qtbot, inverse, "owner", enter=True)
    assert window.document.relationship("person_tasks").inverse == "owner"


def field_editor(window: MainWindow) -> FieldsEditor:
    return window.properties.entity_editor.fields


def test_remaining_field_keys(window: MainWindow, qtbot) -> None:
    open_sample(window)
    select_entity(window, "person")
    fields = field_editor(window)
    fields.tree.setCurrentItem(fields.item_at(1))  # email
    detail = fields.detail
    type_into(qtbot, detail.editor(["distinct"]), "9,000", enter=True)
    type_into(qtbot, detail.editor(["reads_per_sec"]), "12.5", enter=True)
    type_into(qtbot, detail.editor(["description"]), "Where reminders go")
    example = detail.editor(["example"])
    type_into(qtbot, example, '"ada@example', enter=True)
    assert example.error.text().startswith("not valid JSON")
    type_into(qtbot, example, '"ada@example.org"', enter=True)
    for key in ("exact", "counter", "monotonic", "immutable"):
        detail.editor([key]).widget.click()
    type_into(qtbot, detail.editor(["bytes"]), "40", enter=True)
    email = window.document.entity("person").fields[1]
    assert email.name == "email"
    assert (email.distinct, email.reads_per_sec, email.example, email.bytes) == (9000, 12.5, "ada@example.org", 40)
    assert email.description == "Where reminders go"
    assert email.exact and email.counter and email.monotonic and email.immutable
    assert window.document.undo_stack.count() == 9  # one entry per box and per tick
    detail.editor(["exact"]).widget.click()
    assert not window.document.entity("person").fields[1].exact
    type_into(qtbot, example, "false", enter=True)
    assert window.document.entity("person").fields[1].example is False  # a JSON false is a value, not "unset"


def test_max_items_only_for_arrays(window: MainWindow, qtbot) -> None:
    open_sample(window)
    select_entity(window, "person")
    fields = field_editor(window)
    fields.tree.setCurrentItem(fields.item_at(0))
    max_items = fields.detail.editor(["max_items"])
    assert not max_items.widget.isEnabled()
    fields.item_at(0).setText(1, "array")  # the Type column
    qtbot.wait(1)
    fields.tree.setCurrentItem(fields.item_at(0))
    assert max_items.widget.isEnabled()
    type_into(qtbot, max_items, "5", enter=True)
    assert window.document.entity("person").fields[0].max_items == 5
