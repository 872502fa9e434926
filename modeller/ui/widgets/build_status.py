"""A status-bar line while the cards out of sight of a large project are still being drawn.

After an open of 10,000 entities the cards in sight come first and the rest follow for a minute or more
(they wait for the analysis, then come in slices); without this line the status bar was empty meanwhile
and nothing said the canvas was still incomplete (tryout a15 item 11).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QWidget

#: how often the count is read again (a len() of two dicts: nothing to measure)
REFRESH_MS = 500


class _Scene(Protocol):
    """What this line reads of the canvas scene."""

    entity_items: dict[str, Any]
    background_busy: bool

    @property
    def building(self) -> bool: ...


class CardsBuildingLabel(QLabel):
    """``Drawing cards: 3,400 of 10,000…`` while ``scene`` builds progressively; hidden otherwise."""

    def __init__(self, scene: _Scene, total: Callable[[], int], parent: QWidget | None = None) -> None:
        """``total()`` is the number of entities of the project shown (the cards the build makes)."""
        super().__init__(parent)
        self.setObjectName("CardsBuilding")
        self.setToolTip("The cards out of sight are still being drawn; you can keep working")
        self.scene = scene
        self.total = total
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self.refresh)
        self.hide()

    def refresh(self) -> None:
        """Show the count while the build goes on; hide (and stop looking) once it is done."""
        if not self.scene.building:
            self.timer.stop()
            self.hide()
            return
        made, total = len(self.scene.entity_items), self.total()
        waits = " (after the analysis)" if self.scene.background_busy else ""
        self.setText(f"Drawing cards: {made:,} of {total:,}{waits}…")
        self.show()
        if not self.timer.isActive():
            self.timer.start()
