"""The open of a large project as one bulk phase for the interpreter: no collector passes, short GIL turns.

From the read of the file until every card is built and the first findings are on screen, the worker
threads (read, checks, analysis, preview sample, warm-up) and the UI thread's canvas slices allocate
millions of objects that all live on. Measured at 10,000 entities before this phase: each collector pass
in that time traversed what the last freeze had not yet hidden (full passes of 0.3 s CPU on the UI
thread between canvas slices, and a pass of 0.2 s in the preview sample's thread, whose GIL the UI thread
waited for), and a worker running without the short switch interval (the preview sample, the warm-up)
kept the GIL 5 ms at each of the UI thread's calls into Qt: canvas slices of 30 ms CPU took 300 ms.

So the phase holds both settings (:mod:`gc_pause`, :mod:`gil_share`) from the start of the read to its
end, and then moves everything the open built out of the collector's sight (``keep_long_lived``) before
the collector comes back: no pass over the project, the analysis or the canvas ever runs. Only reference
cycles made during the open stay unreclaimed (the model, the engine and the canvas make none; see gc_pause).
Speed-only, serving "the UI never stalls more than 100 ms" (DESIGN.md "Performance targets", issue 16).
"""

from __future__ import annotations

from contextlib import ExitStack

from modeller.runtime.gc_pause import collector_paused, keep_long_lived
from modeller.ui.gil_share import ui_gets_the_gil_back

#: what an open shown on screen still waits for before its phase ends
BUILT, FINDINGS = "built", "findings"


class OpenPhase:
    """Held from :meth:`begin` (the read starts) until the shown project needs nothing more (:meth:`done`)."""

    def __init__(self) -> None:
        self._held: ExitStack | None = None
        #: None until the project is shown (signals of the project shown before must not end the phase)
        self._waiting: set[str] | None = None

    @property
    def active(self) -> bool:
        return self._held is not None

    def begin(self) -> None:
        """A read starts: pause the collector and shorten the switch interval (a phase still held ends first)."""
        self.end()
        held = ExitStack()
        held.enter_context(collector_paused())
        held.enter_context(ui_gets_the_gil_back())
        self._held = held

    def shown(self, waiting: set[str]) -> None:
        """The read project is on screen; the phase lasts until each of ``waiting`` is :meth:`done`."""
        if self._held is None:
            return
        self._waiting = set(waiting)
        if not self._waiting:
            self.end()

    def done(self, part: str) -> None:
        """``part`` (:data:`BUILT` or :data:`FINDINGS`) of the shown project is ready."""
        if self._waiting is None:
            return
        self._waiting.discard(part)
        if not self._waiting:
            self.end()

    def end(self) -> None:
        """Hide what the open built from the collector, then give both settings back (nothing held: no-op)."""
        held, self._held, self._waiting = self._held, None, None
        if held is None:
            return
        keep_long_lived()
        held.close()
