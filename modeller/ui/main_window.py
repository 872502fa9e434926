"""The main window: canvas in the middle, palette, properties and queries docked around it.

It wires actions to commands and files to the document; it never edits the
model itself. Later docks (recommendations, preview) register through
:meth:`MainWindow.add_dock` and subscribe to :attr:`MainWindow.document` and
:attr:`MainWindow.analysis`.
"""

from __future__ import annotations

import importlib
import json
import threading
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from PySide6.QtCore import QByteArray, QMimeData, QPointF, QSettings, QSize, QStandardPaths, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QCloseEvent, QDragEnterEvent, QDropEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QProgressBar,
    QToolButton,
    QWidget,
)

from modeller.model import Position, Project
from modeller.model.text import shown
from modeller.model.wording import counted
from modeller.persistence import (
    ProjectFileError,
    check_loaded,
    dumps_project,
    load_project,
    loads_project,
    save_project,
)
from modeller.runtime.gc_pause import collector_paused, keep_long_lived
from modeller.ui.analysis import Analyse, AnalysisService, engine_analyse
from modeller.ui.canvas.arrange import ArrangingStatus
from modeller.ui.canvas.menus import CanvasMenus, MenuHooks
from modeller.ui.canvas.scene import CanvasScene
from modeller.ui.canvas.view import CanvasView, project_file_in
from modeller.ui.commands import AddEntityCommand, EditProjectCommand, MoveCommand, delete_command, paste_command
from modeller.ui.commands.composite import FRAGMENT_MIME, fragment_text
from modeller.ui.database_actions import DatabaseActions
from modeller.ui.dialogs.messages import Unsaved, ask_restore, ask_unsaved, show_file_error
from modeller.ui.dialogs.new_project_dialog import NewProjectDialog
from modeller.ui.dialogs.rule_reference import RuleReferenceDialog
from modeller.ui.document import UNTITLED, ProjectDocument, project_stem
from modeller.ui.find_entity import FindBar
from modeller.ui.gil_share import ui_gets_the_gil_back
from modeller.ui.import_order import drop_read_sources
from modeller.ui.jobs import BackgroundJob
from modeller.ui.layout_job import LayoutJob
from modeller.ui.live import LiveController, status_label
from modeller.ui.open_phase import BUILT, FINDINGS, OpenPhase
from modeller.ui.panels.empty_hint import EmptyCanvasHint
from modeller.ui.panels.palette_panel import PalettePanel
from modeller.ui.panels.preview import PreviewPanel
from modeller.ui.panels.properties_panel import PropertiesPanel
from modeller.ui.panels.queries_panel import QueriesPanel
from modeller.ui.panels.recommendations import RecommendationsPanel
from modeller.ui.query_highlight import QueryHighlight
from modeller.ui.recovery import RecoveryStore
from modeller.ui.shortcuts import redo_keys
from modeller.ui.theme.icons import icon
from modeller.ui.theme.theme import (
    THEME_LABELS,
    THEMES,
    apply_theme,
    recolor_canvas,
    refresh_highlighters,
    store_theme,
    stored_theme,
)
from modeller.ui.widgets.build_status import CardsBuildingLabel

if TYPE_CHECKING:
    from modeller.ui.dialogs.entity_dialog import EntityDialog
    from modeller.ui.dialogs.export_dialog import ExportDialog

AUTOSAVE_MS = 60_000
MAX_RECENT = 10
#: settings keys of the remembered window size/position and dock layout; the version refuses a layout of other docks
GEOMETRY_KEY, STATE_KEY, STATE_VERSION = "window/geometry", "window/state", 1
FILE_FILTER = "Modeller projects (*.modeller.json);;JSON files (*.json);;All files (*)"
#: files at least this large (about 300 entities) are read and validated in a worker thread; smaller ones at once
OPEN_IN_BACKGROUND_BYTES = 256 * 1024


def _file_size(path: Path) -> int:
    """Bytes in ``path``, 0 when it cannot be looked at (the loader then names the problem)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0


def opens_in_background(path: Path) -> bool:
    """A file this large is read in a worker thread while the window answers (a missing one is not: its error is
    at once)."""
    return _file_size(path) >= OPEN_IN_BACKGROUND_BYTES


def _read(path: Path) -> Project:
    """The worker's first part of an open: read and validate each object, then keep the project out of the
    collector's passes. The whole-project checks (a third of the read) wait until the canvas shows: _check."""
    with ui_gets_the_gil_back(), collector_paused():  # a pass during the read held the GIL for a second
        project = load_project(path, check=False)
        keep_long_lived()
    return project


def _check(path: Path, project: Project) -> None:
    """The worker's second part: the checks across the project, raised as the loader words them."""
    with ui_gets_the_gil_back():
        check_loaded(project, path)


def _delete_after_listeners(job: BackgroundJob) -> None:
    """Delete a finished job after every listener of its ``finished`` ran: the worker may still be posting the
    signal to the listeners after this one (deleting the job at once dropped theirs); it ends right after the emit."""
    if job.thread is not None:
        job.thread.join()
    QTimer.singleShot(0, job.deleteLater)


def _warm_up_preview() -> None:
    """Import the sample generator and build its first Faker: the first one in a process scans Faker's
    providers (0.15 s and more; later ones, in any thread, take a millisecond), which the preview did on
    the UI thread when the findings arrived. The last large batch of imports: the source PySide6's import
    hook read for them (5 MiB for Faker alone) is let go after it."""
    with ui_gets_the_gil_back():
        values = importlib.import_module("modeller.export.values")
        importlib.import_module("modeller.export.samples")
        values.ValueFactory(0)
    drop_read_sources()


def default_recovery_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(base or Path.home() / ".modeller") / "recovery"


class _Shown(NamedTuple):
    """What the window showed before an open replaced it (brought back when the open's checks fail)."""

    project: Project
    path: Path | None
    modified: bool


#: the status bar's hint after a new relationship (shown until the next edit, at most 5 s)
RELATIONSHIP_HINT = "Relationship created: set its cardinality in Properties"
#: an opened model larger than the view at a readable zoom shows its top-left part (see CanvasView.fit_on_open)
PART_SHOWN_HINT = "Part of the diagram lies outside the view: View ▸ Fit to Window (Ctrl+9) shows all of it"


