"""A hint in the middle of an empty canvas: what to do first, for someone who has never seen the app."""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QLabel

from modeller.model.text import neutralize, shorten
from modeller.ui.document import ProjectDocument

HINT = (
    "<p style='font-size:13pt'><b>Start your model here</b></p>"
    "<p>Drag an <b>Entity</b> from the palette onto the canvas (or double-click it in the palette),<br>"
    "double-click its name (or press <b>F2</b>) to rename it,<br>"
    "then drag from a card's blue handle to another card to connect them.<br>"
    "Advice appears under <b>Recommendations</b> as you draw.</p>"
    "<p>Or open a sample: File ▸ Open… ▸ samples/task-tracker.modeller.json</p>"
)

#: while a file is read in the background the canvas is empty, but not for the user to start drawing on
OPENING = "<p style='font-size:13pt'><b>Opening {name}…</b></p><p>The cards appear here once it is read.</p>"


class EmptyCanvasHint(QLabel):
    """Centred over the canvas while the project has no entity (or a file is being opened: says so);
    mouse events pass through to the canvas."""

    def __init__(self, view: QAbstractScrollArea, document: ProjectDocument) -> None:
        super().__init__(HINT, view.viewport())
        self.document = document
        #: the file being opened in the background (its name shown instead of the start hint), or None
        self.opening: str | None = None
        self.setObjectName("empty_canvas_hint")
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setStyleSheet("color: palette(placeholder-text); background: transparent;")
        view.viewport().installEventFilter(self)
        document.changed.connect(self.refresh)
        self.refresh()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self._centre()
        return False

    def _centre(self) -> None:
        parent = self.parentWidget()
        if parent is not None:
            self.setGeometry(0, 0, parent.width(), parent.height())

    def set_opening(self, name: str | None) -> None:
        """A file named ``name`` is being read (None: the read ended; the project shown decides again)."""
        self.opening = name
        self.setText(HINT if name is None else OPENING.format(name=html.escape(neutralize(shorten(name, 120)))))
        self.refresh()

    def refresh(self) -> None:
        self.setVisible(not self.document.project.entities)
        self._centre()
