"""Where a command reads a project from: a file, standard input (``-``) or a Git revision (``HEAD:schema.modeller.json``).

A revision is read with ``git show REV:PATH`` in the current folder's repository; a missing
``git``, a folder outside a repository or an unknown revision is one :class:`ProjectFileError`
line that says what to do, never a traceback.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from modeller.model.project import Project
from modeller.model.text import shorten
from modeller.persistence import MAX_FILE_BYTES, ProjectFileError, load_project, loads_project

#: what ``-`` is called in messages
STDIN_NAME = "<stdin>"

#: a repository on a slow disk answers within seconds; a hung git must not hang the command
GIT_TIMEOUT_S = 60


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
    return loads_project(_git_show(spec), spec)


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


def _git_show(spec: str) -> bytes:
    git = shutil.which("git")
    if git is None:
        raise ProjectFileError.single(spec, "looks like a Git revision, but git is not installed; give a file instead")
    try:
        proc = subprocess.run(
            [git, "show", "--no-textconv", spec], capture_output=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        raise ProjectFileError.single(spec, f"git show did not answer within {GIT_TIMEOUT_S} s") from None
    except OSError as exc:
        raise ProjectFileError.single(spec, f"cannot run git: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"]
        why = shorten(lines[0].removeprefix("fatal: "), 300)
        raise ProjectFileError.single(
            spec, f"git cannot show this revision ({why}); check the revision and the path from the repository root"
        )
    if len(proc.stdout) > MAX_FILE_BYTES:
        raise ProjectFileError.single(spec, "the file at this revision is too large for a project")
    return proc.stdout
