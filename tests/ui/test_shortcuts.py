"""Every keyboard shortcut does one thing: two actions on one key make both dead."""

from __future__ import annotations

from collections import defaultdict

from PySide6.QtGui import QAction, QKeySequence


def test_no_two_actions_share_a_shortcut(window) -> None:
    owners: dict[str, list[str]] = defaultdict(list)
    for action in window.findChildren(QAction):
        for sequence in action.shortcuts():
            if not sequence.isEmpty():
                owners[sequence.toString(QKeySequence.SequenceFormat.PortableText)].append(action.text())
    assert owners, "the main window defines no shortcuts at all"
    clashes = {key: names for key, names in owners.items() if len(set(names)) > 1}
    assert clashes == {}


def test_common_commands_have_their_standard_keys(window) -> None:
    keys = {
        action.text().replace("&", ""): action.shortcut().toString(QKeySequence.SequenceFormat.PortableText)
        for action in window.findChildren(QAction)
    }
    assert keys["Export…"] == "Ctrl+Shift+E"
    assert keys["Add Entity"] == "Ctrl+E"
    assert keys["Save"] == "Ctrl+S"
