"""The properties dock: edit the selected entity, relationship, or the project itself.

Each editor receives the document, reads the object by id and turns every
widget edit into a validated copy pushed as a command (typing merges into one
undo entry per editor; a name is applied on Enter or leaving its box, one undo entry per rename). Document signals bring the widgets back in line after
undo, redo or edits elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from modeller.model import Entity, Relationship
from modeller.model.names import snake
from modeller.model.unique_names import name_refused
from modeller.model.vocabulary import AGGREGATE_OPS, CARDINALITIES, STALENESS, STRATEGIES, TREE_OPS
from modeller.rules.physical.documents import many_to_many_holds
from modeller.rules.physical.naming import plural_label
from modeller.rules.settings import DEFAULT_SETTINGS
from modeller.ui.commands import EditEntityCommand, EditProjectCommand, EditRelationshipCommand
from modeller.ui.commands.relationship import describe
from modeller.ui.document import ProjectDocument
from modeller.ui.edits import EditRefused, PathStep, updated
from modeller.ui.panels.entity_choices import EntityChoices
from modeller.ui.panels.fields_editor import Detail, FieldsEditor
from modeller.ui.panels.form import ComboDelegate, ModelForm, error_label
from modeller.ui.panels.id_row import IdRow
from modeller.ui.panels.indexes_editor import IndexesEditor

STRATEGY_HELP = {
    "auto": "let the engine choose from cardinality and workload",
    "embed": "store the N inside the One's document",
    "child-refs": "array of references to the N in the One",
    "parent-ref": "reference to the One in each N",
    "two-way": "references on both sides",
    "extended-ref": "reference plus copied fields of the One in each N",
    "subset": "the One keeps the latest K of the N; the rest in their own collection",
    "bucket": "N grouped into bucket documents",
    "single-collection": "both entity types in one collection with a type field and links",
}


def strategy_help(strategy: str, many_to_many: bool) -> str:
    """What the strategy stores; for a many-to-many where its name says otherwise, what the documents hold (the
    report's and the findings' words: ``many_to_many_holds``)."""
    holds = many_to_many_holds(strategy, "many-to-many", "One", "N") if many_to_many else ""
    return holds or STRATEGY_HELP[strategy]


def _key(kind: str, object_id: str, path: Sequence[PathStep]) -> tuple[str, ...]:
    return (kind, object_id, "/".join(str(p) for p in path))


#: keys edited as names (ModelForm.name): applied once per edit, so each rename is its own undo step
_NAME_KEYS = frozenset({"name", "collection", "inverse", "database"})


def _merge_key(kind: str, object_id: str, path: Sequence[PathStep], merge: bool) -> tuple[str, ...] | None:
    """The key that merges typing into one undo step; None for a name (one rename, one step) or a gesture."""
    if not merge or (len(path) == 1 and path[0] in _NAME_KEYS):
        return None
    return _key(kind, object_id, path)


def _names_refused(document: ProjectDocument, entity: Entity, new: Entity) -> str | None:
    """Why an edit of ``entity`` takes a name another entity or a relationship's role has (None when free)."""
    renamed = new.name != entity.name or new.collection != entity.collection
    if renamed or [f.name for f in new.fields] != [f.name for f in entity.fields]:
        return name_refused(document.project, new)
    return None


def scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # the form narrows with the dock
    area.setWidget(widget)
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    return area


