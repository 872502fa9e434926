"""How the command line talks: exit codes and one-line error messages."""

from __future__ import annotations

import sys

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2


def fail(message: str, code: int = EXIT_BAD_INPUT) -> int:
    """Print ``modeller: error: MESSAGE`` to stderr and return ``code``."""
    print(f"modeller: error: {message}", file=sys.stderr)
    return code


def use_colour(stream: object = None) -> bool:
    """Colour only when writing to a terminal."""
    target = sys.stdout if stream is None else stream
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty())


def clean(text: str | None) -> str:
    """User names may hold control characters: never let them drive the terminal."""
    if text is None:
        return ""
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
