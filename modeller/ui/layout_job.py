"""One auto-layout run off the UI thread: ``dot`` in a QProcess, killable, with a built-in fallback.

A QProcess is asynchronous on the UI thread's event loop (no worker thread and
no locking) and can be killed at any moment, which is what Cancel needs. The
job works on the project as it was when it starts (model objects are
immutable; an edit swaps in a new project), so edits made while ``dot`` runs
cannot disturb it; deciding what to do with a result that
the edits made stale is the caller's business (see ``MainWindow.auto_layout``).

Outcomes, each reported exactly once:

* ``finished(positions, engine)``: ``dot`` succeeded (engine ``"graphviz"``),
  or it was missing, failed, crashed, printed an incomplete layout or ran out
  of time, and the built-in layered layout stands in (engine ``"built-in"``,
  ``fallback_reason`` says why).
* ``cancelled()``: :meth:`cancel` was called; ``dot`` is killed and nothing
  is computed, because the user asked for nothing to change.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QProcess, QTimer, Signal

from modeller.model import Project
from modeller.ui.layout import Positions, Sizes, complete_positions, dot_binary, dot_source, layered_positions

DOT_TIMEOUT_S = 10.0


class LayoutJob(QObject):
    """Lays out ``project`` as it is now; start with :meth:`start`, stop with :meth:`cancel`."""

    #: positions (dict id -> (x, y)), engine ("graphviz" or "built-in")
    finished = Signal(object, str)
    cancelled = Signal()

    def __init__(
        self,
        project: Project,
        sizes: Sizes,
        dot: str | None = None,
        timeout_s: float = DOT_TIMEOUT_S,
        use_graphviz: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.project = project  # immutable: the worker reads it as it is
        self.sizes = dict(sizes)
        self.binary = dot_binary(dot) if use_graphviz else None
        self.fallback_reason = ""
        self._done = False
        self._process: QProcess | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(int(timeout_s * 1000))
        self._timer.timeout.connect(self._timed_out)

    @property
    def running(self) -> bool:
        return self._process is not None and not self._done

    def start(self) -> None:
        """Start ``dot``; without Graphviz (or entities) the built-in result is reported at once."""
        if self.binary is None or not self.project.entities:
            self._fall_back("Graphviz dot is not installed" if self.binary is None else "")
            return
        process = QProcess(self)
        self._process = process
        process.started.connect(self._send_source)
        process.finished.connect(self._process_finished)
        process.errorOccurred.connect(self._process_error)
        self._timer.start()
        process.start(self.binary, ["-Tplain"])

    def cancel(self) -> None:
        """Kill ``dot`` and report ``cancelled``; a finished job ignores this."""
        if self._done:
            return
        self._done = True
        self._timer.stop()
        self._kill()
        self.cancelled.emit()

    # ------------------------------------------------------------ process events
    def _send_source(self) -> None:
        if self._process is None:
            return
        self._process.write(dot_source(self.project, self.sizes).encode("utf-8"))
        self._process.closeWriteChannel()

    def _process_finished(self, exit_code: int, status: QProcess.ExitStatus) -> None:
        if self._done or self._process is None:
            return
        if status != QProcess.ExitStatus.NormalExit:
            self._fall_back("Graphviz dot crashed")
            return
        if exit_code != 0:
            error = bytes(self._process.readAllStandardError().data()).decode("utf-8", "replace").strip()
            first = error.splitlines()[0][:120] if error else ""
            self._fall_back(f"Graphviz dot failed (exit {exit_code}{': ' + first if first else ''})")
            return
        text = bytes(self._process.readAllStandardOutput().data()).decode("utf-8", "replace")
        try:
            positions = complete_positions(text, self.project, self.sizes)
        except (ValueError, IndexError):
            positions = None
        if positions is None:
            self._fall_back("Graphviz dot printed an incomplete layout")
            return
        self._finish(positions, "graphviz")

    def _process_error(self, error: QProcess.ProcessError) -> None:
        # a crash or kill also reports through ``finished``; only a failed start ends here
        if error == QProcess.ProcessError.FailedToStart and not self._done:
            self._fall_back(f"Graphviz dot could not be started ({self.binary})")

    def _timed_out(self) -> None:
        if self._done:
            return
        self._kill()
        self._fall_back(f"Graphviz dot took longer than {self._timer.interval() / 1000:g} s")

    # ------------------------------------------------------------ outcomes
    def _fall_back(self, reason: str) -> None:
        self.fallback_reason = reason
        self._finish(layered_positions(self.project, self.sizes), "built-in")

    def _finish(self, positions: Positions, engine: str) -> None:
        if self._done:
            return
        self._done = True
        self._timer.stop()
        self._kill()
        self.finished.emit(positions, engine)

    def _kill(self) -> None:
        """Stop ``dot`` and reap it (milliseconds after SIGKILL), so no process outlives the job."""
        process = self._process
        if process is None:
            return
        self._process = None
        process.finished.disconnect(self._process_finished)
        process.errorOccurred.disconnect(self._process_error)
        if process.state() != QProcess.ProcessState.NotRunning:
            process.kill()
            process.waitForFinished(1000)
        process.deleteLater()
