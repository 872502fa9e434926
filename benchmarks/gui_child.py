"""What the GUI benchmarks' child processes share: a paint counter and the process's resident memory.

Imported only inside those children (it imports PySide6), never by ``run.py`` itself.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject


class PaintWatch(QObject):
    """Counts the paint events of the widgets it is installed on."""

    def __init__(self) -> None:
        super().__init__()
        self.painted = 0

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.painted += 1
        return False


def rss_mib() -> float:
    """Resident memory of this process in MiB (Linux), NaN elsewhere."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")
