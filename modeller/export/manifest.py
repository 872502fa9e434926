"""What an earlier export wrote, so the next one can remove its own files that no longer belong.

Renaming a collection and exporting again would otherwise leave
``validators/<old name>.json`` beside the new file, and a reader cannot tell
which one is current. Each export records its files, their kind and their
SHA-256 in ``.modeller-export.json``; the next export of the same kinds
removes a recorded file it did not write again — only when the file is still
byte for byte what Modeller wrote. A file the user edited, a file the
manifest names outside the folder, a symbolic link or anything not in the
manifest is never touched.

The manifest is plain JSON anyone can write, so an entry is only believed
when its name is one an export of its kind produces (:data:`KIND_NAMES`), and
no project file (``*.modeller.json``), backup or protected path (the project
being exported, when ``--out`` is its folder) is ever removed. The manifest
itself is read without following a symbolic link, only if it is a regular
file, and at most :data:`MAX_MANIFEST_BYTES` of it (a FIFO or a link to
``/dev/zero`` must neither hang nor fill memory).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MANIFEST = ".modeller-export.json"
_FORMAT = "modeller-export"
_VERSION = 1
#: A manifest of 10,000 collections is about 4 MB; anything larger is not one Modeller wrote.
MAX_MANIFEST_BYTES = 16 * 1024 * 1024
_STEM = r"[\w\-][\w.\-]{0,140}"
#: The names each export kind writes (``export_project``'s steps; a test checks that every written file matches).
KIND_NAMES: dict[str, re.Pattern[str]] = {
    kind: re.compile(pattern)
    for kind, pattern in {
        "setup": r"setup\.mongosh\.js",
        "validators": rf"validators/{_STEM}\.json",
        "schema": rf"schema/{_STEM}\.schema\.json",
        "indexes": r"indexes\.mongosh\.js",
        "samples": rf"samples/{_STEM}\.json",
        "diagram": r"diagram\.(?:dot|svg|png)",
        "report": r"DESIGN\.md",
        "pydantic": r"models\.py",
        "typescript": r"models\.ts",
    }.items()
}
#: Never removed whatever a manifest says: project files and their backups.
_NEVER = re.compile(r".*\.modeller\.json|.*\.bak|.*\.tmp", re.IGNORECASE)
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


@dataclass(frozen=True, slots=True)
class Entry:
    """One file an export wrote."""

    kind: str
    sha256: str


@dataclass(slots=True)
class Cleanup:
    """What :func:`remove_stale` did: files removed, files kept because the user changed them, problems."""

    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def safe_relative(relative: str) -> bool:
    """A path inside the export folder: relative, forward slashes, no ``..``, no empty or dot parts."""
    if not relative or "\\" in relative or "\x00" in relative:
        return False
    parts = PurePosixPath(relative).parts
    return not PurePosixPath(relative).is_absolute() and all(p not in ("", ".", "..") for p in parts)


def believable(relative: str, kind: str) -> bool:
    """Whether an export of ``kind`` writes a file named ``relative`` (and it is not one never to remove)."""
    pattern = KIND_NAMES.get(kind)
    return (
        pattern is not None
        and safe_relative(relative)
        and pattern.fullmatch(relative) is not None
        and not _NEVER.fullmatch(relative.rpartition("/")[2])
    )


def read_bounded(path: Path, limit: int) -> bytes:
    """The bytes of regular file ``path``: never through a symbolic link, never blocking, at most ``limit``.

    Raises OSError with a plain reason otherwise (``ValueError`` when larger than ``limit``).
    """
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OSError(errno.ELOOP, "it is a symbolic link") from None
        raise
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "it is not a regular file")
        chunks, size = [], 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise ValueError(f"it is larger than {limit // (1024 * 1024)} MB")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_manifest(out_dir: Path) -> tuple[dict[str, Entry], str | None]:
    """The entries of ``out_dir``'s manifest and a notice when it exists but cannot be used (then: no entries).

    Entries an export could not have written (:func:`believable`) are dropped.
    """
    path = out_dir / MANIFEST
    try:
        data = json.loads(read_bounded(path, MAX_MANIFEST_BYTES).decode("utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return {}, f"{path} could not be read ({reason}); no file of an earlier export was removed"
    files = data.get("files") if isinstance(data, dict) and data.get("format") == _FORMAT else None
    if not isinstance(files, dict):
        return {}, f"{path} is not a Modeller export manifest; no file of an earlier export was removed"
    entries: dict[str, Entry] = {}
    for relative, item in files.items():
        if (
            isinstance(relative, str)
            and isinstance(item, dict)
            and isinstance(item.get("kind"), str)
            and isinstance(item.get("sha256"), str)
            and believable(relative, item["kind"])
        ):
            entries[relative] = Entry(item["kind"], item["sha256"])
    return entries, None


def manifest_text(entries: dict[str, Entry]) -> str:
    """The manifest file: sorted, one file per line, stable across exports of the same design."""
    files = {relative: {"kind": e.kind, "sha256": e.sha256} for relative, e in sorted(entries.items())}
    return json.dumps({"format": _FORMAT, "version": _VERSION, "files": files}, indent=2, ensure_ascii=False) + "\n"


def merged(old: dict[str, Entry], new: dict[str, Entry], kinds: Iterable[str], out_dir: Path) -> dict[str, Entry]:
    """The next manifest: this export's files plus the older entries of kinds not exported now (still on disk)."""
    chosen = set(kinds)
    out = {r: e for r, e in old.items() if e.kind not in chosen and r not in new and (out_dir / r).is_file()}
    out.update(new)
    return out


