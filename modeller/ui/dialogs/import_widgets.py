"""What both import dialogs share: their base (the result and handing it over), a progress row per collection,
where the result goes, a status line."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QButtonGroup,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QRadioButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionProgressBar,
    QStyleOptionViewItem,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from modeller.model.text import shown
from modeller.ui.dialogs.job_dialog import JobDialog
from modeller.ui.importing import MERGE, NEW_PROJECT, Imported

ERROR_STYLE = "color: #b00020;"


def sentence(text: str) -> str:
    """A message that starts with a plain word starts with a capital ("cannot reach" -> "Cannot reach").

    Paths, URIs and names keep their case: ``blog.modeller.json: …`` stays as it is.
    """
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first.isalpha() and first.islower() else text


#: a row's phase, kept in its item (the delegate paints the bar from it)
PHASE = Qt.ItemDataRole.UserRole + 1
WAITING, BUSY, DONE = "waiting", "busy", "done"


class _BarDelegate(QStyledItemDelegate):
    """Paints the progress column as a bar: empty while waiting, busy while read, full when done."""

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        phase = index.data(PHASE)
        bar = QStyleOptionProgressBar()
        bar.rect = option.rect.adjusted(2, 3, -2, -3)  # type: ignore[attr-defined]
        bar.state = option.state  # type: ignore[attr-defined]
        bar.minimum, bar.maximum = 0, 0 if phase == BUSY else 1
        bar.progress = 1 if phase == DONE else 0
        bar.textVisible = False
        widget = option.widget  # type: ignore[attr-defined]
        style = widget.style() if widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ProgressBar, bar, painter, widget)

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        hint = super().sizeHint(option, index)
        return QSize(hint.width(), max(hint.height(), 22))  # room for a bar, not a hairline


class CollectionProgress(QTreeWidget):
    """One row per collection (or file): its name, a bar (waiting, busy, done) and what was read.

    Model/view, so a database with a thousand collections is a thousand rows, not three thousand widgets.
    """

    def __init__(self, what: str = "Collection", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setColumnCount(3)
        self.setHeaderLabels([what, "Progress", "State"])
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setItemDelegateForColumn(1, _BarDelegate(self))
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.header().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.header().setSectionResizeMode(2, QHeaderView.ResizeMode.Interactive)
        self.header().setStretchLastSection(False)
        self.setColumnWidth(2, 220)
        self.rows: dict[str, QTreeWidgetItem] = {}

    def set_rows(self, names: list[str], labels: list[str] | None = None) -> None:
        """One row per name (its key), showing ``labels`` when given (file names), else the names."""
        self.clear()
        self.rows = {}
        for row, name in enumerate(names):
            text = labels[row] if labels is not None else name
            item = QTreeWidgetItem(self, [shown(text, 80), "", WAITING])
            item.setData(1, PHASE, WAITING)
            self.rows[name] = item

    def _set(self, name: str, phase: str, text: str) -> None:
        item = self.rows.get(name)
        if item is not None:
            item.setData(1, PHASE, phase)
            item.setText(2, text)

    def busy(self, name: str, text: str = "sampling…") -> None:
        self._set(name, BUSY, text)
        if name in self.rows:
            self.scrollToItem(self.rows[name])

    def done(self, name: str, text: str) -> None:
        self._set(name, DONE, text)

    def finish_busy(self, text: str = "sampled") -> None:
        """Rows still busy are done (the next step started)."""
        for name, item in self.rows.items():
            if item.data(1, PHASE) == BUSY:
                self.done(name, text)

    def stop(self, text: str) -> None:
        """Cancelled or failed: rows not done say so, no bar stays busy."""
        for name, item in self.rows.items():
            if item.data(1, PHASE) != DONE:
                self._set(name, WAITING, text)

    def status(self, name: str) -> str:
        return self.rows[name].text(2)

    def phase(self, name: str) -> str:
        return str(self.rows[name].data(1, PHASE))


def documents(count: int, verb: str) -> str:
    """``1 document read`` / ``1,000 documents sampled``."""
    return f"{count:,} document{'' if count == 1 else 's'} {verb}"


class DestinationChoice(QWidget):
    """Open the import as a new project, or add it to the open one (only when there is one)."""

    def __init__(self, has_project: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.new_radio = QRadioButton("Open as a new project")
        self.new_radio.setToolTip("The open project is closed first (you are asked to save it)")
        self.merge_radio = QRadioButton("Add to the open project (one undo step)")
        self.merge_radio.setToolTip("New entities beside the existing ones; collections already modelled are kept")
        group = QButtonGroup(self)
        group.addButton(self.new_radio)
        group.addButton(self.merge_radio)
        self.new_radio.setChecked(True)
        self.merge_radio.setEnabled(has_project)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.new_radio)
        row.addWidget(self.merge_radio)
        row.addStretch(1)

    def value(self) -> str:
        return MERGE if self.merge_radio.isChecked() and self.merge_radio.isEnabled() else NEW_PROJECT


class StatusLine(QLabel):
    """What the dialog is doing, or one red line saying what went wrong and what to do."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # room for two wrapped lines: a layout gives a word-wrapped label the height of one line otherwise
        self.setMinimumHeight(2 * self.fontMetrics().lineSpacing() + 4)

    def say(self, text: str) -> None:
        self.setStyleSheet("")
        self.setText(text)

    def error(self, text: str) -> None:
        self.setStyleSheet(ERROR_STYLE)
        self.setText(shown(sentence(text), 600))

    def is_error(self) -> bool:
        return self.styleSheet() == ERROR_STYLE


def lay_out_import(
    dialog: QDialog,
    options: QWidget,
    progress: CollectionProgress,
    status: StatusLine,
    import_tip: str,
) -> tuple[QPushButton, QPushButton]:
    """The part both import dialogs share under their options: progress rows (shown once work starts), the
    status line and Import / Cancel; returns the two buttons for the dialog to connect."""
    progress.setMaximumHeight(190)
    progress.setVisible(False)
    status.setObjectName("ImportStatus")
    import_button = QPushButton("&Import")
    import_button.setDefault(True)
    import_button.setToolTip(import_tip)
    cancel_button = QPushButton("Cancel")
    cancel_button.setToolTip("Stop; nothing is imported (Esc)")
    buttons = QHBoxLayout()
    buttons.addStretch(1)
    buttons.addWidget(import_button)
    buttons.addWidget(cancel_button)
    layout = QVBoxLayout(dialog)
    layout.addWidget(options)
    layout.addWidget(progress)
    layout.addWidget(status)
    layout.addLayout(buttons)
    return import_button, cancel_button


class ImportDialog(JobDialog):
    """What both import dialogs share: the result, whether the window took it, and handing it over."""

    #: the inferred project and NEW_PROJECT or MERGE (the window opens or merges it)
    imported = Signal(object, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.result: Imported | None = None
        #: whether the window took the last result (False: the user kept the open project)
        self.taken = False
        #: made by each dialog in its own layout
        self.status: StatusLine
        self.destination_choice: DestinationChoice

    def destination(self) -> str:
        return self.destination_choice.value()

    def hand_over(self, result: Imported) -> None:
        """Give ``result`` to the window and close; stay open with it when the user kept the open project."""
        self.result = result
        self.status.say(f"Imported {len(result.documents)} collection(s) from {shown(result.origin, 100)}.")
        self.taken = True
        self.imported.emit(result, self.destination())
        if self.taken:
            self.accept()
        else:  # Cancel at "Save changes?": the result stays here
            self.status.say(
                "The open project was kept; press Import again to open the result, or add it to the open project."
            )
