"""The preview shows exactly what the exporters write, and its sample passes its own validator."""

from __future__ import annotations

import json
import os
import shutil

import jsonschema
import pytest
from PySide6.QtWidgets import QApplication

from modeller.export import export_project, json_schema
from modeller.persistence import load_project
from modeller.rules import analyse
from modeller.ui.panels.preview import DOT_MISSING, collection_for_entity

from .live_helpers import SAMPLES, SETTLE_MS, open_sample

SAMPLE_NAMES = sorted(p.name.removesuffix(".modeller.json") for p in SAMPLES.glob("*.modeller.json"))


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_preview_sample_validates_against_the_shown_validator(make_window, name: str) -> None:
    window = open_sample(make_window, name)
    preview = window.preview
    preview.show_tab("Document")
    design = window.recommendations.analysis.design  # type: ignore[union-attr]
    for coll in design.collections:
        preview.show_entity(coll.root)
        assert preview.collection_box.currentText() == coll.name
        shown_validator = json.loads(_text_of(preview, "Validator"))
        preview.show_tab("Document")
        sample = json.loads(preview.sample_view.toPlainText())
        assert sample, coll.name
        assert shown_validator["$jsonSchema"] == json_schema_core(coll)
        # relaxed Extended JSON against the exporter's JSON Schema translation of that validator
        jsonschema.validate(sample, json_schema(coll, design.database))
        assert preview.shape_tree.topLevelItemCount() == len(coll.shape)


def json_schema_core(coll) -> dict:
    from modeller.export import collection_schema

    return collection_schema(coll)


def _text_of(preview, tab: str) -> str:
    preview.show_tab(tab)
    return preview.validator_view.toPlainText()


def test_script_tab_equals_the_exported_setup_script(make_window, tmp_path) -> None:
    window = open_sample(make_window, "ecommerce")
    window.preview.show_tab("Script")
    shown = window.preview.script_view.toPlainText()
    project = load_project(SAMPLES / "ecommerce.modeller.json")
    export_project(project, analyse(project), tmp_path / "out", kinds=["setup"])
    written = (tmp_path / "out" / "setup.mongosh.js").read_text(encoding="utf-8")
    assert window.preview.script_text() == written
    assert shown == written
    window.preview.copy_script()
    assert QApplication.clipboard().text() == shown


def test_preview_follows_the_selection_and_embedded_entities(make_window) -> None:
    window = open_sample(make_window, "ecommerce")
    design = window.recommendations.analysis.design  # type: ignore[union-attr]
    assert collection_for_entity(design, "order_item") == "orders"  # embedded in Order
    window.scene.select_only(["order_item"], [])
    assert window.preview.collection_box.currentText() == "orders"
    window.preview.show_tab("Indexes")
    text = window.preview.indexes_view.toPlainText()
    assert "user._id" in text and "Equality" in text  # the order holds its user's id once, in user {_id, ...}


def test_preview_updates_after_an_edit(make_window, qtbot) -> None:
    window = open_sample(make_window, "task-tracker")
    window.scene.select_only(["task"], [])
    window.preview.show_tab("Validator")
    rel = window.document.relationship("person_tasks")
    from modeller.ui.commands import EditRelationshipCommand

    window.document.push(EditRelationshipCommand(window.document, rel.model_copy(update={"strategy": "embed"})))  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: window.preview.collection_box.currentText() == "people", timeout=SETTLE_MS)
    qtbot.waitUntil(lambda: '"tasks"' in window.preview.validator_view.toPlainText(), timeout=SETTLE_MS)


def test_diagram_without_dot_shows_how_to_get_it(make_window) -> None:
    window = open_sample(make_window, "blog")
    window.preview.which_dot = lambda: None
    window.preview.show_tab("Diagram")
    window.preview.refresh_diagram()
    assert window.preview.diagram_notice.text() == DOT_MISSING
    assert "apt install graphviz" in DOT_MISSING


@pytest.mark.skipif(shutil.which("dot") is None and not os.environ.get("CI"), reason="Graphviz 'dot' is not installed")
def test_diagram_renders_svg_off_the_ui_thread(make_window, qtbot) -> None:
    window = open_sample(make_window, "blog")
    window.preview.show_tab("Diagram")
    with qtbot.waitSignal(window.preview.diagram_rendered, timeout=20000):
        window.preview.refresh_diagram()
    assert window.preview.svg.renderer().isValid()
    assert window.preview.svg.renderer().defaultSize().width() > 50
