"""File → Import from files…: mongoexport files become a new project or merge in as one undo step."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from bson import ObjectId, json_util
from PySide6.QtCore import Qt

from modeller.live import files as live_files
from modeller.ui.dialogs.import_files_dialog import ImportFilesDialog

from .conftest import sample

WAIT_MS = 30_000


def _exports(folder: Path) -> list[Path]:
    """authors.json (JSON lines, relaxed) and books.json (one array, canonical Extended JSON)."""
    authors = [{"_id": ObjectId(), "name": f"A{i}", "born": 1900 + i} for i in range(12)]
    books = [
        {"_id": ObjectId(), "title": f"T{i}", "author_id": authors[i % 12]["_id"], "tags": ["x", "y"][: i % 3]}
        for i in range(40)
    ]
    first = folder / "authors.json"
    first.write_text("\n".join(json_util.dumps(a) for a in authors) + "\n", encoding="utf-8")
    second = folder / "books.json"
    second.write_text(json_util.dumps(books, json_options=json_util.CANONICAL_JSON_OPTIONS), encoding="utf-8")
    return [first, second]


def _import(qtbot, dialog: ImportFilesDialog) -> None:
    with qtbot.waitSignal(dialog.imported, timeout=WAIT_MS):
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)


def test_export_files_open_as_a_new_project_with_the_reference_found(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window(use_engine=True)
    dialog = window.database_actions.show_import_files()
    assert not dialog.destination_choice.merge_radio.isEnabled()  # nothing open to merge into
    paths = _exports(tmp_path)
    dialog.add_files(paths)
    assert dialog.files.item(0).text() == str(paths[0])
    _import(qtbot, dialog)
    project = window.document.project
    entities = {e.collection: e for e in project.entities if e.collection}
    assert sorted(entities) == ["authors", "books"]
    assert [(r.one, r.many, r.strategy) for r in project.relationships if r.strategy == "parent-ref"] == [
        (entities["authors"].id, entities["books"].id, "parent-ref")
    ]
    assert dialog.progress.status(str(paths[1])) == "books: 40 documents read"
    assert window.document.is_modified() and window.docks["recommendations"].isVisible()
    assert "from 2 files as a new project" in window.statusBar().currentMessage()
    window.analysis.run_now()
    assert window.recommendations.visible_findings()


def test_merging_files_is_one_undo_step(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window()
    assert window.open_path(sample("task-tracker"), ask=False)
    before = window.document.project
    dialog = window.database_actions.show_import_files()
    dialog.add_files(_exports(tmp_path))
    dialog.destination_choice.merge_radio.setChecked(True)
    _import(qtbot, dialog)
    stack = window.document.undo_stack
    assert stack.count() == 1 and stack.text(0) == "Import 2 collections from 2 files"
    added = {e.collection for e in window.document.project.entities} - {e.collection for e in before.entities}
    assert added == {"authors", "books"}
    new_ids = {e.id for e in window.document.project.entities} - {e.id for e in before.entities}
    xs = [window.document.position(i).x for i in new_ids]
    assert min(xs) > max(p.x for p in before.layout.values())  # placed right of the existing cards
    stack.undo()
    assert window.document.project.entities == before.entities and window.document.project.layout == before.layout


def test_a_broken_file_is_one_line_naming_the_line_and_changes_nothing(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window()
    assert window.open_path(sample("blog"), ask=False)
    before = window.document.project
    bad = tmp_path / "events.jsonl"
    bad.write_text('{"a": 1}\n{"a": \n', encoding="utf-8")
    dialog = window.database_actions.show_import_files()
    dialog.add_files([bad])
    qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)
    text = dialog.status.text()
    assert dialog.status.is_error() and "\n" not in text
    assert f"{bad}:2: not valid Extended JSON" in text and "fix the line or export again" in text
    assert dialog.progress.status(str(bad)) == "not read" and dialog.isVisible()
    assert window.document.project is before and window.document.undo_stack.count() == 0


def test_two_files_for_one_collection_are_refused(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window()
    (tmp_path / "a").mkdir()
    one, two = tmp_path / "orders.json", tmp_path / "a" / "orders.jsonl"
    for path in (one, two):
        path.write_text('{"x": 1}\n', encoding="utf-8")
    dialog = window.database_actions.show_import_files()
    dialog.add_files([one, two])
    dialog.start_import()
    qtbot.waitUntil(lambda: not dialog.running(), timeout=WAIT_MS)
    assert dialog.status.text() == (
        f"{two}: a second file for collection 'orders' (also orders.json); remove one of them: one file per collection"
    )
    assert window.document.undo_stack.count() == 0


def test_a_validator_file_gives_its_collection_with_typed_fields(qtbot, make_window, tmp_path: Path) -> None:
    window = make_window()
    schema = {
        "bsonType": "object",
        "required": ["total", "status"],
        "properties": {
            "_id": {"bsonType": "objectId"},
            "total": {"bsonType": "decimal"},
            "status": {"enum": ["new", "paid"]},
        },
    }
    validator = tmp_path / "invoices.schema.json"
    validator.write_text(json.dumps({"validator": {"$jsonSchema": schema}}), encoding="utf-8")
    dialog = window.database_actions.show_import_files()
    dialog.add_files([validator, *_exports(tmp_path)])
    _import(qtbot, dialog)
    assert dialog.progress.status(str(validator)) == "invoices: $jsonSchema validator"
    entities = {e.collection: e for e in window.document.project.entities if e.collection}
    assert sorted(entities) == ["authors", "books", "invoices"]
    fields = {f.name: f for f in entities["invoices"].fields}
    assert fields["total"].type == "decimal" and fields["total"].required
    assert fields["status"].enum == ("new", "paid")


def test_cancel_drops_what_was_read(qtbot, make_window, tmp_path: Path, monkeypatch) -> None:
    window = make_window()
    assert window.open_path(sample("blog"), ask=False)
    before = window.document.project
    gate, reading = threading.Event(), threading.Event()
    real = live_files.read_inputs

    def slow(paths, limit=None):  # the real reader, after the test lets it go: a slow disk
        reading.set()
        gate.wait(30)
        return real(paths, limit)

    monkeypatch.setattr(live_files, "read_inputs", slow)
    dialog = window.database_actions.show_import_files()
    dialog.add_files(_exports(tmp_path))
    dialog.start_import()
    job = dialog.job
    first = str(tmp_path / "authors.json")
    qtbot.waitUntil(lambda: reading.is_set() and dialog.progress.status(first) == "reading…", timeout=WAIT_MS)
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    assert not dialog.running() and dialog.status.text().startswith("Import cancelled")
    gate.set()
    qtbot.waitUntil(lambda: job is not None and not job.thread.is_alive(), timeout=WAIT_MS)
    qtbot.wait(50)
    assert window.document.project is before and window.document.undo_stack.count() == 0


def test_the_merge_choice_follows_the_open_project(make_window) -> None:
    window = make_window()
    dialog = window.database_actions.show_import_files()
    assert not dialog.destination_choice.merge_radio.isEnabled()
    assert window.open_path(sample("blog"), ask=False)
    assert window.database_actions.show_import_files() is dialog
    assert dialog.destination_choice.merge_radio.isEnabled()


def test_keeping_unsaved_work_keeps_the_dialog_and_its_result(qtbot, make_window, tmp_path: Path, dialogs) -> None:
    from PySide6.QtWidgets import QMessageBox

    window = make_window()
    assert window.open_path(sample("blog"), ask=False)
    _add_entity(window)
    before = window.document.project
    dialog = window.database_actions.show_import_files()
    dialog.add_files(_exports(tmp_path))
    dialogs.answers.append(QMessageBox.StandardButton.Cancel)  # "Save the changes?" -> Cancel
    _import(qtbot, dialog)
    assert "Save the changes" in dialogs.shown[0]
    assert window.document.project is before and dialog.isVisible() and not dialog.taken
    assert dialog.status.text().startswith("The open project was kept; press Import again")


def _add_entity(window) -> None:
    from modeller.model import Entity, Field, Position
    from modeller.ui.commands import AddEntityCommand

    entity = Entity(id="draft", name="Draft", fields=(Field(name="title", type="string"),))
    window.document.push(AddEntityCommand(window.document, entity, Position(x=0, y=0)))


def test_imported_cards_do_not_overlap_however_many_fields_they_show(qtbot, make_window, tmp_path: Path) -> None:
    """Tryout a13 item 10: the layout gave every card 180 x 120, so a customer card of 16 rows ran into the next."""
    customers = [
        {"_id": ObjectId(), **{f"a_rather_long_field_name_{k}": k for k in range(14)}, "addresses": [{"street": "s"}]}
        for _ in range(12)
    ]
    orders = [{"_id": ObjectId(), "customer_id": customers[i % 12]["_id"], "total": 1.5} for i in range(40)]
    reviews = [{"_id": ObjectId(), "customer_id": customers[i % 12]["_id"], "text": "t"} for i in range(40)]
    paths = []
    for name, docs in (("customers", customers), ("orders", orders), ("reviews", reviews)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text("\n".join(json_util.dumps(d) for d in docs) + "\n", encoding="utf-8")
    window = make_window()
    dialog = window.database_actions.show_import_files()
    dialog.add_files(paths)
    _import(qtbot, dialog)
    scene = window.scene
    qtbot.waitUntil(lambda: not scene.building and len(scene.entity_items) == 4, timeout=WAIT_MS)
    cards = {key: item.sceneBoundingRect() for key, item in scene.entity_items.items()}
    tall = max(cards.values(), key=lambda r: r.height())
    assert tall.height() > 120 + 90  # taller than the fixed size and the gap below it: the case it got wrong
    overlaps = [(a, b) for a in cards for b in cards if a < b and cards[a].intersects(cards[b])]
    assert overlaps == [], {k: (r.x(), r.y(), r.width(), r.height()) for k, r in cards.items()}
