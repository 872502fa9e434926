"""Properties and Queries panels: every edit is a command, typing merges, bad values are refused inline."""

from __future__ import annotations

from PySide6.QtCore import Qt

from modeller.ui.commands.relationship import describe
from modeller.ui.main_window import MainWindow

from .conftest import sample


def open_entity(window: MainWindow, name: str) -> str:
    assert window.open_path(sample("task-tracker"), ask=False)
    entity_id = next(e.id for e in window.document.project.entities if e.name == name)
    window.scene.select_only(entity_ids=[entity_id])
    return entity_id


def type_into(qtbot, editor, text: str, enter: bool = False) -> None:
    widget = editor.widget
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClicks(widget, text)
    if enter:
        qtbot.keyClick(widget, Qt.Key.Key_Return)


def test_invalid_count_is_refused_inline_and_model_untouched(window: MainWindow, qtbot) -> None:
    entity_id = open_entity(window, "Task")
    before = window.document.entity(entity_id)
    editor = window.properties.entity_editor.form.editor(["count"])
    type_into(qtbot, editor, "-5", enter=True)
    assert editor.error.isVisibleTo(window.properties) and "greater than or equal to 0" in editor.error.text()
    assert window.document.entity(entity_id) == before
    type_into(qtbot, editor, "abc", enter=True)
    assert "'abc' is not a number" in editor.error.text()
    type_into(qtbot, editor, "2,500,000", enter=True)
    assert not editor.error.isVisibleTo(window.properties)
    assert window.document.entity(entity_id).count == 2_500_000
    assert window.scene.entity_items[entity_id]._subtitle.startswith("2.5M docs")


def test_a_name_is_applied_on_enter_as_one_undo_entry_per_rename(window: MainWindow, qtbot) -> None:
    entity_id = open_entity(window, "Task")
    editor = window.properties.entity_editor.form.editor(["name"])
    stack = window.document.undo_stack
    type_into(qtbot, editor, "Chore")
    assert window.document.entity(entity_id).name == "Task" and stack.count() == 0  # typing applies nothing
    qtbot.keyClick(editor.widget, Qt.Key.Key_Return)
    assert stack.count() == 1 and stack.undoText() == "Rename Task"
    assert window.document.entity(entity_id).name == "Chore"
    type_into(qtbot, editor, "Job", enter=True)  # a second rename is a second step, not merged into the first
    assert stack.count() == 2 and stack.undoText() == "Rename Chore"
    stack.undo()
    assert window.document.entity(entity_id).name == "Chore"
    stack.undo()
    assert window.document.entity(entity_id).name == "Task"
    assert editor.widget.text() == "Task"


def test_a_name_is_applied_when_focus_leaves_the_box(window: MainWindow, qtbot) -> None:
    entity_id = open_entity(window, "Task")
    editor = window.properties.entity_editor.form.editor(["collection"])
    type_into(qtbot, editor, "chores")
    assert window.document.entity(entity_id).collection != "chores"
    window.properties.entity_editor.form.editor(["count"]).widget.setFocus()
    assert window.document.entity(entity_id).collection == "chores"
    assert window.document.undo_stack.count() == 1


def test_illegal_field_name_refused_with_reason(window: MainWindow) -> None:
    entity_id = open_entity(window, "Person")
    fields = window.properties.entity_editor.fields
    before = window.document.entity(entity_id)
    fields.item_at(0).setText(0, "$bad")
    assert "starts with '$'" in fields.error.text()
    assert window.document.entity(entity_id) == before


def test_field_table_add_nest_reorder_and_types(window: MainWindow, qtbot) -> None:
    entity_id = open_entity(window, "Person")
    fields = window.properties.entity_editor.fields
    names = [f.name for f in window.document.entity(entity_id).fields]
    fields.tree.setCurrentItem(fields.item_at(len(names) - 1))
    fields.add_button.click()
    qtbot.wait(1)  # the tree reloads after the edit's signal returns
    entity = window.document.entity(entity_id)
    assert [f.name for f in entity.fields] == [*names, "field1"]
    fields.tree.setCurrentItem(fields.item_at(len(names)))
    fields.nest_button.click()
    qtbot.wait(1)
    added = window.document.entity(entity_id).fields[-1]
    assert added.type == "object" and [f.name for f in added.fields or []] == ["field1"]
    assert "field1" in [r.name.strip() for r in window.scene.entity_items[entity_id]._rows]
    fields.tree.setCurrentItem(fields.item_at(len(names)))
    fields.up_button.click()
    qtbot.wait(1)
    assert [f.name for f in window.document.entity(entity_id).fields][-2] == "field1"
    item = fields.item_at(0)
    item.setText(1, "array")
    item.setText(2, "string")
    qtbot.wait(1)
    first = window.document.entity(entity_id).fields[0]
    assert first.type == "array" and first.items is not None and first.items.type == "string"
    assert window.scene.entity_items[entity_id]._rows[0].name.endswith("[ ]")
    fields.item_at(0).setCheckState(3, Qt.CheckState.Checked)
    qtbot.wait(1)
    assert window.document.entity(entity_id).fields[0].required
    count = window.document.undo_stack.count()
    while window.document.undo_stack.canUndo():
        window.document.undo_stack.undo()
    assert count >= 5
    assert [f.name for f in window.document.entity(entity_id).fields] == names


