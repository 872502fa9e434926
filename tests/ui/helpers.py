"""Driving the window like a user: drops from the palette, mouse drags on the canvas."""

from __future__ import annotations

import warnings

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from modeller.ui.main_window import MainWindow
from modeller.ui.panels.palette_panel import template_mime


def drop_from_palette(window: MainWindow, row: int, at: QPoint) -> None:
    """Drop the palette's row ``row`` at viewport point ``at`` (what a drag from the palette delivers)."""
    key = window.palette_panel.key_at(row)
    mime = template_mime(key)
    viewport = window.view.viewport()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # PySide6 flags the QPoint overload
        enter = QDragEnterEvent(
            at, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
        )
    QApplication.sendEvent(viewport, enter)
    assert enter.isAccepted(), "the canvas refused the palette drag"
    event = QDropEvent(
        QPointF(at), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    QApplication.sendEvent(viewport, event)


def viewport_point(window: MainWindow, scene_point: QPointF) -> QPoint:
    return window.view.mapFromScene(scene_point)


def drag(window: MainWindow, start: QPoint, end: QPoint, steps: int = 6) -> None:
    """Press at ``start``, move in steps, release at ``end`` (left button) on the canvas viewport."""
    viewport = window.view.viewport()
    QTest.mousePress(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, start)
    for i in range(1, steps + 1):
        point = start + (end - start) * (i / steps)
        QTest.mouseMove(viewport, point)
    QTest.mouseRelease(viewport, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, end)


def handle_point(window: MainWindow, entity_id: str) -> QPoint:
    item = window.scene.entity_items[entity_id]
    return viewport_point(window, item.mapToScene(item.handle_center()))


def body_point(window: MainWindow, entity_id: str) -> QPoint:
    item = window.scene.entity_items[entity_id]
    rect = item.rect()
    return viewport_point(window, item.mapToScene(QPointF(rect.width() / 2, rect.height() - 10)))
