"""Direct manipulation on the canvas: drops land under the pointer, in-place rename, context menus."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QAction, QContextMenuEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from modeller.ui.canvas.legend import legend_corners
from modeller.ui.canvas.view import DROP_MARGIN, LEGEND_REST_MS
from modeller.ui.dialogs.entity_dialog import EntityDialog
from modeller.ui.main_window import MainWindow

from .conftest import sample
from .helpers import body_point, drag, drop_from_palette, handle_point


def card_corner(window: MainWindow, entity_id: str) -> QPoint:
    item = window.scene.entity_items[entity_id]
    return window.view.mapFromScene(item.scenePos())


def title_point(window: MainWindow, entity_id: str) -> QPoint:
    item = window.scene.entity_items[entity_id]
    return window.view.mapFromScene(item.mapToScene(item.title_rect().center()))


def in_sight(window: MainWindow, entity_id: str) -> bool:
    """The whole card lies in the canvas viewport, :data:`DROP_MARGIN` pixels from its edges."""
    item = window.scene.entity_items[entity_id]
    card = window.view.mapFromScene(item.scene_rect()).boundingRect()
    room = window.view.viewport().rect().adjusted(DROP_MARGIN - 1, DROP_MARGIN - 1, 1 - DROP_MARGIN, 1 - DROP_MARGIN)
    return room.contains(card)


def test_a_palette_drop_lands_under_the_pointer_on_an_empty_canvas(window: MainWindow) -> None:
    for at in (QPoint(150, 150), QPoint(400, 170), QPoint(333, 257)):
        before = {e.id for e in window.document.project.entities}
        drop_from_palette(window, 0, at)
        (new,) = {e.id for e in window.document.project.entities} - before
        corner = card_corner(window, new)
        assert abs(corner.x() - at.x()) <= 2 and abs(corner.y() - at.y()) <= 2, (at, corner)
        assert in_sight(window, new)


def test_a_palette_drop_lands_under_the_pointer_on_an_open_diagram(window: MainWindow) -> None:
    assert window.open_path(sample("blog"), ask=False)
    for at in (QPoint(40, 40), QPoint(400, 300), QPoint(451, 77)):
        before = {e.id for e in window.document.project.entities}
        drop_from_palette(window, 1, at)
        (new,) = {e.id for e in window.document.project.entities} - before
        corner = card_corner(window, new)
        assert abs(corner.x() - at.x()) <= 2 and abs(corner.y() - at.y()) <= 2, (at, corner)


def test_a_drop_near_the_edge_moves_the_card_into_sight_and_the_view_holds_still(window: MainWindow) -> None:
    """a14 tryout: cards dropped half outside the view were scrolled in later (by the rename), which pushed the
    first card out at the left edge."""
    viewport = window.view.viewport().rect()
    drop_from_palette(window, 0, QPoint(100, 100))
    first = window.scene.entity_items["entity"]
    first_at = window.view.mapFromScene(first.scenePos())
    bars = (window.view.horizontalScrollBar().value(), window.view.verticalScrollBar().value())
    near_edges = (
        QPoint(viewport.right() - 30, 120),
        QPoint(200, viewport.bottom() - 10),
        QPoint(viewport.right() - 5, viewport.bottom() - 5),
    )
    for at in near_edges:
        before = {e.id for e in window.document.project.entities}
        drop_from_palette(window, 0, at)
        (new,) = {e.id for e in window.document.project.entities} - before
        assert in_sight(window, new), (at, window.view.mapFromScene(window.scene.entity_items[new].scene_rect()))
        corner = card_corner(window, new)
        # moved in only along the axis that stuck out, by no more than needed
        item = window.scene.entity_items[new]
        width, height = item.rect().width() * window.view.zoom(), item.rect().height() * window.view.zoom()
        if at.x() + width <= viewport.right() - DROP_MARGIN:
            assert abs(corner.x() - at.x()) <= 2
        else:
            assert abs(corner.x() + width - (viewport.right() - DROP_MARGIN)) <= 3
        if at.y() + height <= viewport.bottom() - DROP_MARGIN:
            assert abs(corner.y() - at.y()) <= 2
        else:
            assert abs(corner.y() + height - (viewport.bottom() - DROP_MARGIN)) <= 3
    # the view did not scroll: the first card is where it was dropped, and renaming a card scrolls nothing
    assert (window.view.horizontalScrollBar().value(), window.view.verticalScrollBar().value()) == bars
    assert window.view.mapFromScene(first.scenePos()) == first_at and in_sight(window, "entity")
    assert window.view.rename_card(new) is not None
    assert window.view.mapFromScene(first.scenePos()) == first_at
    window.view.close_inline_editor()


def test_double_click_renames_a_card_in_place_and_enter_commits_once(window: MainWindow, qtbot) -> None:
    drop_from_palette(window, 0, QPoint(200, 200))
    stack = window.document.undo_stack
    count = stack.count()
    QTest.mouseDClick(window.view.viewport(), Qt.MouseButton.LeftButton, pos=title_point(window, "entity"))
    editor = window.view.inline_editor
    assert editor is not None and editor.isVisible() and editor.name.text() == "Entity"
    assert editor.name.hasFocus()
    qtbot.keyClicks(editor.name, "Person")  # the text was selected: typing replaces it
    QTest.keyClick(editor.name, Qt.Key.Key_Return)
    assert window.document.entity("entity").name == "Person"
    assert stack.count() == count + 1 and stack.undoText() == "Rename Entity to Person"
    assert window.view.inline_editor is None
    assert window.scene.entity_items["entity"].toolTip().startswith("Person")
    stack.undo()
    assert window.document.entity("entity").name == "Entity"


def test_f2_renames_and_escape_cancels(window: MainWindow, qtbot) -> None:
    drop_from_palette(window, 0, QPoint(200, 200))
    window.view.setFocus()
    count = window.document.undo_stack.count()
    QTest.keyClick(window.view, Qt.Key.Key_F2)
    editor = window.view.inline_editor
    assert editor is not None
    qtbot.keyClicks(editor.name, "Nobody")
    QTest.keyClick(editor.name, Qt.Key.Key_Escape)
    assert window.view.inline_editor is None
    assert window.document.entity("entity").name == "Entity"
    assert window.document.undo_stack.count() == count


def test_opening_another_project_closes_an_open_editor_without_applying_it(window: MainWindow, qtbot) -> None:
    drop_from_palette(window, 0, QPoint(200, 200))
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_F2)
    editor = window.view.inline_editor
    qtbot.keyClicks(editor.name, "Lost")
    window.document.undo_stack.setClean()
    assert window.open_path(sample("blog"), ask=False)
    assert window.view.inline_editor is None and not editor.isVisible()
    assert "Lost" not in {e.name for e in window.document.project.entities}


def test_a_refused_name_keeps_the_editor_open_with_the_reason(window: MainWindow, qtbot) -> None:
    drop_from_palette(window, 0, QPoint(200, 200))
    drop_from_palette(window, 0, QPoint(600, 200))
    window.scene.select_only(entity_ids=["entity_2"])
    window.view.setFocus()
    count = window.document.undo_stack.count()
    QTest.keyClick(window.view, Qt.Key.Key_F2)
    editor = window.view.inline_editor
    qtbot.keyClicks(editor.name, "Entity")
    QTest.keyClick(editor.name, Qt.Key.Key_Return)
    assert window.view.inline_editor is editor
    assert "already called 'Entity'" in editor.error_text()
    assert window.document.undo_stack.count() == count


def test_enter_on_a_selected_card_adds_a_field_with_its_type(window: MainWindow, qtbot) -> None:
    drop_from_palette(window, 0, QPoint(200, 200))
    window.view.setFocus()
    stack = window.document.undo_stack
    count = stack.count()
    QTest.keyClick(window.view, Qt.Key.Key_Return)
    editor = window.view.inline_editor
    assert editor is not None and editor.type is not None
    qtbot.keyClicks(editor.name, "born")
    editor.type.setFocus()
    qtbot.keyClicks(editor.type, "date")  # keyboard search in the type box
    assert editor.type.currentText() == "date"
    QTest.keyClick(editor.type, Qt.Key.Key_Return)
    fields = window.document.entity("entity").fields
    assert [(f.name, f.type) for f in fields] == [("born", "date")]
    assert stack.count() == count + 1 and stack.undoText() == "Add field born to Entity"
    # the card shows it
    assert any(row.name == "born" for row in window.scene.entity_items["entity"]._rows)
    # Ctrl+Shift+F does the same; a second field with the same name is refused, Escape adds nothing
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    editor = window.view.inline_editor
    assert editor is not None
    editor.name.selectAll()
    qtbot.keyClicks(editor.name, "born")
    QTest.keyClick(editor.name, Qt.Key.Key_Return)
    assert "already has a field 'born'" in editor.error_text()
    QTest.keyClick(editor.name, Qt.Key.Key_Escape)
    assert stack.count() == count + 1


def test_connecting_from_the_handle_never_draws_a_rubber_band(window: MainWindow) -> None:
    drop_from_palette(window, 0, QPoint(150, 150))
    drop_from_palette(window, 0, QPoint(600, 400))
    window.scene.clearSelection()
    bands = []
    window.view.rubberBandChanged.connect(lambda rect, *_: bands.append(rect) if not rect.isNull() else None)
    # cancelled on empty canvas: nothing selected, no band drawn across the cards
    drag(window, handle_point(window, "entity"), QPoint(900, 700))
    assert window.scene.selectedItems() == []
    assert bands == []
    # finished on a card: only the new relationship is selected, no card
    drag(window, handle_point(window, "entity"), body_point(window, "entity_2"))
    assert [r.id for r in window.document.project.relationships] == ["entity_entity_2"]
    assert window.scene.selected_entity_ids() == []
    assert window.scene.selected_relationship_ids() == ["entity_entity_2"]
    assert bands == []
    # a press on empty canvas still starts the rubber band (the check above can fail)
    drag(window, QPoint(100, 100), QPoint(1000, 750))
    assert bands and set(window.scene.selected_entity_ids()) == {"entity", "entity_2"}


# ---------------------------------------------------------------- context menus
def action(menu: QMenu, path: str) -> QAction:
    """The menu entry at ``path`` ("Set Strategy/embed"), matched on its text without & and shortcut."""
    head, _, rest = path.partition("/")
    for entry in menu.actions():
        text = entry.text().replace("&", "").split("\t")[0]
        if text == head:
            if rest:
                sub = entry.menu()
                assert sub is not None, path
                return action(sub, rest)
            return entry
    raise AssertionError(f"no entry {path!r} in {[a.text() for a in menu.actions()]}")


def card_center(window: MainWindow, entity_id: str) -> QPointF:
    return window.scene.entity_items[entity_id].scene_rect().center()


def one_undoable(window: MainWindow, trigger, check) -> None:
    """``trigger`` adds exactly one undo entry, ``check`` holds after it and not after undo."""
    stack = window.document.undo_stack
    before, index = window.document.project, stack.index()
    trigger()
    assert stack.index() == index + 1, stack.undoText()
    assert check(window.document.project), stack.undoText()
    stack.undo()
    assert window.document.project == before
    stack.redo()
    assert check(window.document.project)
    stack.undo()


def test_card_menu_actions_each_do_one_undoable_thing(window: MainWindow, qtbot) -> None:
    assert window.open_path(sample("blog"), ask=False)
    names = {e.name: e.id for e in window.document.project.entities}
    post, author = names["Post"], names["User"]
    menus = window.view.menus
    menu = menus.menu_at(card_center(window, post))
    assert window.scene.selected_entity_ids() == [post]
    rels = len(window.document.project.relationships)
    one_undoable(
        window,
        action(menu, "Connect to/User").trigger,
        lambda p: (
            len(p.relationships) == rels + 1 and (p.relationships[-1].one, p.relationships[-1].many) == (post, author)
        ),
    )
    menu = menus.menu_at(card_center(window, post))
    count = len(window.document.project.entities)
    one_undoable(window, action(menu, "Duplicate").trigger, lambda p: len(p.entities) == count + 1)
    window.scene.select_only(entity_ids=[author])
    menu = menus.menu_at(card_center(window, post))  # right-click on an unselected card selects it
    one_undoable(window, action(menu, "Delete").trigger, lambda p: post not in {e.id for e in p.entities})
    menu = menus.menu_at(card_center(window, post))
    queries = len(window.document.project.queries)
    one_undoable(
        window,
        action(menu, "Add Query on This Entity").trigger,
        lambda p: len(p.queries) == queries + 1 and p.queries[-1].entity == post,
    )
    # rename and add field open the editors on the card; the edit itself is one command
    menu = menus.menu_at(card_center(window, post))
    action(menu, "Rename").trigger()
    editor = window.view.inline_editor
    assert editor is not None and editor.name.text() == "Post"
    one_undoable(
        window,
        lambda: (editor.name.setText("Article"), QTest.keyClick(editor.name, Qt.Key.Key_Return)),
        lambda p: any(e.name == "Article" for e in p.entities),
    )
    menu = menus.menu_at(card_center(window, post))
    action(menu, "Add Field").trigger()
    editor = window.view.inline_editor
    assert editor is not None and editor.type is not None
    fields = len(window.document.entity(post).fields)
    one_undoable(
        window,
        lambda: (editor.name.setText("subtitle"), QTest.keyClick(editor.name, Qt.Key.Key_Return)),
        lambda p: [f.name for f in next(e for e in p.entities if e.id == post).fields][fields:] == ["subtitle"],
    )
    # show in preview changes nothing in the project
    menu = menus.menu_at(card_center(window, post))
    count = window.document.undo_stack.count()
    action(menu, "Show in Preview").trigger()
    assert window.document.undo_stack.count() == count
    assert not window.docks["preview"].isHidden()


def test_line_menu_sets_cardinality_and_strategy_and_deletes(window: MainWindow) -> None:
    assert window.open_path(sample("blog"), ask=False)
    rel = window.document.project.relationships[0]
    item = window.scene.relationship_items[rel.id]
    at = item.mapToScene(item.chord.center()) if item.chord is not None else item.sceneBoundingRect().center()
    menus = window.view.menus
    menu = menus.menu_at(at)
    assert window.scene.selected_relationship_ids() == [rel.id]
    assert action(menu, f"Set Cardinality/{rel.cardinality}").isChecked()
    other = "one-to-few" if rel.cardinality != "one-to-few" else "one-to-many"
    one_undoable(
        window,
        action(menu, f"Set Cardinality/{other}").trigger,
        lambda p: next(r for r in p.relationships if r.id == rel.id).cardinality == other,
    )
    strategy = "parent-ref" if rel.strategy != "parent-ref" else "child-refs"
    menu = menus.menu_at(at)
    one_undoable(
        window,
        action(menu, f"Set Strategy/{strategy}").trigger,
        lambda p: next(r for r in p.relationships if r.id == rel.id).strategy == strategy,
    )
    menu = menus.menu_at(at)
    one_undoable(window, action(menu, "Delete").trigger, lambda p: rel.id not in {r.id for r in p.relationships})


def test_empty_canvas_menu_adds_here_pastes_here_and_fits(window: MainWindow) -> None:
    assert window.open_path(sample("blog"), ask=False)
    empty = window.scene.content_rect().bottomRight() + QPointF(300, 300)
    menus = window.view.menus
    menu = menus.menu_at(empty)
    assert window.scene.selectedItems() == []
    count = len(window.document.project.entities)

    def added_at(p) -> bool:
        new = p.entities[-1]
        spot = p.layout[new.id]
        return len(p.entities) == count + 1 and (spot.x, spot.y) == (round(empty.x(), 1), round(empty.y(), 1))

    one_undoable(window, action(menu, "Add Entity Here").trigger, added_at)
    post = window.document.project.entities[0].id
    window.scene.select_only(entity_ids=[post])
    assert window.copy()
    menu = menus.menu_at(empty)
    assert action(menu, "Paste Here").isEnabled()
    one_undoable(window, action(menu, "Paste Here").trigger, added_at)
    window.view.set_zoom(3.0)
    count = window.document.undo_stack.count()
    action(menus.menu_at(empty), "Fit to Window").trigger()
    assert window.view.zoom() < 3.0 and window.document.undo_stack.count() == count


def test_a_right_click_on_the_canvas_opens_the_menu_of_what_is_under_it(window: MainWindow, monkeypatch) -> None:
    assert window.open_path(sample("blog"), ask=False)
    shown: list[list[str]] = []
    monkeypatch.setattr(
        window.view, "popup", lambda menu, _at: shown.append([a.text().split("\t")[0] for a in menu.actions()])
    )
    for at in (card_center(window, "post"), window.scene.content_rect().bottomRight() + QPointF(200, 200)):
        point = window.view.mapFromScene(at)
        event = QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, window.view.viewport().mapToGlobal(point))
        QApplication.sendEvent(window.view.viewport(), event)
    assert "&Rename" in shown[0] and "&Connect to" in shown[0]
    assert shown[1][0] == "Add &Entity Here"


def test_edit_fields_opens_the_entity_in_a_larger_window_whose_edits_are_commands(window: MainWindow, qtbot) -> None:
    assert window.open_path(sample("blog"), ask=False)
    menu = window.view.menus.menu_at(card_center(window, "post"))
    action(menu, "Edit Fields…").trigger()
    dialogs = [d for d in window.findChildren(EntityDialog) if d.isVisible()]
    assert len(dialogs) == 1
    dialog = dialogs[0]
    assert dialog.windowTitle() == "Post — fields and properties"
    assert dialog.width() >= 700 and dialog.editor.fields.tree.height() >= 300
    # the Properties dock's button opens the same window again, not a second one
    window.scene.select_only(entity_ids=["post"])
    window.properties.entity_editor.open_button.click()
    assert [d for d in window.findChildren(EntityDialog) if d.isVisible()] == [dialog]
    fields = dialog.editor.fields
    before = len(window.document.entity("post").fields)
    one_undoable(
        window, fields.add_field, lambda p: len(next(e for e in p.entities if e.id == "post").fields) == before + 1
    )
    window.document.undo_stack.redo()
    assert any(row.name.startswith("field") for row in window.scene.entity_items["post"]._rows)


def test_fit_keeps_every_card_clear_of_the_legend(make_window, samples_dir, qtbot) -> None:
    window = make_window(use_engine=True)
    window.resize(1280, 800)
    for path in sorted(samples_dir.glob("*.modeller.json")):
        assert window.open_path(path, ask=False)
        window.analysis.run_now()
        window.set_documents_view(True)  # the larger cards
        view = window.view
        # the legend may still sit in the corner the last view chose (its timer looks again later)
        view.legend.move(legend_corners(view.viewport().geometry(), view.legend.size(), margin=10)[3].topLeft())
        window.view.fit_to_window()
        qtbot.wait(3 * LEGEND_REST_MS)  # what the user sees once the view is still: the legend has looked again
        legend = window.view.legend.geometry()  # viewport coordinates
        visible = window.view.viewport().rect()
        for key, item in window.scene.entity_items.items():
            # the card as drawn (its bounding rect also holds the room of a query's halo, drawn only on a highlight)
            card = window.view.mapFromScene(item.scene_rect()).boundingRect()
            assert visible.contains(card), (path.name, key)
            assert not card.intersects(legend), (path.name, key)
