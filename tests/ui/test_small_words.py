"""Small things the tryout saw: the Compare dialog cut its Change column short, and the status bar's hint after
a new relationship stayed through later edits."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import Qt

from modeller.ui.commands import EditRelationshipCommand
from modeller.ui.commands.entity import rename_entity_command
from modeller.ui.main_window import RELATIONSHIP_HINT

from .conftest import sample
from .test_compare_dialog import _compare


def test_the_compare_list_wraps_both_columns_at_half_the_width(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window()
    old = tmp_path / "old.modeller.json"
    shutil.copyfile(sample("blog"), old)
    assert window.open_path(sample("blog"), ask=False)
    rel = window.document.project.relationships[0]
    window.document.push(EditRelationshipCommand(window.document, rel.model_copy(update={"strategy": "two-way"})))
    dialog = window.database_actions.show_compare()
    dialog.resize(1100, 650)
    dialog.show()
    dialog.file_path.setText(str(old))
    dialog.file_radio.setChecked(True)
    _compare(qtbot, dialog)
    tree = dialog.tree
    assert tree.textElideMode() == Qt.TextElideMode.ElideNone and tree.wordWrap()
    width = tree.viewport().width()
    assert abs(tree.columnWidth(0) - tree.columnWidth(1)) <= 2 and tree.columnWidth(0) >= width // 2 - 2
    changed = [
        tree.topLevelItem(i).child(j)
        for i in range(tree.topLevelItemCount())
        for j in range(tree.topLevelItem(i).childCount())
    ]
    strategy = next(item for item in changed if "strategy changed" in item.text(0))
    assert strategy.text(0).endswith('strategy changed: "User -> Post": extended-ref -> two-way')
    # a long finding wraps onto more lines at the column's width instead of being cut
    line = tree.fontMetrics().lineSpacing()
    finding = next(item for item in changed if "parent-ref-one-to-squillions" in item.text(0))
    assert tree.visualItemRect(finding).height() >= 3 * line
    assert tree.visualItemRect(strategy).height() >= 2 * line - 2  # its risk wraps onto two lines


def test_the_relationship_hint_leaves_with_the_next_edit(make_window) -> None:
    window = make_window()
    assert window.open_path(sample("task-tracker"), ask=False)
    person, task = (e.id for e in window.document.project.entities[:2])
    window.scene.connect_entities(person, task)
    assert window.statusBar().currentMessage() == RELATIONSHIP_HINT
    window.document.push(rename_entity_command(window.document, person, "Owner"))
    assert window.statusBar().currentMessage() == ""
