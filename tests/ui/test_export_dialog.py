"""File → Export…: same files as ``modeller export``, progress off the UI thread, Cancel and errors leave nothing."""

from __future__ import annotations

import json
import shutil
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root holds benchmarks/

from child_processes import children_named

from benchmarks.generate import generate_project
from modeller.cli.main import main as cli_main
from modeller.export import diagram, export_project
from modeller.export.diagram import RenderOutcome
from modeller.export.manifest import MANIFEST
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.ui.dialogs import export_dialog as module
from modeller.ui.dialogs.export_dialog import ExportDialog

from .live_helpers import SAMPLES, open_sample


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _without_png(manifest: bytes) -> dict[str, object]:
    files = json.loads(manifest)["files"]
    return {name: entry for name, entry in files.items() if not name.endswith(".png")}


def _run(qtbot, dialog: ExportDialog) -> None:
    dialog.start_export()
    assert dialog.running()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=30000)


def test_dialog_writes_the_same_files_as_the_cli(make_window, qtbot, tmp_path: Path) -> None:
    window = open_sample(make_window, "ecommerce")
    dialog = window.show_export_dialog()
    assert dialog.isVisible() and not dialog.isModal()
    dialog.folder.setText(str(tmp_path / "gui"))
    dialog.samples.setValue(3)
    dialog.seed.setValue(7)
    dialog.with_samples.setChecked(True)
    progress: list[tuple[int, int, str]] = []
    dialog.start_export()
    assert dialog.job is not None
    dialog.job.progress.connect(lambda done, total, what: progress.append((done, total, what)))
    qtbot.waitUntil(lambda: not dialog.running(), timeout=30000)
    assert dialog.error is None, dialog.error
    assert dialog.open_button.isVisible()
    assert "Exported" in dialog.status.text()

    cli_out = tmp_path / "cli"
    code = cli_main(
        [
            "export",
            str(SAMPLES / "ecommerce.modeller.json"),
            "--out",
            str(cli_out),
            "--samples",
            "3",
            "--seed",
            "7",
            "--with-samples",
        ]
    )
    assert code == 0
    gui, cli = _files(tmp_path / "gui"), _files(cli_out)
    assert sorted(gui) == sorted(cli)
    assert {"setup.mongosh.js", "indexes.mongosh.js", "DESIGN.md", "diagram.dot"} <= set(gui)
    for name in gui:
        if name.endswith(".png"):
            continue  # Graphviz embeds nothing variable in SVG, but PNG compression may differ
        if name == MANIFEST:  # records the PNG's digest too
            assert _without_png(gui[name]) == _without_png(cli[name])
            continue
        assert gui[name] == cli[name], name
    assert progress and progress[-1][0] == progress[-1][1]
    dialog.close()


def test_cancel_leaves_the_folder_untouched(make_window, qtbot, tmp_path: Path, monkeypatch) -> None:
    release = threading.Event()
    real = module.analyse

    def slow_analyse(project):
        release.wait(10)
        return real(project)

    monkeypatch.setattr(module, "analyse", slow_analyse)
    window = open_sample(make_window, "blog")
    dialog = window.show_export_dialog()
    target = tmp_path / "out"
    dialog.folder.setText(str(target))
    dialog.start_export()
    assert not dialog.export_button.isEnabled()
    dialog.cancel()
    release.set()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=30000)
    assert dialog.result is None
    assert "cancelled" in dialog.status.text().lower() and "Nothing was written" in dialog.status.text()
    assert not target.exists() or not any(target.iterdir())
    assert not [p for p in tmp_path.iterdir() if "modeller-tmp" in p.name]
    dialog.close()


def test_unwritable_folder_is_reported_clearly(make_window, qtbot, tmp_path: Path) -> None:
    window = open_sample(make_window, "task-tracker")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    dialog = window.show_export_dialog()
    dialog.folder.setText(str(blocker / "export"))
    _run(qtbot, dialog)
    assert dialog.result is None and dialog.error
    text = dialog.status.text()
    assert "The export failed" in text and "Nothing was written" in text
    assert "Traceback" not in text
    assert blocker.read_text() == "not a folder"
    dialog.close()


