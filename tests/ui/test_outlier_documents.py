"""View → Documents on the outlier sample: comments are items of their post, with no collection card of their own."""

from __future__ import annotations

from modeller.ui.main_window import MainWindow

from .conftest import sample


def test_the_outlier_comments_show_inside_their_post_only(make_window) -> None:
    window: MainWindow = make_window(use_engine=True)
    assert window.open_path(sample("viral-posts"), ask=False)
    window.analysis.run_now()
    window.documents_view_action.trigger()
    scene = window.scene
    assert scene.documents_view
    post = scene.entity_items["post"]
    assert post._title == "posts"
    names = [row.name for row in post._rows]
    assert "comments [ ]" in names and "has_overflow" in names
    assert not scene.entity_items["comment"].isVisible()
    # the preview lists the collections as stored: the post's own and its overflow, never an empty comments one
    combo = window.preview.collection_box
    shown = [combo.itemText(i) for i in range(combo.count())]
    assert shown[0] == "posts" and not any(text.startswith("comments") for text in shown), shown
