"""mongosh snippets that show how the application writes and reads each chosen pattern.

They follow RULES.md's "Exporter" lines: ``$push`` with a bound for embedded
arrays, the application-level join for child references, the transaction for a
two-way reassignment, ``updateMany`` (with ``arrayFilters`` inside arrays) and a
change-stream skeleton for denormalized copies, ``$push/$each/$sort/$slice``
for subsets, the bucket upsert, ``$inc`` for computed values. Field and
collection names come from the resolved design and are JSON string literals.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from modeller.export.common import per_design
from modeller.export.literals import comment, js_key, js_string, quoted
from modeller.model.project import Entity, Project
from modeller.rules.physical.design import CollectionDesign, DenormalizedCopy, Design, RelationshipDesign, ShapeNode
from modeller.rules.physical.reference_index import leading_index


@dataclass(frozen=True, slots=True)
class _Hit:
    """A shape node that belongs to a relationship, with where it sits."""

    coll: CollectionDesign
    path: str
    node: ShapeNode


def _walk(nodes: list[ShapeNode], prefix: str = "") -> Iterator[tuple[str, ShapeNode]]:
    for node in nodes:
        path = f"{prefix}.{node.name}" if prefix else node.name
        yield path, node
        if node.bson_type == "object":
            yield from _walk(node.children, path)
        elif node.items is not None and node.items.bson_type == "object":
            yield from _walk(node.items.children, path)


def _index(design: Design) -> dict[str, list[_Hit]]:
    """relationship id -> the shape nodes that store it, built once per design."""
    out: dict[str, list[_Hit]] = {}
    for coll in design.collections:
        for path, node in _walk(coll.shape):
            if node.relationship:
                out.setdefault(node.relationship, []).append(_Hit(coll, path, node))
    return out


def _hits(design: Design, rel_id: str) -> list[_Hit]:
    return per_design("relationship-nodes", design, _index).get(rel_id, [])


def _c(name: str) -> str:
    return f"db.getCollection({js_string(name)})"


def _k(path: str) -> str:
    return js_key(path)


def _first_scalar(node: ShapeNode) -> ShapeNode | None:
    """The first plain field of an object (or of an array's element), for example values."""
    children = node.children if node.bson_type == "object" else (node.items.children if node.items else [])
    return next((c for c in children if c.role == "field" and c.bson_type not in ("object", "array")), None)


def relationship_snippet(design: Design, rel: RelationshipDesign) -> str:
    """The write/read pattern of one relationship as a short mongosh snippet ("" when there is none)."""
    hits = _hits(design, rel.id)
    by_role: dict[str, _Hit] = {}
    for hit in hits:
        by_role.setdefault(hit.node.role, hit)
    lines: list[str] = []
    embedded = by_role.get("embedded")
    if embedded is not None:
        coll, path, node = embedded.coll.name, embedded.path, embedded.node
        field = _first_scalar(node)
        if node.bson_type == "array":
            bound = f" (the validator caps it at {node.max_items})" if node.max_items else ""
            lines.append(f"// add one element{bound}")
            lines.append(f"{_c(coll)}.updateOne({{ _id: id }}, {{ $push: {{ {_k(path)}: element }} }});")
            if field is not None:
                lines.append("// change one element in place (positional operator, filter on the element)")
                lines.append(
                    f"{_c(coll)}.updateOne({{ _id: id, {_k(path + '.' + field.name)}: oldValue }}, "
                    f"{{ $set: {{ {_k(path + '.$.' + field.name)}: newValue }} }});"
                )
        else:
            target = f"{path}.{field.name}" if field is not None else path
            lines.append("// one document, one atomic update")
            lines.append(f"{_c(coll)}.updateOne({{ _id: id }}, {{ $set: {{ {_k(target)}: value }} }});")
    child = by_role.get("child-refs")
    parent = by_role.get("parent-ref")
    if child is not None:
        ref_target = child.node.ref_collection or (child.node.items.ref_collection if child.node.items else None)
        lines.append("// application-level join: the One keeps the ids of its N")
        lines.append(f"const one = {_c(child.coll.name)}.findOne({{ _id: id }});")
        if ref_target:
            lines.append(f"{_c(ref_target)}.find({{ _id: {{ $in: one[{_k(child.path)}] }} }});")
    if parent is not None:
        index = leading_index(parent.coll, parent.path)
        lines.append(
            comment(f"the N reference their One: query them through the reference, indexed by {quoted(index.name)}")
            if index is not None
            else comment(
                f"the N reference their One: query them by the reference ({quoted(parent.path)} is not indexed: no "
                "declared query reads them this way)"
            )
        )
        lines.append(f"{_c(parent.coll.name)}.find({{ {_k(parent.path)}: oneId }});")
    if rel.strategy == "two-way" and child is not None and parent is not None and parent.node.bson_type == "array":
        # a many-to-many: each side holds an array of the other's ids, a link is added to both
        lines.append("// link one N to one more One: both arrays change, so use a transaction")
        lines.append("const session = db.getMongo().startSession();")
        lines.append("session.withTransaction(() => {")
        lines.append(f"  const s = session.getDatabase({js_string(design.database)});")
        lines.append(
            f"  s.getCollection({js_string(child.coll.name)}).updateOne({{ _id: oneId }}, "
            f"{{ $addToSet: {{ {_k(child.path)}: manyId }} }});"
        )
        lines.append(
            f"  s.getCollection({js_string(parent.coll.name)}).updateOne({{ _id: manyId }}, "
            f"{{ $addToSet: {{ {_k(parent.path)}: oneId }} }});"
        )
        lines.append("});")
    elif rel.strategy == "two-way" and child is not None and parent is not None:
        lines.append("// reassign one N to another One: both sides change, so use a transaction")
        lines.append("const session = db.getMongo().startSession();")
        lines.append("session.withTransaction(() => {")
        lines.append(f"  const s = session.getDatabase({js_string(design.database)});")
        lines.append(
            f"  s.getCollection({js_string(child.coll.name)}).updateOne({{ _id: oldOneId }}, "
            f"{{ $pull: {{ {_k(child.path)}: manyId }} }});"
        )
        lines.append(
            f"  s.getCollection({js_string(child.coll.name)}).updateOne({{ _id: newOneId }}, "
            f"{{ $addToSet: {{ {_k(child.path)}: manyId }} }});"
        )
        lines.append(
            f"  s.getCollection({js_string(parent.coll.name)}).updateOne({{ _id: manyId }}, "
            f"{{ $set: {{ {_k(parent.path)}: newOneId }} }});"
        )
        lines.append("});")
    subset = by_role.get("subset")
    if subset is not None:
        node = subset.node
        sort_field, direction = node.sort if node.sort is not None else ("_id", -1)
        k = node.max_items or 10
        lines.append(f"// keep the {k} latest in the One: push, sort, slice in one update")
        lines.append(
            f"{_c(subset.coll.name)}.updateOne({{ _id: oneId }}, {{ $push: {{ {_k(subset.path)}: "
            f"{{ $each: [newElement], $sort: {{ {_k(sort_field)}: {direction} }}, $slice: {k} }} }} }});"
        )
    for hit in hits:
        comp = hit.node.computation
        if comp is None:
            continue
        if comp.op == "count":
            update = f"$inc: {{ {_k(hit.path)}: 1 }}"
        elif comp.op == "sum":
            update = f"$inc: {{ {_k(hit.path)}: newValue }}"
        elif comp.op in ("min", "max"):
            update = f"${comp.op}: {{ {_k(hit.path)}: newValue }}"
        else:
            lines.append(
                comment(
                    f"{quoted(hit.path)}: average kept from a stored count and sum, or recomputed by a periodic job"
                )
            )
            continue
        lines.append(f"// computed value: maintain it when a new N is written ({comp.op})")
        lines.append(f"{_c(hit.coll.name)}.updateOne({{ _id: oneId }}, {{ {update} }});")
    return "\n".join(lines)


def bucket_snippet(coll: CollectionDesign) -> str:
    """The single upsert that appends a reading to a non-full bucket and keeps its statistics."""
    bucket = coll.bucket
    if bucket is None:
        return ""
    stats = {node.name for node in coll.shape if node.role == "bucket-stat"}
    inc = [f"{js_string(name)}: 1" for name in stats if name.lower() in ("count", "n")]
    count_field = next((name for name in stats if name.lower() in ("count", "n")), "count")
    value = js_string(bucket.value_field) if bucket.value_field else None
    update = [f"$push: {{ {js_string(bucket.items_field)}: reading }}"]
    if value is not None:
        if "sum" in stats:
            inc.append(f'"sum": reading[{value}]')
        if "min" in stats:
            update.append(f'$min: {{ "min": reading[{value}] }}')
        if "max" in stats:
            update.append(f'$max: {{ "max": reading[{value}] }}')
    if inc:
        update.append("$inc: { " + ", ".join(inc) + " }")
    update.append(f"$setOnInsert: {{ {js_string(bucket.start_field)}: reading[{js_string(bucket.time_field)}] }}")
    if bucket.end_field in stats:
        update.append(f"$max: {{ {js_string(bucket.end_field)}: reading[{js_string(bucket.time_field)}] }}")
    merged: dict[str, list[str]] = {}
    for part in update:
        op, _, rest = part.partition(": ")
        merged.setdefault(op, []).append(rest.strip()[1:-1].strip())
    body = ", ".join(f"{op}: {{ {', '.join(parts)} }}" for op, parts in merged.items())
    return "\n".join(
        [
            f"// append one reading to the open bucket of its series (at most {bucket.size} per bucket)",
            f"{_c(coll.name)}.updateOne(",
            f"  {{ {js_string(bucket.series_field)}: seriesId, {js_string(count_field)}: {{ $lt: {bucket.size} }} }},",
            f"  {{ {body} }},",
            "  { upsert: true });",
        ]
    )


def counter_snippet(coll: CollectionDesign) -> str:
    """Hot counters that need not be exact, written once every N events by N (approximation pattern)."""
    lines: list[str] = []
    for path, node in _walk(coll.shape):
        step = node.write_every
        if not step:
            continue
        lines += [
            comment(
                f"{quoted(path)}: one write every {step} events instead of one per event ({1 - 1 / step:.0%} fewer)"
            ),
            f"if (Math.random() < 1 / {step}) {{",
            f"  {_c(coll.name)}.updateOne({{ _id: id }}, {{ $inc: {{ {_k(path)}: {step} }} }});",
            "}",
        ]
    return "\n".join(lines)


def sync_snippet(design: Design, copy: DenormalizedCopy) -> str:
    """How a copy follows its source: the engine's write plan (``copy.update``) as mongosh, plus a change stream."""
    up = copy.update
    if up is None or up.kind == "insert" or copy.staleness == "forever" or copy.sync == "none":
        return comment(f"point-in-time copy: written once at insert ({quoted(copy.path)}), never synchronized")
    if up.kind == "push-latest":
        pushed = ["_id", *up.pushed] if up.by_id else list(up.pushed)
        doc = "{" + ", ".join(f"{_k(name)}: doc[{js_string(name)}]" for name in pushed) + "}"
        edits = []
        if up.by_id:  # the elements keep the source's _id: an edit or a delete reaches the One's copy
            sets = ", ".join(f"{_k(up.set_path + '.$[e].' + name)}: doc[{js_string(name)}]" for name in up.pushed)
            held = f"{{ _id: parentId, {_k(up.set_path + '._id')}: doc._id }}"
            edits = [
                comment(f"a document of {quoted(up.source_collection)} changed: update its copy, found by its _id"),
                f"{_c(up.collection)}.updateOne({held}, {{ $set: {{ {sets} }} }}, "
                '{ arrayFilters: [{ "e._id": doc._id }] });',
                comment(f"a document of {quoted(up.source_collection)} deleted: pull its copy"),
                f"{_c(up.collection)}.updateOne({{ _id: parentId }}, {{ $pull: {{ {_k(up.set_path)}: "
                "{ _id: doc._id } } });",
            ]
        return "\n".join(
            [
                comment(  # newest first, the order the shape documents (and the strategy's own snippet pushes)
                    f"on every insert into {quoted(up.source_collection)}: "
                    f"keep the latest {up.keep} in {quoted(up.collection)}, newest first"
                ),
                f"{_c(up.collection)}.updateOne({{ _id: parentId }}, {{ $push: {{ {_k(up.set_path)}: "
                f"{{ $each: [{doc}], $sort: {{ {_k(up.sort_field)}: -1 }}, $slice: {int(up.keep)} }} }} }});",
                *edits,
            ]
        )
    if up.ids_from is not None:
        ids = f"source[{js_string(up.ids_from)}]" + (".map(e => e.id)" if up.ids_are_objects else "")
        match = f"{{ _id: {{ $in: {ids} }} }}"
    else:
        match = f"{{ {_k(up.filter_path)}: sourceId }}"
    options = f", {{ arrayFilters: [{{ {_k(up.array_filter)}: sourceId }}] }}" if up.array_filter else ""
    lines = [
        "// the source changed: update the copy inside every array element that holds it"
        if up.array_filter
        else "// the source changed: update every copy",
        f"{_c(up.collection)}.updateMany({match}, {{ $set: {{ {_k(up.set_path)}: newValue }} }}{options});",
    ]
    if copy.staleness is None:  # RULES.md 16: a point-in-time value (an order line's price) is never synced
        lines.insert(
            0,
            comment(
                f"staleness not set: if {quoted(copy.path)} is the value at the time its document was created (a "
                "snapshot, like an order line's price), set the copy's staleness to forever and do not run this"
            ),
        )
    if copy.sync == "change-stream":
        lines.append("// or let a change stream on the source push every change to the copies")
        lines.append(
            f'{_c(up.source_collection)}.watch([{{ $match: {{ operationType: "update", '
            f"{_k('updateDescription.updatedFields.' + up.watched_field)}: {{ $exists: true }} }} }}]);"
        )
    return "\n".join(lines)


#: documents moved per batch by the archive job: small enough for one round trip, large enough to finish
ARCHIVE_BATCH = 1000


def archive_snippet(coll: CollectionDesign, project: Project, entities: Mapping[str, Entity] | None = None) -> str:
    """The mover job of an archive companion (archive pattern): batched, idempotent and resumable.

    Each batch reads the oldest documents past the cut-off by the main collection's age index, copies those the
    archive does not hold yet, then deletes them from the main collection: a job stopped between the two steps
    copies nothing twice when it runs again, and a finished job finds nothing to move. ``entities`` (id ->
    entity), when the caller has it, saves a scan of the project's entities per collection.
    """
    main = coll.companion_of
    if main is None or coll.name != f"{main}_archive":
        return ""
    if entities is not None:
        entity = entities.get(coll.root)
    else:
        entity = next((e for e in project.entities if e.id == coll.root), None)
    if entity is None or entity.archive is None:
        return ""
    age = coll.indexes[0].keys[0][0] if coll.indexes and coll.indexes[0].keys else entity.archive.age_field
    days = entity.archive.cold_after_s // 86_400
    field = next((f for f in entity.fields if f.name == entity.archive.age_field), None)
    if field is not None and field.type not in ("date", "timestamp"):
        return comment(
            f"{quoted(entity.archive.age_field)} is not a date: move documents older than {days:,} days to "
            f"{quoted(coll.name)} with a cut-off of the field's own type"
        )
    return "\n".join(
        [
            comment(
                f"archive job: {quoted(main)} documents whose {quoted(age)} is older than {days:,} days move to "
                f"{quoted(coll.name)}; run it on a schedule (it is idempotent and resumes where a stopped run ended)"
            ),
            "(function archiveJob(db, batchSize) {",
            f"  const source = {_c(main)};",
            f"  const archive = {_c(coll.name)};",
            f"  const cutoff = new Date(Date.now() - {int(entity.archive.cold_after_s)} * 1000);",
            "  for (;;) {",
            f"    const batch = source.find({{ {_k(age)}: {{ $lt: cutoff }} }}).sort({{ {_k(age)}: 1, _id: 1 }})"
            ".limit(batchSize).toArray();",
            "    if (batch.length === 0) break;",
            "    const ids = batch.map(doc => doc._id);",
            "    const copied = new Set(archive.find({ _id: { $in: ids } }, { _id: 1 }).toArray()"
            ".map(doc => String(doc._id)));",
            "    const missing = batch.filter(doc => !copied.has(String(doc._id)));",
            "    if (missing.length > 0) archive.insertMany(missing, { ordered: true });",
            "    source.deleteMany({ _id: { $in: ids } });",
            "  }",
            f"}})(db, {ARCHIVE_BATCH});",
        ]
    )
