"""Errors for project files: one exception type whose message names the file, the place and the problem.

The CLI prints ``str(error)`` on stderr and the GUI shows it in a dialog, so
the text must stand on its own: ``FILE:LINE:COL: $.json.path: problem``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from modeller.model.text import neutralize, shorten

#: How many problems ``str(error)`` lists before summarising the rest.
MAX_LISTED = 20
#: How much of a file name, a location and a problem a line shows (a problem quoting a 10 MB key is cut).
MAX_PATH = 4096
MAX_PART = 1000


@dataclass(frozen=True, slots=True)
class FileProblem:
    """One thing wrong with a project file, located as precisely as we know."""

    problem: str
    location: str | None = None
    line: int | None = None
    column: int | None = None

    def format(self, file: str | None) -> str:
        """``FILE:LINE:COL: $.path: problem``, omitting the parts we do not have.

        Always one line: a newline or an ESC sequence in the file name (or in a
        quoted value) is shown escaped, so it can neither fake another problem
        line nor drive the terminal or dialog that shows it.
        """
        head = shorten(file or "", MAX_PATH)
        if self.line is not None:
            head += f":{self.line}"
            if self.column is not None:
                head += f":{self.column}"
        parts = [p for p in (head, shorten(self.location or "", MAX_PART)) if p]
        return neutralize(": ".join([*parts, shorten(self.problem, MAX_PART)]))


class ProjectFileError(Exception):
    """A project file could not be loaded or saved; the message says where and why."""

    def __init__(self, file: str | None, problems: list[FileProblem]) -> None:
        if not problems:
            raise ValueError("ProjectFileError needs at least one problem")
        self.file = file
        self.problems = list(problems)
        first = self.problems[0]
        self.location = first.location
        self.line = first.line
        self.column = first.column
        self.problem = first.problem
        super().__init__(self._message())

    @classmethod
    def single(
        cls,
        file: str | None,
        problem: str,
        location: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> Self:
        """An error with exactly one problem (the common case outside validation)."""
        return cls(file, [FileProblem(problem, location, line, column)])

    def lines(self, limit: int | None = None) -> list[str]:
        """One formatted line per problem; ``limit`` caps the list with an "and N more" line."""
        shown = self.problems if limit is None else self.problems[:limit]
        out = [p.format(self.file) for p in shown]
        rest = len(self.problems) - len(shown)
        if rest > 0:
            out.append(f"... and {rest} more problem{'s' if rest != 1 else ''}")
        return out

    def _message(self) -> str:
        return "\n".join(self.lines(MAX_LISTED))

    def __reduce__(self) -> tuple[type, tuple[str | None, list[FileProblem]]]:
        # keep the error picklable (multiprocessing, pytest-xdist) despite the custom __init__
        return (type(self), (self.file, self.problems))


class UnsupportedVersionError(ProjectFileError):
    """The file was written by a newer Modeller (or claims a version that never existed)."""


class FileTooLargeError(ProjectFileError):
    """The file is bigger than any real project; refused before reading it."""


class ProjectSaveError(ProjectFileError):
    """Writing failed; the previous file on disk is unchanged."""
