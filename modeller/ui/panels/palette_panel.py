"""The palette: things to drag onto the canvas (double-click adds at the view's centre)."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QSize, Qt, Signal
from PySide6.QtGui import QDrag
from PySide6.QtWidgets import QAbstractItemView, QListWidget, QListWidgetItem, QWidget

from modeller.ui.canvas.view import TEMPLATE_MIME
from modeller.ui.templates import TEMPLATES
from modeller.ui.theme.icons import icon

KEY = Qt.ItemDataRole.UserRole


def template_mime(key: str) -> QMimeData:
    """What a palette drag carries (tests drop exactly this on the canvas)."""
    mime = QMimeData()
    mime.setData(TEMPLATE_MIME, key.encode("utf-8"))
    mime.setText(key)
    return mime


class PalettePanel(QListWidget):
    #: double-click: add this template at the centre of the view
    add_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("palette")
        self.setDragEnabled(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
        self.setIconSize(QSize(28, 28))
        self.setToolTip("Drag onto the canvas, or double-click to add")
        for template in TEMPLATES:
            item = QListWidgetItem(icon(template.icon), template.label)
            item.setData(KEY, template.key)
            item.setToolTip(template.tooltip)
            self.addItem(item)
        self.itemDoubleClicked.connect(lambda item: self.add_requested.emit(str(item.data(KEY))))
        self.setMaximumHeight(self.sizeHintForRow(0) * (len(TEMPLATES) + 1) + 8)

    def key_at(self, row: int) -> str:
        return str(self.item(row).data(KEY))

    def mimeData(self, items: list[QListWidgetItem]) -> QMimeData:
        return template_mime(str(items[0].data(KEY)))

    def startDrag(self, supported: Qt.DropAction) -> None:
        item = self.currentItem()
        if item is None:
            return
        drag = QDrag(self)
        drag.setMimeData(template_mime(str(item.data(KEY))))
        drag.setPixmap(item.icon().pixmap(32, 32))
        drag.exec(Qt.DropAction.CopyAction)