def stale(old: dict[str, Entry], new: dict[str, Entry], kinds: Iterable[str]) -> list[str]:
    """Files an earlier export of the same kinds wrote and this one did not."""
    chosen = set(kinds)
    return sorted(r for r, e in old.items() if e.kind in chosen and r not in new)


def remove_stale(out_dir: Path, old: dict[str, Entry], relatives: list[str], protect: Iterable[Path] = ()) -> Cleanup:
    """Remove each file that is still exactly what the earlier export wrote, then its folder if now empty.

    Only a regular file reached without any symbolic link inside ``out_dir``,
    under a name its kind writes, and none of ``protect`` (the project file).
    """
    done = Cleanup()
    guarded = {_identity(p) for p in protect} - {None}
    for relative in relatives:
        path = out_dir / relative
        try:
            if not believable(relative, old[relative].kind) or not _plain_file_inside(out_dir, relative):
                continue
            if _identity(path) in guarded:
                continue
            if _file_digest(path) != old[relative].sha256:
                done.kept.append(relative)
                continue
            path.unlink()
            done.removed.append(relative)
            if path.parent != out_dir:
                with contextlib.suppress(OSError):  # only succeeds when empty
                    path.parent.rmdir()
        except OSError as exc:
            done.notices.append(f"could not remove {path} left by an earlier export: {exc.strerror or exc}")
    if done.kept:
        shown = ", ".join(done.kept[:3]) + (f" and {len(done.kept) - 3} more" if len(done.kept) > 3 else "")
        done.notices.append(
            f"kept {shown}: written by an earlier export but changed since, and not part of this one; "
            "delete by hand if no longer needed"
        )
    return done


def _plain_file_inside(out_dir: Path, relative: str) -> bool:
    """Every folder on the way is a real folder (no link), and the file itself a regular file (no link)."""
    here = out_dir
    parts = relative.split("/")
    try:
        for part in parts[:-1]:
            here = here / part
            if not stat.S_ISDIR(os.lstat(here).st_mode):
                return False
        return stat.S_ISREG(os.lstat(here / parts[-1]).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        return False


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _file_digest(path: Path) -> str:
    """SHA-256 of a regular file, opened without following a link or blocking."""
    fd = os.open(path, _READ_FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        sha = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            sha.update(chunk)
        return sha.hexdigest()
    finally:
        os.close(fd)
