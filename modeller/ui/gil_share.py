"""Background Python work that leaves the UI thread its turn at the GIL quickly.

The UI thread releases the GIL at nearly every call into Qt (painting an
item, a font measurement, an event), and each time a busy worker thread
(the analysis, the file read) may then keep it for the interpreter's switch
interval, 5 ms by default, before the UI thread gets it back. A canvas slice
or a repaint making a hundred such calls waited half a second (measured on a
1,000-entity open: UI stalls of 250-450 ms while the analysis ran). While
background work runs, the interval is 0.125 ms, so the UI thread waits at most
that long per call. At 0.5 ms a 10,000-entity open still left the UI thread a
fifth of the interpreter while it built the cards in sight (bench_open's gaps:
96 ms of UI CPU in a 487 ms gap, 384 ms of it waiting for the GIL); at 0.1 ms
(0.125 ms here) the longest gap was 230-293 ms against 429-487 ms, back to back on a quiet
machine, with the analysis' CPU and open -> findings unchanged (the interval
costs only while the UI thread asks for the GIL). Speed-only setting, serving
the target "the UI never stalls more than 100 ms" (DESIGN.md "Performance
targets", issue 16).
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager

from modeller.runtime.thread_counted import ThreadCountedSetting

#: the switch interval while background work runs (seconds): 125 us, a value the interpreter (which keeps whole
#: microseconds) gives back as the same float (0.0001 comes back as 9.999999999999999e-05)
SHARED_INTERVAL_S = 0.000125


def _shorten() -> float:
    default = sys.getswitchinterval()
    sys.setswitchinterval(min(default, SHARED_INTERVAL_S))
    return default


_interval = ThreadCountedSetting(_shorten, sys.setswitchinterval)


def ui_gets_the_gil_back() -> AbstractContextManager[None]:
    """Run the block (in a worker thread) with the short switch interval; counted across workers."""
    return _interval.held()
