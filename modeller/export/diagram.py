"""The Graphviz diagram: one HTML-like table per collection, edges for references.

Each collection node shows its name, the estimated document count and size, and
the document shape: nested sub-documents indented, arrays marked ``[ ]``,
references pointing at their collection, denormalized copies and computed
values marked. Embedded relationships are drawn inside the parent node; only
references become edges, labelled with the relationship's cardinality and
strategy. Node and port ids are generated (``c0``, ``p3``); every piece of user
text is escaped for HTML and made printable, so no name can break the DOT file.
"""

from __future__ import annotations

import html
import shutil
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from modeller.export.common import database_name, entity_names, human_bytes, human_count
from modeller.export.literals import one_line
from modeller.model.project import Project
from modeller.rules.physical.design import CollectionDesign, Design, ShapeNode

FONT = "DejaVu Sans"

# Colours (MongoDB-ish palette, readable in print).
HEADER_BG = "#00684A"
META_BG = "#E3FCF7"
BORDER = "#3D4F58"
TYPE_FG = "#5C6C75"
REF_FG = "#016BF8"
COPY_FG = "#B45F06"
COMPUTED_FG = "#7C3AED"
EMBED_BG = "#F5F6F7"
EDGE = "#5C6C75"

_CARDINALITY = {
    "one-to-one": "1:1",
    "one-to-few": "1:few",
    "one-to-many": "1:N",
    "one-to-squillions": "1:squillions",
    "many-to-many": "M:N",
}

INSTALL_NOTICE = (
    "Graphviz 'dot' not found: diagram.dot was written but not rendered; install Graphviz "
    "(Debian/Ubuntu: apt-get install graphviz, macOS: brew install graphviz) and run "
    "'dot -Tsvg diagram.dot -o diagram.svg'"
)


#: The most collections the export asks Graphviz to lay out. dot's layout (crossing minimisation between ranks)
#: grows far faster than the diagram: on benchmarks/generate.py projects 417 collections took 2.3 s of CPU, 877
#: took 41 s and 1,750 did not finish in 60 s (Graphviz 2.43, 2 cores); past about 900 a layout would only spend
#: the whole timeout and give nothing.
LAYOUT_LIMIT = 900


def layout_skipped(collections: int, timeout_s: float = 60.0) -> str:
    """The notice of an export that leaves the layout out because the diagram is past :data:`LAYOUT_LIMIT`."""
    return (
        f"diagram.svg and diagram.png were not made: {collections:,} collections are more than Graphviz lays out "
        f"in {timeout_s:g} s (about {LAYOUT_LIMIT:,} at most); diagram.dot was written: render it yourself with "
        "'dot -Tsvg diagram.dot -o diagram.svg' (minutes to hours), or leave the diagram out of the export"
    )


def text(value: object) -> str:
    """User text as HTML-label content: printable, one line (no control or bidi character), escaped."""
    return html.escape(one_line(str(value)), quote=True)


@dataclass(slots=True)
class _Table:
    """Rows of one collection's table, and the edges leaving it."""

    rows: list[str] = field(default_factory=list)
    #: (port, target collection, relationship id, role of the field)
    edges: list[tuple[str, str, str, str]] = field(default_factory=list)
    ports: int = 0


