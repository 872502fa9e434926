"""Every keyboard shortcut does one thing: two actions on one key make both dead."""

from __future__ import annotations

import re
from collections import defaultdict

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget

from modeller.ui.main_window import MainWindow

from .conftest import sample

CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


def test_no_two_actions_share_a_shortcut(window) -> None:
    owners: dict[str, list[str]] = defaultdict(list)
    for action in window.findChildren(QAction):
        for sequence in action.shortcuts():
            if not sequence.isEmpty():
                owners[sequence.toString(QKeySequence.SequenceFormat.PortableText)].append(action.text())
    assert owners, "the main window defines no shortcuts at all"
    clashes = {key: names for key, names in owners.items() if len(names) > 1}  # one action twice is dead too
    assert clashes == {}


def test_common_commands_have_their_standard_keys(window) -> None:
    keys = {
        action.text().replace("&", ""): action.shortcut().toString(QKeySequence.SequenceFormat.PortableText)
        for action in window.findChildren(QAction)
    }
    assert keys["Export…"] == "Ctrl+Shift+E"
    assert keys["Add Entity"] == "Ctrl+E"
    assert keys["Save"] == "Ctrl+S"


#: a key named in a tooltip: "Ctrl+Shift+F", "F2", "Ctrl+9" (not "Ctrl+wheel")
NAMED_KEY = re.compile(r"\b(?:(?:Ctrl|Shift|Alt)\+)*(?:(?:Ctrl|Shift|Alt)\+[A-Z0-9=]|F\d{1,2})(?![\w+])")


def bound_keys(window) -> set[str]:
    keys = set()
    for action in window.findChildren(QAction):
        keys |= {s.toString(QKeySequence.SequenceFormat.PortableText) for s in action.shortcuts()}
    for shortcut in window.findChildren(QShortcut):
        keys |= {s.toString(QKeySequence.SequenceFormat.PortableText) for s in shortcut.keys()}  # noqa: SIM118 (a QShortcut, not a dict)
    return keys - {""}


def test_every_shortcut_a_tooltip_promises_is_bound(window) -> None:
    assert window.open_path(sample("blog"), ask=False)
    tips = [w.toolTip() for w in window.findChildren(QWidget)]
    tips += [a.toolTip() for a in window.findChildren(QAction)]
    tips += [item.toolTip() for item in window.scene.items()]
    promised = {
        QKeySequence(key).toString(QKeySequence.SequenceFormat.PortableText): tip
        for tip in tips
        for key in NAMED_KEY.findall(tip)
    }
    assert "Ctrl+Shift+F" in promised  # the Add-field buttons name it (so this test can fail)
    assert "F2" in promised
    missing = {key: tip for key, tip in promised.items() if key not in bound_keys(window)}
    assert missing == {}


def test_the_field_table_add_key_adds_a_field_there(window, qtbot) -> None:
    assert window.open_path(sample("blog"), ask=False)
    window.scene.select_only(entity_ids=["post"])
    editor = window.properties.entity_editor.fields
    before = len(window.document.entity("post").fields)
    editor.tree.setFocus()
    editor.tree.setCurrentItem(editor.item_at(0))
    QTest.keyClick(editor.tree, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    fields = window.document.entity("post").fields
    assert len(fields) == before + 1 and fields[1].name.startswith("field")


def test_ctrl_y_and_ctrl_shift_z_redo_what_ctrl_z_undid(window: MainWindow) -> None:
    """Tryout a14 item 2: Redo had Ctrl+Y twice, Qt ignored it as ambiguous, and neither key redid anything."""
    assert window.open_path(sample("task-tracker"), ask=False)
    stack = window.document.undo_stack
    entity = window.document.project.entities[0]
    window.scene.select_only(entity_ids=[entity.id])
    window.delete_action.trigger()
    assert stack.count() == 1 and not has(window, entity.id)
    window.view.setFocus()
    for key, modifiers in ((Qt.Key.Key_Y, CTRL), (Qt.Key.Key_Z, CTRL | SHIFT)):
        QTest.keyClick(window.view, Qt.Key.Key_Z, CTRL)
        assert stack.index() == 0 and has(window, entity.id)
        QTest.keyClick(window.view, key, modifiers)
        assert stack.index() == 1 and not has(window, entity.id), (key, modifiers)


def has(window: MainWindow, entity_id: str) -> bool:
    return any(entity.id == entity_id for entity in window.document.project.entities)
