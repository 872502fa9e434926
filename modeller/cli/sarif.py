"""``modeller check --format sarif``: findings as SARIF 2.1.0, so code-review tools show them on the project file.

Each finding is one result: ``ruleId`` is the rule's kebab-case id, ``level``
maps the severity (``suggestion`` and ``info`` are SARIF ``note``), the message
says what and why, and the location is the place in the project file where the
finding's subject is written (its JSON path as a logical location, its line and
column as a region). A subject the file does not spell out (an engine-made index,
a collection) points at the entity it comes from. An overridden finding carries
an in-source suppression with the user's note, so review tools show it as accepted.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from modeller import __version__
from modeller.persistence.jsonpath import PathPart, format_path, locate, nearest, with_ancestors
from modeller.rules.framework.references import plain

if TYPE_CHECKING:
    from modeller.model.project import Field, Project
    from modeller.rules.framework.analysis import Analysis
    from modeller.rules.framework.findings import Finding, SubjectRef

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
#: Modeller severity -> SARIF level
LEVELS = {"error": "error", "warning": "warning", "suggestion": "note", "info": "note"}

JsonPath = tuple[PathPart, ...]


def sarif_log(file: str, text: str | None, project: Project, analysis: Analysis) -> dict[str, Any]:
    """The SARIF log of ``analysis.findings`` for the project file ``file`` (its ``text`` locates the lines)."""
    from modeller.rules import load_rules
    from modeller.rules.framework.registry import REGISTRY

    load_rules()
    findings = analysis.findings
    paths = [subject_path(project, analysis, f.subject) for f in findings]
    located = locate(text, with_ancestors(paths)) if text is not None else {}
    rule_ids = list(dict.fromkeys(f.rule for f in findings))
    rules = []
    for rule_id in rule_ids:
        rule = REGISTRY.get(rule_id)
        descriptor: dict[str, Any] = {"id": rule_id}
        if rule is not None:
            descriptor["shortDescription"] = {"text": plain(rule.summary()).replace("``", "`")}
            descriptor["fullDescription"] = {"text": plain(rule.doc()).replace("``", "`")}
            descriptor["properties"] = {"code": rule.code, "family": rule.family}
        rules.append(descriptor)
    index = {rule_id: i for i, rule_id in enumerate(rule_ids)}
    uri = artifact_uri(file)
    results = [
        _result(f, index[f.rule], uri, path, nearest(located, path)) for f, path in zip(findings, paths, strict=True)
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "modeller",
                "version": __version__,
                "rules": rules,
            }
        },
        "originalUriBaseIds": {SRCROOT: {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "artifacts": [{"location": artifact_location(uri), "mimeType": "application/json"}],
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _result(
    finding: Finding, rule_index: int, uri: str, path: JsonPath, position: tuple[int, int] | None
) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": {**artifact_location(uri), "index": 0}}
    if position is not None:
        physical["region"] = {"startLine": position[0], "startColumn": position[1]}
    text = _with_why(finding.message, finding.why)
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": LEVELS[finding.severity],
        "message": {"text": text},
        "locations": [
            {
                "physicalLocation": physical,
                "logicalLocations": [{"fullyQualifiedName": format_path(path), "kind": "object"}],
            }
        ],
        "properties": {
            "severity": finding.severity,
            "subject": finding.subject.to_json(),
            "reference": finding.reference,
            "also": list(finding.also),
            "decided": finding.decided,
        },
    }
    if finding.fix is not None:
        result["properties"]["fix"] = finding.fix.description
    if finding.overridden:
        suppression: dict[str, Any] = {"kind": "inSource", "status": "accepted"}
        if finding.note:
            suppression["justification"] = finding.note
        result["suppressions"] = [suppression]
    return result


#: the working folder, which relative artifact URIs are relative to (code-review tools map it to the checkout)
SRCROOT = "%SRCROOT%"


def artifact_uri(file: str) -> str:
    """The project file as a URI reference: relative to the working folder when inside it, else a ``file:`` URI.

    ``../x.json`` would be relative to nothing a SARIF viewer knows, so a file outside the folder is absolute.
    """
    path = Path(file)
    try:
        path = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path.resolve().as_uri()
    return quote(path.as_posix(), safe="/")


def artifact_location(uri: str) -> dict[str, Any]:
    """``artifactLocation``: a relative URI names its base (``%SRCROOT%``, the working folder)."""
    return {"uri": uri} if uri.startswith("file:") else {"uri": uri, "uriBaseId": SRCROOT}


def subject_path(project: Project, analysis: Analysis, subject: SubjectRef) -> JsonPath:
    """The JSON path of the place in the file where ``subject`` is written (the nearest written ancestor)."""
    kind, ident = subject.kind, subject.id
    if kind in ("relationship", "query"):
        ids = [r.id for r in project.relationships] if kind == "relationship" else [q.id for q in project.queries]
        where: JsonPath = ("relationships",) if kind == "relationship" else ("queries",)
        return (*where, ids.index(ident)) if ident in ids else where
    if kind == "entity":
        return _entity_path(project, ident)
    if kind == "field":
        owner = max((e.id for e in project.entities if ident.startswith(e.id + ".")), key=len, default=None)
        if owner is None:
            return ("entities",)
        base = _entity_path(project, owner)
        entity = project.entities[int(base[1])]
        return base + _field_path(entity.fields, ident[len(owner) + 1 :].split("."))
    collection, _, index_name = ident.partition("#") if kind == "index" else (ident, "", "")
    coll = analysis.design.collection(collection)
    if coll is None or not coll.entities:
        return ("entities",)
    base = _entity_path(project, coll.root)
    if kind == "index" and len(base) == 2:
        entity = project.entities[int(base[1])]
        position = next((i for i, ix in enumerate(entity.indexes or ()) if ix.name == index_name), None)
        if position is not None:
            return (*base, "indexes", position)
    return base


def _entity_path(project: Project, entity_id: str) -> JsonPath:
    position = next((i for i, e in enumerate(project.entities) if e.id == entity_id), None)
    return ("entities",) if position is None else ("entities", position)


def _field_path(fields: Sequence[Field] | None, names: list[str]) -> JsonPath:
    """``("fields", 2, "fields", 0)`` for ``address.city``; through an array's ``items.fields`` too."""
    path: list[PathPart] = []
    level: Sequence[Any] | None = fields
    prefix: tuple[PathPart, ...] = ("fields",)
    for name in names:
        position = next((i for i, f in enumerate(level or ()) if f.name == name), None)
        if position is None:
            break
        found = level[position]  # type: ignore[index]
        path.extend((*prefix, position))
        if found.fields is not None:
            level, prefix = found.fields, ("fields",)
        elif found.items is not None and found.items.fields is not None:
            level, prefix = found.items.fields, ("items", "fields")
        else:
            level = None
    return tuple(path)


def read_text(file: str, limit: int) -> str | None:
    """The project file's text for locating lines; None when it cannot be read again (then no line numbers)."""
    try:
        with open(file, "rb") as handle:
            raw = handle.read(limit + 1)
        return raw.decode("utf-8-sig") if len(raw) <= limit else None
    except (OSError, UnicodeDecodeError):
        return None


def _with_why(message: str, why: str | None) -> str:
    """The message as a sentence, then its reason: ``"... alone. Why: values ..."`` (a reader of a code-scanning
    alert sees one text, so the message must end before "Why" begins)."""
    if not why:
        return message
    stop = "" if message.rstrip().endswith((".", "!", "?")) else "."
    return f"{message.rstrip()}{stop} Why: {why}"