def dot_source(design: Design, project: Project) -> str:
    """``diagram.dot``: the collections as tables and the references between them."""
    names = entity_names(project)
    rels = {rel.id: rel for rel in project.relationships}
    strategies = {rel.id: rel.strategy for rel in design.relationships}
    node_ids = {coll.name: f"c{i}" for i, coll in enumerate(design.collections)}
    by_entity = {coll.entities[0]: coll.name for coll in design.collections if coll.entities}
    title = f'{text(project.name)}<br align="left"/><font point-size="10" color="{TYPE_FG}">database '
    title += (
        f'{text(database_name(design, project))} · {len(design.collections)} collection(s)</font><br align="left"/>'
    )
    lines = [
        "digraph modeller {",
        f'  graph [rankdir=LR, fontname="{FONT}", fontsize=14, labelloc=t, labeljust=l, nodesep=0.4, '
        f'ranksep=1.1, pad=0.3, bgcolor="white", label=<{title}>];',
        f'  node [shape=plain, fontname="{FONT}", fontsize=10];',
        f'  edge [fontname="{FONT}", fontsize=9, color="{EDGE}", fontcolor="{EDGE}", arrowsize=0.7];',
    ]
    edge_lines: list[str] = []
    seen_edges: set[tuple[str, str, str]] = set()
    pairs: dict[tuple[str, str], str] = {}
    for coll in design.collections:
        table = _Table()
        for node in coll.shape:
            _rows(node, 0, table, names, by_entity)
        lines.append(f"  {node_ids[coll.name]} [label=<{_table_html(coll, table, names)}>];")
        for port, target, rel_id, kind in table.edges:
            if target not in node_ids or (coll.name, target, rel_id) in seen_edges:
                continue  # one edge per relationship and direction, from the first field that holds it
            seen_edges.add((coll.name, target, rel_id))
            rel = rels.get(rel_id)
            parts = []
            if rel is not None:
                parts.append(_CARDINALITY.get(rel.cardinality, rel.cardinality))
            strategy = strategies.get(rel_id) or (rel.strategy if rel is not None else "")
            if strategy:
                parts.append(strategy)
            label = text(" · ".join(parts)) if parts else ""
            style = ', style="dashed"' if kind in ("subset", "extended-ref") else ""
            tail, head = node_ids[coll.name], node_ids[target]
            if (head, tail) in pairs:
                if pairs[(head, tail)] == label:
                    label = ""  # the same relationship seen from the other side: one label is enough
                # the pair already points the other way: leave from the left edge of the row and enter the
                # right side of the header, so the edge does not loop around the node
                edge_lines.append(f"  {tail}:{port}w:w -> {head}:h:e [label=<{label}>{style}, constraint=false];")
            else:
                edge_lines.append(f"  {tail}:{port} -> {head}:h [label=<{label}>{style}];")
            pairs[(tail, head)] = label
    lines.extend(edge_lines)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _table_html(coll: CollectionDesign, table: _Table, names: dict[str, str]) -> str:
    roots = ", ".join(names.get(e, e) for e in coll.entities)
    meta = f"~{human_count(coll.count)} docs · avg {human_bytes(coll.avg_bytes)} · max {human_bytes(coll.max_bytes)}"
    extra = []
    if coll.timeseries:
        extra.append("time-series collection")
    if coll.bucket is not None:
        extra.append(f"buckets of ≤ {coll.bucket.size}")
    if coll.variants:
        extra.append("polymorphic: " + " | ".join(coll.variants))
    if coll.shard_key:
        extra.append("shard key: " + ", ".join(coll.shard_key))
    head = [
        f'<table border="1" cellborder="0" cellspacing="0" cellpadding="3" color="{BORDER}" bgcolor="white">',
        f'<tr><td port="h" colspan="2" align="left" bgcolor="{HEADER_BG}" cellpadding="6">'
        f'<font color="white" point-size="12"><b>{text(coll.name)}</b></font></td></tr>',
        f'<tr><td colspan="2" align="left" bgcolor="{META_BG}"><font point-size="9" color="{BORDER}">'
        f"{text(meta)}</font></td></tr>",
    ]
    if roots != coll.name or extra:
        detail = "; ".join([f"stores {roots}", *extra])
        head.append(
            f'<tr><td colspan="2" align="left" bgcolor="{META_BG}"><font point-size="9" color="{BORDER}">'
            f"{text(detail)}</font></td></tr>"
        )
    body = table.rows or [f'<tr><td colspan="2" align="left"><font color="{TYPE_FG}">(no fields)</font></td></tr>']
    return "".join([*head, *body, "</table>"])


def type_label(node: ShapeNode) -> str:
    """``string``, ``[objectId]``, ``{…}``, ``[{…}]``: the node's type at a glance."""
    if node.bson_type == "array":
        inner = node.items
        if inner is None:
            return "[ ]"
        inner_label = (
            "{…}"
            if inner.bson_type == "object" and inner.field_type != "point"
            else (inner.field_type or inner.bson_type)
        )
        return f"[{inner_label}]"
    if node.bson_type == "object":
        return node.field_type or "{…}"
    return node.field_type or node.bson_type


