"""The export folder is a fortress: no writing through links, staging on the target's file system, and an
export killed at any moment leaves the old export or the new one — never a mix, never a stale staging folder."""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

import pytest
from killing import kill_at_random, needs_fork
from test_manifest import KINDS, SAMPLE, export, renamed

from modeller.export import ExportError, export_project
from modeller.export import files as files_module
from modeller.export.files import JOURNAL, Staging, recover
from modeller.export.manifest import MANIFEST
from modeller.persistence import load_project
from modeller.rules import analyse


def listing(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_symlinked_subfolder_is_refused_and_its_target_untouched(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "mine.txt").write_text("mine\n")
    out.mkdir()
    (out / "schema").symlink_to(elsewhere)
    (out / "notes.txt").write_text("notes\n")
    with pytest.raises(ExportError, match=r"out/schema: it is a symbolic link.*remove the link or choose another"):
        export(load_project(SAMPLE), out)
    assert listing(elsewhere) == {"mine.txt": b"mine\n"}
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt", "schema"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "out"]  # no staging folder left
    # without that kind the link is not on the way: the export works and leaves it alone
    export(load_project(SAMPLE), out, kinds="setup,validators")
    assert (out / "schema").is_symlink() and listing(elsewhere) == {"mine.txt": b"mine\n"}


def test_a_folder_in_the_way_of_a_file_is_refused_before_anything_moves(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "setup.mongosh.js").mkdir(parents=True)
    with pytest.raises(ExportError, match=r"setup\.mongosh\.js: a folder of that name is in the way"):
        export(load_project(SAMPLE), out)
    assert listing(out) == {} and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_the_staging_folder_is_made_beside_the_real_target_of_a_linked_folder(tmp_path: Path) -> None:
    real = tmp_path / "disk" / "real-out"
    real.mkdir(parents=True)
    (tmp_path / "work").mkdir()
    link = tmp_path / "work" / "out"
    link.symlink_to(real)
    staging = Staging(link)
    try:
        assert staging.path.parent == real.parent
        assert staging.path.name.startswith(f".real-out.modeller-tmp-{os.getpid()}-")
    finally:
        staging.discard()
    assert sorted(p.name for p in real.parent.iterdir()) == ["real-out"]


@pytest.mark.skipif(
    not os.access("/dev/shm", os.W_OK) or os.stat("/dev/shm").st_dev == os.stat(tempfile.gettempdir()).st_dev,
    reason="needs /dev/shm on a file system other than the temporary folder's",
)
def test_an_export_folder_linked_to_another_file_system_works(tmp_path: Path) -> None:
    with tempfile.TemporaryDirectory(dir="/dev/shm") as other:
        real = Path(other) / "out"
        real.mkdir()
        link = tmp_path / "out"
        link.symlink_to(real)
        project = load_project(SAMPLE)
        export(project, link)
        export(renamed(project, "parts", "components"), link)  # the second moves file by file
        assert "validators/components.json" in listing(real) and "validators/parts.json" not in listing(real)
        assert link.is_symlink() and sorted(p.name for p in tmp_path.iterdir()) == ["out"]
        assert sorted(p.name for p in Path(other).iterdir()) == ["out"]


def test_staging_goes_inside_the_folder_when_its_parent_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "mount"
    out.mkdir()
    real_mkdtemp = tempfile.mkdtemp

    def read_only_parent(prefix: str, dir: Path) -> str:
        if Path(dir) == tmp_path:
            raise PermissionError(13, "Permission denied")
        return real_mkdtemp(prefix=prefix, dir=dir)

    monkeypatch.setattr(files_module.tempfile, "mkdtemp", read_only_parent)
    result = export(load_project(SAMPLE), out, kinds="setup,validators")
    assert "setup.mongosh.js" in listing(out) and not any(p.name.startswith(".modeller-tmp") for p in out.iterdir())
    assert result.files


def test_recover_discards_an_abandoned_staging_folder_and_completes_a_journalled_one(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "setup.mongosh.js").write_text("old\n")
    dead = 2**22 + 4321
    abandoned = tmp_path / f".out.modeller-tmp-{dead}-abc123"
    abandoned.mkdir()
    (abandoned / "setup.mongosh.js").write_text("never committed\n")
    empty_dead = tmp_path / f".out.modeller-tmp-{dead}-empty1"
    empty_dead.mkdir()
    journalled = tmp_path / f".out.modeller-tmp-{dead}-def456"
    (journalled / "validators").mkdir(parents=True)
    (journalled / "validators" / "a.json").write_text("new a\n")
    (journalled / "indexes.mongosh.js").write_text("new indexes\n")
    (journalled / JOURNAL).write_text(
        '{"files": ["setup.mongosh.js", "validators/a.json", "indexes.mongosh.js"], "stale": {}, "protect": []}'
    )
    notices = recover(out)
    assert any("completed an export" in n for n in notices)
    # setup.mongosh.js moved before the kill (no longer staged); the rest is completed
    assert listing(out) == {
        "setup.mongosh.js": b"old\n",
        "validators/a.json": b"new a\n",
        "indexes.mongosh.js": b"new indexes\n",
    }
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_recover_leaves_a_running_exports_staging_folder_alone(tmp_path: Path) -> None:
    out = tmp_path / "out"
    running = Staging(out)  # holds its lock
    try:
        running.write("setup.mongosh.js", "x\n")
        running.flush()
        assert recover(out) == [] and (running.path / "setup.mongosh.js").is_file()
        # one just created (empty, of a live process, not yet locked) is left alone too
        fresh = tmp_path / f".out.modeller-tmp-{os.getpid()}-fresh1"
        fresh.mkdir()
        recover(out)
        assert fresh.is_dir()
    finally:
        running.discard()


@needs_fork
@pytest.mark.slow
def test_kill_9_during_exports_leaves_old_or_new_and_nothing_stale(tmp_path: Path) -> None:
    base = load_project(SAMPLE)
    versions = [base, renamed(base, "parts", "components")]
    analyses = [analyse(p) for p in versions]
    expected = []
    for number, (project, analysis) in enumerate(zip(versions, analyses, strict=True)):
        export_project(project, analysis, tmp_path / f"expected{number}", kinds=KINDS, render_diagram=False)
        expected.append(listing(tmp_path / f"expected{number}"))
    assert expected[0] != expected[1]
    out = tmp_path / "work" / "out"
    out.parent.mkdir()
    export_project(versions[0], analyses[0], out, kinds=KINDS, render_diagram=False)

    def work(n: int) -> None:
        export_project(versions[n % 2], analyses[n % 2], out, kinds=KINDS, render_diagram=False)

    rng = random.Random(1718)
    journalled = 0
    for _ in range(100):
        kill_at_random(work, rng, 0.08)
        journalled += any((p / JOURNAL).exists() for p in out.parent.iterdir() if p.name != "out")
        recover(out)  # what the next export does first
        assert listing(out) in expected
        assert sorted(p.name for p in out.parent.iterdir()) == ["out"]
        pick = rng.randrange(2)
        export_project(versions[pick], analyses[pick], out, kinds=KINDS, render_diagram=False)
        assert listing(out) == expected[pick]
        assert sorted(p.name for p in out.parent.iterdir()) == ["out"] and MANIFEST in listing(out)
    assert journalled > 0, "no kill landed between the journal and the end of the moves: the loop tests nothing"


def test_a_crafted_journal_moves_nothing_out_of_the_folder(tmp_path: Path) -> None:
    out = tmp_path / "work" / "out"
    out.mkdir(parents=True)
    staged = tmp_path / "work" / f".out.modeller-tmp-{2**22 + 7}-evil01"
    (staged / "x").mkdir(parents=True)
    (staged / "x" / "payload").write_text("payload\n")
    (staged / JOURNAL).write_text('{"files": ["x/../../../escaped"], "stale": {}, "protect": []}')
    notices = recover(out)
    assert any("could not finish the interrupted export" in n and "remove it by hand" in n for n in notices)
    assert not (tmp_path / "escaped").exists() and listing(out) == {}


def test_a_commit_failing_half_way_is_finished_by_the_next_export(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = load_project(SAMPLE)
    new = renamed(base, "parts", "components")
    out, expected = tmp_path / "work" / "out", tmp_path / "expected"
    export(new, expected)
    export(base, out)
    real_replace, calls = os.replace, []

    def fail_second(source: object, destination: object) -> None:
        calls.append(destination)
        if len(calls) == 3:
            raise PermissionError(13, "Permission denied")
        real_replace(source, destination)  # type: ignore[arg-type]

    monkeypatch.setattr(files_module.os, "replace", fail_second)
    with pytest.raises(ExportError, match="permission denied; some files were already replaced: export again"):
        export(new, out)
    assert listing(out) != listing(expected)  # half-way (the journal and one file moved); staging kept for next run
    assert len(list((tmp_path / "work").iterdir())) == 2
    monkeypatch.setattr(files_module.os, "replace", real_replace)
    result = export(new, out, kinds="setup")  # any next export completes it first
    assert any("completed an export" in n for n in result.notices)
    assert listing(out) == listing(expected) and sorted(p.name for p in (tmp_path / "work").iterdir()) == ["out"]


def test_a_linked_file_in_the_folder_is_replaced_not_written_through(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    outside = tmp_path / "outside.js"
    outside.write_text("mine\n")
    (out / "setup.mongosh.js").symlink_to(outside)
    export(load_project(SAMPLE), out, kinds="setup")
    assert outside.read_text() == "mine\n"
    assert not (out / "setup.mongosh.js").is_symlink() and "setup.mongosh.js" in listing(out)
