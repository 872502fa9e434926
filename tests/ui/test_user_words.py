"""Tryout item 10: what the user reads uses the form's words and the model's names, never file keys or
generated ids."""

from __future__ import annotations

from PySide6.QtCore import Qt

from modeller.model import Entity, Field, Position, Relationship
from modeller.ui.document import empty_project
from modeller.ui.panels.empty_hint import HINT

from .conftest import SAMPLES


def type_into(qtbot, editor, text: str) -> None:
    widget = editor.widget
    widget.setFocus()
    widget.selectAll()
    qtbot.keyClicks(widget, text)
    qtbot.keyClick(widget, Qt.Key.Key_Return)


def test_undo_texts_use_the_forms_labels_and_the_querys_name(window, qtbot) -> None:
    assert window.open_path(SAMPLES / "task-tracker.modeller.json", ask=False)
    stack = window.document.undo_stack
    rel = window.document.project.relationships[0]
    window.scene.select_only(rel_ids=[rel.id])
    editor = window.properties.relationship_editor
    type_into(qtbot, editor.form.editor(["reads_per_sec"]), "42")
    one, many = (window.document.entity(key).name for key in (rel.one, rel.many))
    assert stack.undoText() == f"Edit {one} → {many}: Reads/s"
    editor.standalone.widget.click()
    assert stack.undoText() == f"Edit {one} → {many}: Many side accessed on its own"

    entity = window.document.project.entities[0]
    window.scene.select_only(entity_ids=[entity.id])
    type_into(qtbot, window.properties.entity_editor.form.editor(["writes_per_sec"]), "3")
    assert stack.undoText() == f"Edit {entity.name}: Writes/s"

    query = window.document.project.queries[0]
    window.queries.select(query.id)
    queries = window.queries.editor
    name = query.name
    assert name
    type_into(qtbot, queries.form.editor(["per_sec"]), "7")
    assert stack.undoText() == f"Edit query {name}: Per second"
    queries._commit_filters([("title", "eq")])
    assert stack.undoText() == f"Edit query {name}: filter"
    queries._commit_sort([("title", "1")])
    assert stack.undoText() == f"Edit query {name}: sort"
    choices = [queries.scope.combo.itemData(i) for i in range(queries.scope.combo.count())]
    scope = next(c for c in choices if c is not None)
    queries.scope.combo.setCurrentIndex(choices.index(scope))
    assert stack.undoText() == f"Edit query {name}: For one"
    assert not any("_" in stack.text(i).rpartition(": ")[2] for i in range(stack.count())), [
        stack.text(i) for i in range(stack.count())
    ]


def test_relationship_ends_list_names_not_ids(window) -> None:
    assert window.open_path(SAMPLES / "task-tracker.modeller.json", ask=False)
    rel = window.document.project.relationships[0]
    window.scene.select_only(rel_ids=[rel.id])
    combo = window.properties.relationship_editor.one.combo
    shown = [combo.itemText(i) for i in range(combo.count())]
    assert shown == [e.name for e in window.document.project.entities]
    assert combo.currentText() == window.document.entity(rel.one).name


def test_the_empty_canvas_hint_says_where_to_double_click() -> None:
    assert "double-click it in the palette" in HINT


def test_the_preview_calls_a_many_to_many_array_references(make_window) -> None:
    window = make_window(use_engine=True)
    name = Field(name="name", type="string")
    project = empty_project("shop").model_copy(
        update={
            "entities": [
                Entity(id="category", name="Category", fields=[name]),
                Entity(id="product", name="Product", fields=[name]),
            ],
            "relationships": [
                Relationship(
                    id="category_product",
                    one="category",
                    many="product",
                    cardinality="many-to-many",
                    typical=3,
                    max=10,
                    strategy="two-way",
                )
            ],
            "layout": {"category": Position(x=0, y=0), "product": Position(x=400, y=0)},
        }
    )
    window.document.reset(type(project).model_validate(project.model_dump()))
    window.analysis.run_now()
    window.preview.show_entity("category")
    window.preview.show_tab("Document")
    tree = window.preview.shape_tree
    rows = {tree.topLevelItem(i).text(0): tree.topLevelItem(i).text(2) for i in range(tree.topLevelItemCount())}
    array = next(key for key in rows if key.endswith("_ids"))
    assert rows[array].startswith("references → product (Product)"), rows
    assert "parent" not in rows[array]


def form_label(form, path) -> str:
    holder = form._holders[tuple(path)]
    return form.layout_.labelForField(holder).text()


def test_a_many_to_many_form_says_which_way_its_counts_go(window, qtbot) -> None:
    """Tryout item 5: "One side / Many side" and "Typical N / Max N" on a many-to-many did not say which
    way the count goes, and Max N becomes the validator's maxItems of one side's array."""
    name = Field(name="name", type="string")
    project = empty_project("shop").model_copy(
        update={
            "entities": [
                Entity(id="category", name="Category", fields=[name]),
                Entity(id="product", name="Product", fields=[name]),
            ],
            "relationships": [
                Relationship(id="cp", one="category", many="product", cardinality="many-to-many", typical=3, max=10)
            ],
            "layout": {"category": Position(x=0, y=0), "product": Position(x=400, y=0)},
        }
    )
    window.document.reset(type(project).model_validate(project.model_dump()))
    window.scene.select_only(rel_ids=["cp"])
    editor = window.properties.relationship_editor
    assert form_label(editor.form, ["typical"]) == "Typical Products per Category"
    assert form_label(editor.form, ["max"]) == "Max Products per Category"
    assert "maxItems of the Category's array of Product ids" in editor.form.editor(["max"]).widget.toolTip()
    assert form_label(editor.ends, ["one"]) == "Counted per"
    assert form_label(editor.ends, ["many"]) == "Counted"
    type_into(qtbot, editor.form.editor(["max"]), "12")
    assert window.document.undo_stack.undoText() == "Edit Category → Product: Max Products per Category"
    editor.swap()  # the other way: the labels follow the ends
    assert form_label(editor.form, ["max"]) == "Max Categories per Product"
    # a one-to-many keeps the One/Many words
    editor.cardinality.combo.setCurrentIndex(editor.cardinality.combo.findData("one-to-many"))
    assert window.document.relationship("cp").cardinality == "one-to-many"
    assert form_label(editor.form, ["max"]) == "Max N"
    assert form_label(editor.ends, ["one"]) == "One side"