class EntityEditor(QWidget):
    #: "Edit Fields in a Window…" was pressed for this entity id
    window_requested = Signal(str)

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.entity_id: str | None = None
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: bold; font-size: 13pt;")
        self.id_row = IdRow(document, "entity", lambda: self.entity_id)
        self.form = ModelForm(self.apply)
        f = self.form
        f.row("Id", self.id_row)
        f.name(["name"], "Name", "The entity's name as people say it (Person, Log message)", optional=False)
        f.name(["collection"], "Collection", "Physical collection name (empty: derived from the name)")
        f.long_text(["description"], "Description", "What one document of this entity represents")
        f.number(["count"], "Documents", "Expected number of documents (e.g. 10,000 or 1e6)", integer=True)
        f.number(["growth_per_day"], "Growth/day", "New documents per day")
        f.number(["reads_per_sec"], "Reads/s", "Reads of this entity per second")
        f.number(["writes_per_sec"], "Writes/s", "Inserts and updates per second")
        f.check(["append_only"], "Append-only (documents are never updated)", "Events, logs, measurements")
        f.check(["history"], "Keep history (prior versions stay queryable)", "Document versioning pattern")
        f.check(["schema_change"], "Schema change must reach existing documents", "Schema versioning pattern")
        f.names(["shard_key"], "Shard key", "Candidate shard key fields, comma-separated", empty_is_none=True)
        self.timeseries = QGroupBox("Time series")
        self.timeseries.setCheckable(True)
        self.timeseries.setToolTip("The entity is a stream of timestamped measurements or events")
        self.timeseries.toggled.connect(self._toggle_timeseries)
        self.ts_form = ModelForm(self.apply)
        self.ts_form.text(["timeseries", "time_field"], "Time field", "Date field holding the timestamp", False)
        self.ts_form.text(["timeseries", "meta_field"], "Meta field", "Field identifying the series (sensor, host)")
        self.ts_form.number(["timeseries", "interval_s"], "Interval (s)", "Seconds between measurements")
        self.ts_form.number(["timeseries", "retention_s"], "Retention (s)", "Delete data older than this", True)
        self.ts_form.number(["timeseries", "bucket_size"], "Bucket size", "Measurements per bucket document", True)
        QVBoxLayout(self.timeseries).addWidget(self.ts_form)
        self.subtypes = QGroupBox("Subtypes (polymorphic)")
        self.subtypes.setCheckable(True)
        self.subtypes.setToolTip("Documents of several shapes in one collection, told apart by a discriminator")
        self.subtypes.toggled.connect(self._toggle_subtypes)
        self.sub_form = ModelForm(self._apply_subtypes)
        self.sub_form.text(["subtypes", "discriminator"], "Discriminator", "Field naming the variant", False)
        self.sub_form.names(["subtypes", "variants"], "Variants", "Variant names, comma-separated")
        QVBoxLayout(self.subtypes).addWidget(self.sub_form)
        self.archive = QGroupBox("Archive (old documents are rarely read)")
        self.archive.setCheckable(True)
        self.archive.setToolTip(
            "Documents older than a threshold are cold: the engine suggests moving them to an archive collection"
        )
        self.archive.toggled.connect(self._toggle_archive)
        self.archive_form = ModelForm(self.apply)
        self.archive_form.text(
            ["archive", "age_field"], "Age field", "Date field that says how old a document is", False
        )
        self.archive_form.number(
            ["archive", "cold_after_s"], "Cold after (s)", "Seconds after which a document is rarely read", True
        )
        QVBoxLayout(self.archive).addWidget(self.archive_form)
        indexes_box = QGroupBox("Indexes")
        self.indexes = IndexesEditor(self.apply)
        QVBoxLayout(indexes_box).addWidget(self.indexes)
        fields_box = QGroupBox("Fields")
        self.fields_of = QComboBox()
        self.fields_of.setToolTip("Edit the common fields or the extra fields of one subtype variant")
        self.fields_of.currentIndexChanged.connect(lambda _i: self._load_fields())
        self.fields = FieldsEditor(self._apply_fields)
        self.open_button = QPushButton("Edit Fields in a Window…")
        self.open_button.setToolTip("The field table and properties of this entity in a larger window")
        self.open_button.clicked.connect(lambda: self.window_requested.emit(self.entity_id or ""))
        box = QVBoxLayout(fields_box)
        box.addWidget(self.open_button, 0, Qt.AlignmentFlag.AlignRight)
        box.addWidget(self.fields_of)
        box.addWidget(self.fields)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.form)
        layout.addWidget(fields_box)
        layout.addWidget(indexes_box)
        layout.addWidget(self.timeseries)
        layout.addWidget(self.subtypes)
        layout.addWidget(self.archive)
        layout.addStretch(1)
        document.entity_changed.connect(self._changed)

    def entity(self) -> Entity | None:
        return self.document.entity(self.entity_id) if self.entity_id else None

    def show_entity(self, entity_id: str) -> None:
        self.entity_id = entity_id
        self.reload()

    def _changed(self, entity_id: str) -> None:
        if entity_id == self.entity_id:
            self.reload()

    def reload(self) -> None:
        entity = self.entity()
        if entity is None:
            return
        self.title.setText("Entity")
        self.id_row.reload()
        self.form.load(entity)
        for group, value, form in (
            (self.timeseries, entity.timeseries, self.ts_form),
            (self.subtypes, entity.subtypes, self.sub_form),
            (self.archive, entity.archive, self.archive_form),
        ):
            group.blockSignals(True)
            group.setChecked(value is not None)
            group.blockSignals(False)
            form.setVisible(value is not None)
            form.load(entity)
        variants = list(entity.subtypes.variants) if entity.subtypes else []
        wanted = ["(common fields)"] + [f"variant {v}" for v in variants]
        if [self.fields_of.itemText(i) for i in range(self.fields_of.count())] != wanted:
            current = self.fields_of.currentIndex()
            self.fields_of.blockSignals(True)
            self.fields_of.clear()
            self.fields_of.addItems(wanted)
            self.fields_of.setCurrentIndex(current if 0 <= current < len(wanted) else 0)
            self.fields_of.blockSignals(False)
        self.fields_of.setVisible(bool(variants))
        self._load_fields()
        self.indexes.load(entity)

    def _fields_path(self) -> list[PathStep]:
        entity = self.entity()
        index = self.fields_of.currentIndex()
        if entity is None or entity.subtypes is None or index <= 0:
            return ["fields"]
        return ["subtypes", "variants", list(entity.subtypes.variants)[index - 1]]

    def _load_fields(self) -> None:
        entity = self.entity()
        if entity is None:
            return
        path = self._fields_path()
        fields = entity.fields if path == ["fields"] else entity.subtypes.variants[str(path[-1])]  # type: ignore[union-attr]
        self.fields.load(list(fields))

    # ------------------------------------------------------------ applying
    def _label(self, path: Sequence[PathStep]) -> str:
        """The row label the value at ``path`` has in one of the entity's forms (undo texts use the user's words)."""
        for form in (self.form, self.ts_form, self.archive_form, self.sub_form):
            label = form.label_of(path)
            if label != str(path[-1]):
                return label
        return str(path[-1])

    def apply(self, path: Sequence[PathStep], value: Any, text: str | None = None, merge: bool = True) -> str | None:
        entity = self.entity()
        if entity is None:
            return "no entity selected"
        try:
            new = updated(entity, path, value)
        except EditRefused as err:
            return str(err)
        if new == entity:
            return None
        clash = _names_refused(self.document, entity, new)
        if clash is not None:
            return clash
        label = text or (
            "Rename " + entity.name if list(path) == ["name"] else f"Edit {entity.name}: {self._label(path)}"
        )
        key = _merge_key("entity", entity.id, path, merge)
        self.document.push(EditEntityCommand(self.document, new, label, key))
        return None

    def _apply_fields(self, fields: list[dict[str, Any]], detail: Detail | None = None) -> str | None:
        entity = self.entity()
        if entity is None:
            return "no entity selected"
        path = self._fields_path()
        if detail is None:
            return self.apply(path, fields, f"Edit fields of {entity.name}", merge=False)
        field_name, index_path, key = detail
        try:
            new = updated(entity, path, fields)
        except EditRefused as err:
            return str(err)
        clash = _names_refused(self.document, entity, new) if new != entity else None
        if clash is not None:
            return clash
        if new != entity:
            merge = _key("entity", entity.id, [*path, *index_path, key])
            text = f"Edit field {entity.name}.{field_name}: {key}"
            self.document.push(EditEntityCommand(self.document, new, text, merge))
        return None

    def _apply_subtypes(self, path: Sequence[PathStep], value: Any) -> str | None:
        entity = self.entity()
        if list(path) == ["subtypes", "variants"] and entity is not None and entity.subtypes is not None:
            old = entity.subtypes.variants
            value = {name: [f.model_dump(exclude_defaults=True) for f in old.get(name, [])] for name in value or []}
        return self.apply(path, value)

    def _first_date(self, default: str) -> str:
        entity = self.entity()
        return next((f.name for f in entity.fields if f.type == "date"), default) if entity else default

    def _toggle(self, key: str, value: dict[str, Any] | None, label: str) -> None:
        """Switch a section on (with a starting value) or off; a refused switch puts the box back."""
        if self.entity() is None:
            return
        if self.apply([key], value, f"{label} {'on' if value is not None else 'off'}", merge=False):
            self.reload()

    def _toggle_timeseries(self, on: bool) -> None:
        self._toggle("timeseries", {"time_field": self._first_date("time")} if on else None, "Time series")

    def _toggle_archive(self, on: bool) -> None:
        value = {"age_field": self._first_date("created_at"), "cold_after_s": 90 * 86400} if on else None
        self._toggle("archive", value, "Archive")

    def _toggle_subtypes(self, on: bool) -> None:
        self._toggle("subtypes", {"discriminator": "type", "variants": {"a": [], "b": []}} if on else None, "Subtypes")