def test_relationship_editor_swap_strategy_denormalize_and_refusal(window: MainWindow, qtbot) -> None:
    assert window.open_path(sample("task-tracker"), ask=False)
    rel = window.document.project.relationships[0]
    window.scene.select_only(rel_ids=[rel.id])
    editor = window.properties.relationship_editor
    assert editor.rel_id == rel.id
    editor.swap_button.click()
    swapped = window.document.relationship(rel.id)
    assert (swapped.one, swapped.many) == (rel.many, rel.one)
    assert window.document.undo_stack.undoText().startswith("Swap ends")
    window.document.undo_stack.undo()
    combo = editor.strategy.combo
    assert combo.itemText(0).startswith("Auto (")
    combo.setCurrentIndex(combo.findData("embed"))
    assert window.document.relationship(rel.id).strategy == "embed"
    assert window.scene.relationship_items[rel.id].badge_text() == "embed"
    typical = editor.form.editor(["typical"])
    type_into(qtbot, typical, "50", enter=True)
    maximum = editor.form.editor(["max"])
    type_into(qtbot, maximum, "10", enter=True)
    assert "smaller than 'typical'" in maximum.error.text()
    assert window.document.relationship(rel.id).max == rel.max
    editor.add_denormalized()
    copies = window.document.relationship(rel.id).denormalize
    assert copies and copies[-1].direction == "one-to-many"
    note = editor.note_form.editor(["decision", "note"])
    note.widget.setPlainText("Tasks are listed on their own")
    assert window.document.relationship(rel.id).decision.note == "Tasks are listed on their own"
    note.widget.setPlainText("")
    assert window.document.relationship(rel.id).decision is None


def test_project_settings_and_refused_database_name(window: MainWindow, qtbot) -> None:
    editor = window.properties.project_editor.form.editor(["database"])
    before = window.document.project.database
    type_into(qtbot, editor, "my.db", enter=True)
    assert "contains '.'" in editor.error.text()
    assert window.document.project.database == before  # a name is applied whole or not at all
    assert editor.widget.text() == "my.db"  # after Enter the refused name stays in the box, to be fixed there
    window.properties.project_editor.form.editor(["server_version"]).widget.setFocus()
    # focus left: the box shows the model again, the reason stays
    assert editor.widget.text() == (before or "") and editor.error.text().startswith("Not applied")
    type_into(qtbot, editor, "tracker", enter=True)
    assert window.document.project.database == "tracker"
    assert window.document.undo_stack.count() == 1  # one rename, one entry
    window.document.undo_stack.undo()
    assert window.document.project.database is None


def test_queries_panel_adds_and_edits_filters(window: MainWindow, qtbot) -> None:
    entity_id = open_entity(window, "Task")
    panel = window.queries
    before = len(window.document.project.queries)
    panel.add_query()
    query = window.document.project.queries[-1]
    assert len(window.document.project.queries) == before + 1 and query.entity == entity_id
    assert panel.editor.query_id == query.id
    panel.editor._add_filter()
    first_path = window.document.entity(entity_id).fields[0].name
    assert window.document.query(query.id).filter == {first_path: "eq"}
    panel.editor.filters.item(0, 1).setText("range")
    assert window.document.query(query.id).filter == {first_path: "range"}
    panel.editor.filters.item(0, 1).setText("between")
    assert "Not applied" in panel.editor.error.text()
    assert window.document.query(query.id).filter == {first_path: "range"}
    panel.editor._add_sort()
    assert window.document.query(query.id).sort == ((first_path, 1),)
    name = panel.editor.form.editor(["name"])
    type_into(qtbot, name, "tasks due")
    assert window.document.query(query.id).name == "Task query"  # a name is one edit, applied on Enter
    type_into(qtbot, name, "tasks due tomorrow", enter=True)
    assert window.document.query(query.id).name == "tasks due tomorrow"
    per_sec = panel.editor.form.editor(["per_sec"])
    per_sec.widget.setText("12.5")
    per_sec.submit()
    assert window.document.query(query.id).per_sec == 12.5
    panel.remove_query()
    assert len(window.document.project.queries) == before


