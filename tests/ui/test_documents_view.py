"""View → Documents: the canvas shows collections as stored, at the cards' places."""

from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest

from modeller.model.project import Position
from modeller.ui.canvas.spread import spread
from modeller.ui.commands.layout import MoveCommand
from modeller.ui.main_window import MainWindow

from .conftest import sample


def rows(window: MainWindow, entity_id: str) -> list[tuple[int, str, str, str]]:
    item = window.scene.entity_items[entity_id]
    return [(row.level, row.name, row.type_text, row.kind) for row in item._rows]


def test_documents_view_of_the_blog_nests_comments_in_posts_and_shows_sizes(make_window, qtbot) -> None:
    window = make_window(use_engine=True)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)  # window-wide shortcuts need the active window
    assert window.open_path(sample("blog"), ask=False)
    window.analysis.run_now()
    scene = window.scene
    before = {key: item.pos() for key, item in scene.entity_items.items()}
    logical = rows(window, "post")
    window.view.setFocus()
    QTest.keyClick(window.view, Qt.Key.Key_2, Qt.KeyboardModifier.ControlModifier)
    assert scene.documents_view and window.documents_view_action.isChecked()

    post = scene.entity_items["post"]
    assert post._title == "posts"
    assert post._subtitle.startswith("~1.2M docs · avg ") and " KB · max " in post._subtitle
    shown = rows(window, "post")
    # comments are an array of sub-documents inside the post, their fields one level deeper
    comments = next(i for i, r in enumerate(shown) if r[1] == "comments [ ]")
    assert shown[comments][0] == 0 and "embedded Comment" in shown[comments][2]
    assert (1, "content", "string", "") in shown[comments + 1 :]
    # a reference points at its collection; a copied field is marked with its source
    assert (0, "author", "{…}  → users", "reference") in shown
    assert any(r[1] == "name" and r[2] == "string  copy of User.name" and r[3] == "copy" for r in shown)
    # the comment has no card of its own, and neither have the lines to it; references stay drawn
    assert not scene.entity_items["comment"].isVisible()
    assert not scene.relationship_items["post_comments"].isVisible()
    assert scene.relationship_items["user_posts"].isVisible()
    assert scene.entity_items["user"]._title == "users"
    # far zoomed out, the bulk drawing shows the same two collection cards and the one reference line
    window.view.set_zoom(0.1)
    lines, boxes, _heads = scene._overview_geometry()
    assert len(boxes) == 2 and len(lines) == 1
    window.view.reset_zoom()
    # positions are kept both ways; Ctrl+1 brings the entities back
    assert {key: item.pos() for key, item in scene.entity_items.items()} == before
    QTest.keyClick(window.view, Qt.Key.Key_1, Qt.KeyboardModifier.ControlModifier)
    assert not scene.documents_view and window.diagram_view_action.isChecked()
    assert rows(window, "post") == logical and post._title == "Post"
    assert scene.entity_items["comment"].isVisible() and scene.relationship_items["post_comments"].isVisible()
    assert {key: item.pos() for key, item in scene.entity_items.items()} == before


def test_documents_view_follows_edits_and_moves(make_window) -> None:
    window = make_window(use_engine=True)
    assert window.open_path(sample("blog"), ask=False)
    window.analysis.run_now()
    window.set_documents_view(True)
    doc = window.document
    user = doc.entity("user")
    from modeller.ui.commands import EditEntityCommand

    doc.push(EditEntityCommand(doc, user.model_copy(update={"name": "Member"})))
    window.analysis.run_now()
    assert window.scene.documents_view
    assert any("copy of Member.name" in r[2] for r in rows(window, "post"))
    # a card moved in the Documents view keeps its place in the Entities view
    item = window.scene.entity_items["post"]
    item.setPos(item.pos() + QPointF(100, 0))
    window.set_documents_view(False)
    assert window.scene.entity_items["post"].pos() == item.pos()


def test_documents_view_without_an_analysis_says_so(window: MainWindow) -> None:
    assert window.open_path(sample("blog"), ask=False)
    window.set_documents_view(True)  # this window runs no engine
    assert not window.scene.documents_view and window.diagram_view_action.isChecked()
    assert "needs the engine" in window.statusBar().currentMessage()


def test_wider_collection_cards_make_room_and_go_back_in_the_entities_view(make_window) -> None:
    """a14 tryout: the wider post card covered its neighbour; cards now spread from their real sizes."""
    window = make_window(use_engine=True)
    assert window.open_path(sample("blog"), ask=False)
    scene, doc = window.scene, window.document
    post, user = scene.entity_items["post"], scene.entity_items["user"]
    # the user card just right of the post card, top edges level: apart in the Entities view
    right_of_post = Position(x=post.pos().x() + post.rect().width() + 20, y=post.pos().y())
    doc.push(MoveCommand(doc, {"user": right_of_post}))
    assert not post.scene_rect().intersects(user.scene_rect())
    entity_view = {key: item.pos() for key, item in scene.entity_items.items()}
    window.analysis.run_now()
    window.set_documents_view(True)

    shown = [item for item in scene.entity_items.values() if item.isVisible()]
    assert post.rect().width() > right_of_post.x - post.pos().x()  # the collection card is wider: it would cover
    for i, one in enumerate(shown):
        for other in shown[i + 1 :]:
            assert not one.scene_rect().intersects(other.scene_rect()), (one.entity_id, other.entity_id)
    assert user.pos().y() == right_of_post.y and user.pos().x() > post.scene_rect().right()  # moved right, same row
    assert post.pos() == entity_view["post"]  # the first card keeps its spot
    assert doc.position("user") == right_of_post  # the model is not changed by the view
    # the line between them is placed at the cards' shown places
    line = scene.relationship_items["user_posts"]
    assert line.isVisible() and line.sceneBoundingRect().intersects(user.scene_rect().adjusted(-30, -30, 30, 30))

    window.set_documents_view(False)
    assert {key: item.pos() for key, item in scene.entity_items.items()} == entity_view


def test_spread_moves_only_the_cards_in_the_way_by_the_shorter_way() -> None:
    boxes = {
        "a": (0.0, 0.0, 300.0, 200.0),
        "b": (250.0, 10.0, 100.0, 100.0),  # overlaps a at its right: moves right, not 200 down
        "c": (0.0, 190.0, 100.0, 100.0),  # overlaps a's bottom: moves down, not 300 right
        "d": (900.0, 900.0, 50.0, 50.0),  # in nobody's way: stays
    }
    spots = spread(boxes, gap=10)
    assert spots == {"a": (0.0, 0.0), "b": (310.0, 10.0), "c": (0.0, 210.0), "d": (900.0, 900.0)}