#: the ends' and counts' labels and tips of a relationship that is not many-to-many (``_name_the_counts``)
_COUNT_LABELS: dict[tuple[str, ...], tuple[str, str]] = {
    ("one",): ("One side", "The entity there is one of"),
    ("many",): ("Many side", "The entity there are N of"),
    ("typical",): ("Typical N", "Usual number of N per One"),
    ("max",): ("Max N", "Upper bound of N per One"),
    ("max_ones",): ("Max Ones per N", "Many-to-many only: upper bound of Ones per N"),
}


class RelationshipEditor(QWidget):
    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.rel_id: str | None = None
        self.engine_strategy: str | None = None
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: bold; font-size: 13pt;")
        self.title.setWordWrap(True)
        self.id_row = IdRow(document, "relationship", lambda: self.rel_id)
        self.ends = ModelForm(self.apply)
        self.ends.row("Id", self.id_row)
        self.one = self.ends.choice(["one"], *_COUNT_LABELS[("one",)], [])
        self.many = self.ends.choice(["many"], *_COUNT_LABELS[("many",)], [])
        self.entity_choices = EntityChoices(document, lambda e: e.name, self)  # the user's words, not ids
        self.one.use_model(self.entity_choices)
        self.many.use_model(self.entity_choices)
        self.swap_button = QPushButton("Swap ends")
        self.swap_button.setToolTip("Exchange the One and the Many side")
        self.swap_button.clicked.connect(self.swap)
        self.form = ModelForm(self.apply)
        f = self.form
        self.cardinality = f.choice(
            ["cardinality"],
            "Cardinality",
            "How many N per One: a few (embed them), many, or squillions",
            [(c, c) for c in CARDINALITIES],
        )
        f.name(["name"], "Role name", "Name of the N as seen from the One (addresses, tasks)")
        f.name(["inverse"], "Inverse name", "Name of the One as seen from the N (owner, author)")
        f.number(["typical"], *_COUNT_LABELS[("typical",)], integer=True)
        f.number(["max"], *_COUNT_LABELS[("max",)], integer=True)
        f.number(["max_ones"], *_COUNT_LABELS[("max_ones",)], integer=True)
        f.choice(
            ["growth"],
            "Growth",
            "Does N per One stay bounded?",
            [("(not set)", None), ("bounded", "bounded"), ("unbounded", "unbounded")],
        )
        self.standalone = f.check(
            ["many_standalone"],
            "Many side accessed on its own",
            "The N are read or updated without their One (e.g. tasks listed by due date)",
        )
        self.optional = f.check(
            ["optional"],
            "Optional: an N may have no One",
            "Some N have no One (an order without a customer): the N's reference to the One is not required\n"
            "in its validator (parent-ref, two-way, extended-ref). modeller infer sets it when only some\n"
            "documents hold the reference.",
        )
        f.number(["read_together"], "Read together", "Share (0..1) of reads of the One that also need the N")
        f.number(["show_latest"], "Show latest", "How many of the N the One's page shows", integer=True)
        f.check(["atomic"], "Atomic: an invariant spans both sides", "Both sides must change in one write")
        f.number(["reads_per_sec"], "Reads/s", "Traversals of this relationship per second")
        f.number(["writes_per_sec"], "Writes/s", "Changes to this relationship per second")
        self.strategy = f.choice(["strategy"], "Strategy", "How the relationship is stored", self._strategy_choices())
        self.denormalize = QTableWidget(0, 3)
        self.denormalize.setHorizontalHeaderLabels(["Field", "Direction", "Staleness"])
        self.denormalize.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.denormalize.setItemDelegateForColumn(1, ComboDelegate(["one-to-many", "many-to-one"], self))
        self.denormalize.setItemDelegateForColumn(2, ComboDelegate(list(STALENESS), self))
        self.denormalize.setToolTip(
            "Fields copied across the relationship. one-to-many: a field of the One copied into each N;\n"
            "many-to-one: a field of the N copied into the One. Staleness: how old a copy may be;\n"
            "forever: a point-in-time value (an order line's price), copied once and never synced."
        )
        self.denormalize.setMaximumHeight(120)
        self.denormalize.itemChanged.connect(lambda _item: self._commit_denormalize())
        self.denorm_error = error_label()
        add_copy = QPushButton("Add copied field")
        add_copy.setToolTip("Copy a field across this relationship (denormalize)")
        add_copy.clicked.connect(self.add_denormalized)
        remove_copy = QPushButton("Remove")
        remove_copy.setToolTip("Stop copying the selected field")
        remove_copy.clicked.connect(self.remove_denormalized)
        self.aggregates = QTableWidget(0, 3)
        self.aggregates.setObjectName("aggregates")
        self.aggregates.setHorizontalHeaderLabels(["Name", "Op", "Field of the N"])
        self.aggregates.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.aggregates.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.aggregates.setItemDelegateForColumn(1, ComboDelegate(list(AGGREGATE_OPS), self))
        self.aggregates.setToolTip(
            "Values computed over the N that reads of the One show (task_count, total_amount).\n"
            "count needs no field; sum, avg, min and max need the N's field to aggregate."
        )
        self.aggregates.setMaximumHeight(110)
        self.aggregates.itemChanged.connect(lambda _item: self._commit_aggregates())
        self.aggregates_error = error_label()
        self.aggregates_error.setObjectName("aggregates_error")
        self.add_aggregate_button = QPushButton("Add aggregate")
        self.add_aggregate_button.setToolTip("Show a count (or sum, average, ...) of the N on the One")
        self.add_aggregate_button.clicked.connect(self.add_aggregate)
        remove_aggregate = QPushButton("Remove")
        remove_aggregate.setToolTip("Remove the selected aggregate")
        remove_aggregate.clicked.connect(self.remove_aggregate)
        aggregates_box = QGroupBox("Aggregates shown on the One")
        aggregates_layout = QVBoxLayout(aggregates_box)
        aggregates_layout.addWidget(self.aggregates)
        aggregates_layout.addWidget(self.aggregates_error)
        aggregate_buttons = QHBoxLayout()
        aggregate_buttons.addWidget(self.add_aggregate_button)
        aggregate_buttons.addWidget(remove_aggregate)
        aggregate_buttons.addStretch(1)
        aggregates_layout.addLayout(aggregate_buttons)
        self.tree_ops: dict[str, QCheckBox] = {}
        tree_box = QGroupBox("Tree operations (self-relationships)")
        tree_layout = QGridLayout(tree_box)
        for i, op in enumerate(TREE_OPS):
            check = QCheckBox(op)
            check.setToolTip(f"The application needs the '{op}' operation on this tree")
            check.toggled.connect(lambda _on: self._commit_tree_ops())
            self.tree_ops[op] = check
            tree_layout.addWidget(check, i // 3, i % 3)
        self.tree_box = tree_box
        self.note_form = ModelForm(self._apply_note)
        self.note_form.long_text(["decision", "note"], "Decision note", "Why this design was chosen (kept in the file)")
        copies = QGroupBox("Denormalized fields")
        copies_layout = QVBoxLayout(copies)
        copies_layout.addWidget(self.denormalize)
        copies_layout.addWidget(self.denorm_error)
        buttons = QHBoxLayout()
        buttons.addWidget(add_copy)
        buttons.addWidget(remove_copy)
        buttons.addStretch(1)
        copies_layout.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.ends)
        layout.addWidget(self.swap_button, alignment=Qt.AlignmentFlag.AlignRight)
        layout.addWidget(self.form)
        layout.addWidget(copies)
        layout.addWidget(aggregates_box)
        layout.addWidget(tree_box)
        layout.addWidget(self.note_form)
        layout.addStretch(1)
        document.relationship_changed.connect(self._changed)
        # the ends' choices follow the document by themselves (EntityChoices); the title names the ends
        for signal in (document.entity_added, document.entity_removed, document.entity_changed):
            signal.connect(lambda _id: self._entities_changed())
        document.project_reset.connect(self._entities_changed)

    def _strategy_choices(self, many_to_many: bool = False) -> list[tuple[str, str]]:
        auto = f"Auto (engine: {self.engine_strategy})" if self.engine_strategy else "Auto (engine decides)"
        return [(auto, "auto")] + [(f"{s} — {strategy_help(s, many_to_many)}", s) for s in STRATEGIES if s != "auto"]

    def set_engine_strategy(self, strategy: str | None) -> None:
        """Show the engine's resolved choice in the combo's Auto entry."""
        self.engine_strategy = strategy
        self.strategy.combo.setItemText(0, self._strategy_choices()[0][0])

    def _word_the_strategies(self, rel: Relationship) -> None:
        """Each strategy says what the documents hold for this cardinality: a many-to-many's parent-ref is an
        array of ids in each N, not one reference."""
        combo = self.strategy.combo
        for text, value in self._strategy_choices(rel.cardinality == "many-to-many"):
            at = combo.findData(value)
            if at >= 0 and combo.itemText(at) != text:
                combo.setItemText(at, text)

    def _entities_changed(self) -> None:
        if self.rel_id:
            self.reload()

    def relationship(self) -> Relationship | None:
        return self.document.relationship(self.rel_id) if self.rel_id else None

    def _name_the_counts(self, rel: Relationship) -> None:
        """A many-to-many has no One and no Many: its ends and counts say which way they count, with the
        entities' names ("Max Products per Category"), since that Max N becomes the validator's maxItems of
        the Category's array of Product ids (the other way follows from the entity counts)."""
        one, many = (self._name(key) for key in (rel.one, rel.many))
        if rel.cardinality == "many-to-many":
            per = f"{plural_label(many)} per {one}"
            rows = {
                ("one",): (
                    "Counted per",
                    f"Each {one} relates to N {plural_label(many)}: the counts below are per {one}",
                ),
                ("many",): ("Counted", f"The N: how many {plural_label(many)} one {one} relates to"),
                ("typical",): (f"Typical {per}", f"Usual number of {plural_label(many)} per {one}"),
                ("max",): (
                    f"Max {per}",
                    f"Upper bound of {plural_label(many)} per {one}: the maxItems of the {one}'s array of "
                    f"{many} ids. Typical {plural_label(one)} per {many} follow from the entity counts "
                    "(Swap ends counts the other way)",
                ),
                ("max_ones",): (
                    f"Max {plural_label(one)} per {many}",
                    f"Upper bound of {plural_label(one)} per {many} (how many {plural_label(one)} one {many} can "
                    f"have): the maxItems of the {many}'s array of {one} ids; above "
                    f"{DEFAULT_SETTINGS.refarray_max:,} that side keeps no array",
                ),
            }
        else:
            rows = _COUNT_LABELS
        for path, (label, tip) in rows.items():
            (self.ends if path in (("one",), ("many",)) else self.form).set_label(list(path), label, tip)
        self.form.set_row_visible(["max_ones"], rel.cardinality == "many-to-many")

    def _name(self, entity_id: str) -> str:
        entity = self.document.entity(entity_id)
        return entity.name if entity is not None else entity_id

    def show_relationship(self, rel_id: str, engine_strategy: str | None = None) -> None:
        self.rel_id = rel_id
        self.set_engine_strategy(engine_strategy)
        self.reload()

    def _changed(self, rel_id: str) -> None:
        if rel_id == self.rel_id:
            self.reload()

    def reload(self) -> None:
        rel = self.relationship()
        if rel is None:
            return
        self.title.setText(f"Relationship {describe(self.document, rel)}")
        self.id_row.reload()
        self._name_the_counts(rel)
        self._word_the_strategies(rel)
        self.ends.load(rel)
        self.form.load(rel)
        self.note_form.load(rel)
        self.denormalize.blockSignals(True)
        self.denormalize.setRowCount(len(rel.denormalize))
        for row, copy in enumerate(rel.denormalize):
            for col, value in enumerate((copy.field, copy.direction, copy.staleness or "")):
                self.denormalize.setItem(row, col, QTableWidgetItem(value))
        self.denormalize.blockSignals(False)
        self.denorm_error.setVisible(False)
        self.aggregates.blockSignals(True)
        self.aggregates.setRowCount(len(rel.aggregates))
        for row, aggregate in enumerate(rel.aggregates):
            for col, value in enumerate((aggregate.name, aggregate.op, aggregate.field or "")):
                self.aggregates.setItem(row, col, QTableWidgetItem(value))
        self.aggregates.blockSignals(False)
        self.aggregates_error.setVisible(False)
        for op, check in self.tree_ops.items():
            check.blockSignals(True)
            check.setChecked(op in rel.tree_ops)
            check.blockSignals(False)
        self.tree_box.setVisible(rel.one == rel.many)

    def apply(self, path: Sequence[PathStep], value: Any, text: str | None = None, merge: bool = True) -> str | None:
        rel = self.relationship()
        if rel is None:
            return "no relationship selected"
        try:
            new = updated(rel, path, value)
        except EditRefused as err:
            return str(err)
        if new == rel:
            return None
        if (new.name, new.inverse) != (rel.name, rel.inverse):
            clash = name_refused(self.document.project, new)
            if clash is not None:
                return clash
        what = (self.ends if list(path) in (["one"], ["many"]) else self.form).label_of(path)
        label = text or f"Edit {describe(self.document, rel)}: {what}"
        key = _merge_key("relationship", rel.id, path, merge)
        self.document.push(EditRelationshipCommand(self.document, new, label, key))
        return None

    def swap(self) -> None:
        rel = self.relationship()
        if rel is None:
            return
        update: dict[str, Any] = {"one": rel.many, "many": rel.one}
        if rel.cardinality == "many-to-many":
            # both bounds are declared each way round: they change places; the typical number counted the old
            # way only (the entity counts give the new one), so it goes (undo brings it back)
            update.update(max=rel.max_ones, max_ones=rel.max, typical=None)
        new = rel.model_copy(update=update)
        self.document.push(EditRelationshipCommand(self.document, new, f"Swap ends of {describe(self.document, rel)}"))

    def _denormalized_rows(self) -> list[dict[str, Any]]:
        rows = []
        for row in range(self.denormalize.rowCount()):
            cells = [self.denormalize.item(row, col) for col in range(3)]
            field, direction, staleness = (c.text() if c is not None else "" for c in cells)
            # an empty staleness cell is "not chosen yet" (the engine asks which kind of copy it is)
            rows.append({"field": field, "direction": direction, **({"staleness": staleness} if staleness else {})})
        return rows

    def _commit_denormalize(self, rows: list[dict[str, Any]] | None = None) -> None:
        problem = self.apply(
            ["denormalize"],
            rows if rows is not None else self._denormalized_rows(),
            "Edit denormalized fields",
            merge=False,
        )
        self.denorm_error.setText(f"Not applied: {problem}" if problem else "")
        self.denorm_error.setVisible(problem is not None)

    def add_denormalized(self) -> None:
        rel = self.relationship()
        if rel is None:
            return
        one = self.document.entity(rel.one)
        name = one.fields[0].name if one is not None and one.fields else "name"
        self._commit_denormalize([*self._denormalized_rows(), {"field": name, "direction": "one-to-many"}])

    def remove_denormalized(self) -> None:
        rows = self._denormalized_rows()
        row = self.denormalize.currentRow()
        if 0 <= row < len(rows):
            del rows[row]
            self._commit_denormalize(rows)

    def _aggregate_rows(self) -> list[dict[str, Any]]:
        rows = []
        for row in range(self.aggregates.rowCount()):
            cells = [self.aggregates.item(row, col) for col in range(3)]
            name, op, field = (c.text().strip() if c is not None else "" for c in cells)
            rows.append({"name": name, "op": op, "field": field or None})
        return rows

    def _commit_aggregates(self, rows: list[dict[str, Any]] | None = None, text: str = "Edit aggregates") -> None:
        problem = self.apply(["aggregates"], rows if rows is not None else self._aggregate_rows(), text, merge=False)
        self.aggregates_error.setText(f"Not applied: {problem}" if problem else "")
        self.aggregates_error.setVisible(problem is not None)

    def add_aggregate(self) -> None:
        rel = self.relationship()
        if rel is None:
            return
        many = self.document.entity(rel.many)
        stem = rel.name or (snake(many.name) if many is not None else "item")
        taken = {a.name for a in rel.aggregates}
        name, n = f"{stem}_count", 2
        while name in taken:
            name, n = f"{stem}_count_{n}", n + 1
        self._commit_aggregates(
            [*self._aggregate_rows(), {"name": name, "op": "count", "field": None}], "Add aggregate"
        )

    def remove_aggregate(self) -> None:
        rows = self._aggregate_rows()
        row = self.aggregates.currentRow()
        if 0 <= row < len(rows):
            del rows[row]
            self._commit_aggregates(rows, "Remove aggregate")

    def _commit_tree_ops(self) -> None:
        ops = [op for op, check in self.tree_ops.items() if check.isChecked()]
        self.apply(["tree_ops"], ops, "Edit tree operations", merge=False)

    def _apply_note(self, path: Sequence[PathStep], value: Any) -> str | None:
        rel = self.relationship()
        if rel is None:
            return "no relationship selected"
        if not value and (rel.decision is None or rel.decision.strategy is None):
            return self.apply(["decision"], None)
        return self.apply(path, value or "")


