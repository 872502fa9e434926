"""Small pieces of text that several rule families put into their messages."""

from __future__ import annotations

from typing import Any


def keys_text(keys: list[tuple[str, Any]]) -> str:
    """An index's keys as a reader sees them in a message: ``{status: 1, text: 'text'}``."""
    return "{" + ", ".join([f"{k}: {v if not isinstance(v, str) else repr(v)}" for k, v in keys]) + "}"


def and_list(names: list[str]) -> str:
    """ "a, b and c" for a message."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