@dataclass(frozen=True, slots=True)
class NodeNote:
    """What a document field is, in words: the note beside its type, how it is coloured, what it points at.

    The diagram export and the canvas's Documents view both describe shape nodes through it.
    """

    text: str
    #: "reference" (to another collection), "computed", "copy" (denormalized) or "" (plain)
    kind: str = ""
    #: the collection a reference points at, when known
    target: str | None = None


def node_note(node: ShapeNode, names: dict[str, str], collections: dict[str, str]) -> NodeNote:
    """The note of ``node``: ``→ users``, ``copy of User.name``, ``embedded Comment ≤ 100``, ``= count()``."""
    kind = ""
    note = ""
    target = (
        node.ref_collection
        or (node.items.ref_collection if node.items is not None else None)
        or (collections.get(node.entity or "") if node.role in ("subset", "extended-ref") else None)
    )
    if node.role in ("parent-ref", "child-refs", "extended-ref", "subset") and (target or node.entity):
        shown = target or names.get(node.entity or "", node.entity or "")
        arrow = "latest " + str(node.max_items) + " of " if node.role == "subset" and node.max_items else ""
        note = f"{arrow}→ {shown}"
        kind = "reference"
    elif node.role == "bucket-stat":
        comp = node.computation
        op = comp.op if comp else node.name if node.name in ("count", "sum", "min", "max", "avg") else ""
        field = node.source.path if node.source else (comp.field if comp else None)
        note = f"= {op}({field or ''}) of the bucket" if op else "bucket statistic"
        kind = "computed"
    elif node.role == "embedded":
        bound = f" ≤ {node.max_items}" if node.max_items else ""
        note = f"embedded {names.get(node.entity or '', node.entity or '')}{bound}".rstrip()
    elif node.role == "denormalized" or (node.source is not None and node.role != "id"):
        source = node.source
        origin = f"{names.get(source.entity, source.entity)}.{source.path}" if source else "?"
        note = f"copy of {origin}"
        kind = "copy"
    elif node.role == "computed" or node.computation is not None:
        comp = node.computation
        note = f"= {comp.op}({comp.field or ''})" if comp else "computed"
        kind = "computed"
    elif node.role == "bucket-items":
        note = "bucket readings"
    elif node.role == "discriminator":
        note = "type: " + " | ".join(str(v) for v in node.enum or [])
    if node.variant:
        note = (note + " " if note else "") + f"(only {node.variant})"
    if node.unique:
        note = (note + " " if note else "") + "unique"
    return NodeNote(note, kind, target if kind == "reference" else None)


_KIND_COLORS = {"reference": REF_FG, "computed": COMPUTED_FG, "copy": COPY_FG}


def _rows(node: ShapeNode, depth: int, table: _Table, names: dict[str, str], collections: dict[str, str]) -> None:
    """Append the rows of ``node`` (and its sub-document fields, indented) to ``table``."""
    indent = "&#160;" * (4 * depth) + ("└ " if depth else "")
    is_array = node.bson_type == "array"
    name_html = text(node.name) + (" [ ]" if is_array else "")
    type_html = text(type_label(node))
    described = node_note(node, names, collections)
    note = described.text
    name_color = _KIND_COLORS.get(described.kind)
    port = ""
    if described.kind == "reference":
        table.ports += 1
        port = f"p{table.ports}"
        if described.target and node.relationship:
            table.edges.append((port, described.target, node.relationship, node.role))
    if node.required and node.role != "id":
        name_html += '<font color="#C00000">*</font>'
    styled = f"<i>{name_html}</i>" if name_color == COPY_FG else name_html
    if name_color:
        styled = f'<font color="{name_color}">{styled}</font>'
    type_cell = f'<font color="{TYPE_FG}">{type_html}</font>'
    if note:
        type_cell += f' <font point-size="8" color="{name_color or TYPE_FG}">{text(note)}</font>'
    bg = f' bgcolor="{EMBED_BG}"' if depth else ""
    port_attr = f' port="{port}"' if port else ""
    west_attr = f' port="{port}w"' if port else ""
    table.rows.append(
        f'<tr><td align="left"{bg}{west_attr}>{indent}{styled}</td>'
        f'<td align="left"{bg}{port_attr}>{type_cell}</td></tr>'
    )
    children = node.children if node.bson_type == "object" else (node.items.children if node.items else [])
    for child in children:
        _rows(child, depth + 1, table, names, collections)