class ProjectEditor(QWidget):
    """Shown when nothing is selected: the project's own settings."""

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        title = QLabel("Project")
        title.setStyleSheet("font-weight: bold; font-size: 13pt;")
        hint = QLabel(
            "Drag an Entity from the palette onto the canvas, then drag from a card's blue handle "
            "to another card to connect them."
        )
        hint.setWordWrap(True)
        self.form = ModelForm(self.apply)
        f = self.form
        f.name(["name"], "Name", "The project's name", optional=False)
        f.name(["database"], "Database", "MongoDB database name")
        f.text(["server_version"], "Server version", "Target MongoDB version, e.g. 7.0")
        f.check(["sharded"], "Sharded cluster", "The collections will be sharded")
        f.number(["shards"], "Shards", "Planned number of shards", integer=True)
        f.long_text(["description"], "Description", "What the application does")
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(hint)
        layout.addWidget(self.form)
        layout.addStretch(1)
        document.project_changed.connect(self.reload)
        document.project_reset.connect(self.reload)
        self.reload()

    def reload(self) -> None:
        self.form.load(self.document.project)

    def apply(self, path: Sequence[PathStep], value: Any) -> str | None:
        project = self.document.project
        if str(path[0]) in ("entities", "relationships", "queries", "layout", "overrides"):
            return "not a project setting"
        settings = project.model_copy(update={"entities": [], "relationships": [], "queries": [], "layout": {}})
        try:
            new = updated(settings, path, value)
        except EditRefused as err:
            return str(err)
        if new == settings:
            return None
        key = _merge_key("project", "", path, True)
        self.document.push(EditProjectCommand(self.document, new, f"Edit project: {self.form.label_of(path)}", key))
        return None


