"""Re-exporting removes the files an earlier export wrote that no longer belong — and nothing else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from modeller.export import KINDS as ALL_KINDS
from modeller.export import export_project
from modeller.export.manifest import (
    KIND_NAMES,
    MANIFEST,
    MAX_MANIFEST_BYTES,
    Entry,
    digest,
    read_manifest,
    remove_stale,
)
from modeller.model import Project
from modeller.persistence import load_project, save_project
from modeller.rules import analyse

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "product-parts.modeller.json"
KINDS = "setup,validators,schema,samples,report"


def renamed(project: Project, old: str, new: str) -> Project:
    """The user renames collection ``old`` to ``new`` (as the properties panel does)."""
    entities = [e.model_copy(update={"collection": new}) if e.collection == old else e for e in project.entities]
    return project.model_copy(update={"entities": entities})


def export(project: Project, out: Path, kinds: str = KINDS):  # type: ignore[no-untyped-def]
    return export_project(project, analyse(project), out, kinds=kinds, render_diagram=False)


def files(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


def test_a_renamed_collection_leaves_no_file_of_its_old_name(tmp_path: Path) -> None:
    out = tmp_path / "out"
    project = load_project(SAMPLE)
    export(project, out)
    assert {"validators/parts.json", "schema/parts.schema.json", "samples/parts.json"} <= files(out)
    result = export(renamed(project, "parts", "components"), out)
    gone = {"validators/parts.json", "schema/parts.schema.json", "samples/parts.json"}
    assert sorted(p.relative_to(out).as_posix() for p in result.removed) == sorted(gone)
    assert not gone & files(out)
    assert {"validators/components.json", "schema/components.schema.json", "samples/components.json"} <= files(out)
    recorded, problem = read_manifest(out)
    assert problem is None
    assert set(recorded) == files(out) - {MANIFEST}
    assert recorded["validators/components.json"] == Entry(
        "validators", digest((out / "validators/components.json").read_bytes())
    )


def test_a_file_the_user_edited_is_kept_and_named_in_a_notice(tmp_path: Path) -> None:
    out = tmp_path / "out"
    project = load_project(SAMPLE)
    export(project, out)
    (out / "validators/parts.json").write_text('{"mine": true}\n', encoding="utf-8")
    result = export(renamed(project, "parts", "components"), out)
    assert (out / "validators/parts.json").read_text(encoding="utf-8") == '{"mine": true}\n'
    assert "validators/parts.json" not in {p.relative_to(out).as_posix() for p in result.removed}
    assert any("kept validators/parts.json" in n and "changed since" in n for n in result.notices)
    assert not (out / "schema/parts.schema.json").exists()


def test_a_partial_export_leaves_the_other_kinds_alone(tmp_path: Path) -> None:
    out = tmp_path / "out"
    project = load_project(SAMPLE)
    export(project, out)
    result = export(renamed(project, "parts", "components"), out, kinds="validators")
    assert [p.relative_to(out).as_posix() for p in result.removed] == ["validators/parts.json"]
    assert (out / "schema/parts.schema.json").is_file() and (out / "samples/parts.json").is_file()
    # the manifest still knows the other kinds' files: a later full export removes them
    result = export(renamed(project, "parts", "components"), out)
    assert sorted(p.relative_to(out).as_posix() for p in result.removed) == [
        "samples/parts.json",
        "schema/parts.schema.json",
    ]


def test_files_the_export_never_wrote_are_never_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    project = load_project(SAMPLE)
    export(project, out)
    (out / "validators/notes.md").write_text("my notes\n", encoding="utf-8")
    (out / "README.txt").write_text("mine\n", encoding="utf-8")
    export(renamed(project, "parts", "components"), out)
    assert (out / "validators/notes.md").read_text(encoding="utf-8") == "my notes\n"
    assert (out / "README.txt").is_file()


def test_a_hostile_manifest_cannot_remove_anything_outside_the_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    outside = tmp_path / "precious.txt"
    outside.write_text("keep\n", encoding="utf-8")
    (out / "validators").mkdir(parents=True)
    (out / "validators/link.json").symlink_to(outside)
    sha = digest(outside.read_bytes())
    entries = {
        "../precious.txt": {"kind": "validators", "sha256": sha},
        str(outside): {"kind": "validators", "sha256": sha},
        "validators/../../precious.txt": {"kind": "validators", "sha256": sha},
        "validators/link.json": {"kind": "validators", "sha256": sha},
        "validators\\..\\..\\precious.txt": {"kind": "validators", "sha256": sha},
    }
    (out / MANIFEST).write_text(json.dumps({"format": "modeller-export", "version": 1, "files": entries}))
    result = export(load_project(SAMPLE), out, kinds="validators")
    assert outside.read_text(encoding="utf-8") == "keep\n"
    assert (out / "validators/link.json").is_symlink()
    assert result.removed == []
    # only the symlink entry was a safe relative path; it is skipped because it is a link
    assert remove_stale(out, {"validators/link.json": Entry("validators", sha)}, ["validators/link.json"]).removed == []


@pytest.mark.parametrize("content", ["{not json", '{"format": "other", "files": {}}', "[1, 2]"])
def test_an_unusable_manifest_removes_nothing_and_says_so(tmp_path: Path, content: str) -> None:
    out = tmp_path / "out"
    project = load_project(SAMPLE)
    export(project, out)
    (out / MANIFEST).write_text(content, encoding="utf-8")
    result = export(renamed(project, "parts", "components"), out)
    assert result.removed == [] and (out / "validators/parts.json").is_file()
    assert any(MANIFEST in n and "no file of an earlier export was removed" in n for n in result.notices)
    assert read_manifest(out)[1] is None  # replaced by this export's manifest


def test_the_manifest_is_stable_across_identical_exports(tmp_path: Path) -> None:
    out = tmp_path / "out"
    project = load_project(SAMPLE)
    export(project, out)
    first = (out / MANIFEST).read_bytes()
    assert export(project, out).removed == []
    assert (out / MANIFEST).read_bytes() == first
    assert list(json.loads(first)["files"]) == sorted(json.loads(first)["files"])


def test_the_cli_says_what_it_removed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    source = tmp_path / "p.modeller.json"
    project = load_project(SAMPLE)
    save_project(project, source)
    cmd = [sys.executable, "-m", "modeller", "export", str(source), "--out", str(out), "--only", "validators"]
    assert subprocess.run(cmd, capture_output=True, text=True, check=False).returncode == 0
    save_project(renamed(project, "parts", "components"), source)
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert f"removed {out / 'validators' / 'parts.json'} (written by an earlier export" in done.stdout
    assert f"wrote {out / 'validators' / 'components.json'}" in done.stdout


def write_manifest(out: Path, entries: dict[str, dict[str, str]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).write_text(json.dumps({"format": "modeller-export", "version": 1, "files": entries}))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_manifest_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / MANIFEST)
    outcome: list[object] = []
    reader = threading.Thread(target=lambda: outcome.append(read_manifest(out)), daemon=True)
    reader.start()
    reader.join(60)  # a guard against hanging the suite, not a speed check
    if reader.is_alive():  # unblock the reader before failing
        os.close(os.open(out / MANIFEST, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO manifest blocked")
    entries, notice = outcome[0]  # type: ignore[misc]
    assert entries == {} and "it is not a regular file" in notice
    assert "no file of an earlier export was removed" in notice


def test_a_manifest_linked_to_dev_zero_or_elsewhere_is_not_followed(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).symlink_to("/dev/zero")
    entries, notice = read_manifest(out)
    assert entries == {} and notice is not None and "it is a symbolic link" in notice
    real = tmp_path / "real.json"
    real.write_text(json.dumps({"format": "modeller-export", "version": 1, "files": {}}))
    (out / MANIFEST).unlink()
    (out / MANIFEST).symlink_to(real)
    assert "it is a symbolic link" in (read_manifest(out)[1] or "")


def test_an_oversized_manifest_is_not_read(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    with open(out / MANIFEST, "wb") as handle:
        handle.truncate(MAX_MANIFEST_BYTES + 1)  # sparse: costs no disk
    entries, notice = read_manifest(out)
    assert entries == {} and notice is not None and "larger than 16 MB" in notice


def test_entries_with_names_no_export_writes_are_ignored(tmp_path: Path) -> None:
    out = tmp_path / "out"
    sha = digest(b"x")
    write_manifest(
        out,
        {
            "validators/people.json": {"kind": "validators", "sha256": sha},
            "schema/people.schema.json": {"kind": "schema", "sha256": sha},
            "diagram.svg": {"kind": "diagram", "sha256": sha},
            "notes.txt": {"kind": "setup", "sha256": sha},
            "validators/people.json.bak": {"kind": "validators", "sha256": sha},
            "validators/plan.modeller.json": {"kind": "validators", "sha256": sha},
            "schema/people.json": {"kind": "schema", "sha256": sha},
            "setup.mongosh.js": {"kind": "report", "sha256": sha},
            "validators/.hidden.json": {"kind": "validators", "sha256": sha},
            "DESIGN.md": {"kind": "nonsense", "sha256": sha},
        },
    )
    assert sorted(read_manifest(out)[0]) == ["diagram.svg", "schema/people.schema.json", "validators/people.json"]


def test_every_file_an_export_writes_has_a_name_of_its_kind(tmp_path: Path) -> None:
    out = tmp_path / "out"
    project = load_project(SAMPLE)
    export(renamed(project, "parts", "con"), out, kinds=",".join(ALL_KINDS))
    recorded, _ = read_manifest(out)
    written = files(out) - {MANIFEST}
    assert set(recorded) == written and "validators/_con.json" in written
    assert set(KIND_NAMES) == set(ALL_KINDS)


def test_a_crafted_manifest_never_removes_the_project_being_exported(tmp_path: Path) -> None:
    """``modeller export p.modeller.json --out .`` with a manifest naming the project (and its backup)."""
    project = load_project(SAMPLE)
    source = tmp_path / "validators" / "plan.json"  # a project file under a name validators use
    source.parent.mkdir()
    save_project(project, source)
    save_project(project, source)  # and its .bak
    precious = {p: p.read_bytes() for p in (source, tmp_path / "validators" / "plan.json.bak")}
    write_manifest(
        tmp_path,
        {
            "validators/plan.json": {"kind": "validators", "sha256": digest(source.read_bytes())},
            "validators/plan.json.bak": {"kind": "validators", "sha256": digest(source.read_bytes())},
        },
    )
    cmd = [sys.executable, "-m", "modeller", "export", "validators/plan.json", "--out", ".", "--only", "validators"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "removed" not in done.stdout
    assert {p: p.read_bytes() for p in precious} == precious
    # the library call protects what it is told to, whatever its name
    assert (
        remove_stale(
            tmp_path,
            read_manifest(tmp_path)[0] | {"validators/plan.json": Entry("validators", digest(source.read_bytes()))},
            ["validators/plan.json"],
            [source],
        ).removed
        == []
    )
    assert source.read_bytes() == precious[source]
