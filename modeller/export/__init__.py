"""Exporters: from the engine's resolved design to files a team and a database can use.

Pure functions return text (the GUI previews call them directly):
:func:`mongosh_script`, :func:`indexes_script`, :func:`validator_json`,
:func:`json_schema`, :func:`sample_documents` / :func:`samples_json`,
:func:`dot_source`, :func:`design_report`, :func:`pydantic_models`, :func:`typescript_models`. :func:`export_project` writes the
chosen kinds into a folder with progress, cancel and no half-written output.
Exporters generate only from the Design (plus findings for the report and the
Project for names, description and database); they never re-decide strategy.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from modeller.export.common import database_name
from modeller.export.diagram import INSTALL_NOTICE, LAYOUT_LIMIT, dot_source, layout_skipped, render
from modeller.export.files import (
    CancelCheck,
    ExportCancelled,
    ExportError,
    ProgressCallback,
    Staging,
    safe_file_stem,
)
from modeller.export.manifest import MANIFEST, Entry, manifest_text, merged, read_manifest, stale
from modeller.export.mongosh import indexes_script, mongosh_script
from modeller.export.pydantic_models import pydantic_models
from modeller.export.report import design_report
from modeller.export.samples import SampleError, sample_documents, samples_and_notices, samples_json
from modeller.export.typescript import typescript_models
from modeller.export.validators import collection_schema, json_schema, json_schema_text, validator_json
from modeller.model.checks import check_project
from modeller.model.project import Project
from modeller.rules.framework.analysis import Analysis
from modeller.runtime.gc_pause import collector_paused

#: Export kinds, in the order they are written (``--only`` takes these names).
KINDS: tuple[str, ...] = (
    "setup",
    "validators",
    "schema",
    "indexes",
    "samples",
    "diagram",
    "report",
    "pydantic",
    "typescript",
)

__all__ = [
    "INSTALL_NOTICE",
    "KINDS",
    "ExportCancelled",
    "ExportError",
    "ExportResult",
    "collection_schema",
    "design_report",
    "dot_source",
    "export_project",
    "indexes_script",
    "json_schema",
    "json_schema_text",
    "mongosh_script",
    "parse_kinds",
    "pydantic_models",
    "sample_documents",
    "samples_json",
    "typescript_models",
    "validator_json",
]


@dataclass(slots=True)
class ExportResult:
    """What an export wrote: final paths (sorted), notices for the user, seconds per step, stale files removed.

    ``timings`` has one entry per kind (generating its text), ``graphviz`` for
    the layout and ``files`` for creating the files and moving them into place.
    """

    out_dir: Path
    files: list[Path]
    notices: list[str] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    #: files an earlier export of the same kinds wrote, unchanged since, that this one replaced by nothing
    removed: list[Path] = field(default_factory=list)


def parse_kinds(text: str | Iterable[str] | None) -> list[str]:
    """``"setup,diagram"`` -> ``["setup", "diagram"]`` in :data:`KINDS` order; unknown names are an error."""
    if text is None:
        return list(KINDS)
    items = [part.strip() for part in (text.split(",") if isinstance(text, str) else text)]
    items = [item for item in items if item]
    unknown = [item for item in items if item not in KINDS]
    if unknown:
        raise ExportError(f"unknown export kind {unknown[0]!r}; choose from {', '.join(KINDS)}")
    if not items:
        raise ExportError(f"no export kind given; choose from {', '.join(KINDS)}")
    return [kind for kind in KINDS if kind in items]


def export_project(
    project: Project,
    analysis: Analysis,
    out_dir: str | Path,
    kinds: Iterable[str] | str | None = None,
    samples: int = 5,
    seed: int = 0,
    with_samples: bool = False,
    with_sharding: bool = False,
    progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
    render_diagram: bool = True,
    dot_timeout_s: float = 60.0,
    protect: Sequence[Path] = (),
) -> ExportResult:
    """Write the chosen export kinds of ``analysis.design`` into ``out_dir``.

    Raises :class:`ExportError` (one clear sentence) when the project is invalid,
    the folder cannot be written or the disk is full, and :class:`ExportCancelled`
    when ``cancel()`` turns true; in both cases ``out_dir`` is left as it was.
    Files in ``protect`` (the project file, when exporting into its folder) are
    never removed as left-overs of an earlier export.
    """
    chosen = parse_kinds(kinds)
    if samples < 0:
        raise ExportError(f"--samples must be 0 or more, not {samples}")
    problems = check_project(project)
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise ExportError(f"the project is not valid, fix it before exporting: {first.path}: {first.message}{more}")
    design = analysis.design
    target = Path(out_dir)
    stems: dict[str, str] = {}
    taken: set[str] = set()
    for coll in design.stored():
        stems[coll.name] = safe_file_stem(coll.name, taken)

    steps: list[tuple[str, str, Callable[[], Any]]] = []
    docs: dict[str, list[dict[str, Any]]] | None = None
    notices: list[str] = []
    if project.database is None and {"setup", "indexes", "report", "diagram", "pydantic"} & set(chosen):
        notices.append(  # never a silent default
            f'the project names no database: the export uses "{database_name(design, project)}" (mongosh\'s '
            'default); set "database" in the project (the export dialog asks for it)'
        )

    def need_samples() -> dict[str, list[dict[str, Any]]]:
        nonlocal docs
        if docs is None:
            try:
                docs, fewer = samples_and_notices(design, project, samples, seed)
                notices.extend(fewer)  # fewer samples than asked: which unique indexes allow no more
            except SampleError as exc:
                raise ExportError(str(exc)) from exc
        return docs

    if "setup" in chosen:
        steps.append(
            (
                "setup",
                "setup.mongosh.js",
                lambda: mongosh_script(
                    design, project, need_samples() if with_samples else None, with_sharding, analysis.findings
                ),
            )
        )
    if "validators" in chosen:
        for coll in design.stored():  # the setup script creates the companions too
            steps.append(("validators", f"validators/{stems[coll.name]}.json", _bind(validator_json, coll)))
    if "schema" in chosen:
        for coll in design.collections:
            steps.append(
                (
                    "schema",
                    f"schema/{stems[coll.name]}.schema.json",
                    _bind(json_schema_text, coll, design.database or project.database),
                )
            )
    if "indexes" in chosen:
        steps.append(("indexes", "indexes.mongosh.js", lambda: indexes_script(design, project, analysis.findings)))
    if "samples" in chosen:
        for coll in design.stored():
            steps.append(("samples", f"samples/{stems[coll.name]}.json", _bind_samples(need_samples, coll.name)))
    if "diagram" in chosen:
        steps.append(("diagram", "diagram.dot", lambda: dot_source(design, project)))
    if "report" in chosen:
        steps.append(("report", "DESIGN.md", lambda: design_report(design, project, analysis.findings)))
    if "pydantic" in chosen:
        steps.append(("pydantic", "models.py", lambda: pydantic_models(design, project)))
    if "typescript" in chosen:
        steps.append(("typescript", "models.ts", lambda: typescript_models(design, project)))

    render_step = "diagram" in chosen and render_diagram
    if render_step and len(design.collections) > LAYOUT_LIMIT:
        notices.append(layout_skipped(len(design.collections), dot_timeout_s))  # not a minute spent for nothing
        render_step = False
    total = len(steps) + (1 if render_step else 0) + 1
    staging = Staging(target)
    kind_of: dict[str, str] = {}
    timings: dict[str, float] = {}
    notices.extend(staging.notices)
    try:
        done = 0
        # Millions of short strings and no reference cycles: a collection pass here only traverses the
        # design and the analysis again and again (at 10,000 entities most of the export's CPU time)
        with collector_paused():
            for kind, relative, produce in steps:
                _check_cancel(cancel)
                if progress is not None:
                    progress(done, total, f"generating {relative}")
                started = time.perf_counter()
                staging.write(relative, produce())
                kind_of[relative] = kind
                timings[kind] = timings.get(kind, 0.0) + time.perf_counter() - started
                done += 1
        if render_step:
            _check_cancel(cancel)
            if progress is not None:
                progress(done, total, "laying out the diagram with Graphviz")
            staging.flush()  # dot reads diagram.dot from the staging folder
            outcome = render(staging.path / "diagram.dot", timeout_s=dot_timeout_s, cancel=cancel)
            _check_cancel(cancel)  # dot was stopped: the staging folder goes, the target is as it was
            for path in outcome.written:
                staging.adopt(path.name)
                kind_of[path.name] = "diagram"
            if outcome.notice:
                notices.append(outcome.notice)
            timings["graphviz"] = outcome.seconds
            done += 1
        _check_cancel(cancel)
        if progress is not None:
            progress(done, total, f"writing the files into {target}")
        started = time.perf_counter()
        old, unreadable = read_manifest(target)
        if unreadable:
            notices.append(unreadable)
        new = {relative: Entry(kind_of[relative], staging.digests[relative]) for relative in staging.files}
        staging.write(MANIFEST, manifest_text(merged(old, new, chosen, target)))
        written, cleanup = staging.commit({r: old[r] for r in stale(old, new, chosen)}, protect)
        files = [path for path in written if path != target / MANIFEST]
        notices.extend(cleanup.notices)
        timings["files"] = time.perf_counter() - started
    except BaseException:
        staging.discard()
        raise
    if progress is not None:
        progress(total, total, "done")
    return ExportResult(target, sorted(files), notices, timings, [target / r for r in cleanup.removed])


def _check_cancel(cancel: CancelCheck | None) -> None:
    if cancel is not None and cancel():
        raise ExportCancelled("export cancelled; nothing was written")


def _bind(function: Callable[..., str], *args: Any) -> Callable[[], str]:
    return lambda: function(*args)


def _bind_samples(get: Callable[[], dict[str, list[dict[str, Any]]]], name: str) -> Callable[[], str]:
    return lambda: samples_json(get().get(name, []))


def kinds_help() -> str:
    """The ``--only`` help text."""
    return ", ".join(KINDS)


def describe_files(files: Sequence[Path], out_dir: Path) -> list[str]:
    """Relative paths for printing (``validators/person.json``)."""
    out = []
    for path in files:
        try:
            out.append(path.relative_to(out_dir).as_posix())
        except ValueError:
            out.append(str(path))
    return out
