"""The GUI refuses a name another entity or query already has (ignoring case): the edit is not applied and
leaves no undo step; what the GUI names by itself (new cards, new queries, pasted cards) is always free."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from modeller.model import check_project
from modeller.ui.main_window import MainWindow

from .conftest import sample
from .test_properties import open_entity, type_into


def test_the_properties_form_refuses_an_entity_name_in_use(window: MainWindow, qtbot) -> None:
    entity_id = open_entity(window, "Task")
    editor = window.properties.entity_editor.form.editor(["name"])
    stack = window.document.undo_stack
    type_into(qtbot, editor, "person")  # on the way: "perso" is a free name, but nothing is applied while typing
    assert window.document.entity(entity_id).name == "Task" and stack.count() == 0
    qtbot.keyClick(editor.widget, Qt.Key.Key_Return)
    assert editor.error.isVisibleTo(window.properties)
    assert "another entity is already called 'Person'" in editor.error.text()
    assert window.document.entity(entity_id).name == "Task" and stack.count() == 0
    assert editor.widget.text() == "person"  # left in the box to be fixed
    assert check_project(window.document.project) == []
    qtbot.keyClicks(editor.widget, "s")
    qtbot.keyClick(editor.widget, Qt.Key.Key_Return)
    assert not editor.error.isVisibleTo(window.properties) and window.document.entity(entity_id).name == "persons"
    assert stack.count() == 1 and stack.undoText() == "Rename Task"


def test_a_refused_name_gives_way_to_the_models_when_focus_leaves(window: MainWindow, qtbot) -> None:
    entity_id = open_entity(window, "Task")
    editor = window.properties.entity_editor.form.editor(["name"])
    type_into(qtbot, editor, "PERSON", enter=True)
    window.properties.entity_editor.form.editor(["count"]).widget.setFocus()
    assert editor.widget.text() == "Task" and window.document.entity(entity_id).name == "Task"
    assert editor.error.isVisibleTo(window.properties)
    assert editor.error.text().startswith("Not applied: another entity is already called 'Person'")
    assert window.document.undo_stack.count() == 0


def test_the_in_place_rename_refuses_a_name_in_use_whatever_its_case(window: MainWindow, qtbot) -> None:
    entity_id = open_entity(window, "Task")
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_F2)
    editor = window.view.inline_editor
    assert editor is not None
    editor.name.selectAll()
    qtbot.keyClicks(editor.name, "PERSON")
    QTest.keyClick(editor.name, Qt.Key.Key_Return)
    assert window.view.inline_editor is editor
    assert "another entity is already called 'Person'" in editor.error_text()
    assert window.document.entity(entity_id).name == "Task"
    assert window.document.undo_stack.count() == 0


def test_query_names_are_refused_when_taken_and_new_queries_get_free_ones(window: MainWindow, qtbot) -> None:
    open_entity(window, "Task")
    panel = window.queries
    panel.add_query()
    panel.add_query()
    first, second = window.document.project.queries[-2:]
    assert first.name and second.name and first.name.casefold() != second.name.casefold()
    assert check_project(window.document.project) == []
    count = window.document.undo_stack.count()
    assert panel.editor.query_id == second.id
    problem = panel.editor.apply(["name"], first.name.upper())
    assert problem == f"another query is already called {first.name!r}; query names must be unique (ignoring case)"
    assert window.document.query(second.id) == second and window.document.undo_stack.count() == count


def test_pasted_cards_and_palette_cards_take_free_names(window: MainWindow) -> None:
    assert window.open_path(sample("task-tracker"), ask=False)
    person = next(e.id for e in window.document.project.entities if e.name == "Person")
    window.scene.select_only(entity_ids=[person])
    assert window.copy()
    window.paste()
    window.paste()
    names = [e.name for e in window.document.project.entities]
    assert names.count("Person 2") == 1 and names.count("Person 3") == 1
    assert window.document.unique_entity_name("person") == "person 4"  # "person 2" is Person 2, ignoring case
    assert check_project(window.document.project) == []


def test_a_role_named_like_a_field_is_refused_in_the_form_and_so_is_the_field(window: MainWindow, qtbot) -> None:
    open_entity(window, "Person")
    window.scene.select_only(rel_ids=["person_tasks"])
    role = window.properties.relationship_editor.form.editor(["name"])
    type_into(qtbot, role, "email", enter=True)  # Person has a field 'email'
    assert role.error.isVisibleTo(window.properties)
    assert role.error.text() == (
        "'Person' already has a field 'email'; the relationship would store its links in a second field of that "
        "name: choose another role name (or rename the field)"
    )
    assert window.document.relationship("person_tasks").name == "tasks"
    assert window.document.undo_stack.count() == 0
    window.scene.select_only(entity_ids=["person"])
    fields = window.properties.entity_editor.fields
    fields.item_at(0).setText(0, "tasks")  # the role's field in Person
    assert "stores its links in field 'tasks' of 'Person'" in fields.error.text()
    assert [f.name for f in window.document.entity("person").fields] == ["name", "email"]
    assert check_project(window.document.project) == []
