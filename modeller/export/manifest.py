"""What an earlier export wrote, so the next one can remove its own files that no longer belong.

Renaming a collection and exporting again would otherwise leave
``validators/<old name>.json`` beside the new file, and a reader cannot tell
which one is current. Each export records its files, their kind and their
SHA-256 in ``.modeller-export.json``; the next export of the same kinds
removes a recorded file it did not write again — only when the file is still
byte for byte what Modeller wrote. A file the user edited, a file the
manifest names outside the folder, a symbolic link or anything not in the
manifest is never touched.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MANIFEST = ".modeller-export.json"
_FORMAT = "modeller-export"
_VERSION = 1


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


def _safe_relative(relative: str) -> bool:
    """A path inside the export folder: relative, forward slashes, no ``..``, no empty or dot parts."""
    if not relative or "\\" in relative or "\x00" in relative:
        return False
    parts = PurePosixPath(relative).parts
    return not PurePosixPath(relative).is_absolute() and all(p not in ("", ".", "..") for p in parts)


def read_manifest(out_dir: Path) -> tuple[dict[str, Entry], str | None]:
    """The entries of ``out_dir``'s manifest and a notice when it exists but cannot be used (then: no entries)."""
    path = out_dir / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}, None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return {}, f"{path} could not be read ({exc}); no file of an earlier export was removed"
    files = data.get("files") if isinstance(data, dict) and data.get("format") == _FORMAT else None
    if not isinstance(files, dict):
        return {}, f"{path} is not a Modeller export manifest; no file of an earlier export was removed"
    entries: dict[str, Entry] = {}
    for relative, item in files.items():
        if (
            isinstance(relative, str)
            and _safe_relative(relative)
            and isinstance(item, dict)
            and isinstance(item.get("kind"), str)
            and isinstance(item.get("sha256"), str)
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


def remove_stale(out_dir: Path, old: dict[str, Entry], relatives: list[str]) -> Cleanup:
    """Remove each file that is still exactly what the earlier export wrote, then its folder if now empty."""
    done = Cleanup()
    root = out_dir.resolve()
    for relative in relatives:
        path = out_dir / relative
        try:
            if not path.resolve().is_relative_to(root) or path.is_symlink() or not path.is_file():
                continue
            if digest(path.read_bytes()) != old[relative].sha256:
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
