"""Autosave target: a recovery copy of unsaved work, offered back after a crash.

The copy is written every minute while the project is modified and removed
when the project is saved or the window closes normally, so finding one at
start-up means the last session ended abnormally.

Each running instance has its own copy, ``recovery-<id>.modeller.json``, and
holds a lock on ``recovery-<id>.lock`` from its first autosave until it exits
(the operating system drops the lock when the process dies, even by ``kill
-9``). A starting instance offers only a copy whose lock it can take — one
whose owner is gone — and keeps that lock while it offers it, so two crashed
instances leave two copies, and no instance ever offers, or deletes, the copy
of one still running.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from modeller.persistence.locks import remove_if_unowned, try_lock

#: The single shared copy of versions before per-instance copies; still offered once after an upgrade.
RECOVERY_FILE = "recovery.modeller.json"
META_FILE = "recovery.meta.json"
_COPY = re.compile(r"recovery-(\d+-[0-9a-f]{8})\.modeller\.json")
_LOCK = re.compile(r"recovery-(\d+-[0-9a-f]{8})\.lock")
_LEGACY_ID = ""


@dataclass(frozen=True)
class Recovered:
    text: str
    original: Path | None
    saved_at: str


def _names(instance: str) -> tuple[str, str, str]:
    """Copy, meta and lock file names of ``instance`` (the legacy shared copy for ``""``)."""
    if instance == _LEGACY_ID:
        return RECOVERY_FILE, META_FILE, "recovery.lock"
    return f"recovery-{instance}.modeller.json", f"recovery-{instance}.meta.json", f"recovery-{instance}.lock"


class RecoveryStore:
    """This instance's recovery copy, and the copies of dead instances it offers."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.instance = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._lock: int | None = None
        #: the dead instance whose copy :meth:`read` offered, and the lock that keeps others from offering it
        self._claimed: tuple[str, int] | None = None
        #: a background autosave and a save's :meth:`clear` take turns; each clear starts a new generation, so a
        #: copy serialized before the save is not written after it
        self._turn = threading.Lock()
        self.generation = 0

    @property
    def path(self) -> Path:
        """The copy offered by :meth:`read` while it is claimed, else this instance's own copy."""
        return self.directory / _names(self._claimed[0] if self._claimed else self.instance)[0]

    def write(self, text: str, original: Path | None, generation: int | None = None) -> bool:
        """Atomically replace this instance's copy (a crash mid-write must not lose the older copy); False when
        ``generation`` (taken when ``text`` was made) is over: the work was saved or the window closed meanwhile.

        A claimed copy of a dead instance is removed afterwards: this copy now holds that work.
        """
        with self._turn:
            if generation is not None and generation != self.generation:
                return False
            self._write(text, original)
            return True

    def _write(self, text: str, original: Path | None) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        if self._lock is None:
            self._lock = try_lock(self.directory / _names(self.instance)[2], create=True)
            if self._lock is None:
                raise OSError(f"cannot lock the recovery copy in {self.directory}")
        copy, meta_name, _ = _names(self.instance)
        meta = {"original": str(original) if original else None, "saved_at": time.strftime("%Y-%m-%d %H:%M:%S")}
        for name, content in ((copy, text), (meta_name, json.dumps(meta))):
            tmp = self.directory / (name + ".tmp")
            tmp.write_text(content, encoding="utf-8")
            os.replace(tmp, self.directory / name)
        self._drop_claimed()

    def read(self) -> Recovered | None:
        """The newest copy of an instance that is no longer running, if any; claimed until :meth:`clear`.

        A damaged copy is still offered (the loader will say what is wrong).
        """
        self._release_claimed()
        for instance in self._orphans():
            lock = try_lock(self.directory / _names(instance)[2], create=True)
            if lock is None:
                continue  # its instance is running (or another one is offering it right now)
            found = self._load(instance)
            if found is None:
                os.close(lock)
                continue
            self._claimed = (instance, lock)
            return found
        return None

    def clear(self) -> None:
        """Remove this instance's copy (saved, or closed cleanly) and the dead instance's copy it offered."""
        with self._turn:
            self.generation += 1
            self._clear()

    def _clear(self) -> None:
        copy, meta_name, lock_name = _names(self.instance)
        for name in (copy, meta_name):
            with contextlib.suppress(FileNotFoundError):
                (self.directory / name).unlink()
        self._drop_claimed()
        if self._lock is not None:  # nothing left to guard: no lock file stays behind either
            with contextlib.suppress(OSError):
                (self.directory / lock_name).unlink()
            self.abandon()

    def abandon(self) -> None:
        """Let go of every lock, leaving the files: what the operating system does when this process dies."""
        self._release_claimed()
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None
            self.instance = f"{os.getpid()}-{secrets.token_hex(4)}"  # a later write starts a new copy, new lock

    def _orphans(self) -> list[str]:
        """Instances with a copy on disk other than this one, newest first; unused lock files are removed."""
        try:
            entries = list(os.scandir(self.directory))
        except OSError:
            return []
        found: list[tuple[float, str]] = []
        copies = set()
        for entry in entries:
            match = _COPY.fullmatch(entry.name)
            instance = match.group(1) if match else (_LEGACY_ID if entry.name == RECOVERY_FILE else None)
            if instance is None or instance == self.instance:
                continue
            copies.add(instance)
            with contextlib.suppress(OSError):
                found.append((entry.stat(follow_symlinks=False).st_mtime, instance))
        for entry in entries:
            match = _LOCK.fullmatch(entry.name)
            if match and match.group(1) not in copies and match.group(1) != self.instance:
                remove_if_unowned(entry.path)  # an instance that closed cleanly (or died before writing)
        return [instance for _, instance in sorted(found, reverse=True)]

    def _load(self, instance: str) -> Recovered | None:
        copy, meta_name, _ = _names(instance)
        path = self.directory / copy
        if path.is_symlink() or not path.is_file():
            return None
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        try:
            meta = json.loads((self.directory / meta_name).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            meta = {}
        if not isinstance(meta, dict):
            meta = {}
        original = meta.get("original")
        saved_at = str(meta.get("saved_at", "an earlier session"))
        return Recovered(text, Path(original) if isinstance(original, str) and original else None, saved_at)

    def _drop_claimed(self) -> None:
        """Delete the claimed copy (its work is saved, discarded, or now in this instance's copy)."""
        if self._claimed is None:
            return
        instance, _ = self._claimed
        copy, meta_name, lock_name = _names(instance)
        for name in (copy, meta_name, copy + ".tmp", meta_name + ".tmp", lock_name):
            with contextlib.suppress(OSError):
                (self.directory / name).unlink()
        self._release_claimed()

    def _release_claimed(self) -> None:
        if self._claimed is not None:
            os.close(self._claimed[1])
            self._claimed = None