class PropertiesPanel(QWidget):
    """Stack of the three editors; the window tells it what is selected."""

    #: kind ("entity"/"relationship"), id: the canvas should select it (after an id rename)
    select_requested = Signal(str, str)

    def __init__(self, document: ProjectDocument, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.document = document
        self.project_editor = ProjectEditor(document)
        self.entity_editor = EntityEditor(document)
        self.relationship_editor = RelationshipEditor(document)
        self.multiple = QLabel()
        self.multiple.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.stack = QStackedWidget()
        for widget in (self.project_editor, self.entity_editor, self.relationship_editor, self.multiple):
            self.stack.addWidget(scrolled(widget))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.stack)
        document.entity_removed.connect(self._gone)
        document.relationship_removed.connect(self._gone)
        document.project_reset.connect(self.show_project)
        self.entity_editor.id_row.renamed.connect(self._renamed)
        self.relationship_editor.id_row.renamed.connect(self._renamed)

    def _renamed(self, kind: str, _old: str, new: str) -> None:
        """The edited object lives on under its new id: keep editing it."""
        if kind == "entity":
            self.show_entity(new)
        else:
            self.show_relationship(new)
        self.select_requested.emit(kind, new)

    def _gone(self, object_id: str) -> None:
        if object_id in (self.entity_editor.entity_id, self.relationship_editor.rel_id):
            self.show_project()

    def show_project(self) -> None:
        self.entity_editor.entity_id = None
        self.relationship_editor.rel_id = None
        self.stack.setCurrentIndex(0)

    def show_entity(self, entity_id: str) -> None:
        self.relationship_editor.rel_id = None
        self.entity_editor.show_entity(entity_id)
        self.stack.setCurrentIndex(1)

    def show_relationship(self, rel_id: str, engine_strategy: str | None = None) -> None:
        self.entity_editor.entity_id = None
        self.relationship_editor.show_relationship(rel_id, engine_strategy)
        self.stack.setCurrentIndex(2)

    def show_many(self, count: int) -> None:
        self.show_project()
        self.multiple.setText(f"{count} items selected")
        self.stack.setCurrentIndex(3)
