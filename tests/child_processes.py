"""The processes this one started and has not reaped, by name: a killed ``dot`` must leave none (Linux ``/proc``)."""

from __future__ import annotations

import os
from pathlib import Path


def children_named(name: str) -> list[int]:
    """Pids of the processes called ``name`` whose parent is this process (a zombie too: it is not reaped yet)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended while listed
        command = stat[stat.index("(") + 1 : stat.rindex(")")]
        parent = int(stat[stat.rindex(")") + 2 :].split()[1])
        if parent == os.getpid() and command == name:
            found.append(int(entry.name))
    return found
