"""A dialog that runs one background job at a time (import, apply, compare), with Cancel.

Why one base: every such dialog must drop the result of a job the user cancelled or replaced,
and must stop its job when closed; written once, no dialog can forget either.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QDialog, QWidget

from modeller.ui.jobs import BackgroundJob, Work


class JobDialog(QDialog):
    """Holds the running :class:`BackgroundJob`; subclasses say what its progress and result mean."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.job: BackgroundJob | None = None
        #: what the running job does ("connect", "import", "plan", …), for the subclass's messages
        self.job_kind = ""

    def run_job(self, kind: str, work: Work, name: str, expected: tuple[type[BaseException], ...]) -> None:
        """Start ``work`` in a worker thread; its progress and result arrive through the two hooks below."""
        job = BackgroundJob(work, name, expected, parent=self)
        self.job, self.job_kind = job, kind
        job.progress.connect(lambda value: job is self.job and self.job_progress(value))
        job.finished.connect(lambda result: self._job_ended(job, kind, result))
        job.start()

    def _job_ended(self, job: BackgroundJob, kind: str, result: Any) -> None:
        if job is not self.job:  # cancelled or replaced: the result is dropped
            return
        self.job = None
        self.job_finished(kind, result)

    def job_progress(self, value: Any) -> None:
        """A progress value the running job reported (on the UI thread)."""

    def job_finished(self, kind: str, result: Any) -> None:
        """The running job's result, or the exception that stopped it (on the UI thread)."""
        raise NotImplementedError

    def stop_job(self) -> str | None:
        """Cancel the running job (its result will be dropped): the kind it was, None when nothing ran."""
        if self.job is None:
            return None
        self.job.cancel()
        kind, self.job = self.job_kind, None
        return kind

    def running(self) -> bool:
        return self.job is not None

    def reject(self) -> None:
        self.stop_job()
        super().reject()
