"""Data steps of a strategy change: the documents a relationship's new storage needs, copied from the old one.

Each design keeps a relationship in one of three places: embedded in the One's
documents (``embed``), as a reference in each N (``parent-ref``, or the ``_id``
of an ``extended-ref``), or as an array of ids in the One (``child-refs``,
``two-way``). A change between two of them is one batched, resumable step of the
migration script (the ``inBatches`` marker): embedded documents copied out into
their own collection, N documents copied in, reference arrays built from the
references or references set from the arrays, and an extended reference's copied
fields filled from the referenced document. The old copies are never deleted:
unsetting them is the commented step of the removed field.
"""

from __future__ import annotations

from dataclasses import dataclass

from modeller.export.literals import comment, js_string, js_value, quoted
from modeller.model.project import Project
from modeller.review.changes import Change
from modeller.rules.physical.design import Design, ShapeNode

#: JavaScript helpers the strategy steps call (inside the migration script's function, after ``inBatches``)
STRATEGY_HELPERS = """\
  function put(doc, path, value) {
    const parts = path.split(".");
    let at = doc;
    for (const part of parts.slice(0, -1)) {
      if (at[part] === null || typeof at[part] !== "object" || Array.isArray(at[part])) at[part] = {};
      at = at[part];
    }
    at[parts[parts.length - 1]] = value;
  }

  function pick(doc, path) {
    let value = doc;
    for (const part of path.split(".")) {
      if (value === null || typeof value !== "object" || !(part in value)) return undefined;
      value = value[part];
    }
    return value;
  }

  function embedded(doc, path) {
    const value = doc[path];
    return Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
  }

  // Embedded documents at `path` become documents of `child` with `ref` = their parent's _id. A parent whose
  // copies exist already is skipped, so a batch cut short is completed, never copied twice.
  function copyOut(step, parent, path, child, ref, label) {
    const from = target.getCollection(parent);
    const to = target.getCollection(child);
    inBatches(step, parent, { [path]: { $exists: true } }, (ids) => {
      for (const doc of from.find({ _id: { $in: ids } }).toArray()) {
        if (to.countDocuments({ [ref]: doc._id }, { limit: 1 }) > 0) continue;
        const copies = embedded(doc, path).map((item) => {
          const copy = Object.assign({ _id: ObjectId() }, item);
          put(copy, ref, doc._id);
          return copy;
        });
        if (copies.length > 0) to.insertMany(copies);
      }
    }, label);
  }

  // Embedded documents at `path` become documents of `child`; the parent keeps their ids in `field`. The ids are
  // written first and a copy is inserted only when its _id is missing, so a cut run completes on the next one.
  function copyOutRefs(step, parent, path, child, field, label) {
    const from = target.getCollection(parent);
    const to = target.getCollection(child);
    inBatches(step, parent, { [path]: { $exists: true } }, (ids) => {
      for (const doc of from.find({ _id: { $in: ids } }).toArray()) {
        const items = embedded(doc, path);
        let refs = doc[field];
        if (!Array.isArray(refs) || refs.length !== items.length) {
          refs = items.map((item) => (item !== null && typeof item === "object" && item._id !== undefined
            ? item._id : ObjectId()));
          from.updateOne({ _id: doc._id }, { $set: { [field]: refs } });
        }
        const have = new Set(to.find({ _id: { $in: refs } }, { _id: 1 }).toArray().map((d) => JSON.stringify(d._id)));
        const copies = items.map((item, i) => Object.assign({}, item, { _id: refs[i] }))
          .filter((copy) => !have.has(JSON.stringify(copy._id)));
        if (copies.length > 0) to.insertMany(copies);
      }
    }, label);
  }

  // The N documents of each parent (those whose `select.ref` is its _id, or whose _id is in its `select.field`)
  // copied into `path`: an array, or one document when `single`, without the fields named in `drop`.
  function copyIn(step, parent, path, child, select, single, drop, label) {
    const to = target.getCollection(parent);
    const from = target.getCollection(child);
    inBatches(step, parent, { [path]: { $exists: false } }, (ids) => {
      for (const doc of to.find({ _id: { $in: ids } }).toArray()) {
        if (doc[path] !== undefined) continue;
        const filter = select.field ? { _id: { $in: doc[select.field] || [] } } : { [select.ref]: doc._id };
        const items = from.find(filter).sort({ _id: 1 }).toArray().map((item) => {
          const copy = Object.assign({}, item);
          for (const name of drop) delete copy[name];
          return copy;
        });
        if (single && items.length === 0) continue;
        to.updateOne({ _id: doc._id }, { $set: { [path]: single ? items[0] : items } });
      }
    }, label);
  }

  // Each parent's array `field` of N ids, built from the N documents whose `ref` is the parent's _id.
  function refsIn(step, parent, field, child, ref, label) {
    const to = target.getCollection(parent);
    const from = target.getCollection(child);
    inBatches(step, parent, { [field]: { $exists: false } }, (ids) => {
      for (const doc of to.find({ _id: { $in: ids } }).toArray()) {
        const refs = from.find({ [ref]: doc._id }, { _id: 1 }).sort({ _id: 1 }).toArray().map((d) => d._id);
        to.updateOne({ _id: doc._id }, { $set: { [field]: refs } });
      }
    }, label);
  }

  // Each N document listed in a parent's array `field` gets `ref` = that parent's _id.
  function refsOut(step, parent, field, child, ref, label) {
    const from = target.getCollection(parent);
    const to = target.getCollection(child);
    inBatches(step, parent, { [field]: { $exists: true } }, (ids) => {
      for (const doc of from.find({ _id: { $in: ids } }).toArray()) {
        const listed = Array.isArray(doc[field]) ? doc[field] : [];
        if (listed.length > 0) to.updateMany({ _id: { $in: listed } }, { $set: { [ref]: doc._id } });
      }
    }, label);
  }

  // An extended reference `ext` = {_id, copied fields} in each N document, from the parent its `ref` names
  // (every N document: setting the same copies again changes nothing).
  function extend(step, child, ref, parent, ext, copies, label) {
    const to = target.getCollection(child);
    const from = target.getCollection(parent);
    inBatches(step, child, {}, (ids) => {
      for (const doc of to.find({ _id: { $in: ids } }).toArray()) {
        const id = pick(doc, ref);
        if (id === undefined || id === null) continue;
        const one = from.findOne({ _id: id });
        const value = { _id: id };
        for (const [name, source] of copies) {
          const copied = one === null ? undefined : pick(one, source);
          if (copied !== undefined) value[name] = copied;
        }
        to.updateOne({ _id: doc._id }, { $set: { [ext]: value } });
      }
    }, label);
  }
"""


