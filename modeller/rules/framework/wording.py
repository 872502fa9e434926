"""Small pieces of text that several rule families put into their messages."""

from __future__ import annotations

from modeller.rules.physical.naming import keys_text

__all__ = ["and_list", "keys_text"]


def and_list(names: list[str]) -> str:
    """ "a, b and c" for a message."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
