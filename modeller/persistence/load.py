"""Read a project file: bytes -> text -> JSON data -> migrated data -> Project -> cross-checks.

Each stage refuses bad input with a :class:`ProjectFileError` that names the
file, the place and the problem (STYLE.md: parse into plain data, validate,
then build live objects). Nothing here prints: the CLI and the GUI decide
how to show the error.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Sequence
from pathlib import Path as FsPath
from typing import Any, NoReturn

from pydantic import ValidationError

from modeller.model import FORMAT_NAME, FORMAT_VERSION, Problem, Project, check_project
from modeller.persistence import migrations
from modeller.persistence.errors import FileProblem, FileTooLargeError, ProjectFileError, UnsupportedVersionError
from modeller.persistence.jsonpath import (
    Path,
    deepest,
    find_bare_word,
    find_duplicate_key,
    format_path,
    line_column,
    locate,
    max_depth,
    nearest,
    parse_path,
    with_ancestors,
)
from modeller.persistence.messages import problems_from_validation, show
from modeller.runtime.gc_pause import collector_paused

#: Files above this size are refused before reading (a real project is a few MB at most).
MAX_FILE_BYTES = 50 * 1024 * 1024
#: JSON nesting deeper than this is refused before parsing; room for MongoDB's 100 field levels.
MAX_DEPTH = 256

_BOM = "\ufeff"
# a JSON escape of a UTF-16 surrogate; only then can a string fail to encode as UTF-8
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class _BadToken(ValueError):
    """Raised from the JSON parser hooks for values JSON allows but a project must not hold."""

    def __init__(self, token: str, problem: str) -> None:
        super().__init__(problem)
        self.token = token
        self.problem = problem


class _DuplicateKey(ValueError):
    """An object repeats a key; json would silently keep the last value."""


def _refuse_constant(name: str) -> NoReturn:
    raise _BadToken(name, f"{name} is not a number a project can hold; JSON has no NaN or Infinity")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _BadToken(text, f"number {text[:40]} is too large")
    return value


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _DuplicateKey("duplicate key")
    return result


def load_project(path: str | os.PathLike[str], *, check: bool = True) -> Project:
    """Load and validate the project file at ``path``.

    ``check=False`` skips the whole-project checks (dangling references,
    duplicate ids, field paths) so the GUI can open a half-finished design
    it saved earlier and list those problems itself with ``check_project``.
    """
    name = os.fspath(path)
    fs_path = FsPath(name)
    try:
        info = fs_path.stat()
    except FileNotFoundError:
        raise ProjectFileError.single(name, "no such file") from None
    except NotADirectoryError:
        raise ProjectFileError.single(name, "no such file (a part of the path is not a folder)") from None
    except PermissionError:
        raise ProjectFileError.single(name, "permission denied: cannot look at this file") from None
    except OSError as exc:
        raise ProjectFileError.single(name, f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ProjectFileError.single(name, "is a folder, not a project file")
    if not stat.S_ISREG(info.st_mode):
        raise ProjectFileError.single(
            name, "is not a regular file (a device, pipe or socket); give a *.modeller.json file"
        )
    if info.st_size > MAX_FILE_BYTES:
        raise _too_large(name, info.st_size)
    try:
        with open(fs_path, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except PermissionError:
        raise ProjectFileError.single(name, "permission denied: cannot read this file") from None
    except OSError as exc:
        raise ProjectFileError.single(name, f"cannot read: {exc.strerror or exc}") from None
    return loads_project(raw, name, check=check)


def check_loaded(project: Project, path: str | os.PathLike[str]) -> None:
    """The whole-project checks that ``load_project(path, check=False)`` skipped, raised as that call would.

    The GUI shows a large project before they run (a third of its read) and takes it back when they fail;
    only then is the file read again, for the line and column of each problem.
    """
    problems = check_project(project)
    if not problems:
        return
    load_project(path)  # raises them, located
    # the file changed meanwhile and now passes: the problems of the project that was read, without places
    raise ProjectFileError(os.fspath(path), [FileProblem(p.message, p.path) for p in problems])


def loads_project(text: str | bytes, source: str = "<string>", *, check: bool = True) -> Project:
    """Load and validate a project from its file text; ``source`` names it in error messages."""
    # A load allocates tens of thousands of objects that all survive: pausing the
    # cyclic garbage collector meanwhile saves about a third of the time.
    with collector_paused():
        return _loads(text, source, check)


def _loads(text: str | bytes, source: str, check: bool) -> Project:
    if isinstance(text, bytes):
        if len(text) > MAX_FILE_BYTES:
            raise _too_large(source, len(text))
        text = _decode(text, source)
    else:
        if len(text) > MAX_FILE_BYTES:
            raise _too_large(source, len(text))
        _refuse_unencodable(text, source)
    if text.startswith(_BOM):
        text = text[1:]
    data = _parse(text, source)
    data = _upgrade(data, text, source)
    try:
        project = Project.model_validate(data)
    except ValidationError as exc:
        raise _located(source, text, problems_from_validation(exc, data)) from None
    except RecursionError:
        raise ProjectFileError.single(source, "the file is nested too deeply to read") from None
    if check:
        problems = check_project(project)
        if problems:
            located: list[tuple[Path | str, str]] = []
            others = [parsed for p in problems if p.other and (parsed := parse_path(p.other)) is not None]
            places = locate(text, with_ancestors(others)) if others else {}
            for problem in problems:
                parsed = parse_path(problem.path)
                located.append((parsed if parsed is not None else problem.path, _with_line(problem, places)))
            raise _located(source, text, located)
    return project


def _with_line(problem: Problem, places: dict[Path, tuple[int, int]]) -> str:
    """The problem's message with the line and column of its second place, so both places are named."""
    other = parse_path(problem.other) if problem.other else None
    where = nearest(places, other) if other is not None else None
    if problem.other is None or where is None:
        return problem.message
    return problem.message.replace(problem.other, f"{problem.other} at line {where[0]}:{where[1]}", 1)


