"""ProjectFileError's text and attributes, which the CLI prints and the GUI shows."""

from __future__ import annotations

import pickle

import pytest

from modeller.persistence import (
    FileProblem,
    FileTooLargeError,
    ProjectFileError,
    ProjectSaveError,
    UnsupportedVersionError,
)


def test_full_message_format() -> None:
    err = ProjectFileError.single("p.json", "bad value", "$.a[0]", 3, 7)
    assert str(err) == "p.json:3:7: $.a[0]: bad value"
    assert (err.file, err.location, err.line, err.column, err.problem) == ("p.json", "$.a[0]", 3, 7, "bad value")
    assert err.problems == [FileProblem("bad value", "$.a[0]", 3, 7)]


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (("p.json", "no such file"), "p.json: no such file"),
        (("p.json", "x", "$.a"), "p.json: $.a: x"),
        (("p.json", "x", None, 4), "p.json:4: x"),
        ((None, "x", "$.a", 1, 2), ":1:2: $.a: x"),
    ],
)
def test_missing_parts_are_omitted(args: tuple[object, ...], text: str) -> None:
    assert str(ProjectFileError.single(*args)) == text  # type: ignore[arg-type]


def test_subclasses_are_project_file_errors() -> None:
    for kind in (UnsupportedVersionError, FileTooLargeError, ProjectSaveError):
        err = kind.single("f", "p")
        assert isinstance(err, ProjectFileError) and type(err) is kind


def test_needs_a_problem() -> None:
    with pytest.raises(ValueError, match="at least one problem"):
        ProjectFileError("f", [])


def test_picklable_for_worker_processes() -> None:
    err = UnsupportedVersionError("f", [FileProblem("p", "$.x", 1, 2), FileProblem("q")])
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is UnsupportedVersionError
    assert str(again) == str(err) and again.problems == err.problems


def test_lines_without_limit_lists_everything() -> None:
    err = ProjectFileError("f", [FileProblem(f"p{i}") for i in range(25)])
    assert len(err.lines()) == 25
    assert err.lines(limit=5)[-1] == "... and 20 more problems"
    assert len(str(err).splitlines()) == 21
