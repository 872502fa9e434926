"""Where a command reads a project from: a file, standard input (``-``) or a Git revision (``HEAD:schema.modeller.json``).

A revision is read with ``git show REV:PATH`` in the current folder's repository; a missing
``git``, a folder outside a repository or an unknown revision is one :class:`ProjectFileError`
line that says what to do, never a traceback.
"""

from __future__ import annotations

import os
import sys

from modeller.model.project import Project
from modeller.persistence import MAX_FILE_BYTES, ProjectFileError, load_project, loads_project
from modeller.persistence.revisions import load_revision

#: what ``-`` is called in messages
STDIN_NAME = "<stdin>"


def is_revision(spec: str) -> bool:
    """``REV:PATH`` that is not an existing file (a Windows drive letter is a file path, not a revision)."""
    if os.path.exists(spec) or ":" not in spec:
        return False
    rev, _, path = spec.partition(":")
    return bool(path) and not (len(rev) == 1 and rev.isalpha() and path.startswith(("\\", "/")))


def read_project(spec: str) -> Project:
    """The project in file ``spec``, on standard input (``-``), or at Git revision ``spec`` (``REV:PATH``)."""
    if spec == "-":
        return read_stdin()
    if not is_revision(spec):
        return load_project(spec)
    return load_revision(spec)


def read_file_or_stdin(spec: str) -> Project:
    """The project in file ``spec``, or on standard input when ``spec`` is ``-`` (no Git revisions)."""
    return read_stdin() if spec == "-" else load_project(spec)


def read_stdin() -> Project:
    """The project piped to standard input; messages name it ``<stdin>``. Read at most one byte past the limit."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # no standard input at all (pythonw, a closed descriptor)
        raise ProjectFileError.single(STDIN_NAME, "no standard input to read; give a project file instead of -")
    try:
        data = stream.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ProjectFileError.single(STDIN_NAME, f"cannot read: {exc.strerror or exc}") from None
    if not data:
        raise ProjectFileError.single(STDIN_NAME, "is empty; pipe a project into it (modeller check - < FILE)")
    return loads_project(data, STDIN_NAME)
