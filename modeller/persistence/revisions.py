"""A project as it was at a Git revision (``HEAD:schema.modeller.json``), read with ``git show``.

A missing ``git``, a folder outside a repository or an unknown revision is one
:class:`ProjectFileError` line that says what to do, never a traceback. The
CLI reads ``REV:PATH`` specs in the current folder; the desktop app reads
``REV:./NAME`` in the open file's folder.
"""

from __future__ import annotations

import os
import shutil
import subprocess

from modeller.model.project import Project
from modeller.model.text import shorten
from modeller.persistence.errors import ProjectFileError
from modeller.persistence.load import MAX_FILE_BYTES, loads_project

#: a repository on a slow disk answers within seconds; a hung git must not hang the command
GIT_TIMEOUT_S = 60


def git_show(spec: str, cwd: str | os.PathLike[str] | None = None) -> bytes:
    """The bytes of ``REV:PATH`` in the repository of ``cwd`` (the current folder without it)."""
    git = shutil.which("git")
    if git is None:
        raise ProjectFileError.single(spec, "looks like a Git revision, but git is not installed; give a file instead")
    try:
        proc = subprocess.run(
            [git, "show", "--no-textconv", spec], capture_output=True, timeout=GIT_TIMEOUT_S, check=False, cwd=cwd
        )
    except subprocess.TimeoutExpired:
        raise ProjectFileError.single(spec, f"git show did not answer within {GIT_TIMEOUT_S} s") from None
    except OSError as exc:
        raise ProjectFileError.single(spec, f"cannot run git: {exc.strerror or exc}") from None
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"]
        why = shorten(lines[0].removeprefix("fatal: "), 300)
        raise ProjectFileError.single(spec, f"git cannot show this revision ({why}); {_advice(why)}")
    if len(proc.stdout) > MAX_FILE_BYTES:
        raise ProjectFileError.single(spec, "the file at this revision is too large for a project")
    return proc.stdout


def _advice(why: str) -> str:
    """What to do about git's complaint: the revision, the path in it, or the folder is the problem."""
    if why.startswith(("invalid object name", "ambiguous argument", "bad revision", "unknown revision")):
        return "check the revision: a branch, a tag or a commit id that git log lists (HEAD, main, HEAD~1)"
    if why.startswith("path ") and ("does not exist in" in why or "but not in" in why):
        return "the file is not in that revision: pick a revision that has it (git log -- FILE lists them)"
    if why.startswith("not a git repository"):
        return "the folder is not in a Git repository: compare with a project file instead"
    return "check the revision and the path from the repository root"


def load_revision(spec: str, cwd: str | os.PathLike[str] | None = None) -> Project:
    """The project stored at ``REV:PATH`` (see :func:`git_show`)."""
    return loads_project(git_show(spec, cwd), spec)
