"""A process-wide interpreter setting changed while any thread is inside a block, restored by the last one out.

Why one helper: the collector pause and the short GIL switch interval are both changed by the UI thread and the
worker threads at overlapping times; the setting must come back exactly once, when the last block ends.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class ThreadCountedSetting(Generic[T]):
    """``change()`` on the first entry (it returns the value to restore), ``restore(value)`` on the last exit."""

    def __init__(self, change: Callable[[], T], restore: Callable[[T], None]) -> None:
        self._change = change
        self._restore = restore
        self._lock = threading.Lock()
        self._inside = 0
        self._saved: T | None = None

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self._inside == 0:
                self._saved = self._change()
            self._inside += 1
        try:
            yield
        finally:
            with self._lock:
                self._inside -= 1
                if self._inside == 0:
                    self._restore(self._saved)  # type: ignore[arg-type]