@dataclass(frozen=True, slots=True)
class Storage:
    """Where one design keeps one relationship (collections by name, top-level paths)."""

    parent: str | None = None
    child: str | None = None
    #: the embedded N in the parent, and whether it is one document (one-to-one) rather than an array
    embed: str | None = None
    single: bool = False
    #: the embedded element keeps an _id of its own
    item_id: bool = False
    #: the array of N ids in the parent (child-refs, two-way; not elements with copies)
    refs: str | None = None
    #: the reference to the One in each N: a field, or the extended reference's ``<ext>._id``
    ref: str | None = None
    ext: str | None = None
    #: (copy name, source path) of an extended reference
    copies: tuple[tuple[str, str], ...] = ()


def storage(design: Design, project: Project, rel_id: str) -> Storage | None:
    """How ``design`` stores ``rel_id``, or None when a side lives below the top level (not migrated here)."""
    rel = next((r for r in project.relationships if r.id == rel_id), None)
    if rel is None:
        return None
    roots = {c.root: c for c in design.collections}
    parent, child = roots.get(rel.one), roots.get(rel.many)
    out: dict[str, object] = {"parent": parent.name if parent else None, "child": child.name if child else None}
    placement = design.embedded.get(rel.many)
    if placement is not None and parent is not None and placement.collection == parent.name:
        if "." in placement.path:
            return None
        node = next((n for n in parent.shape if n.name == placement.path), None)
        element = node.items if node is not None and node.items is not None else node
        out.update(
            embed=placement.path,
            single=node is not None and node.bson_type == "object",
            item_id=element is not None and any(c.name == "_id" for c in element.children),
        )
    for node in parent.shape if parent else []:
        if node.relationship == rel_id and node.role == "child-refs" and _bare_ids(node):
            out["refs"] = node.name
    for node in child.shape if child else []:
        if node.relationship != rel_id:
            continue
        if node.role == "parent-ref" and node.bson_type != "array":
            out["ref"] = node.name
        elif node.role == "extended-ref" and node.bson_type == "object":
            out["ext"] = node.name
            out["copies"] = tuple((c.name, c.source.path) for c in node.children if c.source and c.name != "_id")
    if out.get("ref") is None and out.get("ext") is not None:
        out["ref"] = f"{out['ext']}._id"
    return Storage(**out)  # type: ignore[arg-type]


