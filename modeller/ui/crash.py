"""The desktop app's last line of defence: an exception nobody caught (in a slot, an event handler, a timer).

Qt's event loop hands such an exception to :data:`sys.excepthook`. The handler
installed here first flushes the autosave (the unsaved work is what matters),
then writes the same crash report as the command line, prints the one-line
summary on stderr and shows a dialog that says the work is safe and where the
report is. The dialog is an attribute (``show``) so that offscreen tests can
replace it instead of blocking on a modal box.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from modeller.model.text import shown
from modeller.persistence.crash import internal_error_line, save_crash_report, scrub_crash_reports, summary
from modeller.ui.dialogs.messages import show_crash

#: ``show(parent, summary, report or None, what happened to the unsaved work)``
ShowCrash = Callable[..., None]


class CrashHandler:
    """``sys.excepthook`` for the GUI; :meth:`install` it once the main window exists."""

    def __init__(self, window: object, autosave: Callable[[], bool], modified: Callable[[], bool]) -> None:
        self.window = window
        self.autosave = autosave
        self.modified = modified
        self.show: ShowCrash = show_crash
        #: the reports written so far (None where writing failed), newest last
        self.reports: list[Path | None] = []
        self._previous: Callable[..., object] | None = None
        self._showing = False

    def install(self) -> None:
        """Catch what nobody caught from now on; mask the credentials older builds left in their reports."""
        self._previous = sys.excepthook
        sys.excepthook = self
        scrub_crash_reports()

    def uninstall(self) -> None:
        if sys.excepthook is self:
            sys.excepthook = self._previous or sys.__excepthook__

    def __call__(self, kind: type[BaseException], exc: BaseException | None, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):  # Ctrl+C in the terminal: not a bug
            (self._previous or sys.__excepthook__)(kind, exc, tb)
            return
        error = exc if exc is not None else kind()
        if error.__traceback__ is None and tb is not None:
            error = error.with_traceback(tb)
        saved = self._flush_autosave()
        report, why_not = save_crash_report(error, "modeller desktop app")
        self.reports.append(report)
        with contextlib.suppress(OSError, ValueError, AttributeError):  # no stderr (a launcher): the dialog tells
            print(internal_error_line(error, report, why_not), file=sys.stderr)
        if self._showing:  # a second error while the dialog is open: reported, but one dialog is enough
            return
        self._showing = True
        try:
            self.show(self.window, summary(error), report, saved)
        finally:
            self._showing = False

    def _flush_autosave(self) -> str:
        """Write the recovery copy now; the sentence that tells the user where their work is."""
        try:
            wrote = self.autosave()
        except Exception as err:  # the state may be broken: say so rather than raise again
            return f"Your unsaved changes could not be saved to the recovery copy ({shown(err)}): save the project now."
        if wrote:
            return (
                "Your work is safe: the unsaved changes were saved to the recovery copy, "
                "which Modeller offers to restore at the next start."
            )
        if not self.modified():
            return "Your work is safe: the project has no unsaved changes."
        return "Your unsaved changes could not be saved to the recovery copy: save the project now."
