"""Bulk work without garbage-collection passes in the middle of it.

Rebuilding a 10,000-card scene, merging 50,000 findings or analysing a
10,000-entity project allocates millions of objects; each time enough of
them survive, CPython traverses the whole heap again (the project, the
design, every item), holding the GIL for seconds: at 10,000 entities one
such pass in the analysis thread froze the window for 3 s. Pausing the
collector for one bulk step, and moving what the step built out of the
collector's sight afterwards (:func:`keep_long_lived`), removes those passes.
Neither the model, the engine nor the canvas build creates reference cycles
to reclaim (measured: an analysis leaves no unreachable object behind).

The pause is counted across threads: the analysis thread and the UI thread
may each be inside a pause, and the collector comes back when the last ends.
Every pause goes through it - a project's load, the sample documents, the
engine's analysis and the UI's bulk steps - since a plain
``gc.disable()``/``gc.enable()`` pair ending while another thread's pause runs
would turn the collector back on in the middle of that one.
"""

from __future__ import annotations

import gc
from contextlib import AbstractContextManager

from modeller.runtime.thread_counted import ThreadCountedSetting


def _disable() -> bool:
    was_enabled = gc.isenabled()
    gc.disable()
    return was_enabled


def _restore(was_enabled: bool) -> None:
    if was_enabled:
        gc.enable()


_collector = ThreadCountedSetting(_disable, _restore)


def collector_paused() -> AbstractContextManager[None]:
    """Disable the cyclic garbage collector inside the block (nested and concurrent use are fine)."""
    return _collector.held()


def keep_long_lived() -> None:
    """Move every object alive now out of the collector's sight (``gc.freeze``), after a bulk step.

    After a project was read or analysed, its hundreds of thousands of immutable objects live
    until the next open or analysis, yet each full collection traversed all of them again: at
    5,000 entities single collections of seconds landed between the slices of the canvas build.
    Frozen objects are still freed by reference counting when they are replaced (the model and
    the analysis hold no cycles); only cycles already garbage at this moment stay, a bounded
    amount per step. Freezing is a list splice, not a pass over the objects.
    """
    gc.freeze()