def test_a_count_is_applied_on_enter_not_per_digit(window: MainWindow, qtbot) -> None:
    """Typing 20 into Typical N under a Max N of 10 must not leave the typed 2 applied (tryout a14 item 3)."""
    assert window.open_path(sample("task-tracker"), ask=False)
    rel = window.document.project.relationships[0]
    window.scene.select_only(rel_ids=[rel.id])
    form = window.properties.relationship_editor.form
    maximum, typical = form.editor(["max"]), form.editor(["typical"])
    stack = window.document.undo_stack
    type_into(qtbot, typical, "5", enter=True)
    type_into(qtbot, maximum, "10", enter=True)
    assert (window.document.relationship(rel.id).typical, window.document.relationship(rel.id).max) == (5, 10)
    assert stack.count() == 2
    type_into(qtbot, typical, "20")
    assert window.document.relationship(rel.id).typical == 5 and stack.count() == 2  # typing applies nothing
    qtbot.keyClick(typical.widget, Qt.Key.Key_Return)
    assert "smaller than" in typical.error.text() and typical.widget.text() == "20"  # refused, kept to be fixed
    assert window.document.relationship(rel.id).typical == 5
    type_into(qtbot, maximum, "2000", enter=True)
    type_into(qtbot, typical, "20", enter=True)
    assert window.document.relationship(rel.id).typical == 20
    assert stack.count() == 3  # Max N 10 then 2000 in the same box, one after another, is one undo step


def test_a_relationships_optional_key_is_a_checkbox_one_undo_step_each(window: MainWindow, qtbot) -> None:
    """The file format's `optional` (an N may have no One) is edited in the relationship form and undone."""
    assert window.open_path(sample("task-tracker"), ask=False)
    rel = window.document.project.relationships[0]
    assert rel.optional is False
    window.scene.select_only(rel_ids=[rel.id])
    editor = window.properties.relationship_editor
    box = editor.optional.box
    assert box.text() == "Optional: an N may have no One" and not box.isChecked()
    box.click()
    assert window.document.relationship(rel.id).optional is True
    assert (
        window.document.undo_stack.undoText()
        == f"Edit {describe(window.document, rel)}: Optional: an N may have no One"
    )
    design = window.document.project  # the validator of the N no longer requires the reference
    from modeller.rules import analyse

    tasks = analyse(design).design.collection("tasks")
    assert tasks is not None and "owner_id" not in tasks.validator["$jsonSchema"].get("required", [])
    window.document.undo_stack.undo()
    assert window.document.relationship(rel.id).optional is False and not box.isChecked()
    window.document.undo_stack.redo()
    assert window.document.relationship(rel.id).optional is True and box.isChecked()


def test_the_counts_are_named_after_the_ends_only_for_a_many_to_many(window: MainWindow) -> None:
    assert window.open_path(sample("task-tracker"), ask=False)
    rel = window.document.project.relationships[0]
    window.scene.select_only(rel_ids=[rel.id])
    editor = window.properties.relationship_editor
    assert editor.form.label_of(["max"]) == "Max N" and editor.ends.label_of(["one"]) == "One side"
    editor.cardinality.combo.setCurrentIndex(editor.cardinality.combo.findData("many-to-many"))
    assert editor.form.label_of(["max"]) == "Max Tasks per Person"
    window.document.undo_stack.undo()
    assert editor.form.label_of(["max"]) == "Max N" and editor.ends.label_of(["one"]) == "One side"