def _too_large(source: str, size: int) -> FileTooLargeError:
    limit = MAX_FILE_BYTES // (1024 * 1024)
    return FileTooLargeError(
        source,
        [FileProblem(f"the file is {size / (1024 * 1024):.1f} MB; project files above {limit} MB are refused")],
    )


def _decode(raw: bytes, source: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = raw[: exc.start]
        line = prefix.count(b"\n") + 1
        column = len(prefix[prefix.rfind(b"\n") + 1 :].decode("utf-8", errors="replace")) + 1
        byte = raw[exc.start]
        raise ProjectFileError.single(
            source, f"not UTF-8 text: byte 0x{byte:02x} cannot be decoded; save the file as UTF-8", None, line, column
        ) from None


def _refuse_unencodable(text: str, source: str) -> None:
    """Text handed over as ``str`` may hold lone surrogates that no file could; they could never be saved."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        line, column = line_column(text, exc.start)
        raise ProjectFileError.single(
            source, "contains a lone UTF-16 surrogate (U+D800..U+DFFF), which UTF-8 cannot store", None, line, column
        ) from None


def _parse(text: str, source: str) -> dict[str, Any]:
    """JSON text -> a dict, refusing what JSON allows but a project cannot hold."""
    if not text or text.isspace():  # not text.strip(): that copied the whole text (26 MB at 10,000 entities)
        raise ProjectFileError.single(source, "the file is empty; a project file is a JSON object starting with '{'")
    if max_depth(text) > MAX_DEPTH:
        offset = deepest(text, MAX_DEPTH)
        if offset is not None:
            raise _at(source, text, offset, f"the file is nested more than {MAX_DEPTH} levels deep")
    try:
        data = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite_float, object_pairs_hook=_unique_keys
        )
    except json.JSONDecodeError as exc:
        message = exc.msg[:1].lower() + exc.msg[1:]
        raise ProjectFileError.single(source, f"invalid JSON: {message}", None, exc.lineno, exc.colno) from None
    except _BadToken as exc:
        offset = find_bare_word(text, exc.token)
        raise _at(source, text, offset, exc.problem) from None
    except _DuplicateKey:
        found = find_duplicate_key(text)
        if found is None:
            raise ProjectFileError.single(source, "an object repeats a key") from None
        path, offset = found
        raise _at(source, text, offset, f"key {path[-1]!r} appears twice in the same object; keep one", path) from None
    except RecursionError:
        raise ProjectFileError.single(source, "the file is nested too deeply to read") from None
    except ValueError as exc:  # e.g. an integer with thousands of digits
        offset = find_bare_word(text, lambda word: len(word) > 1000)
        problem = "a number is too long" if offset is not None else f"cannot read the JSON: {exc}"
        raise _at(source, text, offset, problem) from None
    if not isinstance(data, dict):
        raise ProjectFileError.single(
            source, f"expected a JSON object at the top level, got {show(data)}; is this a Modeller project?", "$", 1, 1
        )
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(data, text, source)
    return data


def _refuse_lone_surrogates(data: dict[str, Any], text: str, source: str) -> None:
    """A ``\\ud800`` escape on its own decodes to a string that cannot be saved as UTF-8."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), data)]
    while stack:
        path, node = stack.pop()
        items: list[tuple[str | int, Any]]
        if isinstance(node, dict):
            for key in node:
                _utf8_or_fail(key, (*path, key), text, source)
            items = list(node.items())
        elif isinstance(node, list):
            items = list(enumerate(node))
        else:
            _utf8_or_fail(node, path, text, source)
            continue
        stack.extend(((*path, k), v) for k, v in reversed(items))


def _utf8_or_fail(value: Any, path: Path, text: str, source: str) -> None:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise _located(
                source, text, [(path, "contains a lone UTF-16 surrogate escape (\\ud800-\\udfff)")]
            ) from None


def _upgrade(data: dict[str, Any], text: str, source: str) -> dict[str, Any]:
    """Check the file's identity and version, and migrate older versions."""
    if "format" not in data:
        raise _located(
            source,
            text,
            [((), f'missing key \'format\': not a Modeller project file (expected "format": "{FORMAT_NAME}")')],
        )
    if data["format"] != FORMAT_NAME:
        raise _located(
            source,
            text,
            [(("format",), f"expected {FORMAT_NAME!r}, got {show(data['format'])}: not a Modeller project file")],
        )
    if "format_version" not in data:
        raise _located(source, text, [((), "missing required key 'format_version'")])
    version = data["format_version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise _located(source, text, [(("format_version",), f"expected an integer, got {show(version)}")])
    if version > FORMAT_VERSION:
        raise _located(
            source,
            text,
            [
                (
                    ("format_version",),
                    f"format_version {version} is newer than this Modeller supports "
                    f"({FORMAT_VERSION}); upgrade Modeller to open this file",
                )
            ],
            UnsupportedVersionError,
        )
    if version == FORMAT_VERSION:
        return data
    try:
        upgraded, _steps = migrations.MIGRATIONS.migrate(data, FORMAT_VERSION)
    except migrations.MigrationError as exc:
        kind = ProjectFileError if exc.__cause__ is not None else UnsupportedVersionError
        raise _located(source, text, [(("format_version",), str(exc))], kind) from None
    return upgraded


def _at(source: str, text: str, offset: int | None, problem: str, path: Path | None = None) -> ProjectFileError:
    if offset is None:
        return ProjectFileError.single(source, problem, format_path(path) if path else None)
    line, column = line_column(text, offset)
    return ProjectFileError.single(source, problem, format_path(path) if path else None, line, column)


def _located(
    source: str,
    text: str,
    problems: Sequence[tuple[Path | str, str]],
    kind: type[ProjectFileError] = ProjectFileError,
) -> ProjectFileError:
    """Attach line and column to each (path, message) by scanning the text once."""
    paths = [p for p, _ in problems if isinstance(p, tuple)]
    positions = locate(text, with_ancestors(paths))
    out: list[tuple[tuple[int, int], FileProblem]] = []
    for path, message in problems:
        if isinstance(path, str):
            out.append(((1 << 30, 0), FileProblem(message, path)))
            continue
        where = nearest(positions, path)
        line, column = where if where is not None else (None, None)
        out.append(((line or 1 << 30, column or 0), FileProblem(message, format_path(path), line, column)))
    out.sort(key=lambda item: item[0])
    return kind(source, [problem for _, problem in out])
