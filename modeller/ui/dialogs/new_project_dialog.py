"""File > New: the project's name and the database its scripts create, asked before the canvas is cleared.

The database name follows the project name (a safe derived name, see
:func:`database_name_for`) until the user types one of their own; both are
checked as a saved file checks them. Cancel changes nothing.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QLabel, QLineEdit, QVBoxLayout, QWidget

from modeller.model import Project
from modeller.model.names import database_name_for
from modeller.ui.dialogs.database_name import settings_problem
from modeller.ui.document import UNTITLED, empty_project


class NewProjectDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, name: str = UNTITLED) -> None:
        super().__init__(parent)
        self.setObjectName("NewProjectDialog")
        self.setWindowTitle("New project")
        self.name = QLineEdit(name)
        self.name.setPlaceholderText("What the application is called")
        self.database = QLineEdit(database_name_for(name))
        self.database.setPlaceholderText("The MongoDB database the exported scripts create")
        self.database.setToolTip("The exported scripts create the collections in this database (File → Export)")
        self.follows_name = True  # until the user types a database name of their own
        self.name.textChanged.connect(self._name_changed)
        self.database.textEdited.connect(self._database_edited)
        self.database.textChanged.connect(self._check)
        self.problem = QLabel()
        self.problem.setObjectName("NewProjectProblem")
        self.problem.setWordWrap(True)
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Create")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout()
        form.addRow("Project name:", self.name)
        form.addRow("Database:", self.database)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self.name.selectAll()
        self._check()

    def project(self) -> Project:
        """The empty project the answers describe (only valid answers can be accepted)."""
        project = empty_project(self.name.text().strip())
        return project.model_copy(update={"database": self.database.text().strip()})

    def accept(self) -> None:
        if self._check() is None:
            super().accept()

    def _name_changed(self, text: str) -> None:
        if self.follows_name:
            self.database.setText(database_name_for(text))
        self._check()

    def _database_edited(self, _text: str) -> None:
        self.follows_name = False  # the user's own name stays, whatever the project is called

    def _check(self, *_changed: object) -> str | None:
        problem = settings_problem(self.name.text().strip(), self.database.text().strip())
        self.problem.setText(problem or "")
        self.problem.setVisible(problem is not None)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(problem is None)
        return problem