def test_a_many_to_many_takes_its_other_bound_with_undo_and_swap(window: MainWindow, qtbot) -> None:
    """How many Persons one Task can have is a row of its own, only for a many-to-many; it becomes the maxItems
    of each Task's array of Person ids, and Swap ends exchanges the two bounds."""
    assert window.open_path(sample("task-tracker"), ask=False)
    rel = window.document.project.relationships[0]
    window.scene.select_only(rel_ids=[rel.id])
    editor = window.properties.relationship_editor
    form = editor.form
    holder = form.editor(["max_ones"]).widget
    assert not holder.isVisibleTo(editor)  # a one-to-N has no second bound
    editor.cardinality.combo.setCurrentIndex(editor.cardinality.combo.findData("many-to-many"))
    assert holder.isVisibleTo(editor) and form.label_of(["max_ones"]) == "Max People per Task"
    combo = editor.strategy.combo  # a many-to-many's parent-ref is an array in each N, and says so
    # the report's words (many_to_many_holds)
    assert combo.itemText(combo.findData("parent-ref")) == "parent-ref — an array of One ids in each N"
    assert combo.itemText(combo.findData("two-way")) == (
        "two-way — an array of ids on each side, One ids in each N and N ids in each One"
    )
    type_into(qtbot, form.editor(["max"]), "40", enter=True)
    type_into(qtbot, form.editor(["max_ones"]), "3", enter=True)
    assert (window.document.relationship(rel.id).max, window.document.relationship(rel.id).max_ones) == (40, 3)
    assert window.document.undo_stack.undoText() == f"Edit {describe(window.document, rel)}: Max People per Task"
    from modeller.rules import analyse

    tasks = analyse(window.document.project).design.collection("tasks")
    assert tasks is not None
    ids = next(n for n in tasks.shape if n.relationship == rel.id and n.bson_type == "array")
    assert ids.max_items == 3
    editor.swap_button.click()
    swapped = window.document.relationship(rel.id)
    assert (swapped.one, swapped.many, swapped.max, swapped.max_ones) == (rel.many, rel.one, 3, 40)
    assert form.label_of(["max_ones"]) == "Max Tasks per Person"
    window.document.undo_stack.undo()
    assert window.document.relationship(rel.id).max_ones == 3
    window.document.undo_stack.undo()
    assert window.document.relationship(rel.id).max_ones is None and form.editor(["max_ones"]).widget.text() == ""
    window.document.undo_stack.undo()
    window.document.undo_stack.undo()  # back to the one-to-N it was
    assert not holder.isVisibleTo(editor)
    assert combo.itemText(combo.findData("parent-ref")) == "parent-ref — reference to the One in each N"


def test_swap_ends_of_a_many_to_many_without_bounds_drops_its_typical(window: MainWindow, qtbot) -> None:
    """The typical number of a many-to-many counts one way only: with no bounds declared, Swap ends still drops it
    (kept, 50 Tasks per Person would size the engine as 50 People per Task); undo brings it back."""
    assert window.open_path(sample("task-tracker"), ask=False)
    rel = window.document.project.relationships[0]
    window.scene.select_only(rel_ids=[rel.id])
    editor = window.properties.relationship_editor
    editor.cardinality.combo.setCurrentIndex(editor.cardinality.combo.findData("many-to-many"))
    type_into(qtbot, editor.form.editor(["typical"]), "50", enter=True)
    assert editor.apply(["max"], None) is None  # the sample bounds it: no bound now
    before = window.document.relationship(rel.id)
    assert (before.typical, before.max, before.max_ones) == (50, None, None)
    editor.swap_button.click()
    swapped = window.document.relationship(rel.id)
    assert (swapped.one, swapped.many, swapped.typical, swapped.max, swapped.max_ones) == (
        rel.many,
        rel.one,
        None,
        None,
        None,
    )
    window.document.undo_stack.undo()
    assert window.document.relationship(rel.id).typical == 50


def test_the_second_bounds_tooltip_names_the_threshold_in_effect(window: MainWindow, monkeypatch) -> None:
    """Review r16-ui item 6: the tooltip said "above 2,000" whatever ``refarray_max`` the engine used."""
    from modeller.rules.settings import DEFAULT_SETTINGS
    from modeller.ui.panels import properties_panel

    monkeypatch.setattr(properties_panel, "DEFAULT_SETTINGS", DEFAULT_SETTINGS.with_values(refarray_max=1500))
    assert window.open_path(sample("task-tracker"), ask=False)
    rel = window.document.project.relationships[0]
    window.scene.select_only(rel_ids=[rel.id])
    editor = window.properties.relationship_editor
    editor.cardinality.combo.setCurrentIndex(editor.cardinality.combo.findData("many-to-many"))
    tip = editor.form.editor(["max_ones"]).widget.toolTip()
    assert tip.endswith("array of Person ids; above 1,500 that side keeps no array") and "2,000" not in tip
