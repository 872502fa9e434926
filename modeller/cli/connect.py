"""What ``apply`` and ``drift`` share: the project's resolved design, the database it goes to, a connection."""

from __future__ import annotations

from dataclasses import dataclass, field

from modeller.live.errors import LiveError
from modeller.live.source import DEFAULT_TIMEOUT_S, Source, is_uri, redact
from modeller.model.names import check_database_name
from modeller.model.text import shown
from modeller.rules.physical.design import Design


@dataclass
class DatabaseTarget:
    """A design and the database it is compared with; ``source`` is opened, not yet connected."""

    design: Design
    database: str
    source: Source
    #: ``collection#index`` -> why the design's index is not created (an error finding: the server would refuse it)
    blocked: dict[str, str]
    #: collection -> field paths an inferred project left undeclared (several types): drift does not call them extra
    undeclared: dict[str, set[str]] = field(default_factory=dict)


def open_target(file: str, uri: str, database: str | None, timeout_s: float | None) -> DatabaseTarget:
    """Load and analyse ``file``; a :class:`LiveError` (or the file's own error lines) says what is wrong."""
    from modeller.cli.sources import read_project
    from modeller.persistence import ProjectFileError
    from modeller.rules import analyse
    from modeller.rules.framework.findings import blocked_indexes

    if not is_uri(uri):
        raise LiveError(f"{shown(redact(uri), 200)} is not a connection string; give mongodb://host:port")
    try:
        project = read_project(file)
    except ProjectFileError as exc:
        raise LiveError("; ".join(exc.lines(3))) from None
    analysis = analyse(project)
    name = database or project.database
    if not name:
        raise LiveError(f"{shown(file, 200)} names no database; add --db NAME")
    try:
        check_database_name(name)
    except ValueError as exc:
        raise LiveError(f"database {shown(repr(name), 80)}: {exc}") from None
    blocked = {key: f"not created ({f.rule}): {f.message}" for key, f in blocked_indexes(analysis.findings).items()}
    from modeller.live.mixed import undeclared

    source = Source(uri, timeout_s or DEFAULT_TIMEOUT_S)
    return DatabaseTarget(analysis.design, name, source, blocked, undeclared(project, analysis.design))


def say_warnings(source: Source) -> None:
    """What pymongo warned about the connection string (an unknown option it ignores), one line each on stderr."""
    import sys

    from modeller.cli.output import say

    for warning in source.warnings:
        say(f"modeller: warning: {warning}", sys.stderr)