@dataclass(slots=True)
class RenderOutcome:
    """What rendering produced: files written, and a one-line notice when something was skipped."""

    written: list[Path]
    notice: str | None = None
    seconds: float = 0.0
    #: ``cancel`` said stop: dot was killed and nothing it began is left
    cancelled: bool = False


#: how often a running ``dot`` is asked whether the user cancelled (seconds; a Cancel waits at most this long)
POLL_S = 0.1


def render(
    dot_file: Path,
    formats: Sequence[str] = ("svg", "png"),
    timeout_s: float = 60.0,
    dot_binary: str | None = None,
    cancel: Callable[[], bool] | None = None,
) -> RenderOutcome:
    """Render ``dot_file`` next to itself with the ``dot`` program (with a timeout; no shell).

    One run writes every format: the layout, nearly all of dot's time, is made once, not once per format.
    When that run fails (a format this Graphviz lacks), each format is tried on its own, so the others are kept.
    ``cancel`` is asked while dot runs (a layout of hundreds of collections takes a minute): when it says stop,
    dot is killed, what it began writing is removed, and the outcome is ``cancelled``.
    """
    binary = dot_binary or shutil.which("dot")
    if binary is None:
        return RenderOutcome([], INSTALL_NOTICE)
    started = time.perf_counter()
    outcome, refused = _run_dot(binary, dot_file, formats, timeout_s, cancel)
    if refused and len(formats) > 1:
        written: list[Path] = []
        for fmt in formats:
            one, _ = _run_dot(binary, dot_file, [fmt], timeout_s, cancel)
            if one.cancelled:
                _remove(written)
                outcome = one
                break
            written.extend(one.written)
            if one.notice is not None:
                outcome = RenderOutcome(written, one.notice)
                break
        else:
            outcome = RenderOutcome(written)
    outcome.seconds = time.perf_counter() - started
    return outcome


def _run_dot(
    binary: str, dot_file: Path, formats: Sequence[str], timeout_s: float, cancel: Callable[[], bool] | None = None
) -> tuple[RenderOutcome, bool]:
    """One ``dot`` run writing ``formats`` next to ``dot_file``, and whether dot refused (a non-zero exit).

    On failure or cancel nothing is left behind: no output file, no ``dot`` process (killed and reaped).
    """
    outs = [dot_file.with_suffix("." + fmt) for fmt in formats]
    args = [binary]
    for fmt, out in zip(formats, outs, strict=True):
        args += [f"-T{fmt}", "-o", str(out)]
    try:
        proc = subprocess.Popen([*args, str(dot_file)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    except OSError as exc:
        _remove(outs)
        return RenderOutcome([], f"could not run Graphviz 'dot' ({exc}); diagram.dot was written"), False
    deadline = time.monotonic() + timeout_s
    ended = False
    try:
        while True:
            try:  # communicate, not wait: dot's warnings must not fill the pipe and stall it
                _out, stderr = proc.communicate(timeout=max(0.0, min(POLL_S, deadline - time.monotonic())))
                ended = True
                break
            except subprocess.TimeoutExpired:
                if cancel is not None and cancel():
                    return RenderOutcome([], cancelled=True), False
                if time.monotonic() >= deadline:
                    return RenderOutcome(
                        [],
                        f"Graphviz took longer than {timeout_s:g} s to lay out the diagram; "
                        f"diagram.dot was written, render it with 'dot -T{formats[0]} diagram.dot'",
                    ), False
    finally:
        if not ended:  # cancelled, timed out, or interrupted (Ctrl+C): no dot left running or half-written
            proc.kill()
            proc.communicate()
            _remove(outs)
    if proc.returncode != 0:
        message = stderr.decode("utf-8", "replace").strip().splitlines()
        first = message[0] if message else f"exit code {proc.returncode}"
        _remove(outs)
        what = f"diagram.{formats[0]}" if len(formats) == 1 else "the diagram"
        return RenderOutcome([], f"Graphviz could not render {what}: {first}"), True
    return RenderOutcome(outs), False


def _remove(paths: Sequence[Path]) -> None:
    for path in paths:
        path.unlink(missing_ok=True)
