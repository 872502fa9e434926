"""Writing an export: a staging folder beside the target, moved into place only when complete.

The GUI's export dialog and the CLI share this: a progress callback, a cancel
check between steps, and no half-written output. Everything is generated into
``.<out>.modeller-tmp-*`` next to ``out_dir`` (same filesystem, so the final
``os.replace`` of each file, or rename of a whole new folder, is atomic), then
moved; on any error or cancel the staging folder is removed and the target is
untouched.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from modeller.export.manifest import (
    MANIFEST,
    MAX_MANIFEST_BYTES,
    Cleanup,
    Entry,
    digest,
    read_bounded,
    remove_stale,
    safe_relative,
)
from modeller.persistence.locks import process_alive, try_lock

ProgressCallback = Callable[[int, int, str], None]
CancelCheck = Callable[[], bool]

_UNSAFE = re.compile(r"[^\w.\-]+", re.UNICODE)
#: Writer threads of :meth:`Staging.flush` (one per folder: ``samples/``, ``schema/``, ``validators/``, top).
_WRITERS = 4
#: Fewer staged files than this are written by the calling thread (a pool costs more than it saves).
_INLINE_FILES = 64
_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}


class ExportError(Exception):
    """The export could not be written (bad input, unwritable folder, full disk); the message says why."""


class ExportCancelled(ExportError):
    """The user cancelled; nothing was written."""


def safe_file_stem(name: str, taken: set[str]) -> str:
    """A file name for a collection name: no path separators, no leading dot, unique case-insensitively.

    Collection names may contain ``/``, ``..`` or ``\\``; they must never leave the export folder.
    """
    stem = _UNSAFE.sub("_", name).strip("._ ") or "collection"
    stem = stem[:100]
    if stem.lower() in _WINDOWS_RESERVED:
        stem = "_" + stem
    candidate, n = stem, 2
    while candidate.lower() in taken:
        candidate = f"{stem}-{n}"
        n += 1
    taken.add(candidate.lower())
    return candidate


def describe_os_error(exc: OSError, where: Path) -> str:
    """One plain sentence for the usual write failures."""
    reasons = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.EROFS: "the file system is read-only",
        errno.ENOTDIR: "a part of the path is a file, not a folder",
        errno.EISDIR: "a file is expected but a folder is in the way",
    }
    reason = reasons.get(exc.errno or 0, exc.strerror or str(exc))
    return f"cannot write the export to {where}: {reason}"


#: In a staging folder: what :meth:`Staging.commit` is about to move, written before the first move.
JOURNAL = ".modeller-commit.json"
_INSIDE_PREFIX = ".modeller-tmp-"


def _staging_prefix(real: Path) -> str:
    return f".{real.name}{_INSIDE_PREFIX}"


def _staging_places(real: Path) -> list[tuple[Path, str]]:
    """Where staging folders of the export folder ``real`` live: beside it, or inside it when that failed."""
    places = [(real, _INSIDE_PREFIX)]
    if real.parent != real:
        places.insert(0, (real.parent, _staging_prefix(real)))
    return places


class Staging:
    """A temporary folder beside ``out_dir`` that becomes the export's content on :meth:`commit`.

    An export of 1,000 collections writes about 2,600 small files, and creating
    a file costs from 0.04 ms to over 0.6 ms of kernel time on a busy machine,
    as much as generating all of them. So :meth:`write` only keeps the bytes;
    :meth:`flush` creates the files with one thread per folder (creations in
    one folder serialize on its lock; different folders proceed side by side,
    and the generating thread never competes with writers for the GIL), each
    with a single unbuffered write; :meth:`commit` moves a folder the target
    does not have yet (``samples/``) with one rename instead of one per file.

    The staging folder sits beside the export folder's real location (after
    symbolic links), so every move is a rename on one file system; when that
    parent cannot be written (a mount point), inside it. It is named with the
    process id and locked while in use, so the next export recognises one a
    killed export left (:func:`recover`): without a :data:`JOURNAL` it is
    discarded (the folder still holds the old export), with one the moves are
    completed (the new export) — the folder never stays a mix of both.
    """

    def __init__(self, out_dir: Path) -> None:
        self.out_dir = out_dir
        if out_dir.exists() and not out_dir.is_dir():
            raise ExportError(f"cannot write the export to {out_dir}: it is a file, not a folder")
        self.real = Path(os.path.realpath(out_dir))
        self.notices = recover(out_dir)
        self._lock: int | None = None
        self._journalled = False
        self.path = self._create()
        self.files: list[str] = []
        #: relative path -> SHA-256 of the content (the export manifest records them)
        self.digests: dict[str, str] = {}
        self._pending: dict[str, list[tuple[str, bytes]]] = {}

    def _create(self) -> Path:
        """A new, locked staging folder on the export folder's file system."""
        try:
            self.real.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ExportError(describe_os_error(exc, self.out_dir)) from exc
        failure: OSError | None = None
        for place, prefix in _staging_places(self.real):
            try:
                path = Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=place))
            except FileNotFoundError as exc:  # the export folder itself does not exist yet
                failure = failure or exc
                continue
            except OSError as exc:
                failure = failure or exc
                continue
            self._lock = try_lock(path, folder=True)
            return path
        assert failure is not None
        raise ExportError(describe_os_error(failure, self.out_dir)) from failure

    def write(self, relative: str, content: str | bytes) -> None:
        """Stage ``content`` (text as UTF-8 with ``\\n`` line ends) under ``relative``; on disk at :meth:`flush`."""
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        folder = relative.rpartition("/")[0]
        self._pending.setdefault(folder, []).append((relative, data))
        self.files.append(relative)
        self.digests[relative] = digest(data)

    def flush(self) -> None:
        """Create every staged file (before another program reads one, and before commit)."""
        batches = list(self._pending.values())
        self._pending = {}
        if len(batches) == 1 or sum(len(batch) for batch in batches) <= _INLINE_FILES:
            for batch in batches:
                self._write_folder(batch)
            return
        with ThreadPoolExecutor(max_workers=min(len(batches), _WRITERS), thread_name_prefix="modeller-export") as pool:
            for future in [pool.submit(self._write_folder, batch) for batch in batches]:
                future.result()  # the first failure raises here

    def _write_folder(self, batch: list[tuple[str, bytes]]) -> None:
        try:
            (self.path / batch[0][0]).parent.mkdir(parents=True, exist_ok=True)
            for relative, data in batch:
                with open(self.path / relative, "wb", buffering=0) as handle:
                    handle.write(data)
        except OSError as exc:
            raise ExportError(describe_os_error(exc, self.out_dir)) from exc

    def adopt(self, relative: str) -> None:
        """Record a file some other program (Graphviz) wrote into the staging folder."""
        try:
            self.digests[relative] = digest((self.path / relative).read_bytes())
        except OSError as exc:
            raise ExportError(describe_os_error(exc, self.out_dir)) from exc
        self.files.append(relative)

    def commit(self, stale: dict[str, Entry] | None = None, protect: Sequence[Path] = ()) -> tuple[list[Path], Cleanup]:
        """Move every staged file into ``out_dir`` (replacing older versions); return the final paths.

        A top-level folder the target does not have yet moves with one rename;
        otherwise each file replaces its older version (other files stay). Then
        the ``stale`` files of an earlier export are removed (see
        :func:`~modeller.export.manifest.remove_stale`). The list of moves is
        written to :data:`JOURNAL` first, so a killed commit is completed by the
        next export; the manifest moves last.
        """
        try:
            self.flush()
            check_destinations(self.real, self.out_dir, self.files)
            self.real.mkdir(parents=True, exist_ok=True)
            order = sorted(self.files, key=lambda relative: relative == MANIFEST)
            journal = {
                "files": order,
                "stale": {r: [e.kind, e.sha256] for r, e in (stale or {}).items()},
                "protect": [os.path.abspath(p) for p in protect],
            }
            _write_journal(self.path, journal)
            self._journalled = True  # from here on, the next export completes what this one could not
            cleanup = _complete(self.path, self.real, journal)
            self._journalled = False
        except OSError as exc:
            message = describe_os_error(exc, self.out_dir)
            if self._journalled:
                message += "; some files were already replaced: export again to finish"
            raise ExportError(message) from exc
        finally:
            self.discard()
        return [self.out_dir / relative for relative in self.files], cleanup

    def discard(self) -> None:
        """Forget unwritten files and remove the staging folder (whatever is in it) and the lock.

        A staging folder whose moves have begun stays for :func:`recover`
        instead (removing it would leave the folder a mix of two exports).
        """
        self._pending = {}
        if not self._journalled:
            with contextlib.suppress(FileNotFoundError):
                (self.path / JOURNAL).unlink()  # first: a removal killed half-way is then a plain abandoned one
            shutil.rmtree(self.path, ignore_errors=True)
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def check_destinations(real: Path, shown: Path, relatives: Iterable[str]) -> None:
    """Refuse, before anything moves, a path that leaves the folder, goes through a symbolic link or onto a folder.

    ``real`` is the export folder after links, ``shown`` the user's name for it (used in the messages).
    """
    checked: set[str] = set()
    for relative in relatives:
        if not safe_relative(relative):
            raise ExportError(f"cannot write {relative!r} into {shown}: not a path inside the folder")
        parts = relative.split("/")
        for depth in range(1, len(parts) + 1):
            sub = "/".join(parts[:depth])
            if sub in checked:
                continue
            checked.add(sub)
            try:
                mode = os.lstat(real / sub).st_mode
            except FileNotFoundError:
                break
            last = depth == len(parts)
            where = shown / sub
            if not last and stat.S_ISLNK(mode):
                raise ExportError(
                    f"cannot write the export into {where}: it is a symbolic link, and an export never "
                    "writes through one; remove the link or choose another folder"
                )
            if not last and not stat.S_ISDIR(mode):
                raise ExportError(f"cannot write the export into {where}: it is a file, not a folder")
            if last and stat.S_ISDIR(mode):
                raise ExportError(f"cannot write the export to {where}: a folder of that name is in the way")