def test_options_follow_the_checkboxes(make_window, tmp_path: Path) -> None:
    window = open_sample(make_window, "iot-sensors")
    dialog = window.show_export_dialog()
    for kind, box in dialog.kind_boxes.items():
        box.setChecked(kind in ("setup", "samples"))
    dialog.folder.setText(str(tmp_path / "x"))
    options = dialog.options()
    assert options["kinds"] == ["setup", "samples"]
    assert options["out_dir"] == tmp_path / "x"
    assert not dialog.with_sharding.isEnabled()  # the project is not sharded
    for box in dialog.kind_boxes.values():
        box.setChecked(False)
    assert not dialog.export_button.isEnabled()
    dialog.close()


def test_a_new_export_removes_what_an_earlier_one_wrote_for_a_renamed_collection(
    make_window, qtbot, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    earlier = load_project(SAMPLES / "ecommerce.modeller.json")
    entities = [
        e.model_copy(update={"collection": "old_name"}) if i == 0 else e for i, e in enumerate(earlier.entities)
    ]
    earlier = earlier.model_copy(update={"entities": entities})
    export_project(earlier, analyse(earlier), out, kinds="validators", render_diagram=False)
    assert (out / "validators" / "old_name.json").is_file()
    window = open_sample(make_window, "ecommerce")
    dialog = window.show_export_dialog()
    dialog.folder.setText(str(out))
    _run(qtbot, dialog)
    assert dialog.error is None, dialog.error
    assert not (out / "validators" / "old_name.json").exists()
    text = dialog.status.text()
    assert "Removed 1 file(s) an earlier export wrote" in text and "validators/old_name.json" in text
    dialog.close()


def test_shard_the_collections_reaches_the_setup_script(make_window, qtbot, tmp_path: Path) -> None:
    """The ticked box shards in the written script (it was read after the options area was disabled: always off)."""
    window = open_sample(make_window, "saas-sharded")
    dialog = window.show_export_dialog()
    assert dialog.with_sharding.isEnabled()
    for kind, box in dialog.kind_boxes.items():
        box.setChecked(kind == "setup")
    dialog.with_sharding.setChecked(True)
    dialog.with_samples.setChecked(True)
    dialog.folder.setText(str(tmp_path / "gui"))
    _run(qtbot, dialog)
    assert dialog.error is None, dialog.error
    setup = (tmp_path / "gui" / "setup.mongosh.js").read_text()
    assert "sh.shardCollection(" in setup and "sh.enableSharding(" in setup
    assert "insertMissing(" in setup  # the other option the dialog reads at the same moment
    dialog.close()


@pytest.mark.slow
def test_cancel_while_graphviz_lays_out_kills_dot(qtbot, tmp_path: Path, monkeypatch) -> None:
    """Cancel during the diagram's layout stops the real ``dot`` (session 9: Cancel waited for the whole layout,
    about a minute under 900 collections); the folder is as it was and no ``dot`` process is left."""
    if shutil.which("dot") is None:
        pytest.fail("Graphviz 'dot' is required for this test (Debian: apt-get install graphviz)")
    outcomes: list[RenderOutcome] = []
    real_render = diagram.render

    def watched(*args, **kwargs) -> RenderOutcome:  # the real render, its outcome kept
        outcome = real_render(*args, **kwargs)
        outcomes.append(outcome)
        return outcome

    monkeypatch.setattr("modeller.export.render", watched)
    dialog = ExportDialog(generate_project(400, 1.5, 0.5, seed=1), tmp_path / "out")
    qtbot.addWidget(dialog)
    for kind, box in dialog.kind_boxes.items():
        box.setChecked(kind == "diagram")
    dialog.start_export()
    assert dialog.job is not None
    dialog.job.progress.connect(lambda _done, _total, what: what.startswith("laying out") and dialog.cancel())
    qtbot.waitUntil(lambda: not dialog.running(), timeout=300_000)
    assert dialog.status.text() == "Export cancelled. Nothing was written; the folder is as it was."
    assert [o.cancelled for o in outcomes] == [True]  # stopped inside dot, not after it
    assert not (tmp_path / "out").exists() and list(tmp_path.iterdir()) == []
    assert children_named("dot") == []