class MainWindow(QMainWindow):
    #: an open (or revert) read in the background has ended: True when its project is now shown
    open_finished = Signal(bool)
    #: a background autosave failed (the reason); shown in the status bar on the UI thread
    autosave_failed = Signal(str)

    def __init__(
        self,
        settings: QSettings | None = None,
        recovery_dir: Path | None = None,
        analyse: Analyse | None = None,
        use_engine: bool = True,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.settings = settings or QSettings()
        self.recovery = RecoveryStore(recovery_dir or default_recovery_dir())
        self.document = ProjectDocument(parent=self)
        if analyse is None and use_engine:
            analyse = engine_analyse()
        self.analysis = AnalysisService(self.document, analyse, parent=self)
        self.scene = CanvasScene(self.document, parent=self)
        self.view = CanvasView(self.scene)
        self.setCentralWidget(self.view)
        self.empty_hint = EmptyCanvasHint(self.view, self.document)
        self.find_bar = FindBar(self.view, self.document)
        self.setWindowIcon(icon("app"))
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.docks: dict[str, QDockWidget] = {}
        self.palette_panel = PalettePanel()
        self.properties = PropertiesPanel(self.document)
        self.properties.select_requested.connect(
            lambda kind, ident: self.scene.select_only(*(([ident], []) if kind == "entity" else ([], [ident])))
        )
        self.properties.entity_editor.window_requested.connect(self.edit_fields)
        self.queries = QueriesPanel(self.document)
        self.add_dock("palette", "Palette", self.palette_panel, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.add_dock("properties", "Properties", self.properties, Qt.DockWidgetArea.RightDockWidgetArea)
        self.add_dock("queries", "Queries", self.queries, Qt.DockWidgetArea.RightDockWidgetArea, "properties")
        self.docks["properties"].raise_()
        # live advice and the preview of the documents
        self.recommendations = RecommendationsPanel(self.document)
        self.preview = PreviewPanel(self.document)
        self.add_dock("recommendations", "Recommendations", self.recommendations, Qt.DockWidgetArea.RightDockWidgetArea)
        self.add_dock("preview", "Preview", self.preview, Qt.DockWidgetArea.BottomDockWidgetArea)
        self.resizeDocks([self.docks["preview"]], [300], Qt.Orientation.Vertical)
        self.resizeDocks([self.docks["properties"], self.docks["recommendations"]], [360, 560], Qt.Orientation.Vertical)
        self.resizeDocks([self.docks["properties"]], [420], Qt.Orientation.Horizontal)
        self.resizeDocks([self.docks["palette"]], [190], Qt.Orientation.Horizontal)
        self._paste_count = 0
        #: the running auto-layout, and the ``dot`` it runs (None: the one on PATH)
        self.layout_job: LayoutJob | None = None
        self.layout_dot: str | None = None
        self._layout_started_at: dict[str, Position | None] = {}
        #: the file being read in the background (File ▸ Open of a large project)
        self.open_job: BackgroundJob | None = None
        #: while an open is shown but still being checked: what it replaced
        self._shown_before: _Shown | None = None
        #: the checks of an open shown, started once its first findings are on screen (see _check_in_background)
        self._check_waiting: BackgroundJob | None = None
        #: from the read of a large project until it is built and its findings show (see open_phase)
        self.open_phase = OpenPhase()
        #: the preview's sample generator was imported (once per process is enough; see _warm_up_after_build)
        self._warmed_up = False
        self._build_actions()
        self._build_menus()
        self._build_toolbar()
        self._build_status_bar()
        self.palette_panel.add_requested.connect(lambda key: self.view.add_template(key))
        self.view.menus = CanvasMenus(
            self.view,
            MenuHooks(
                duplicate=self.duplicate,
                paste=self.paste,
                can_paste=self.can_paste,
                add_query=self.add_query_on,
                show_preview=self.show_in_preview,
                edit_fields=self.edit_fields,
                notify=lambda message: self.notify(message, 6000),
            ),
        )
        self.scene.selection_settled.connect(self._selection_changed)
        self.query_highlight = QueryHighlight(self.document, self.scene, self.queries, self.preview, self)
        self.scene.relationship_created.connect(self._relationship_created)
        self.find_bar.chosen.connect(self.show_entity_found)
        self.find_bar.not_found.connect(lambda text: self.notify(f"No entity's name contains “{text}”", 6000))
        self.preview.entity_chosen.connect(self.show_entity_found)
        self.view.file_dropped.connect(self.open_path)
        self.view.zoom_changed.connect(lambda _z: self._update_status())
        # a card scrolled into sight while the canvas is still being built is built at once
        bars = (self.view.horizontalScrollBar(), self.view.verticalScrollBar())
        for moved in (self.view.zoom_changed, *(bar.valueChanged for bar in bars)):
            moved.connect(lambda _value: self.scene.sight_changed())
        self.view.opened_in_part.connect(lambda: self.notify(PART_SHOWN_HINT, 10000))
        self.document.changed.connect(self._update_status)
        self.document.project_reset.connect(self.cancel_auto_layout)  # another project: the result is meaningless
        self.document.path_changed.connect(self._update_title)
        self.document.undo_stack.cleanChanged.connect(lambda _clean: self._update_title())
        self.document.undo_stack.cleanChanged.connect(self._clean_changed)
        self.analysis.analysed.connect(self._analysed)
        # an open's checks wait for its findings, and for the hand-over of them: every slot of ``analysed`` (the
        # findings list, the markers) runs first, alone with the interpreter (see _start_waiting_check)
        for ended in (self.analysis.analysed, self.analysis.failed):
            ended.connect(lambda _result: QTimer.singleShot(0, self, self._start_waiting_check))
        self.analysis.analysed.connect(lambda _analysis: self.open_phase.done(FINDINGS))
        self.analysis.failed.connect(lambda _message: self.open_phase.done(FINDINGS))
        self.scene.built.connect(lambda: self.open_phase.done(BUILT))
        # the preview's background sample starts after the cards: both want the one interpreter, cards first
        self.preview.hold_samples_while(lambda: self.scene.building)
        self.scene.built.connect(self.preview.release_samples)
        self.analysis.running.connect(self.scene.set_background_busy)  # the cards out of sight wait for it
        self.analysis.failed.connect(lambda message: self.notify(message, 8000))
        self.live = LiveController(
            self.analysis,
            self.recommendations,
            self.preview,
            self.scene,
            self.view,
            self.findings_label,
            open_rule=self.show_rule_reference,
            parent=self,
        )
        self._autosaving: threading.Thread | None = None
        self.autosave_failed.connect(lambda reason: self.notify(f"Autosave failed: {reason}", 8000))
        self.autosave_timer = QTimer(self)
        self.autosave_timer.setInterval(AUTOSAVE_MS)
        self.autosave_timer.timeout.connect(self.autosave_in_background)
        self.autosave_timer.start()
        self.resize(1400, 900)
        self._update_title()
        self._update_status()
        self._update_recent_menu()

    # ------------------------------------------------------------ extension point
    def add_dock(
        self, name: str, title: str, widget: QWidget, area: Qt.DockWidgetArea, tabify_with: str | None = None
    ) -> QDockWidget:
        """Register a dock: it gets a View-menu toggle and a stable object name (saved window state)."""
        dock = QDockWidget(title, self)
        dock.setObjectName(f"dock_{name}")
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        if tabify_with is not None and tabify_with in self.docks:
            self.tabifyDockWidget(self.docks[tabify_with], dock)
        self.docks[name] = dock
        if hasattr(self, "docks_menu"):
            self.docks_menu.addAction(dock.toggleViewAction())
        return dock

    # ------------------------------------------------------------ actions
    def _action(
        self,
        text: str,
        slot: object,
        shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
        tip: str = "",
        icon_name: str | None = None,
        canvas_only: bool = False,
    ) -> QAction:
        action = QAction(text, self)
        if icon_name:
            action.setIcon(icon(icon_name))
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        label = text.replace("&", "").rstrip(".")
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{tip or label} ({keys})" if keys else (tip or label))
        action.setStatusTip(tip or label)
        action.triggered.connect(slot)  # type: ignore[arg-type]
        if canvas_only:
            # Delete/Copy/Paste in a text box edit the text, not the diagram
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            self.view.addAction(action)
        return action

    def _build_actions(self) -> None:
        K = QKeySequence.StandardKey
        self.new_action = self._action("&New", self.new_project, K.New, "Start an empty project", "new")
        self.open_action = self._action("&Open…", self.open_dialog, K.Open, "Open a project file", "open")
        self.save_action = self._action("&Save", self.save, K.Save, "Save the project", "save")
        self.save_as_action = self._action("Save &As…", self.save_as, K.SaveAs, "Save under a new name")
        if self.save_as_action.shortcut().isEmpty():
            self.save_as_action.setShortcut(QKeySequence("Ctrl+Shift+S"))
        self.revert_action = self._action("&Revert", self.revert, None, "Reload the file, dropping unsaved changes")
        self.quit_action = self._action("&Quit", self.close, K.Quit, "Close the window")
        if self.quit_action.shortcut().isEmpty():
            self.quit_action.setShortcut(QKeySequence("Ctrl+Q"))
        stack = self.document.undo_stack
        self.undo_action = stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence(K.Undo))
        self.undo_action.setIcon(icon("undo"))
        self.redo_action = stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts(redo_keys())
        self.redo_action.setIcon(icon("redo"))
        self.cut_action = self._action("Cu&t", self.cut, K.Cut, "Copy and delete the selected cards", None, True)
        self.copy_action = self._action("&Copy", self.copy, K.Copy, "Copy the selected cards", "copy", True)
        self.paste_action = self._action("&Paste", lambda: self.paste(), K.Paste, "Paste copied cards", "paste", True)
        self.duplicate_action = self._action(
            "&Duplicate", self.duplicate, "Ctrl+D", "Copy and paste the selection at once", "duplicate", True
        )
        self.delete_action = self._action(
            "&Delete", self.delete_selection, K.Delete, "Delete the selection (with its relationships)", "delete", True
        )
        self.delete_action.setShortcuts([QKeySequence(K.Delete), QKeySequence("Backspace")])
        self.select_all_action = self._action(
            "Select &All", self.select_all, K.SelectAll, "Select every card and line", "select-all", True
        )
        self.add_entity_action = self._action(
            "Add &Entity", lambda: self.view.add_template("entity"), "Ctrl+E", "Add an entity at the centre", "entity"
        )
        self.rename_action = self._action(
            "&Rename", self._rename_selected, "F2", "Rename the selected card in place", None, True
        )
        self.add_field_action = self._action(
            "Add &Field",
            self._add_field_to_selected,
            "Ctrl+Shift+F",
            "Add a field to the selected card (Enter on a selected card does the same)",
            None,
            True,
        )
        self.edit_fields_action = self._action(
            "Edit Fie&lds…",
            lambda: self.edit_fields(self._single_selected_entity()),
            "Ctrl+Shift+Return",
            "Edit the selected entity's fields and properties in a window of their own",
            None,
            True,
        )
        self.find_action = self._action(
            "&Find Entity…", self.find_bar.open, K.Find, "Find an entity by name: select and centre its card"
        )
        self.add_query_action = self._action(
            "Add &Query", self.queries.add_query, "Ctrl+Shift+Q", "Declare a query on the selected entity", "query"
        )
        self.zoom_in_action = self._action("Zoom &In", self.view.zoom_in, K.ZoomIn, "Zoom in (Ctrl+wheel)", "zoom-in")
        self.zoom_in_action.setShortcuts([QKeySequence(K.ZoomIn), QKeySequence("Ctrl+=")])
        self.zoom_out_action = self._action(
            "Zoom &Out", self.view.zoom_out, K.ZoomOut, "Zoom out (Ctrl+wheel)", "zoom-out"
        )
        self.zoom_reset_action = self._action(
            "&Actual Size", self.view.reset_zoom, "Ctrl+0", "Zoom to 100 %", "zoom-reset"
        )
        self.fit_action = self._action(
            "&Fit to Window", self.view.fit_to_window, "Ctrl+9", "Show the whole diagram", "fit"
        )
        self.layout_action = self._action(
            "Auto-&layout",
            self.auto_layout,
            "Ctrl+L",
            "Arrange the cards (Graphviz dot, or the built-in layout)",
            "layout",
        )
        self.diagram_view_action = self._action(
            "&Entities", lambda: self.set_documents_view(False), "Ctrl+1", "Show entities and relationships"
        )
        self.documents_view_action = self._action(
            "&Documents",
            lambda: self.set_documents_view(True),
            "Ctrl+2",
            "Show collections as stored: embedded entities inside their parent, references, copies, sizes",
        )
        self.view_group = QActionGroup(self)
        for action in (self.diagram_view_action, self.documents_view_action):
            action.setCheckable(True)
            self.view_group.addAction(action)
        self.diagram_view_action.setChecked(True)
        self.snap_action = self._action("&Snap to Grid", self._toggle_snap, None, "Cards snap to the grid when moved")
        self.snap_action.setCheckable(True)
        self.snap_action.setChecked(self.scene.snap_to_grid)
        self.grid_action = self._action("Show &Grid", self._toggle_grid, None, "Draw the background grid")
        self.grid_action.setCheckable(True)
        self.grid_action.setChecked(True)
        self.legend_action = self._action("&Legend", self._toggle_legend, None, "Show the notation legend", "legend")
        self.legend_action.setCheckable(True)
        self.legend_action.setChecked(True)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu("&File")
        file_menu.addActions([self.new_action, self.open_action])
        self.recent_menu = QMenu("Open &Recent", self)
        file_menu.addMenu(self.recent_menu)
        file_menu.addSeparator()
        file_menu.addActions([self.save_action, self.save_as_action, self.revert_action])
        file_menu.addSeparator()
        self.database_actions = DatabaseActions(self)  # compare, import from a database or files
        file_menu.addActions(self.database_actions.file_actions())
        file_menu.addSeparator()
        self.export_action = self._action(
            "&Export…",
            self.show_export_dialog,
            "Ctrl+Shift+E",  # Ctrl+E adds an entity
            "Write the mongosh script, validators, samples, diagram and report",
        )
        file_menu.addAction(self.export_action)
        file_menu.addSeparator()
        file_menu.addAction(self.quit_action)
        edit = bar.addMenu("&Edit")
        edit.addActions([self.undo_action, self.redo_action])
        edit.addSeparator()
        edit.addActions(
            [self.cut_action, self.copy_action, self.paste_action, self.duplicate_action, self.delete_action]
        )
        edit.addSeparator()
        edit.addActions([self.select_all_action, self.find_action, self.add_entity_action, self.add_query_action])
        edit.addActions([self.rename_action, self.add_field_action, self.edit_fields_action])
        view = bar.addMenu("&View")
        view.addActions([self.diagram_view_action, self.documents_view_action])
        view.addSeparator()
        view.addActions([self.zoom_in_action, self.zoom_out_action, self.zoom_reset_action, self.fit_action])
        view.addSeparator()
        view.addActions([self.layout_action, self.snap_action, self.grid_action, self.legend_action])
        view.addSeparator()
        self.docks_menu = view.addMenu("&Panels")
        for dock in self.docks.values():
            self.docks_menu.addAction(dock.toggleViewAction())
        self._build_theme_menu(view)
        self.database_menu = bar.addMenu("&Database")
        self.database_menu.addActions(self.database_actions.database_menu_actions())
        help_menu = bar.addMenu("&Help")
        self.rule_reference_action = self._action(
            "&Rule reference",
            lambda: self.show_rule_reference(),
            "F1",
            "Every rule of the engine with its documentation and sources",
        )
        help_menu.addAction(self.rule_reference_action)

    def _build_theme_menu(self, view: QMenu) -> None:
        """View ▸ Theme: System / Light / Dark, remembered in the settings and applied at once."""
        self.theme_menu = view.addMenu("&Theme")
        self.theme_menu.setToolTipsVisible(True)
        group = QActionGroup(self)
        group.setExclusive(True)
        self.theme_actions: dict[str, QAction] = {}
        tips = {
            "system": "Follow the desktop's light or dark palette",
            "light": "Light palette, whatever the desktop uses",
            "dark": "Dark palette, whatever the desktop uses",
        }
        current = stored_theme(self.settings)
        for name in THEMES:
            action = QAction(THEME_LABELS[name], self)
            action.setCheckable(True)
            action.setChecked(name == current)
            action.setToolTip(tips[name])
            action.setStatusTip(tips[name])
            action.triggered.connect(lambda _checked=False, n=name: self.set_theme(n))
            group.addAction(action)
            self.theme_menu.addAction(action)
            self.theme_actions[name] = action

    def set_theme(self, name: str, persist: bool = True) -> None:
        """Apply ``name`` to the whole application now; ``persist`` stores it for the next start."""
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, name)
        recolor_canvas(self.scene, self.view)
        refresh_highlighters(self)
        self.theme_actions[name].setChecked(True)
        if persist:
            store_theme(self.settings, name)

    def _build_toolbar(self) -> None:
        bar = self.addToolBar("Main")
        bar.setObjectName("toolbar_main")
        bar.setIconSize(QSize(22, 22))
        bar.addActions([self.new_action, self.open_action, self.save_action])
        bar.addSeparator()
        bar.addActions([self.undo_action, self.redo_action])
        bar.addSeparator()
        bar.addActions([self.add_entity_action, self.delete_action, self.copy_action, self.paste_action])
        bar.addSeparator()
        bar.addActions([self.zoom_in_action, self.zoom_out_action, self.fit_action, self.layout_action])

    def _build_status_bar(self) -> None:
        self.counts_label = QLabel()
        self.counts_label.setToolTip("Entities, relationships and queries in the project")
        self.zoom_label = QLabel()
        self.zoom_label.setToolTip("Zoom (Ctrl+wheel, Ctrl+0 for 100 %)")
        self.findings_label = status_label()
        # a busy bar next to "Analysing…" while the engine works in the background (a large project just opened)
        self.analysis_progress = QProgressBar()
        self.analysis_progress.setRange(0, 0)
        self.analysis_progress.setMaximumWidth(90)
        self.analysis_progress.setTextVisible(False)
        self.analysis_progress.setToolTip("The recommendation engine is analysing the project; you can keep working")
        self.analysis_progress.hide()
        self.analysis.running.connect(self.analysis_progress.setVisible)
        # "Drawing cards: 3,400 of 10,000…" while the cards out of sight of a large project are still made
        self.cards_building = CardsBuildingLabel(self.scene, lambda: len(self.document.project.entities))
        for step in (self.scene.in_view_built, self.scene.built):
            step.connect(self.cards_building.refresh)
        self.statusBar().addPermanentWidget(self.cards_building)
        # "Arranging collection cards: 3,400 of 10,000…" with Cancel (Esc) while a large diagram's view turns
        self.arranging_status = ArrangingStatus(self.scene, self)
        self.arranging_status.cancelled.connect(self._view_turn_cancelled)
        self.scene.arrange_progress.connect(self._long_tasks_changed)
        self.statusBar().addPermanentWidget(self.arranging_status)
        self.statusBar().addPermanentWidget(self.analysis_progress)
        self.statusBar().addPermanentWidget(self.findings_label)
        self.statusBar().addPermanentWidget(self.counts_label)
        self.statusBar().addPermanentWidget(self.zoom_label)
        self._build_layout_progress()
        self._build_open_progress()

    def _build_open_progress(self) -> None:
        """ "Opening NAME…" with a busy bar and Cancel while a large file is read and validated in the background."""
        self.open_progress_label = QLabel()
        self.open_progress_bar = QProgressBar()
        self.open_progress_bar.setRange(0, 0)  # busy: the loader reports no steps
        self.open_progress_bar.setMaximumWidth(90)
        self.open_progress_bar.setTextVisible(False)
        self.open_cancel_button = QToolButton()
        self.open_cancel_button.setText("Cancel")
        self.open_cancel_button.setToolTip("Stop opening this file and keep the project shown now")
        self.open_cancel_button.clicked.connect(self.cancel_open)
        for index, widget in enumerate([self.open_progress_label, self.open_progress_bar, self.open_cancel_button]):
            self.statusBar().insertPermanentWidget(index, widget)
            widget.hide()

    def _build_layout_progress(self) -> None:
        """ "Laying out N entities…" with a busy bar and Cancel, shown in the status bar while a layout runs.

        Permanent widgets, because a temporary status message would hide ordinary ones.
        """
        self.layout_progress_label = QLabel()
        self.layout_progress_bar = QProgressBar()
        self.layout_progress_bar.setRange(0, 0)  # busy: dot reports no progress
        self.layout_progress_bar.setMaximumWidth(90)
        self.layout_progress_bar.setTextVisible(False)
        self.layout_cancel_button = QToolButton()
        self.layout_cancel_button.setText("Cancel")
        self.layout_cancel_button.setToolTip("Stop the auto-layout and leave the cards where they are (Esc)")
        self.layout_cancel_button.clicked.connect(self.cancel_auto_layout)
        # one Esc for every long task (two shortcuts for one key are ambiguous to Qt: neither would fire)
        self.cancel_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self.cancel_shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.cancel_shortcut.activated.connect(self.cancel_long_tasks)
        self.cancel_shortcut.setEnabled(False)
        for index, widget in enumerate(
            [self.layout_progress_label, self.layout_progress_bar, self.layout_cancel_button]
        ):
            self.statusBar().insertPermanentWidget(index, widget)
            widget.hide()

    # ------------------------------------------------------------ status and title
    def _update_status(self) -> None:
        p = self.document.project
        self.counts_label.setText(
            f"{counted(len(p.entities), 'entity', 'entities')} · {counted(len(p.relationships), 'relationship')} · "
            f"{counted(len(p.queries), 'query', 'queries')}"
        )
        self.zoom_label.setText(f"{round(self.view.zoom() * 100)} %")

    def title_text(self) -> str:
        path = self.document.path
        name = path.name if path else self.document.project.name
        return f"{shown(name)}{'*' if self.document.is_modified() else ''} — Modeller"

    def notify(self, message: str, timeout_ms: int) -> None:
        """A status-bar message; the user text in it (paths, names, errors) shown escaped and cut."""
        self.statusBar().showMessage(shown(message, 500), timeout_ms)

    def _update_title(self) -> None:
        self.setWindowTitle(self.title_text())

    def _clean_changed(self, clean: bool) -> None:
        if clean:
            self.recovery.clear()

    # ------------------------------------------------------------ selection
    def _selection_changed(self) -> None:
        entities = self.scene.selected_entity_ids()
        rels = self.scene.selected_relationship_ids()
        if len(entities) + len(rels) > 1:
            self.properties.show_many(len(entities) + len(rels))
        elif entities:
            self.properties.show_entity(entities[0])
            self.queries.current_entity = entities[0]
        elif rels:
            self.properties.show_relationship(rels[0], self._engine_strategy(rels[0]))
        else:
            self.properties.show_project()

    def _engine_strategy(self, rel_id: str) -> str | None:
        design = getattr(self.analysis.latest, "design", None)
        for resolved in getattr(design, "relationships", []):
            if resolved.id == rel_id:
                return str(resolved.strategy)
        return None

    def _relationship_created(self, rel_id: str) -> None:
        self.docks["properties"].show()
        self.docks["properties"].raise_()
        self.statusBar().showMessage(RELATIONSHIP_HINT, 5000)
        # the hint belongs to this edit: the next edit (or undo) takes it away, even within the 5 s
        self._hint_index = self.document.undo_stack.index()
        if not getattr(self, "_hint_connected", False):
            self._hint_connected = True
            self.document.undo_stack.indexChanged.connect(self._drop_edit_hint)

    def _drop_edit_hint(self, index: int) -> None:
        if index != self._hint_index and self.statusBar().currentMessage() == RELATIONSHIP_HINT:
            self.statusBar().clearMessage()

    def _analysed(self, analysis: object) -> None:
        self.scene.set_analysis(analysis)
        self.query_highlight.refresh(analysis)
        rel_id = self.properties.relationship_editor.rel_id
        if rel_id:
            self.properties.relationship_editor.set_engine_strategy(self._engine_strategy(rel_id))

    # ------------------------------------------------------------ edit actions
    def delete_selection(self) -> None:
        command = delete_command(
            self.document, self.scene.selected_entity_ids(), self.scene.selected_relationship_ids()
        )
        if command is not None:
            self.document.push(command)

    def add_query_on(self, entity_id: str) -> None:
        """A new query on ``entity_id`` (one undo entry), shown in the Queries dock."""
        self.queries.current_entity = entity_id
        self.queries.add_query()
        self.docks["queries"].show()
        self.docks["queries"].raise_()

    def show_entity_found(self, entity_id: str) -> None:
        """Find (or the Preview's collection choice): select and centre the card, with its findings in sight."""
        self.live.reveal("entity", entity_id)
        self.docks["recommendations"].show()
        self.docks["recommendations"].raise_()

    def show_in_preview(self, entity_id: str) -> None:
        """The documents of the collection holding ``entity_id`` in the Preview dock."""
        self.docks["preview"].show()
        self.docks["preview"].raise_()
        self.preview.show_entity(entity_id)

    def set_documents_view(self, on: bool) -> None:
        """View → Documents (Ctrl+2) / Entities (Ctrl+1): the same cards, near the same places (see canvas/documents.py)."""
        if on and self.analysis.latest is None:
            self.analysis.run_now()
        if not self.scene.set_documents_view(on):
            self.diagram_view_action.setChecked(True)
            self.notify("The Documents view needs the engine's analysis, which has not finished yet", 5000)
            return
        self.view.grow_scene_rect()  # the cards made room for each other: room to scroll to all of them
        (self.documents_view_action if on else self.diagram_view_action).setChecked(True)
        self.notify("Documents view: collections as stored" if on else "Entities view", 3000)

    def _view_turn_cancelled(self) -> None:
        (self.documents_view_action if self.scene.documents_view else self.diagram_view_action).setChecked(True)
        self.notify("Documents view kept" if self.scene.documents_view else "Entities view kept", 3000)

    def edit_fields(self, entity_id: str | None) -> EntityDialog | None:
        """Edit Fields…: the entity's editor in its own, larger window (one per entity, reused)."""
        from modeller.ui.dialogs.entity_dialog import EntityDialog

        if entity_id is None or self.document.entity(entity_id) is None:
            return None
        for dialog in self.findChildren(EntityDialog):
            if dialog.entity_id == entity_id and dialog.isVisible():
                dialog.raise_()
                dialog.activateWindow()
                return dialog
        dialog = EntityDialog(self.document, entity_id, self)
        dialog.resize(dialog.sizeHint())
        dialog.show()
        return dialog

    def _single_selected_entity(self) -> str | None:
        ids = self.scene.selected_entity_ids()
        return ids[0] if len(ids) == 1 else None

    def _rename_selected(self) -> None:
        entity_id = self._single_selected_entity()
        if entity_id is not None:
            self.view.rename_card(entity_id)

    def _add_field_to_selected(self) -> None:
        entity_id = self._single_selected_entity()
        if entity_id is not None:
            self.view.add_field_on_card(entity_id)

    def select_all(self) -> None:
        self.scene.select_all()

    def copy(self) -> bool:
        ids = self.scene.selected_entity_ids()
        if not ids:
            return False
        text = fragment_text(self.document, ids)
        mime = QMimeData()
        mime.setData(FRAGMENT_MIME, QByteArray(text.encode("utf-8")))
        mime.setText(text)
        QApplication.clipboard().setMimeData(mime)
        self._paste_count = 0
        return True

    def cut(self) -> None:
        if self.copy():
            self.delete_selection()

    def can_paste(self) -> bool:
        mime = QApplication.clipboard().mimeData()
        return mime is not None and (mime.hasFormat(FRAGMENT_MIME) or mime.hasText())

    def paste(self, at: QPointF | None = None) -> None:
        """Paste copied cards, shifted a step further each time, or with their top-left card at ``at``."""
        mime = QApplication.clipboard().mimeData()
        if mime is None:
            return
        raw = bytes(mime.data(FRAGMENT_MIME).data()).decode("utf-8") if mime.hasFormat(FRAGMENT_MIME) else mime.text()
        try:
            data = json.loads(raw)
            if at is None:
                self._paste_count += 1
                offset = (40.0 * self._paste_count, 40.0 * self._paste_count)
            else:
                spots = [Position.model_validate(v) for v in dict(data.get("layout") or {}).values()]
                left = min((p.x for p in spots), default=0.0)
                top = min((p.y for p in spots), default=0.0)
                offset = (round(at.x() - left, 1), round(at.y() - top, 1))
            command = paste_command(self.document, data, offset)
        except (ValueError, TypeError, AttributeError) as err:
            self.notify(f"Nothing to paste: the clipboard holds no Modeller cards ({shown(err)})", 5000)
            return
        if command is None:
            return
        self.document.push(command)
        new_ids = [kid.entity.id for kid in command.kids if isinstance(kid, AddEntityCommand)]
        self.scene.select_only(entity_ids=new_ids)

    def duplicate(self) -> None:
        if self.copy():
            self.paste()

    def auto_layout(self) -> None:
        """View → Auto-layout: run ``dot`` asynchronously; the window stays usable and Cancel (or Esc) stops it.

        The result is one "Auto-layout" undo entry, as before. Edits made while
        ``dot`` runs win over the layout: cards deleted meanwhile are skipped,
        cards added or moved meanwhile stay where the user put them, every
        other card gets its new position (the status bar says how many were
        left alone). A failed, crashed or timed-out ``dot`` falls back to the
        built-in layered layout; a cancelled run changes nothing. Opening or
        creating another project cancels a run.
        """
        if self.layout_job is not None:
            return
        project = self.document.project
        if not project.entities:
            return
        self._layout_started_at = {e.id: self.document.position(e.id) for e in project.entities}
        job = LayoutJob(project, self.scene.card_sizes(), dot=self.layout_dot, parent=self)
        self.layout_job = job
        job.finished.connect(self._layout_finished)
        job.cancelled.connect(self._layout_cancelled)
        self._show_layout_progress(len(project.entities))
        job.start()

    def cancel_auto_layout(self) -> None:
        """Stop a running auto-layout; positions and the undo stack stay as they are."""
        if self.layout_job is not None:
            self.layout_job.cancel()

    def cancel_long_tasks(self) -> None:
        """Esc: stop whatever long task runs (an auto-layout, a large diagram's view turn, or both)."""
        self.arranging_status.cancel()
        self.cancel_auto_layout()

    def _long_tasks_changed(self, *_progress: int) -> None:
        """Esc cancels while a long task runs, and is an ordinary key otherwise."""
        self.cancel_shortcut.setEnabled(self.layout_job is not None or self.scene.arranging)

    def _show_layout_progress(self, count: int) -> None:
        self.layout_progress_label.setText(f"Laying out {count} entities\u2026")
        for widget in (self.layout_progress_label, self.layout_progress_bar, self.layout_cancel_button):
            widget.show()
        self.layout_action.setEnabled(False)
        self._long_tasks_changed()

    def _end_layout(self) -> None:
        for widget in (self.layout_progress_label, self.layout_progress_bar, self.layout_cancel_button):
            widget.hide()
        self.layout_action.setEnabled(True)
        if self.layout_job is not None:
            self.layout_job.deleteLater()
        self.layout_job = None
        self._long_tasks_changed()

    def _layout_cancelled(self) -> None:
        self._end_layout()
        self.statusBar().showMessage("Auto-layout cancelled: nothing was moved", 4000)

    def _layout_finished(self, positions: dict[str, tuple[float, float]], engine: str) -> None:
        reason = self.layout_job.fallback_reason if self.layout_job is not None else ""
        self._end_layout()
        started_at = self._layout_started_at
        current = {e.id for e in self.document.project.entities}
        new = {
            key: Position(x=x, y=y)
            for key, (x, y) in positions.items()
            # still there, and not moved while dot ran
            if key in current and key in started_at and self.document.position(key) == started_at[key]
        }
        left = len(self.document.project.entities) - len(new)
        message = f"Arranged {len(new)} cards ({engine} layout)"
        if reason:
            message += f"; {reason}"
        if left:
            message += f"; {left} cards added or moved during the layout stay where they are"
        if new:
            self.document.push(MoveCommand(self.document, new, "Auto-layout"))
            self.view.fit_to_window()
        self.notify(message, 6000)

    def _toggle_snap(self, on: bool) -> None:
        self.scene.snap_to_grid = on

    def _toggle_grid(self, on: bool) -> None:
        self.view.show_grid = on
        self.view.viewport().update()

    def _toggle_legend(self, on: bool) -> None:
        self.view.legend.setVisible(on)

    # ------------------------------------------------------------ files
    def maybe_save(self) -> bool:
        """True when it is fine to drop the current project (saved, discarded, or unchanged)."""
        if not self.document.is_modified():
            return True
        name = self.document.path.name if self.document.path else self.document.project.name
        answer = ask_unsaved(self, name)
        if answer is Unsaved.SAVE:
            return self.save()
        return answer is Unsaved.DISCARD

    def new_project(self) -> None:
        """File > New: ask for the name and database first; Cancel (there or at "Save changes?") changes nothing."""
        dialog = NewProjectDialog(self)
        try:
            if dialog.exec() != QDialog.DialogCode.Accepted or not self.maybe_save():
                return
            project = dialog.project()
        finally:
            dialog.deleteLater()
        self.document.reset(project)
        self.recovery.clear()
        self.view.fit_to_window()

    def open_dialog(self) -> None:
        start = str(self.document.path.parent) if self.document.path else ""
        path, _ = QFileDialog.getOpenFileName(self, "Open project", start, FILE_FILTER)
        if path:
            self.open_path(Path(path))

    def open_path(self, path: Path | str, ask: bool = True, background: bool | None = None) -> bool:
        """Open ``path``; a load error is one dialog and leaves the open project untouched.

        A large file (``background`` None: at least :data:`OPEN_IN_BACKGROUND_BYTES`) is read and
        validated in a worker thread while the window keeps answering; it shows as soon as each object is
        valid, and the checks across the project follow in the worker (a problem found there brings the
        project shown before back, with its unsaved changes but a fresh undo history). Then True means the
        open has started, and :attr:`open_finished` says how it ended.
        """
        path = Path(path)
        if ask and not self.maybe_save():
            return False
        if background is None:
            background = opens_in_background(path)
        if background:
            self._load_in_background(path, opening=True)
            return True
        project = self._load(path)
        if project is None:
            return False
        self._show(project, path, opening=True)
        self._accept(path, opening=True)
        return True

    def _show(self, project: Project, path: Path, opening: bool) -> None:
        """Put a read project on screen; an open also fits the view (a canvas still being built fits where its
        cards will be)."""
        self.document.reset(project, path)
        if opening:
            self.view.fit_on_open()

    def _accept(self, path: Path, opening: bool) -> None:
        """The project shown passed every check: it replaces the last one for good."""
        self.recovery.clear()
        if opening:
            self.add_recent(path)

    def _load(self, path: Path) -> Project | None:
        try:
            return load_project(path)
        except ProjectFileError as err:
            show_file_error(self, "Cannot open project", path, str(err))
        except OSError as err:  # persistence wraps these; stay safe if one slips through
            show_file_error(self, "Cannot open project", path, f"{path}: {err.strerror or err}")
        return None

    def _open_failed(self, path: Path, error: object) -> None:
        if isinstance(error, OSError):
            show_file_error(self, "Cannot open project", path, f"{path}: {error.strerror or error}")
        else:
            show_file_error(self, "Cannot open project", path, str(error))

    def _load_in_background(self, path: Path, opening: bool) -> None:
        """Read and validate ``path`` in a worker thread and show it; then check it across (see _loaded)."""
        self.cancel_open()
        before = self.document.project
        job = BackgroundJob(lambda _report, _cancelled: _read(path), "open", (ProjectFileError, OSError), self)
        job.finished.connect(lambda result: self._loaded(job, path, result, before, opening))
        self.open_job = job
        self.open_phase.begin()
        self.open_progress_label.setText(f"Opening {path.name}\u2026")
        self.open_progress_label.setToolTip(str(path))
        self.empty_hint.set_opening(path.name)
        for widget in (self.open_progress_label, self.open_progress_bar, self.open_cancel_button):
            widget.show()
        job.start()

    def _loaded(self, job: BackgroundJob, path: Path, result: object, before: Project, opening: bool) -> None:
        """The read is done: show the project at once (the first frame waits for nothing else) and check it
        across the project in the worker meanwhile (a third of the read of 10,000 entities;
        DESIGN.md "Performance targets": first frame)."""
        _delete_after_listeners(job)
        if job is not self.open_job:
            return  # cancelled, or replaced by another open
        # edits made while the file was read are the user's work: ask again before dropping them
        if isinstance(result, Project) and (self.document.project is before or self.maybe_save()):
            shown = _Shown(self.document.project, self.document.path, self.document.is_modified())
            self._check_in_background(path, result, shown, opening)  # the status bar says so from the first frame
            self._show(result, path, opening)
            # the analysis starts as the reset's slots (the panels' lists, the fit) are done, before the first
            # slice of cards: started before them, it took turns at the GIL with them and doubled that stall of
            # the window (bench_open's gaps: about 70 ms of UI CPU and as much of the analysis' at 10,000
            # entities), for a start some 70 ms earlier
            self.analysis.analyse_early(result)
            self.open_phase.shown(self._open_waits())
            self._warm_up_after_build()
            return
        self._end_open()
        self.open_phase.end()
        if not isinstance(result, Project):
            self._open_failed(path, result)
        self.open_finished.emit(False)

    def _check_in_background(self, path: Path, project: Project, shown: _Shown, opening: bool) -> None:
        job = BackgroundJob(
            lambda _report, _cancelled: _check(path, project), "check", (ProjectFileError, OSError), self
        )
        job.finished.connect(lambda result: self._checked(job, path, result, opening))
        self.open_job = job
        self._shown_before = shown
        self.open_progress_label.setText(f"Checking {path.name}\u2026")
        self.open_cancel_button.hide()  # the project is on screen: only a problem found takes it back
        if self.analysis.available:
            self._check_waiting = job
            self.open_progress_bar.hide()  # the analysis has its own busy bar; two animate the window 60 times a second
        else:
            job.start()

    def _start_waiting_check(self) -> None:
        """The findings are on screen: the open's checks run now. Before, they shared the interpreter with the
        analysis and held the findings back by their whole time (0.7 s at 10,000 entities; DESIGN.md
        "Performance targets": open -> findings); the project is on screen meanwhile either way. Started from
        inside the hand-over, the check thread took turns at the GIL with the findings list's fill: the UI
        thread's longest stall of the open (issue 16, bench_open's gaps)."""
        job, self._check_waiting = self._check_waiting, None
        if job is not None and job is self.open_job:
            self.open_progress_bar.show()
            job.start()

    def _checked(self, job: BackgroundJob, path: Path, result: object, opening: bool) -> None:
        _delete_after_listeners(job)
        if job is not self.open_job:
            return  # replaced by another open, which brought the project shown before back first
        shown = self._shown_before
        self._end_open()
        if result is not None:
            self.open_phase.end()
            self._go_back(shown)
            self._open_failed(path, result)
            self.open_finished.emit(False)
            return
        self._accept(path, opening)
        self.open_finished.emit(True)

    def _open_waits(self) -> set[str]:
        """What the project just shown still waits for: the rest of its cards, its first findings."""
        waits = {BUILT} if self.scene.building else set()
        if self.analysis.available:
            waits.add(FINDINGS)
        return waits

    def _go_back(self, shown: _Shown | None) -> None:
        """Show again the project an open replaced before its checks ended: its path and unsaved changes (its
        undo history is not kept)."""
        if shown is not None:
            self.document.reset(shown.project, shown.path, modified=shown.modified)
            self.view.fit_on_open()

    def _warm_up_after_build(self) -> None:
        """Import the preview's sample generator (Faker, 0.15 s of CPU) in another thread once the cards in sight
        are built: it is needed when the findings arrive (a small sample is made on the UI thread), and would
        otherwise be imported on the UI thread then (the rest of the canvas waits for the findings, see
        CanvasScene.set_background_busy). Not during the read or the first slices, whose share of the GIL
        decides when the first cards show."""
        if self._warmed_up:
            return
        if self.scene.building and not self.scene.in_view_done:
            self.scene.in_view_built.connect(self._warm_up_after_build, Qt.ConnectionType.SingleShotConnection)
            return
        self._warmed_up = True
        threading.Thread(target=_warm_up_preview, name="modeller-warm-up", daemon=True).start()

    def cancel_open(self) -> None:
        """Stop a background open: the project shown before it stays (the worker's result is dropped); an open
        already shown and still being checked is taken back."""
        job = self.open_job
        if job is None:
            return
        job.cancel()
        if job.thread is None:  # a check still waiting for the findings: it never runs
            self._check_waiting = None
            job.deleteLater()
        shown = self._shown_before
        self._end_open()
        self.open_phase.end()
        self._go_back(shown)
        self.notify(f"Opening {self.open_progress_label.toolTip()} cancelled", 4000)
        self.open_finished.emit(False)

    def _end_open(self) -> None:
        self.open_job = None
        self._shown_before = None
        self.empty_hint.set_opening(None)
        for widget in (self.open_progress_label, self.open_progress_bar, self.open_cancel_button):
            widget.hide()

    def revert(self) -> None:
        path = self.document.path
        if path is None:
            return
        if opens_in_background(path):
            self._load_in_background(path, opening=False)
            return
        project = self._load(path)
        if project is not None:
            self._show(project, path, opening=False)
            self._accept(path, opening=False)

    def save(self) -> bool:
        if self.document.path is None:
            return self.save_as()
        return self.save_to(self.document.path)

    def save_as(self) -> bool:
        start = str(self.document.path or Path(self.document.project.name + ".modeller.json"))
        path, _ = QFileDialog.getSaveFileName(self, "Save project as", start, FILE_FILTER)
        if not path:
            return False
        if not path.endswith(".json"):
            path += ".modeller.json"
        self._name_after_file(Path(path))
        return self.save_to(Path(path))

    def _name_after_file(self, path: Path) -> None:
        """A project still called "Untitled" takes its file's name when first saved, so the diagram, the report and
        the scripts say what the user called it (one undo step; a name the user gave is never replaced)."""
        project, name = self.document.project, project_stem(path)
        if project.name == UNTITLED and name:
            new = project.model_copy(update={"name": name})
            self.document.push(EditProjectCommand(self.document, new, f"Name the project {shown(name, 80)}"))

    def save_to(self, path: Path) -> bool:
        try:
            save_project(self.document.project, path)
        except ProjectFileError as err:
            show_file_error(self, "Cannot save project", path, str(err))
            return False
        except OSError as err:
            show_file_error(self, "Cannot save project", path, f"{path}: {err.strerror or err}")
            return False
        self.document.set_path(path)
        self.document.undo_stack.setClean()
        self.recovery.clear()
        self.add_recent(path)
        self.notify(f"Saved {path}", 4000)
        return True

    # ------------------------------------------------------------ recent files
    def recent_files(self) -> list[str]:
        value = self.settings.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value or []]

    def add_recent(self, path: Path) -> None:
        entry = str(path.resolve())
        files = [entry] + [f for f in self.recent_files() if f != entry]
        self.settings.setValue("recent_files", files[:MAX_RECENT])
        self.settings.sync()
        self._update_recent_menu()

    def _update_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = self.recent_files()
        for i, name in enumerate(files):
            action = self.recent_menu.addAction(f"&{i + 1} {Path(name).name}")
            action.setToolTip(name)
            action.setStatusTip(name)
            action.triggered.connect(lambda _checked=False, n=name: self.open_path(Path(n)))
        self.recent_menu.setEnabled(bool(files))

    # ------------------------------------------------------------ autosave and recovery
    def autosave_in_background(self) -> threading.Thread | None:
        """The timer's autosave: a worker thread serializes and writes the recovery copy (the project is
        immutable). On the UI thread this held the window for seconds at 10,000 entities (DESIGN.md "Performance
        targets": no UI stall over 100 ms). One at a time; a save meanwhile wins (``RecoveryStore.generation``)."""
        if not self.document.is_modified() or (self._autosaving is not None and self._autosaving.is_alive()):
            return None
        project, original, generation = self.document.project, self.document.path, self.recovery.generation

        def write() -> None:
            try:
                with ui_gets_the_gil_back():
                    self.recovery.write(dumps_project(project), original, generation)
            except (OSError, ValueError) as err:
                self.autosave_failed.emit(str(err))

        self._autosaving = threading.Thread(target=write, name="autosave", daemon=True)
        self._autosaving.start()
        return self._autosaving

    def autosave_now(self) -> bool:
        """Write the recovery copy if there is unsaved work, on this thread (the crash handler's last chance);
        returns whether it wrote."""
        if not self.document.is_modified():
            return False
        try:
            self.recovery.write(dumps_project(self.document.project), self.document.path)
        except (OSError, ValueError) as err:
            self.notify(f"Autosave failed: {err}", 8000)
            return False
        return True

    def offer_recovery(self) -> bool:
        """After a crash: offer the recovery copy; True when it was restored."""
        found = self.recovery.read()
        if found is None:
            return False
        if not ask_restore(self, found.saved_at, found.original.name if found.original else None):
            self.recovery.clear()
            return False
        try:
            project = loads_project(found.text, str(self.recovery.path), check=False)
        except ProjectFileError as err:
            show_file_error(self, "Cannot restore unsaved work", self.recovery.path, str(err))
            return False
        self.document.reset(project, found.original, modified=True)
        self.view.fit_on_open()
        return True

    # ------------------------------------------------------------ window events
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if project_file_in(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        path = project_file_in(event.mimeData())
        if path is not None:
            event.acceptProposedAction()
            self.open_path(path)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.maybe_save():
            self.cancel_open()
            self.open_phase.end()  # a window closed during an open gives the collector back
            self.save_window_layout()
            self.cancel_auto_layout()
            self.autosave_timer.stop()
            self.recovery.clear()
            event.accept()
        else:
            event.ignore()

    def save_window_layout(self) -> None:
        """Remember size, position and docks (where, how big, shown or not) for the next start."""
        self.settings.setValue(GEOMETRY_KEY, self.saveGeometry())
        self.settings.setValue(STATE_KEY, self.saveState(STATE_VERSION))
        self.settings.sync()

    def restore_window_layout(self) -> bool:
        """The layout :meth:`save_window_layout` kept; a missing or damaged value leaves the default layout."""
        geometry, state = self.settings.value(GEOMETRY_KEY), self.settings.value(STATE_KEY)
        restored = isinstance(geometry, QByteArray) and self.restoreGeometry(geometry)
        if isinstance(state, QByteArray):
            restored = self.restoreState(state, STATE_VERSION) and restored
        return bool(restored)

    # ------------------------------------------------------------ export and rule reference
    def show_export_dialog(self) -> ExportDialog:
        """File → Export…: non-modal, so the window stays usable while it runs."""
        from modeller.ui.dialogs.export_dialog import ExportDialog  # the exporters and Faker: not at start

        base = self.document.path.parent if self.document.path else Path.home()
        stem = project_stem(self.document.path) if self.document.path else "export"
        dialog = ExportDialog(self.document.project, base / f"{stem}-export", self, self._set_database)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        return dialog

    def _set_database(self, name: str) -> Project:
        """The export dialog's database edit: one undoable change to the project, which it then exports."""
        new = self.document.project.model_copy(update={"database": name})
        self.document.push(EditProjectCommand(self.document, new, f"Set the database to {shown(name, 80)}"))
        return self.document.project

    def show_rule_reference(self, rule_id: str | None = None) -> RuleReferenceDialog:
        """Help → Rule reference (one window, reused), optionally opened at ``rule_id``."""
        dialog = getattr(self, "rule_reference", None)
        if dialog is None:
            dialog = self.rule_reference = RuleReferenceDialog(self)
        if rule_id:
            dialog.show_rule(rule_id)
        dialog.show()
        dialog.raise_()
        return dialog

    # ------------------------------------------------------------ screenshot
    def render_screenshot(self, out: Path, size: QSize, documents: bool = False) -> bool:
        """Lay the window out at ``size``, fit the diagram and save a PNG of the whole window (``documents``:
        in the Documents view)."""
        self.resize(size)
        self.show()
        QApplication.processEvents()
        self.analysis.run_now()
        if documents:
            self.set_documents_view(True)
            self.scene.finish_arranging()
        self.view.fit_to_window()
        self.scene.finish_badges()  # the fit brings lines into sight that a large model redraws later
        QApplication.processEvents()
        return self.grab().save(str(out), "PNG")
