"""The window's actions for existing databases and schema changes, and what they do with the results.

File → Compare with…, Import from database…, Import from files…, and
Database → Apply design…; the main
window only creates :class:`DatabaseActions` and puts its actions in menus.
An import opens as a new unsaved project or merges in as one undo entry, and
the Recommendations panel is raised so the engine's view of the existing
schema shows at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence

from modeller.ui.importing import MERGE, Imported, merge_command, merge_message

if TYPE_CHECKING:
    from modeller.ui.dialogs.apply_dialog import ApplyDesignDialog
    from modeller.ui.dialogs.compare_dialog import CompareDialog
    from modeller.ui.dialogs.import_database_dialog import ImportDatabaseDialog
    from modeller.ui.dialogs.import_files_dialog import ImportFilesDialog
    from modeller.ui.main_window import MainWindow


class DatabaseActions(QObject):
    """Creates the actions and opens their dialogs (non-modal: the window stays usable)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.compare_action = self._action(
            "Compare &with…",
            self.show_compare,
            "Ctrl+Shift+D",
            "Compare the open design with its last saved version or another file, and export the migration script",
        )
        self.import_database_action = self._action(
            "Import from &database…",
            self.show_import_database,
            "Ctrl+Shift+I",
            "Sample a MongoDB database and infer its model (as a new project or added to this one)",
        )
        self.import_files_action = self._action(
            "Import from f&iles…",
            self.show_import_files,
            "Ctrl+Alt+I",
            "Infer a model from mongoexport files (JSON lines, JSON arrays, Extended JSON)",
        )
        self.apply_action = self._action(
            "&Apply design…",
            self.show_apply,
            "Ctrl+Shift+Y",
            "Create the design's collections, validators and indexes in a database after showing the plan "
            "(never drops anything)",
        )
        self.dialogs: dict[str, object] = {}

    def _action(self, text: str, slot: object, keys: str, tip: str) -> QAction:
        action = QAction(text, self.window)
        action.setShortcut(QKeySequence(keys))
        shortcut = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{tip} ({shortcut})")
        action.setStatusTip(tip)
        action.triggered.connect(slot)  # type: ignore[arg-type]
        self.window.addAction(action)
        return action

    def file_actions(self) -> list[QAction]:
        return [self.compare_action, self.import_database_action, self.import_files_action]

    def database_menu_actions(self) -> list[QAction]:
        """The Database menu: import from a server, apply the design to one."""
        return [self.import_database_action, self.apply_action]

    # ----------------------------------------------------------------- dialogs
    def _show(self, key: str, make: object) -> object:
        """One dialog of each kind, reused while it is open."""
        dialog = self.dialogs.get(key)
        if dialog is None:
            dialog = make()  # type: ignore[operator]
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # type: ignore[attr-defined]
            dialog.destroyed.connect(lambda _obj=None, k=key: self.dialogs.pop(k, None))  # type: ignore[attr-defined]
            self.dialogs[key] = dialog
        choice = getattr(dialog, "destination_choice", None)
        if choice is not None:  # the open project may have changed since the dialog was first shown
            choice.merge_radio.setEnabled(bool(self.window.document.project.entities))
        dialog.show()  # type: ignore[attr-defined]
        dialog.raise_()  # type: ignore[attr-defined]
        return dialog

    def show_import_database(self) -> ImportDatabaseDialog:
        from modeller.ui.dialogs.import_database_dialog import ImportDatabaseDialog

        def make() -> ImportDatabaseDialog:
            dialog = ImportDatabaseDialog(
                self.window.settings, bool(self.window.document.project.entities), self.window
            )
            self._take_results(dialog)
            return dialog

        return self._show("import-database", make)  # type: ignore[return-value]

    def show_import_files(self) -> ImportFilesDialog:
        from modeller.ui.dialogs.import_files_dialog import ImportFilesDialog

        def make() -> ImportFilesDialog:
            dialog = ImportFilesDialog(bool(self.window.document.project.entities), self.window)
            self._take_results(dialog)
            return dialog

        return self._show("import-files", make)  # type: ignore[return-value]

    def show_compare(self) -> CompareDialog:
        from modeller.ui.dialogs.compare_dialog import CompareDialog

        return self._show("compare", lambda: CompareDialog(self.window.document, self.window))  # type: ignore[return-value]

    def show_apply(self) -> ApplyDesignDialog:
        from modeller.ui.dialogs.apply_dialog import ApplyDesignDialog

        return self._show(  # type: ignore[return-value]
            "apply", lambda: ApplyDesignDialog(self.window.document, self.window.settings, self.window)
        )

    # ----------------------------------------------------------------- results
    def _take_results(self, dialog: ImportDatabaseDialog | ImportFilesDialog) -> None:
        """The dialog closes once the window took its result; it stays open when the user kept the project."""

        def take(imported: Imported, destination: str) -> None:
            dialog.taken = self.receive(imported, destination)

        dialog.imported.connect(take)

    def receive(self, imported: Imported, destination: str) -> bool:
        """Open or merge an inferred project; False when the user kept the open project instead."""
        window = self.window
        if destination == MERGE and window.document.project.entities:
            plan = merge_command(window.document, imported, self.modelled_collections(), self._beside())
            if plan.command is not None:
                window.document.push(plan.command)
                window.scene.select_only([kid.entity.id for kid in plan.command.kids if hasattr(kid, "entity")])
            message = merge_message(plan, imported.origin)
        else:
            if not window.maybe_save():
                return False
            window.document.reset(imported.project, None, modified=True)
            window.recovery.clear()
            window.view.fit_on_open()
            collections = sum(1 for e in imported.project.entities if e.collection is not None)
            message = (
                f"Imported {collections} collection(s) from {imported.origin} as a new project: "
                "see Recommendations for what the engine thinks, then File → Save"
            )
        dock = window.docks.get("recommendations")
        if dock is not None:
            dock.show()
            dock.raise_()
        window.notify(message, 15000)
        return True

    def modelled_collections(self) -> set[str]:
        """The collections the open project stores (from the last analysis; explicit ones without it)."""
        design = getattr(self.window.analysis.latest, "design", None)
        names = {c.name for c in getattr(design, "collections", ())}
        return names | {e.collection for e in self.window.document.project.entities if e.collection}

    def _beside(self) -> tuple[float, float]:
        """Where merged cards go: right of the existing diagram, top-aligned."""
        rect = self.window.scene.content_rect()
        return (rect.right() + 160.0, rect.top()) if not rect.isNull() else (0.0, 0.0)
