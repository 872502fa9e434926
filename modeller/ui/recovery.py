"""Autosave target: a recovery copy of unsaved work, offered back after a crash.

The copy is written every minute while the project is modified and removed
when the project is saved or the window closes normally, so finding one at
start-up means the last session ended abnormally.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

RECOVERY_FILE = "recovery.modeller.json"
META_FILE = "recovery.meta.json"


@dataclass(frozen=True)
class Recovered:
    text: str
    original: Path | None
    saved_at: str


class RecoveryStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @property
    def path(self) -> Path:
        return self.directory / RECOVERY_FILE

    def write(self, text: str, original: Path | None) -> None:
        """Atomically replace the recovery copy (a crash mid-write must not lose the older copy)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        meta = {"original": str(original) if original else None, "saved_at": time.strftime("%Y-%m-%d %H:%M:%S")}
        for name, content in ((RECOVERY_FILE, text), (META_FILE, json.dumps(meta))):
            tmp = self.directory / (name + ".tmp")
            tmp.write_text(content, encoding="utf-8")
            os.replace(tmp, self.directory / name)

    def read(self) -> Recovered | None:
        """The recovery copy, if any; a damaged copy is still offered (the loader will say what is wrong)."""
        if not self.path.is_file():
            return None
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        try:
            meta = json.loads((self.directory / META_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        if not isinstance(meta, dict):
            meta = {}
        original = meta.get("original")
        return Recovered(text, Path(original) if original else None, str(meta.get("saved_at", "an earlier session")))

    def clear(self) -> None:
        for name in (RECOVERY_FILE, META_FILE):
            with contextlib.suppress(FileNotFoundError):
                (self.directory / name).unlink()
