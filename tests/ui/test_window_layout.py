"""The window's size and dock layout are remembered on close and restored at the next start."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QByteArray, Qt

from modeller.ui.main_window import GEOMETRY_KEY, STATE_KEY, MainWindow


def test_size_and_docks_survive_a_restart(make_window: Callable[..., MainWindow], qtbot) -> None:
    first = make_window()
    # the offscreen screen is 800x800: a larger window would be shrunk to fit on restoring
    size = (first.minimumSizeHint().width(), 700)
    first.resize(*size)
    first.docks["preview"].hide()
    first.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, first.docks["palette"])
    qtbot.wait(10)
    assert first.close()
    assert isinstance(first.settings.value(STATE_KEY), QByteArray)

    second = make_window()  # same settings file: the next start
    assert (second.width(), second.height()) == (1300, 850)  # the fixture's size, before restoring
    assert second.restore_window_layout()
    qtbot.wait(10)
    assert (second.width(), second.height()) == size
    assert second.docks["preview"].isHidden()
    assert second.dockWidgetArea(second.docks["palette"]) == Qt.DockWidgetArea.RightDockWidgetArea
    assert not second.docks["properties"].isHidden()


def test_no_saved_layout_keeps_the_default(make_window: Callable[..., MainWindow]) -> None:
    window = make_window()
    assert not window.restore_window_layout()
    assert window.dockWidgetArea(window.docks["palette"]) == Qt.DockWidgetArea.LeftDockWidgetArea
    assert not window.docks["preview"].isHidden()


def test_damaged_layout_is_ignored(make_window: Callable[..., MainWindow]) -> None:
    window = make_window()
    window.settings.setValue(GEOMETRY_KEY, QByteArray(b"\x00garbage"))
    window.settings.setValue(STATE_KEY, "not a layout")
    assert not window.restore_window_layout()
    assert window.dockWidgetArea(window.docks["palette"]) == Qt.DockWidgetArea.LeftDockWidgetArea
