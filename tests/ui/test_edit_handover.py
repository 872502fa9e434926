"""Issue 16, the UI thread's share of an edit: on a generated 2,000-entity project the hand-over of an
incremental analysis touches what the analysis worker found changed and nothing else: the findings rows
that came and went, the filter's answers for those, the markers whose mark differs, and the preview only
when its collection (or one it links to directly) was replaced."""

from __future__ import annotations

import threading

import pytest

from modeller.ui.analysis_changes import changes_since, compare, marks
from modeller.ui.canvas.items.entity_item import EntityItem
from modeller.ui.canvas.items.relationship_item import RelationshipItem
from modeller.ui.commands import EditRelationshipCommand
from modeller.ui.panels import finding_item
from modeller.ui.panels.analysis_facts import count
from modeller.ui.panels.design_index import design_index
from modeller.ui.panels.finding_item import finding_key
from modeller.ui.panels.findings_model import FINDING_ROLE, sort_key
from modeller.ui.panels.preview import _links_of, preview_sample, relaxed_json
from modeller.ui.panels.sections import SECTIONS, section_of

from .big_model import big_project

pytestmark = pytest.mark.slow


def opened(make_window):
    window = make_window(use_engine=True)
    window.document.reset(big_project())
    window.scene.finish_build()  # a large project's canvas is built in slices; these tests need every item
    window.analysis.run_now()
    window.live.finish_markers()
    return window


def unbounded(rel):
    """The relationship as a one-to-squillions embedded in the One: the line and the One get a marker."""
    return rel.model_copy(
        update={"cardinality": "one-to-squillions", "max": None, "typical": None, "strategy": "embed"}
    )


def test_the_hand_over_uses_the_workers_list_of_changes_and_it_equals_a_full_comparison(make_window) -> None:
    window = opened(make_window)
    before, before_project = window.analysis.latest, window.document.project
    unmarked = marks(before, before_project).relationships
    rel = next(r for r in before_project.relationships if r.cardinality != "one-to-squillions" and r.id not in unmarked)
    window.document.push(EditRelationshipCommand(window.document, unbounded(rel)))
    window.analysis.run_now()
    after, project = window.analysis.latest, window.document.project

    changes = changes_since(before, before_project, after, project)
    assert changes is not None, "the analysis path works out the changes next to the analysis"
    assert window.recommendations.model.changes is changes  # the list took them, it did not compare in full
    # what the worker found is exactly what a comparison of every finding, mark and collection finds
    fresh = [f for f in after.findings if all(f is not g for g in before.findings)]
    gone = [f for f in before.findings if all(f is not g for g in after.findings)]
    assert {id(f) for f in changes.fresh} == {id(f) for f in fresh} and fresh
    assert {id(f) for f in changes.gone} == {id(f) for f in gone} and gone
    old_colls = {c.name: c for c in before.design.collections}
    replaced = {c.name for c in after.design.collections if old_colls.get(c.name) is not c}
    assert changes.collections >= replaced and replaced
    old_marks, new_marks = count(before, before_project), count(after, project)
    differing = {k for k in old_marks.entity_marks.keys() | new_marks.entity_marks.keys()}
    differing = {k for k in differing if old_marks.entity_marks.get(k) != new_marks.entity_marks.get(k)}
    assert differing <= changes.entities_marked
    assert changes.relationships_marked == {
        k
        for k in old_marks.rel_marks.keys() | new_marks.rel_marks.keys()
        if old_marks.rel_marks.get(k) != new_marks.rel_marks.get(k)
    }
    assert changes.entities_marked | changes.relationships_marked, "the edit must change a marker"
    assert not changes.relabelled and not changes.queries  # a cardinality renames nothing
    # and the list shows exactly the new analysis, the very objects
    shown = window.recommendations.visible_findings()
    assert sorted(map(sort_key, shown)) == sorted(map(sort_key, after.findings))
    assert {id(f) for f in shown} == {id(f) for f in after.findings}


def test_changes_from_another_analysis_than_the_one_shown_are_not_used(make_window) -> None:
    """A result the UI dropped as stale leaves the next one's changes leading from an analysis never shown:
    the list compares in full instead, and still shows the new analysis exactly."""
    window = opened(make_window)
    project = window.document.project
    rels = [r for r in project.relationships if r.cardinality != "one-to-squillions"][:2]
    window.document.push(EditRelationshipCommand(window.document, unbounded(rels[0])))
    skipped = window.analysis._run(window.document.project)  # analysed, never shown
    window.document.push(EditRelationshipCommand(window.document, unbounded(rels[1])))
    window.analysis.run_now()
    latest = window.analysis.latest
    assert changes_since(skipped, project, latest, window.document.project) is None  # other project version
    assert window.recommendations.model.changes is None
    shown = window.recommendations.visible_findings()
    assert {id(f) for f in shown} == {id(f) for f in latest.findings}
    assert compare(skipped, project, skipped, project) is not None  # nothing changed is still a comparison