def _bare_ids(node: ShapeNode) -> bool:
    return node.items is not None and node.items.bson_type != "object"


def strategy_step(
    step: str, change: Change, diff_old: tuple[Design, Project], diff_new: tuple[Design, Project]
) -> list[str] | None:
    """The lines that move the documents of one strategy change; None when this pair is not generated."""
    rel_id = change.details["relationship"]
    old, new = storage(*diff_old, rel_id), storage(*diff_new, rel_id)
    if old is None or new is None or new.parent is None:
        return None
    head = ["", "  " + comment(f"{change.summary}: {change.risk}")]
    calls: list[str] = []

    def call(name: str, *args: object) -> None:
        rendered = ", ".join(
            js_string(a) if isinstance(a, str) else js_value(a) for a in (step + f"-{len(calls)}", *args)
        )
        calls.append(f"  {name}({rendered});")

    label = f"{change.subject}: {change.details['old']} -> {change.details['new']}"
    if old.embed is not None and new.embed is None and new.child is not None:  # copy the embedded documents out
        if new.refs is not None:
            call("copyOutRefs", new.parent, old.embed, new.child, new.refs, label)
        elif new.ref is not None:
            call("copyOut", new.parent, old.embed, new.child, new.ref, label)
        else:
            return None
        if new.ext is not None:
            call("extend", new.child, new.ref, new.parent, new.ext, [list(c) for c in new.copies], label)
        note = f"the embedded copies stay in {quoted(new.parent)} until the removed field is unset (step below)"
        return [*head, "  " + comment(note), *calls]
    if old.embed is None and new.embed is not None and old.child is not None:  # copy the N documents in
        drop = [name for name in (old.ref, old.ext) if name is not None and "." not in name]
        if not new.item_id:
            drop.append("_id")
        select = {"field": old.refs} if old.refs is not None else {"ref": old.ref} if old.ref is not None else None
        if select is None:
            return None
        call("copyIn", new.parent, new.embed, old.child, select, new.single, drop, label)
        note = f"the documents of {quoted(old.child)} stay until you drop that collection"
        return [*head, "  " + comment(note), *calls]
    if old.embed is not None or new.embed is not None or new.child is None:
        return None
    if new.refs is not None and old.refs is None and old.ref is not None:
        call("refsIn", new.parent, new.refs, new.child, old.ref, label)
    if new.ref is not None and new.ref != old.ref:
        if old.refs is not None:
            call("refsOut", new.parent, old.refs, new.child, new.ref, label)
        elif old.ref is not None and new.ext is None:
            calls.append(
                f"  migrate({js_string(step + f'-{len(calls)}')}, {js_string(new.child)}, "
                f"{js_value({new.ref: {'$exists': False}, old.ref: {'$exists': True}})}, "
                f"{js_value([{'$set': {new.ref: '$' + old.ref}}])}, {js_string(label)});"
            )
    if new.ext is not None and old.ext != new.ext:
        source = old.ref if old.ref is not None else new.ref  # from child-refs: the reference refsOut just set
        if source is None:
            return None
        call("extend", new.child, source, new.parent, new.ext, [list(c) for c in new.copies], label)
    return [*head, *calls] if calls else None
