"""Background Python work that leaves the UI thread its turn at the GIL quickly.

The UI thread releases the GIL at nearly every call into Qt (painting an
item, a font measurement, an event), and each time a busy worker thread
(the analysis, the file read) may then keep it for the interpreter's switch
interval, 5 ms by default, before the UI thread gets it back. A canvas slice
or a repaint making a hundred such calls waited half a second (measured on a
1,000-entity open: UI stalls of 250-450 ms while the analysis ran). While
background work runs, the interval is 0.5 ms, so the UI thread waits at most
that long per call; the worker loses a few per cent of its speed. Speed-only
setting, serving the target "the UI never stalls more than 100 ms" (DESIGN.md
"Performance targets", issue 16).
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager

from modeller.runtime.thread_counted import ThreadCountedSetting

#: the switch interval while background work runs (seconds)
SHARED_INTERVAL_S = 0.0005


def _shorten() -> float:
    default = sys.getswitchinterval()
    sys.setswitchinterval(min(default, SHARED_INTERVAL_S))
    return default


_interval = ThreadCountedSetting(_shorten, sys.setswitchinterval)


def ui_gets_the_gil_back() -> AbstractContextManager[None]:
    """Run the block (in a worker thread) with the short switch interval; counted across workers."""
    return _interval.held()
