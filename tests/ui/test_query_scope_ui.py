"""The query editor's "For one:" and related fields, the preview's Queries tab, and the canvas marks of a query."""

from __future__ import annotations

import json
import os
from pathlib import Path

from PySide6.QtCore import QModelIndex
from PySide6.QtWidgets import QApplication

from modeller.export.query_plans import query_mongosh
from modeller.ui.main_window import MainWindow

from .live_helpers import SAMPLES, open_sample


def select_in_dock(window: MainWindow, query_id: str) -> None:
    window.queries.select(query_id)
    assert window.queries.editor.query_id == query_id


def scope_texts(window: MainWindow) -> list[str]:
    combo = window.queries.editor.scope.combo
    return [combo.itemText(i) for i in range(combo.count())]


def test_for_one_offers_the_other_entity_by_name_and_each_choice_is_one_undo_step(make_window) -> None:
    window = open_sample(make_window, "task-tracker")
    select_in_dock(window, "tasks_due")
    editor = window.queries.editor
    # a Task query: "the Tasks of one Person", labelled with the relationship's role, never its id
    assert scope_texts(window) == ["(all documents)", "Person (owner)"]
    assert editor.scope.combo.currentIndex() == 0
    undo = window.document.undo_stack
    before = undo.count()
    editor.scope.combo.setCurrentIndex(1)
    assert window.document.query("tasks_due").scope == "person_tasks"
    editor.scope.combo.setCurrentIndex(0)
    assert window.document.query("tasks_due").scope is None
    assert undo.count() == before + 2  # two choices, two undo entries (not merged)
    undo.undo()
    assert window.document.query("tasks_due").scope == "person_tasks"
    assert editor.scope.combo.currentText() == "Person (owner)"  # the editor follows the undo
    undo.undo()
    assert window.document.query("tasks_due").scope is None


def test_a_person_query_is_scoped_from_the_one_side(make_window) -> None:
    window = open_sample(make_window, "task-tracker")
    select_in_dock(window, "person_with_tasks")
    assert scope_texts(window) == ["(all documents)", "Task (tasks)"]


def test_changing_the_entity_drops_a_scope_that_no_longer_fits_in_the_same_step(make_window) -> None:
    window = open_sample(make_window, "ecommerce")
    select_in_dock(window, "active_orders_of_user")
    editor = window.queries.editor
    undo = window.document.undo_stack
    before = undo.count()
    # user_orders also touches User: the scope stays (now "the User of one Order")
    editor.entity.combo.setCurrentIndex(editor.entity.combo.findData("user"))
    assert window.document.query("active_orders_of_user").scope == "user_orders"
    assert scope_texts(window) == ["(all documents)", "Order (user)"]
    # Product has nothing to do with user_orders: the scope goes with the same edit
    editor.entity.combo.setCurrentIndex(editor.entity.combo.findData("product"))
    assert window.document.query("active_orders_of_user").scope is None
    assert undo.count() == before + 2
    undo.undo()
    assert window.document.query("active_orders_of_user").scope == "user_orders"


def test_related_fields_are_offered_for_the_projection_and_added_in_one_step(make_window) -> None:
    window = open_sample(make_window, "task-tracker")
    select_in_dock(window, "tasks_of_owner")
    editor = window.queries.editor
    editor._fill_field_menu()
    texts = [a.text() for a in editor.add_field_menu.actions() if not a.isSeparator()]
    assert "description" in texts and "Person (owner) → name" in texts
    action = next(a for a in editor.add_field_menu.actions() if a.text() == "Person (owner) → name")
    before = window.document.undo_stack.count()
    action.trigger()
    assert window.document.query("tasks_of_owner").projection == ("owner.name",)
    assert window.document.undo_stack.count() == before + 1
    assert editor.projection.line.text() == "owner.name"
    window.document.undo_stack.undo()
    assert window.document.query("tasks_of_owner").projection == ()


def test_the_queries_tab_shows_each_plan_in_the_user_words_with_its_mongosh(make_window) -> None:
    window = open_sample(make_window, "task-tracker")
    preview = window.preview
    preview.show_tab("Queries")
    tab = preview.queries_tab
    names = [tab.list.item(i).text() for i in range(tab.list.count())]
    assert names == [q.name for q in window.document.project.queries]  # names, not ids
    tab.list.setCurrentRow(2)  # "Open tasks of one owner by due date"
    text = tab.plan_view.toPlainText()
    assert "the Tasks of one Person" in text
    assert "owner_id_1_due_date_1" in text and "owner_id Equality" in text and "due_date Sort" in text
    assert "no blocking sort" in text
    plan = next(p for p in window.recommendations.analysis.design.queries if p.id == "tasks_of_owner")  # type: ignore[union-attr]
    assert tab.mongosh_view.toPlainText() == query_mongosh(plan)
    tab.copy_button.click()
    assert QApplication.clipboard().text() == query_mongosh(plan)


