"""Bulk UI work without garbage-collection passes in the middle of it.

Rebuilding a 10,000-card scene or merging 50,000 findings allocates hundreds of
thousands of objects; each time enough of them survive, CPython traverses the
whole heap again (the project, the design, every item), so the collector took
about half the time of a large open. Pausing it for the duration of one bulk step
lets the next ordinary collection look once, after the step, instead of several
times during it. The step itself creates no reference cycles to reclaim.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Disable the cyclic garbage collector inside the block (nested use is fine)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def keep_long_lived() -> None:
    """Move every object alive now out of the collector's sight (``gc.freeze``), after a project was read.

    Its hundreds of thousands of immutable model objects live until the next open, yet each full
    collection traversed all of them again: at 5,000 entities single collections of seconds landed
    between the slices of the canvas build. Frozen objects are still freed by reference counting
    when the project is replaced (the model holds no cycles); only cycles already garbage at this
    moment stay, a bounded amount per open.
    """
    gc.freeze()
