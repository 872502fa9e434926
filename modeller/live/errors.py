"""The one error inference raises: a one-line message naming the place and what to do (never a traceback)."""

from __future__ import annotations


class LiveError(Exception):
    """A file or a server that cannot be read; ``str(error)`` is the whole message for the user."""