def test_a_selection_filter_asks_again_only_about_findings_an_edit_changed(make_window, monkeypatch) -> None:
    window = opened(make_window)
    panel = window.recommendations
    busy = max(window.scene.entity_items, key=lambda key: len(window.document.relationships_of(key)))
    window.scene.select_only([busy])
    assert panel.visible_findings()
    asked: list[object] = []
    concerns = finding_item.Selection.concerns
    monkeypatch.setattr(
        finding_item.Selection, "concerns", lambda self, f, *a: asked.append(f) or concerns(self, f, *a)
    )
    project = window.document.project
    far = next(r for r in project.relationships if busy not in (r.one, r.many) and r.cardinality != "one-to-squillions")
    before = window.analysis.latest
    window.document.push(EditRelationshipCommand(window.document, unbounded(far)))
    window.analysis.run_now()
    changes = panel.model.changes
    assert changes is not None and changes.since is before
    # at most the new findings, and those about a replaced collection or its indexes, are asked again (only
    # those filed under what the selection holds: none, for an edit this far from the card)
    redone = [f for f in before.findings if f.subject.kind in ("collection", "index")]
    bound = len(changes.fresh) + sum(1 for f in redone if f.subject.id.partition("#")[0] in changes.collections)
    assert len(asked) <= bound < len(window.analysis.latest.findings) // 10 and changes.fresh
    # and the answers are those of the new analysis, asked afresh
    chosen = finding_item.Selection([("entity", busy)])
    ids, design = finding_item.lookup(window.document.project), window.analysis.latest.design
    expected = [f for f in window.analysis.latest.findings if concerns(chosen, f, ids, design)]
    assert sorted(map(sort_key, panel.visible_findings())) == sorted(map(sort_key, expected))
    # the section counts followed the edit too (kept up to date, not counted again): as a count afresh says
    counts = [[0, 0], [0, 0]]
    for f in expected:
        row = counts[SECTIONS.index(section_of(f))]
        row[1] += 1
        row[0] += not f.overridden
    assert panel.proxy.section_counts() == counts
    assert panel.header.text().startswith(f"{len(expected):,} of {len(window.analysis.latest.findings):,} findings")
    # and with a severity filter on top, after another edit
    panel.severity_box.setCurrentIndex(1)  # errors and warnings
    panel.proxy.section_counts()
    asked.clear()
    near = next(r for r in project.relationships if busy in (r.one, r.many) and r.cardinality != "one-to-squillions")
    window.document.push(EditRelationshipCommand(window.document, unbounded(near)))
    window.analysis.run_now()
    changes = panel.model.changes
    assert changes is not None and (changes.fresh or changes.gone)
    panel.proxy.section_counts()
    assert len(asked) <= len(changes.fresh) + len(redone)  # kept up to date, not counted again
    ids, design = finding_item.lookup(window.document.project), window.analysis.latest.design
    severe = [
        f
        for f in window.analysis.latest.findings
        if f.severity in ("error", "warning") and concerns(chosen, f, ids, design)
    ]
    assert sorted(map(sort_key, panel.visible_findings())) == sorted(map(sort_key, severe))
    assert panel.proxy.shown_count() == len(severe)


def test_an_edit_touches_the_markers_of_the_changed_items_only(make_window, monkeypatch) -> None:
    window = opened(make_window)
    touched: list[str] = []
    entity_advice, rel_advice = EntityItem.set_advice, RelationshipItem.set_advice
    monkeypatch.setattr(
        EntityItem, "set_advice", lambda item, *a: touched.append(item.entity_id) or entity_advice(item, *a)
    )
    monkeypatch.setattr(
        RelationshipItem, "set_advice", lambda item, *a: touched.append(item.rel_id) or rel_advice(item, *a)
    )
    before, project = window.analysis.latest, window.document.project
    old_marks = marks(before, project)
    rel = next(
        r for r in project.relationships if r.cardinality != "one-to-squillions" and r.id not in old_marks.relationships
    )
    window.document.push(EditRelationshipCommand(window.document, unbounded(rel)))
    window.analysis.run_now()
    window.live.finish_markers()
    new_marks = marks(window.analysis.latest, window.document.project)
    assert touched, "the edit must change a marker, or this test proves nothing"
    changed = {
        k
        for k in old_marks.entities.keys() | new_marks.entities.keys()
        if old_marks.entities.get(k) != new_marks.entities.get(k)
    }
    changed |= {
        k for k in old_marks.hosts.keys() | new_marks.hosts.keys() if old_marks.hosts.get(k) != new_marks.hosts.get(k)
    }
    changed |= {
        k
        for k in old_marks.relationships.keys() | new_marks.relationships.keys()
        if old_marks.relationships.get(k) != new_marks.relationships.get(k)
    }
    # the items whose mark changed, no other (of 2,000 cards and 3,000 lines)
    assert set(touched) == changed and len(touched) == len(set(touched)) < 20
    for entity_id, item in window.scene.entity_items.items():
        assert (item.marker, item.embedded_in) == (new_marks.entities.get(entity_id), new_marks.hosts.get(entity_id))