def test_a_blocking_sort_and_a_first_read_are_shown(make_window, tmp_path: Path) -> None:
    # with child-refs, the Tasks of one Person are read by _id from the Person's array and sorted in memory
    data = json.loads((SAMPLES / "task-tracker.modeller.json").read_text(encoding="utf-8"))
    data["relationships"][0]["strategy"] = "child-refs"
    path = tmp_path / "child-refs.modeller.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    window = make_window(use_engine=True)
    assert window.open_path(path, ask=False)
    window.analysis.run_now()
    window.preview.show_tab("Queries")
    window.preview.queries_tab.select("tasks_of_owner")
    text = window.preview.queries_tab.plan_view.toPlainText()
    assert "first, the reference the scope needs" in text and "people" in text
    assert "blocking sort in memory" in text and "of the server's 100.0 MB" in text
    assert "over the limit" not in text
    assert "2 round trips" in text


def test_the_queries_tab_says_what_the_estimates_assume(make_window) -> None:
    # the orders' amount has no distinct count or range share: the planner assumes the default share, as the CLI says
    window = open_sample(make_window, "orders-esr")
    window.preview.show_tab("Queries")
    tab = window.preview.queries_tab
    tab.select("recent_active_orders")
    plan = next(p for p in window.recommendations.analysis.design.queries if p.id == "recent_active_orders")  # type: ignore[union-attr]
    assert plan.assumptions == ["amount: 10 % of the Orders match the range (an engine default)"]
    text = tab.plan_view.toPlainText()
    assert "The estimates assume amount: 10 % of the Orders match the range (an engine default)." in text


def test_the_queries_tab_is_regenerated_only_when_visible(make_window) -> None:
    window = open_sample(make_window, "task-tracker")
    preview = window.preview
    preview.show_tab("Document")
    assert "Queries" in preview._dirty and preview.queries_tab.list.count() == 0
    preview.show_tab("Queries")
    assert "Queries" not in preview._dirty and preview.queries_tab.list.count() == 3


def test_selecting_a_query_marks_what_it_touches_and_clearing_removes_the_marks(make_window) -> None:
    window = open_sample(make_window, "product-parts")
    scene = window.scene
    assert scene.query_highlighted() == (set(), set())
    select_in_dock(window, "part_by_partno")  # a part with the name of its product: a join
    assert scene.query_highlighted() == ({"part", "product"}, {"product_parts"})
    window.preview.show_tab("Queries")
    assert window.preview.queries_tab.current_query() == "part_by_partno"  # the tab follows the dock
    window.queries.list.setCurrentIndex(QModelIndex())
    assert scene.query_highlighted() == (set(), set())


def test_selecting_a_card_the_query_does_not_touch_ends_the_query_selection(make_window) -> None:
    """Tryout a14 item 10: a query's marks stayed while another line was selected (two highlights at once)."""
    window = open_sample(make_window, "ecommerce")
    scene = window.scene
    select_in_dock(window, "products_of_brand")
    scene.select_only(entity_ids=["product"])  # what the query touches: the marks stay
    assert scene.query_highlighted() == ({"product"}, set())
    assert window.queries.editor.query_id == "products_of_brand"
    scene.select_only(entity_ids=["order"])
    assert scene.query_highlighted() == (set(), set()) and window.queries.editor.query_id is None
    assert window.preview.queries_tab.current_query() is None


def test_a_scoped_query_marks_both_ends_and_the_tab_drives_the_dock(make_window) -> None:
    window = open_sample(make_window, "task-tracker")
    window.preview.show_tab("Queries")
    tab = window.preview.queries_tab
    tab.list.setCurrentRow(2)  # tasks_of_owner: scoped by person_tasks, no join
    assert window.scene.query_highlighted() == ({"task", "person"}, {"person_tasks"})
    assert window.queries.editor.query_id == "tasks_of_owner"
    window.queries.remove_query()  # the marks go with the query
    assert window.scene.query_highlighted() == (set(), set())
    window.document.undo_stack.undo()
    assert window.scene.query_highlighted() == (set(), set())  # a restored query is not selected again


def test_a_query_on_its_own_marks_only_its_entity(make_window) -> None:
    window = open_sample(make_window, "ecommerce")
    select_in_dock(window, "products_of_brand")
    assert window.scene.query_highlighted() == ({"product"}, set())


def test_screenshot_of_the_queries_tab_and_the_marks(make_window, tmp_path: Path) -> None:
    """A picture to look at (kept when MODELLER_SCREENSHOT_DIR is set); it must show the marked cards."""
    window = open_sample(make_window, "task-tracker")
    window.resize(1500, 950)
    window.show()
    window.preview.show_tab("Queries")
    select_in_dock(window, "tasks_of_owner")
    QApplication.processEvents()
    image = window.grab().toImage()
    out = Path(os.environ.get("MODELLER_SCREENSHOT_DIR", tmp_path)) / "queries-tab.png"
    assert image.save(str(out))
    item = window.scene.entity_items["person"]
    assert item.query_highlight and window.scene.relationship_items["person_tasks"].query_highlight
