"""The project-name and database-name checks of File > New and the export dialog: the file format's own rules."""

from __future__ import annotations

from pydantic import ValidationError

from modeller.ui.document import empty_project


def settings_problem(name: str, database: str) -> str | None:
    """Why a project named ``name`` with ``database`` could not be saved (one sentence), or None when it could.

    The check is the format's (a small :class:`Project` is built), so the dialogs accept exactly what a saved
    file accepts: a name of 1-200 characters, a database name MongoDB takes.
    """
    if not name.strip():
        return "Type a name for the project."
    if not database.strip():
        return "Type the name of the database the scripts create the collections in."
    try:
        empty_project(name).model_validate({**empty_project(name).model_dump(), "database": database})
    except ValidationError as err:
        first = err.errors()[0]
        if first["loc"] and first["loc"][0] == "database":
            return first["msg"][:1].upper() + first["msg"][1:] + "."
        return f"Project name: {first['msg']}."
    return None


def database_problem(database: str) -> str | None:
    """Why ``database`` is not a database name the format accepts, or None."""
    return settings_problem("project", database)
