"""The connection fields both database dialogs show: connection string, masked password, timeout.

A password typed or pasted into the connection string moves to the masked
field when the string is left; secret query options show as ``***``. The
full string exists only while connecting (:meth:`ConnectionFields.uri_to_use`);
what is remembered (:func:`modeller.ui.connections.remember_connection`) has
no secret in it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QLineEdit

from modeller.live.source import DEFAULT_TIMEOUT_S, is_uri, redact
from modeller.model.names import check_database_name
from modeller.model.text import shown
from modeller.ui.connections import (
    hide_options,
    recent_connections,
    remember_connection,
    restore_options,
    split_password,
    with_password,
)

DEFAULT_URI = "mongodb://localhost:27017"


class ConnectionFields:
    """The three widgets and the rules between them; the dialog puts the widgets in its form."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self._secret_options: dict[str, str] = {}
        self.uri = QComboBox()
        self.uri.setEditable(True)
        self.uri.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.uri.addItems(recent_connections(settings))
        self.uri.setCurrentText(self.uri.itemText(0) if self.uri.count() else DEFAULT_URI)
        line = self.uri.lineEdit()
        line.setPlaceholderText("mongodb://user@host:27017/?authSource=admin")
        line.editingFinished.connect(self.mask)
        self.uri.setToolTip(
            "The connection string (mongodb:// or mongodb+srv://). A password typed here moves to the "
            "Password field; recent connections are remembered without it"
        )
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setPlaceholderText("only if the server asks for one; never stored")
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(0.5, 600.0)
        self.timeout.setDecimals(1)
        self.timeout.setValue(DEFAULT_TIMEOUT_S)
        self.timeout.setSuffix(" s")
        self.timeout.setToolTip("How long to wait for the server before saying it cannot be reached")

    def mask(self) -> None:
        """A typed or pasted password leaves the connection-string field for the masked one."""
        text = self.uri.currentText().strip()
        bare, password = split_password(text)
        if password is not None:
            self.password.setText(password)
        bare, secrets = hide_options(bare)
        self._secret_options.update(secrets)
        if bare != text:
            self.uri.setEditText(bare)

    def connection_uri(self) -> str:
        """The full connection string, password and secret options put back (never shown, never stored)."""
        self.mask()
        uri = restore_options(self.uri.currentText().strip(), self._secret_options)
        return with_password(uri, self.password.text())

    def problem(self) -> str | None:
        """Why the string cannot be used, or None."""
        if not is_uri(self.uri.currentText().strip()):
            return "The connection string must start with mongodb:// or mongodb+srv://; fix it and try again."
        return None

    def shown_uri(self) -> str:
        return shown(redact(self.uri.currentText().strip()), 200)

    def remember(self) -> str:
        """After a connection that worked: keep it (without secrets) at the top of the recent ones."""
        return remember_connection(self.settings, self.uri.currentText().strip())


def database_problem(name: str) -> str | None:
    """Why ``name`` cannot be a database (one line, saying what to do), or None."""
    if not name:
        return "Name the database (Connect lists them)."
    try:
        check_database_name(name)
    except ValueError as exc:
        return f"Database {shown(repr(name), 80)}: {exc}"
    return None


def gui_words(message: str) -> str:
    """A live error line as the dialog says it: the CLI's ``--timeout`` is the Timeout field here, and the password
    is typed into the Password field, not into the connection string."""
    return (
        message.replace("(--timeout waits longer)", "(or raise the Timeout)")
        .replace("; --timeout waits longer", "; a larger Timeout waits longer")
        .replace("check the user name and password,", "check the user name, the Password field,")
    )