def samplers() -> set[int | None]:
    """The preview sample threads alive now (earlier tests' idle ones too)."""
    return {t.ident for t in threading.enumerate() if t.name.startswith("modeller-preview-sample")}


def test_the_preview_is_rebuilt_only_for_an_edit_to_its_collection(make_window, qtbot) -> None:
    earlier = samplers()
    window = opened(make_window)
    preview = window.preview
    design = window.analysis.latest.design
    coll = next(c for c in design.collections if c.entities and any(n.ref_collection for n in c.shape))
    window.show_in_preview(coll.root)
    preview.show_tab("Document")
    qtbot.waitUntil(lambda: not preview.sampling, timeout=60_000)
    first_row, text = preview.shape_tree.topLevelItem(0), preview.sample_view.toPlainText()
    assert first_row is not None and text.startswith("{")
    workers = samplers() - earlier

    # an edit to a relationship between two collections the shown one does not link to
    index = design_index(design)
    linked = {coll.name, *_links_of(design, coll)}
    project = window.document.project
    far = next(
        r
        for r in project.relationships
        if r.cardinality != "one-to-squillions"
        and not {index.collection_for_entity(r.one), index.collection_for_entity(r.many)} & linked
    )
    window.document.push(EditRelationshipCommand(window.document, unbounded(far)))
    window.analysis.run_now()
    changes = window.recommendations.model.changes
    assert changes is not None and changes.collections and not changes.collections & linked
    assert preview.shape_tree.topLevelItem(0) is first_row, "an edit elsewhere rebuilt the preview"
    assert preview.sample_view.toPlainText() == text and not preview.sampling

    # an edit to a relationship of the shown collection rebuilds it, to what the new design says
    near = next(
        r for r in project.relationships if coll.root in (r.one, r.many) and r.cardinality != "one-to-squillions"
    )
    window.document.push(EditRelationshipCommand(window.document, unbounded(near)))
    window.analysis.run_now()
    assert preview.shape_tree.topLevelItem(0) is not first_row
    qtbot.waitUntil(lambda: not preview.sampling, timeout=60_000)
    analysis, name = window.analysis.latest, preview.collection_box.currentText()
    assert preview.sample_view.toPlainText() == relaxed_json(preview_sample(analysis.design, project, name))
    # the samples came from one worker thread for the panel's life, not a thread per edit
    assert len(workers) == 1 and samplers() - earlier == workers


def test_a_hidden_preview_is_not_rebuilt_until_it_shows_again(make_window, qtbot) -> None:
    window = opened(make_window)
    preview = window.preview
    design = window.analysis.latest.design
    coll = next(c for c in design.collections if c.entities and any(n.ref_collection for n in c.shape))
    window.show_in_preview(coll.root)
    preview.show_tab("Document")
    qtbot.waitUntil(lambda: not preview.sampling, timeout=60_000)
    first_row = preview.shape_tree.topLevelItem(0)
    window.docks["preview"].hide()
    rel = next(
        r
        for r in window.document.project.relationships
        if coll.root in (r.one, r.many) and r.cardinality != "one-to-squillions"
    )
    window.document.push(EditRelationshipCommand(window.document, unbounded(rel)))
    window.analysis.run_now()
    assert preview.shape_tree.topLevelItem(0) is first_row and not preview.sampling  # nobody sees it
    window.docks["preview"].show()
    qtbot.waitUntil(lambda: preview.shape_tree.topLevelItem(0) is not first_row, timeout=5_000)
    shown = preview.current_collection()
    assert shown is design_index(window.analysis.latest.design).collection(preview.collection_box.currentText())
    assert preview.shape_tree.topLevelItemCount() == len(shown.shape)


def test_the_chosen_finding_stays_chosen_when_an_edit_replaces_it(make_window) -> None:
    """The panel finds the replacement of the finding the user had chosen in the model's lists (not by asking
    each of the view's rows), and shows it."""
    window = opened(make_window)
    panel = window.recommendations
    rel = next(r for r in window.document.project.relationships if r.typical is not None and r.max is None)
    window.document.push(EditRelationshipCommand(window.document, rel.model_copy(update={"typical": rel.typical * 3})))
    window.analysis.run_now()
    changes = panel.model.changes
    assert changes is not None

    # findings the edit replaces by others of the same rule and subject (their numbers changed)
    replaced = {finding_key(f) for f in changes.gone} & {finding_key(f) for f in changes.fresh}
    assert replaced, "the edit must replace a finding, or this test proves nothing"
    key = min(replaced)
    window.document.undo_stack.undo()
    window.analysis.run_now()
    chosen = next(f for f in panel.visible_findings() if finding_key(f) == key)
    panel.select_finding(chosen)
    assert panel._current is chosen
    window.document.undo_stack.redo()
    window.analysis.run_now()
    assert all(f is not chosen for f in panel.analysis.findings)
    first = next(f for f in panel.visible_findings() if finding_key(f) == key)  # the first row with that key
    assert panel._current is first and panel.tree.currentIndex().data(FINDING_ROLE) is first
