"""The Import from database… form without a server: what it refuses before connecting, and the masked password."""

from __future__ import annotations

from modeller.ui.connections import hide_options, restore_options, split_password, strip_options, with_password


def test_a_bad_database_name_or_no_collection_is_refused_before_connecting(make_window) -> None:
    window = make_window()
    dialog = window.database_actions.show_import_database()
    dialog.database.setEditText("a/b")
    dialog.list_collections()
    assert not dialog.running() and dialog.status.is_error()
    assert dialog.status.text().startswith("Database 'a/b': ")
    dialog.database.setEditText("shop")
    dialog.start_import()
    assert not dialog.running() and dialog.status.text() == "Check at least one collection to import."
    dialog.uri.setEditText("localhost:27017")
    dialog.start_import()
    assert dialog.status.text().startswith("The connection string must start with mongodb://")


def test_the_password_moves_out_of_the_connection_string_and_comes_back_encoded(make_window) -> None:
    window = make_window()
    dialog = window.database_actions.show_import_database()
    dialog.uri.setEditText("mongodb://ann:p%40ss%3Aw0rd@db.example:27017/shop?authSource=admin")
    dialog.uri.lineEdit().editingFinished.emit()
    assert dialog.uri.currentText() == "mongodb://ann@db.example:27017/shop?authSource=admin"
    assert dialog.password.text() == "p@ss:w0rd"
    assert dialog.connection_uri() == "mongodb://ann:p%40ss%3Aw0rd@db.example:27017/shop?authSource=admin"


def test_the_uri_helpers() -> None:
    assert split_password("mongodb://h:1/x") == ("mongodb://h:1/x", None)
    assert split_password("mongodb+srv://ann:@c/") == ("mongodb+srv://ann@c/", "")
    assert with_password("mongodb://h/", "pw") == "mongodb://h/"  # no user: a password alone means nothing
    hidden, secrets = hide_options("mongodb://h/?password=abc&w=1&tlsCertificateKeyFilePassword=z")
    assert hidden == "mongodb://h/?password=***&w=1&tlsCertificateKeyFilePassword=***"
    assert restore_options(hidden, secrets) == "mongodb://h/?password=abc&w=1&tlsCertificateKeyFilePassword=z"
    assert strip_options("mongodb://h/?password=abc&w=1&tlsCertificateKeyFilePassword=z") == "mongodb://h/?w=1"
    assert strip_options("mongodb://h/?password=abc") == "mongodb://h/"