def _write_journal(staging: Path, journal: dict[str, Any]) -> None:
    """The commit point: once this file exists, the next export completes the moves instead of discarding them."""
    part = staging / (JOURNAL + ".part")
    part.write_text(json.dumps(journal), encoding="utf-8")
    os.replace(part, staging / JOURNAL)


def _complete(staging: Path, real: Path, journal: dict[str, Any]) -> Cleanup:
    """Do (or finish) the moves ``journal`` lists, then remove the earlier export's stale files.

    Idempotent: what already moved is no longer in ``staging`` and is skipped.
    """
    by_top: dict[str, list[str]] = {}
    for relative in journal["files"]:
        by_top.setdefault(relative.split("/", 1)[0], []).append(relative)
    for top, members in by_top.items():
        if top not in members and _move_folder(staging, real, top):
            continue
        for relative in members:
            source = staging / relative
            if not os.path.lexists(source):
                continue  # moved before the kill
            destination = real / relative
            if destination.parent != real:
                destination.parent.mkdir(parents=True, exist_ok=True)
            os.replace(source, destination)
    stale = {r: Entry(kind, sha) for r, (kind, sha) in journal["stale"].items()}
    return remove_stale(real, stale, sorted(stale), [Path(p) for p in journal["protect"]])


def _move_folder(staging: Path, real: Path, top: str) -> bool:
    """Rename staged folder ``top`` into the target when the target has none; False when it must merge."""
    destination = real / top
    if os.path.lexists(destination) or not os.path.isdir(staging / top):
        return False
    try:
        os.rename(staging / top, destination)
    except OSError:
        return False  # appeared meanwhile, or a file system that refuses: merge file by file
    return True


