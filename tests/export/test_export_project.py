"""``export_project``: kinds, progress, cancel, errors, no half-written output; the CLI around it."""

from __future__ import annotations

import errno
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hand_designs import HOSTILE, tracker_design, tracker_findings, tracker_project
from model_edits import changed

from modeller.export import KINDS, ExportCancelled, ExportError, export_project, parse_kinds
from modeller.export import files as files_module
from modeller.export.diagram import INSTALL_NOTICE, render
from modeller.export.manifest import MANIFEST
from modeller.rules.framework.analysis import Analysis

ROOT = Path(__file__).resolve().parents[2]


def analysis(names: dict[str, str] | None = None) -> Analysis:
    return Analysis(tracker_findings(names), tracker_design(names))


def listing(folder: Path) -> list[str]:
    """The export's files (without the manifest of what it wrote, which ``test_manifest`` covers)."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)


def test_all_kinds_write_every_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = export_project(tracker_project(), analysis(), out, render_diagram=False)
    names = [c.name for c in tracker_design().collections]
    expected = {
        "setup.mongosh.js",
        "indexes.mongosh.js",
        "diagram.dot",
        "DESIGN.md",
        "models.py",
        "models.ts",
        *(f"validators/{n}.json" for n in names),
        *(f"schema/{n}.schema.json" for n in names),
        *(f"samples/{n}.json" for n in names),
    }
    assert set(listing(out)) == expected
    assert [p.relative_to(out).as_posix() for p in result.files] == sorted(expected)
    assert (out / MANIFEST).is_file() and result.removed == []
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.modeller-tmp-")]


def test_only_some_kinds(tmp_path: Path) -> None:
    out = tmp_path / "out"
    export_project(tracker_project(), analysis(), out, kinds="indexes,report")
    assert listing(out) == ["DESIGN.md", "indexes.mongosh.js"]
    assert parse_kinds(["diagram", "setup"]) == ["setup", "diagram"]
    assert parse_kinds(None) == list(KINDS)
    with pytest.raises(ExportError, match="unknown export kind 'sql'"):
        parse_kinds("setup,sql")


def test_progress_counts_up_to_total_and_cancel_leaves_nothing(tmp_path: Path) -> None:
    seen: list[tuple[int, int, str]] = []
    export_project(
        tracker_project(),
        analysis(),
        tmp_path / "a",
        progress=lambda d, t, m: seen.append((d, t, m)),
        render_diagram=False,
    )
    done = [d for d, _t, _m in seen]
    assert done == sorted(done) and seen[-1][0] == seen[-1][1] and seen[0][0] == 0
    assert any("validators/people.json" in m for _d, _t, m in seen)

    calls = iter(range(1000))
    out = tmp_path / "b"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    with pytest.raises(ExportCancelled):
        export_project(tracker_project(), analysis(), out, cancel=lambda: next(calls) >= 5)
    assert listing(out) == ["keep.txt"]
    assert {p.name for p in tmp_path.iterdir()} == {"a", "b"}


def test_disk_full_is_a_clear_error_and_the_target_is_untouched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    export_project(tracker_project(), analysis(), out, kinds="report")
    before = (out / "DESIGN.md").read_bytes()
    opened: list[str] = []

    def full_disk(path: object, *args: object, **kwargs: object) -> object:
        opened.append(str(path))
        if len(opened) > 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return open(path, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(files_module, "open", full_disk, raising=False)
    with pytest.raises(ExportError, match="the disk is full"):
        export_project(tracker_project(), analysis(), out, render_diagram=False)
    assert listing(out) == ["DESIGN.md"] and (out / "DESIGN.md").read_bytes() == before
    assert {p.name for p in tmp_path.iterdir()} == {"out"}


def test_unwritable_folder_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> str:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(files_module.tempfile, "mkdtemp", refuse)
    with pytest.raises(ExportError, match="permission denied"):
        export_project(tracker_project(), analysis(), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_file_in_the_way_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "out"
    blocker.write_text("not a folder")
    with pytest.raises(ExportError, match="it is a file, not a folder"):
        export_project(tracker_project(), analysis(), blocker)
    with pytest.raises(ExportError, match="cannot write the export"):
        export_project(tracker_project(), analysis(), blocker / "inner")


def test_collection_names_never_escape_the_folder(tmp_path: Path) -> None:
    design = tracker_design(
        {
            "people": "../../evil",
            "tasks": "a/b\\c",
            "sensors": "CON",
            "products": "..",
            "sensor_data": "EVIL",
            "measurements": "evil",
        }
    )
    out = tmp_path / "deep" / "out"
    export_project(tracker_project(), Analysis([], design), out, kinds="validators,samples")
    names = listing(out)
    assert all(not name.startswith("..") for name in names)
    assert "validators/evil.json" in names and "validators/EVIL-2.json" in names
    assert "validators/evil-3.json" in names and "validators/_CON.json" in names
    assert {p.name for p in tmp_path.iterdir()} == {"deep"}


def test_invalid_project_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    project = tracker_project()
    project = changed(project, project.relationships[0], many="nobody")
    with pytest.raises(ExportError, match="the project is not valid"):
        export_project(project, analysis(), tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_without_graphviz_the_dot_file_is_written_with_a_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    result = export_project(tracker_project(), analysis(), tmp_path / "out", kinds="diagram")
    assert listing(tmp_path / "out") == ["diagram.dot"]
    assert result.notices == [INSTALL_NOTICE]
    assert "apt-get install graphviz" in INSTALL_NOTICE


def test_graphviz_renders_svg_and_png_of_hostile_names(tmp_path: Path) -> None:
    if shutil.which("dot") is None:
        pytest.fail("Graphviz 'dot' is required for this test (Debian: apt-get install graphviz)")
    result = export_project(tracker_project(HOSTILE), analysis(HOSTILE), tmp_path / "out", kinds="diagram")
    assert result.notices == []
    assert listing(tmp_path / "out") == ["diagram.dot", "diagram.png", "diagram.svg"]
    svg = (tmp_path / "out" / "diagram.svg").read_text(encoding="utf-8")
    assert "prödücts 名前 🚀" in svg and "&lt;/script&gt;" in svg
    assert (tmp_path / "out" / "diagram.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_graphviz_timeout_is_reported(tmp_path: Path) -> None:
    slow = tmp_path / "slowdot"
    slow.write_text("#!/bin/sh\nsleep 5\n")
    slow.chmod(0o755)
    dot = tmp_path / "diagram.dot"
    dot.write_text("digraph { a -> b }\n")
    outcome = render(dot, timeout_s=0.3, dot_binary=str(slow))
    assert outcome.written == [] and outcome.notice is not None and "longer than 0.3 s" in outcome.notice


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "modeller", *args], capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def test_cli_exports_a_sample_and_prints_what_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = run_cli(
        "export",
        "samples/task-tracker.modeller.json",
        "--out",
        str(out),
        "--only",
        "setup,samples",
        "--samples",
        "2",
        "--seed",
        "9",
        "--with-samples",
    )
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {out / 'setup.mongosh.js'}" in proc.stdout.splitlines()
    assert "insertMissing(" in (out / "setup.mongosh.js").read_text(encoding="utf-8")
    assert sorted(p.name for p in (out / "samples").iterdir()) == ["people.json", "tasks.json"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["samples/task-tracker.modeller.json", "--only", "sql"], "unknown export kind 'sql'"),
        (["missing.modeller.json"], "missing.modeller.json"),
        (["samples/task-tracker.modeller.json", "--samples", "-1"], "--samples must be 0 or more"),
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(tmp_path: Path, args: list[str], message: str) -> None:
    proc = run_cli("export", *args, "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("modeller: error:") and message in lines[0]
    assert "Traceback" not in proc.stderr


def test_a_project_without_a_database_is_told_which_one_the_scripts_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from modeller.cli.main import main
    from modeller.persistence import dumps_project, load_project

    project = load_project(ROOT / "samples" / "blog.modeller.json").model_copy(update={"database": None})
    source = tmp_path / "nodb.modeller.json"
    source.write_text(dumps_project(project), encoding="utf-8")
    assert main(["export", str(source), "--out", str(tmp_path / "out"), "--only", "setup"]) == 0
    out = capsys.readouterr().out
    assert (
        'note: the project names no database: the export uses "test" (mongosh\'s default); set "database" in the '
        "project (the export dialog asks for it)"
    ) in out
    assert 'getSiblingDB("test")' in (tmp_path / "out" / "setup.mongosh.js").read_text(encoding="utf-8")
    # a project that names its database hears nothing about it
    assert main(["export", str(ROOT / "samples" / "blog.modeller.json"), "--out", str(tmp_path / "b")]) == 0
    assert "names no database" not in capsys.readouterr().out
