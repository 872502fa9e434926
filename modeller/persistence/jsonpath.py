"""JSON paths (``$.entities[3].fields[0].type``) and where they sit in the file text.

Locating is done only when there is an error to report: the scan is plain
Python and would slow down every successful load.
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import json
import operator
import re
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, count

from modeller.model.text import shorten

PathPart = str | int
#: the most characters of one key a path shows (a 10 MB key must not become a 10 MB message)
_KEY_LIMIT = 80
Path = tuple[PathPart, ...]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_SEGMENT = re.compile(
    r"""\.(?P<name>[A-Za-z_][A-Za-z0-9_]*)"""
    r"""|\[(?P<index>\d+)\]"""
    r"""|\[(?P<key>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\]""",
    re.S,
)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'{}[]"')
_QUOTED_RUN = re.compile(rb'"[^"]*"')
_STEP = bytes.maketrans(b"{[}]", b"\x02\x02\x00\x00")
# one JSON token: a string, a punctuation mark, or a bare word (number, true, false, null)
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.S)


def format_path(parts: Iterable[PathPart]) -> str:
    """``("entities", 3, "name")`` -> ``$.entities[3].name``; odd keys are quoted: ``$.layout['a b']``."""
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif len(part) <= _KEY_LIMIT and _IDENT.match(part):
            out.append(f".{part}")
        else:
            out.append(f"[{_quote(part)}]")
    return "".join(out)


def _quote(key: str) -> str:
    """A key as a Python-style literal, with control characters escaped so it stays on one line."""
    return repr(shorten(key, _KEY_LIMIT))


def parse_path(text: str) -> Path | None:
    """The inverse of :func:`format_path` (also reads ``checks.py``'s ``['key']`` segments); None if malformed."""
    if not text.startswith("$"):
        return None
    parts: list[PathPart] = []
    pos = 1
    while pos < len(text):
        match = _SEGMENT.match(text, pos)
        if match is None:
            return None
        if match["name"] is not None:
            parts.append(match["name"])
        elif match["index"] is not None:
            parts.append(int(match["index"]))
        else:
            try:
                parts.append(str(ast.literal_eval(match["key"])))
            except (ValueError, SyntaxError):
                return None
        pos = match.end()
    return tuple(parts)


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of ``offset`` in ``text``."""
    return line_columns(text, [offset])[0]


def line_columns(text: str, offsets: Iterable[int]) -> list[tuple[int, int]]:
    """1-based line and column of each offset, from one pass over ``text`` (10,000 errors: one scan, not 10,000)."""
    starts = [0, *(m.end() for m in re.finditer("\n", text))]
    out: list[tuple[int, int]] = []
    for offset in offsets:
        line = bisect.bisect_right(starts, offset)
        out.append((line, offset - starts[line - 1] + 1))
    return out


def locate(text: str, wanted: Iterable[Sequence[PathPart]]) -> dict[Path, tuple[int, int]]:
    """Line and column of each wanted path in valid JSON ``text``.

    An object member is located at its key (where a reader looks for it), an
    array element at its first character. Paths not in the text are absent
    from the result; the nearest existing ancestor is the caller's fallback.
    """
    targets = {tuple(p) for p in wanted}
    found: dict[Path, int] = {}
    if not targets:
        return {}
    with contextlib.suppress(ValueError, IndexError):  # text that is not JSON: locate what we could
        _scan(text, targets, found)
    return dict(zip(found, line_columns(text, found.values()), strict=True))


def nearest(located: dict[Path, tuple[int, int]], path: Sequence[PathPart]) -> tuple[int, int] | None:
    """Position of ``path`` or of its closest located ancestor."""
    parts = tuple(path)
    while True:
        if parts in located:
            return located[parts]
        if not parts:
            return None
        parts = parts[:-1]


def with_ancestors(paths: Iterable[Sequence[PathPart]]) -> set[Path]:
    """Every path and all its prefixes: what :func:`locate` needs for :func:`nearest` to work."""
    out: set[Path] = set()
    for path in paths:
        parts = tuple(path)
        for i in range(len(parts) + 1):
            out.add(parts[:i])
    return out


class _Frame:
    """An open object or array while scanning: its path, the next index, the current key."""

    __slots__ = ("index", "is_object", "member", "path")

    def __init__(self, is_object: bool, path: Path) -> None:
        self.is_object = is_object
        self.path = path
        self.index = 0
        self.member: Path = path


def _walk(text: str) -> Iterator[tuple[Path, int, bool]]:
    """``(path, offset, is_key)`` for every object key and every value, in text order.

    A key yields the path of its member; a value yields its own path. In a
    file without repeated keys every key path is unique.
    """
    stack: list[_Frame] = []
    value_path: Path | None = ()  # path of the next value; None while an object key is expected
    for match in _TOKEN.finditer(text):
        token = match.group()
        if stack and stack[-1].is_object and value_path is None and token[0] == '"':
            frame = stack[-1]
            frame.member = (*frame.path, json.loads(token))
            yield frame.member, match.start(), True
            continue
        if token == ":":
            value_path = stack[-1].member
            continue
        if token == ",":
            frame = stack[-1]
            if frame.is_object:
                value_path = None
            else:
                frame.index += 1
                value_path = (*frame.path, frame.index)
            continue
        if token in ("}", "]"):
            stack.pop()
            value_path = None
            continue
        path = value_path if value_path is not None else ()
        yield path, match.start(), False
        if token == "{":
            stack.append(_Frame(True, path))
            value_path = None
        elif token == "[":
            stack.append(_Frame(False, path))
            value_path = (*path, 0)
        else:
            value_path = None


def _scan(text: str, targets: set[Path], found: dict[Path, int]) -> None:
    remaining = len(targets)
    for path, offset, _is_key in _walk(text):
        if path in targets and path not in found:
            found[path] = offset
            remaining -= 1
            if remaining <= 0:
                return


def find_bare_word(text: str, predicate: object) -> int | None:
    """Offset of the first bare token (number, literal) outside strings for which ``predicate`` is true."""
    check = predicate if callable(predicate) else (lambda word: word == predicate)
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] != '"' and token not in "{}[],:" and check(token):
            return match.start()
    return None


def max_depth(text: str) -> int:
    """Deepest nesting of ``{``/``[`` outside strings, computed with C-level operations only.

    Runs on every load before parsing, so it must stay cheap: keep only
    quotes and brackets, drop the quoted runs (brackets inside strings), and
    take the running depth as ``sum(2 per opener, 0 per closer) - position``.
    Most strings hold no bracket and leave ``""`` in the skeleton: removing
    those pairs first (two neighbours of the alternating open/close quotes,
    so the rest still alternate) leaves the regex a few quotes instead of a
    million (0.17 s of a 10,000-entity load; DESIGN.md load target).
    Escaped quotes would break the quote pairing, so text holding any is
    first stripped of its strings with a (slower) regex.
    """
    if '\\"' in text:
        text = _STRING.sub("", text)
    skeleton = text.encode("utf-8", "surrogatepass").translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    steps = _QUOTED_RUN.sub(b"", skeleton).translate(_STEP)
    if not steps:
        return 0
    return max(0, max(map(operator.sub, accumulate(steps), count(1))))


def deepest(text: str, limit: int) -> int | None:
    """Offset of the first ``{`` or ``[`` (outside strings) that opens level ``limit + 1``; None if none does."""
    level = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in ("{", "["):
            level += 1
            if level > limit:
                return match.start()
        elif token in ("}", "]"):
            level -= 1
    return None


def find_duplicate_key(text: str) -> tuple[Path, int] | None:
    """The path and offset of the first key repeated inside one object of ``text``."""
    seen: set[Path] = set()
    for path, offset, is_key in _walk(text):
        if is_key:
            if path in seen:
                return path, offset
            seen.add(path)
    return None