def recover(out_dir: Path) -> list[str]:
    """Finish or discard what an export killed half-way left for ``out_dir``; notices for the user.

    A staging folder whose lock no live process holds is abandoned: with a
    :data:`JOURNAL` its moves are completed (the folder becomes the new export
    it was turning into), without one it is removed (the folder is the old
    export). A live export's staging folder is left alone.
    """
    real = Path(os.path.realpath(out_dir))
    notices: list[str] = []
    for place, prefix in _staging_places(real):
        pattern = re.compile(re.escape(prefix) + r"(\d+)-\w+")
        try:
            names = [n for n in os.listdir(place) if pattern.fullmatch(n)]
        except OSError:
            continue
        for name in sorted(names):
            path = place / name
            lock = try_lock(path, folder=True)
            if lock is None:
                continue  # in use, a link, or gone
            try:
                if not os.listdir(path) and process_alive(int(pattern.fullmatch(name).group(1))):  # type: ignore[union-attr]
                    continue  # just created, not locked yet
                if (path / JOURNAL).is_file():
                    journal = json.loads(read_bounded(path / JOURNAL, MAX_MANIFEST_BYTES).decode("utf-8"))
                    check_destinations(real, out_dir, journal["files"])
                    cleanup = _complete(path, real, journal)
                    notices.extend(cleanup.notices)
                    notices.append(f"completed an export to {out_dir} that was interrupted")
                shutil.rmtree(path)
            except (OSError, ValueError, KeyError, TypeError, AttributeError, ExportError) as exc:
                notices.append(f"could not finish the interrupted export left in {path}: {exc}; remove it by hand")
            finally:
                os.close(lock)
    return notices
