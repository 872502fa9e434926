"""Data steps of a strategy change: the documents a relationship's new storage needs, copied from the old one.

Each design keeps a relationship in one of three places: embedded in the One's
documents (``embed``), as a reference in each N (``parent-ref``, or the ``_id``
of an ``extended-ref``), or as an array of ids in the One (``child-refs``,
``two-way``). A change between two of them is one batched, resumable step of the
migration script (the ``inBatches`` marker): embedded documents copied out into
their own collection, N documents copied in, reference arrays built from the
references or references set from the arrays, and an extended reference's copied
fields filled from the referenced document. The old copies are never deleted:
unsetting them is the commented step of the removed field. Subsets, buckets and the
single collection pattern are built on these (``pattern_copies``).
"""

from __future__ import annotations

from dataclasses import replace

from modeller.export.literals import comment, js_string, js_value, quoted
from modeller.model.project import Project
from modeller.review.changes import Change
from modeller.review.copy_storage import Calls, Storage, storage
from modeller.review.pattern_copies import moves_documents, pattern_calls, subset_calls
from modeller.review.shared_copies import shared_calls
from modeller.rules.physical.design import Design

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

  // The value at a dotted path; through an array of documents, the array of their values (as the server reads
  // "rooms._id": the ids of a many-to-many's extended references).
  function pick(doc, path) {
    let value = doc;
    for (const part of path.split(".")) {
      if (Array.isArray(value)) {
        value = value.map((e) => (e !== null && typeof e === "object" && !Array.isArray(e) ? e[part] : undefined))
          .filter((e) => e !== undefined);
        continue;
      }
      if (value === null || typeof value !== "object" || !(part in value)) return undefined;
      value = value[part];
    }
    return value;
  }

  // The _ids (as JSON text) of the documents of `coll` among `ids`: the copies an earlier, cut run made.
  function present(coll, ids) {
    return new Set(coll.find({ _id: { $in: ids } }, { _id: 1 }, exact()).toArray().map((d) => JSON.stringify(d._id)));
  }

  function embedded(doc, path) {
    const value = pick(doc, path);
    return Array.isArray(value) ? value : value === null || value === undefined ? [] : [value];
  }

  // The id of the One in a parent document: its _id, or the _id of the sub-document the One is embedded as (`one`).
  function idOf(doc, one) {
    return one === "_id" ? doc._id : pick(doc, one);
  }

  // Embedded documents at `path` become documents of `child` with `ref` = their parent's id (`one`). A parent whose
  // copies exist already is skipped, so a batch cut short is completed, never copied twice.
  function copyOut(step, parent, path, child, ref, label, one = "_id") {
    const from = target.getCollection(parent);
    const to = target.getCollection(child);
    inBatches(step, parent, { [path]: { $exists: true } }, (ids) => {
      for (const doc of from.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        const id = idOf(doc, one);
        if (id === undefined || to.countDocuments({ [ref]: id }, { limit: 1 }) > 0) continue;
        const copies = embedded(doc, path).map((item) => {
          const copy = Object.assign({ _id: ObjectId() }, item);
          put(copy, ref, id);
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
      for (const doc of from.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        const items = embedded(doc, path);
        let refs = pick(doc, field);
        if (!Array.isArray(refs) || refs.length !== items.length) {
          refs = items.map((item) => (item !== null && typeof item === "object" && item._id !== undefined
            ? item._id : ObjectId()));
          from.updateOne({ _id: doc._id }, { $set: { [field]: refs } });
        }
        const have = present(to, refs);
        const copies = items.map((item, i) => Object.assign({}, item, { _id: refs[i] }))
          .filter((copy) => !have.has(JSON.stringify(copy._id)));
        if (copies.length > 0) to.insertMany(copies);
      }
    }, label);
  }

  // The N documents of each parent (those whose `select.ref` is its _id, or whose _id is in its `select.field`)
  // copied into `path`: an array, or one document when `single`, without the fields named in `drop`.
  function copyIn(step, parent, path, child, select, single, drop, label, one = "_id") {
    const to = target.getCollection(parent);
    const from = target.getCollection(child);
    inBatches(step, parent, { [path]: { $exists: false } }, (ids) => {
      for (const doc of to.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        const id = idOf(doc, one);
        if (pick(doc, path) !== undefined || id === undefined) continue;
        const filter = select.field ? { _id: { $in: pick(doc, select.field) || [] } } : { [select.ref]: id };
        const items = from.find(filter, {}, exact()).sort({ _id: 1 }).toArray().map((item) => {
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
  function refsIn(step, parent, field, child, ref, label, one = "_id") {
    const to = target.getCollection(parent);
    const from = target.getCollection(child);
    inBatches(step, parent, { [field]: { $exists: false } }, (ids) => {
      for (const doc of to.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        const id = idOf(doc, one);
        if (id === undefined) continue;
        const refs = from.find({ [ref]: id }, { _id: 1 }, exact()).sort({ _id: 1 }).toArray().map((d) => d._id);
        to.updateOne({ _id: doc._id }, { $set: { [field]: refs } });
      }
    }, label);
  }

  // Each N document listed in a parent's array `field` gets `ref` = that parent's _id.
  function refsOut(step, parent, field, child, ref, label, one = "_id") {
    const from = target.getCollection(parent);
    const to = target.getCollection(child);
    inBatches(step, parent, { [field]: { $exists: true } }, (ids) => {
      for (const doc of from.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        const listed = pick(doc, field);
        const id = idOf(doc, one);
        if (Array.isArray(listed) && listed.length > 0 && id !== undefined) {
          to.updateMany({ _id: { $in: listed } }, { $set: { [ref]: id } });
        }
      }
    }, label);
  }

  // Each N document listed in a parent's array `field` gets that parent's _id in its array `ref` (a many-to-many's
  // other side); $addToSet adds an id once, so a batch cut short is simply run again.
  function refsAdd(step, parent, field, child, ref, label) {
    const from = target.getCollection(parent);
    const to = target.getCollection(child);
    inBatches(step, parent, { [field]: { $exists: true } }, (ids) => {
      for (const doc of from.find({ _id: { $in: ids } }).toArray()) {
        const listed = Array.isArray(doc[field]) ? doc[field] : [];
        if (listed.length > 0) to.updateMany({ _id: { $in: listed } }, { $addToSet: { [ref]: doc._id } });
      }
    }, label);
  }

  // An extended reference `ext` = {_id, copied fields} in each N document, from the parent its `ref` names
  // (every N document: setting the same copies again changes nothing).
  function extend(step, child, ref, parent, ext, copies, label) {
    const to = target.getCollection(child);
    const from = target.getCollection(parent);
    inBatches(step, child, {}, (ids) => {
      for (const doc of to.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        const id = pick(doc, ref);
        if (id === undefined || id === null) continue;
        const one = from.findOne({ _id: id }, {}, exact());
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


def strategy_step(
    step: str,
    change: Change,
    diff_old: tuple[Design, Project],
    diff_new: tuple[Design, Project],
    renamed: dict[str, str] | None = None,
) -> list[str] | None:
    """The lines that move the documents of one strategy change; None when this pair is not generated.

    ``renamed``: the collections the script renames first (OLD name -> NEW name), so the copy finds the OLD
    documents under their NEW collection name."""
    rel_id = change.details["relationship"]
    old, new = _storages(rel_id, diff_old, diff_new, renamed)
    if old is None or new is None or new.parent is None:
        return None
    head = ["", "  " + comment(f"{change.summary}: {change.risk}")]
    names = _names(diff_new[1], rel_id)
    calls = Calls(step, f"{change.subject}: {change.details['old']} -> {change.details['new']}")
    notes = shared_calls(old, new, calls, names)
    if notes is None:
        notes = _calls(old, new, calls)
    if notes is not None and not calls.lines and not notes and _already_there(old, new):
        notes = ["nothing to copy: the documents already hold the references the new strategy reads"]
    if notes is None or not (calls.lines or notes):
        return None
    return [*head, *("  " + comment(n) for n in notes), *calls.renames(), *calls.lines]


def _calls(old: Storage, new: Storage, calls: Calls) -> list[str] | None:
    """The calls of a change between where one N belongs to one One (and the many-to-many's pairs that move the
    same way: id arrays, copies into an embedded array, ...); None when the pair is not generated."""
    if (old.ref_array or new.ref_array) and not (old.shared and new.shared) and not _id_arrays_only(old, new):
        return None
    nested = bool(old.one_path or new.one_path)
    if moves_documents(old, new):
        return None if nested else pattern_calls(old, new, calls)
    if nested and (old.shared or new.ext is not None or old.ext is not None or new.subset is not None):
        return None  # a One below the top level: copies into and out of its embedded array, references, id arrays
    notes = _reference_calls(old, new, calls)
    if notes is not None and new.one_path and (new.ref is not None or new.refs is not None):
        notes.insert(
            0, f"each {quoted(new.one_path)} gets an _id (its document's own, one {quoted(new.one_path)} each)"
        )
        calls.lines.insert(0, _one_ids(new, calls))
    if notes is not None and new.subset is not None and old.subset != new.subset:
        notes = subset_calls(new, calls, notes)
    elif notes is not None and old.subset is not None and new.subset is None:
        notes.append(f"the array {quoted(old.subset)} of copies stays until the removed field is unset")
    return notes


def _one_ids(new: Storage, calls: Calls) -> str:
    """The step that gives each embedded One the _id its N now refer to: its document's _id (the One is a single
    sub-document, so that id is its own), where it has none yet."""
    one_id = f"{new.one_path}._id"
    filter_ = {new.one_path: {"$type": "object"}, one_id: {"$exists": False}}
    rendered = (
        f"  migrate({js_string(calls.step + '-id')}, {js_string(new.parent or '')}, {js_value(filter_)}, "
        f"{js_value([{'$set': {one_id: '$_id'}}])}, {js_string(calls.label)});"
    )
    return rendered


def _names(project: Project, rel_id: str) -> tuple[str, str]:
    """The names of a relationship's One and N entities, as the user wrote them."""
    rel = next(r for r in project.relationships if r.id == rel_id)
    names = {e.id: e.name for e in project.entities}
    return names.get(rel.one, rel.one), names.get(rel.many, rel.many)


def _already_there(old: Storage, new: Storage) -> bool:
    """The NEW storage's references and id arrays are the OLD one's (two-way to one of its halves)."""
    kept = all(n is None or n == o for n, o in ((new.ref, old.ref), (new.refs, old.refs), (new.ext, old.ext)))
    return kept and new.embed is None and new.child == old.child


def _id_arrays_only(old: Storage, new: Storage) -> bool:
    """A many-to-many kept as id arrays on one side or both, before and after: the steps generated for it."""
    plain = all(
        s.embed is None and s.ext is None and s.subset is None and not moves_documents(s, s) for s in (old, new)
    )
    return plain and (old.ref is None or new.ref is None or old.ref_array == new.ref_array)


def _reference_calls(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    """Embedded documents, references and id arrays from one of these places to another (notes; None: not here)."""
    if old.embed is not None and new.embed is None and new.child is not None:  # copy the embedded documents out
        if new.refs is not None:
            call("copyOutRefs", new.parent, old.embed, new.child, new.refs)
            if new.ref is not None:  # two-way: each copy names its parent too
                call("refsOut", new.parent, new.refs, new.child, new.ref, one=new.one_path)
        elif new.ref is not None:
            call("copyOut", new.parent, old.embed, new.child, new.ref, one=new.one_path)
        else:
            return None
        if new.ext is not None:
            call("extend", new.child, new.ref, new.parent, new.ext, [list(c) for c in new.copies])
        return [f"the embedded copies stay in {quoted(new.parent or '')} until the removed field is unset (step below)"]
    if old.embed is None and new.embed is not None and old.child is not None:  # copy the N documents in
        drop = [name for name in (old.ref, old.ext) if name is not None and "." not in name]
        if not new.item_id:
            drop.append("_id")
        select = {"field": old.refs} if old.refs is not None else {"ref": old.ref} if old.ref is not None else None
        if select is None:
            return None
        call("copyIn", new.parent, new.embed, old.child, select, new.single, drop, one=old.one_path)
        return [f"the documents of {quoted(old.child)} stay until you drop that collection"]
    if old.embed is not None or new.embed is not None or new.child is None:
        return None
    if new.refs is not None and old.refs is None and old.ref is not None:
        call("refsIn", new.parent, new.refs, new.child, old.ref, one=old.one_path)
    if new.ref is not None and new.ref != old.ref:
        if old.refs is not None and new.ref_array:
            call("refsAdd", new.parent, old.refs, new.child, new.ref)
        elif old.refs is not None:
            call("refsOut", new.parent, old.refs, new.child, new.ref, one=new.one_path)
        elif old.ref is not None and new.ext is None:
            call.migrate(
                new.child,
                {new.ref: {"$exists": False}, old.ref: {"$exists": True}},
                [{"$set": {new.ref: "$" + old.ref}}],
            )
    if new.ext is not None and old.ext != new.ext:
        source = old.ref if old.ref is not None else new.ref  # from child-refs: the reference refsOut just set
        if source is None:
            return None
        call("extend", new.child, source, new.parent, new.ext, [list(c) for c in new.copies])
    return []


def _storages(
    rel_id: str, diff_old: tuple[Design, Project], diff_new: tuple[Design, Project], renamed: dict[str, str] | None
) -> tuple[Storage | None, Storage | None]:
    """The OLD and NEW storage of a relationship, the OLD collections under the names the script renames them to."""
    old, new = storage(*diff_old, rel_id), storage(*diff_new, rel_id)
    if old is not None and renamed:
        parent, child = old.parent, old.child
        old = replace(
            old,
            parent=renamed.get(parent, parent) if parent else parent,
            child=renamed.get(child, child) if child else child,
        )
    return old, new


def reshaped_by(
    change: Change,
    diff_old: tuple[Design, Project],
    diff_new: tuple[Design, Project],
    renamed: dict[str, str] | None = None,
) -> set[tuple[str, str | None]]:
    """What a generated strategy step reshapes itself, so the migration writes no field step for it:
    ``(collection, None)`` for a collection whose documents become (or stop being) buckets, ``(collection, path)``
    for the references, arrays and copies the step writes, and the fields a single collection gains (with the
    discriminator and links) or loses with the N's documents."""
    old, new = _storages(change.details["relationship"], diff_old, diff_new, renamed)
    out: set[tuple[str, str | None]] = set()
    if old is not None and new is not None:  # the fields the step writes: references, id arrays, copies
        written = [(new.child, new.ref), (new.child, new.ext), (new.parent, new.refs), (new.parent, new.embed)]
        written.append((new.parent, new.subset))
        before = {old.ref, old.ext, old.refs, old.embed, old.subset}
        if new.one_path:  # a One below the top level: only the paths written, and the One's _id
            written.append((new.parent, f"{new.one_path}._id"))
        out.update((c, _written(p, new)) for c, p in written if c is not None and p is not None and p not in before)
    for where in (old, new):
        if where is not None and where.bucket is not None and where.child is not None:
            out.add((where.child, None))
    host = diff_new[0].collection(new.child) if new is not None and new.discriminator and new.child else None
    if new is not None and host is not None:
        out.update(
            (host.name, n.name)
            for n in host.shape
            if n.variant == new.many_type or n.name in (new.discriminator, new.links)
        )
    left = diff_old[0].collection(old.child) if old is not None and old.discriminator and old.child else None
    if old is not None and left is not None:  # the N's fields leave the shared collection with its documents
        out.update((left.name, n.name) for n in left.shape if n.variant == old.many_type)
    return out


def _written(path: str, new: Storage) -> str:
    """What a step writing ``path`` reshapes: its top-level field, or the path itself below an embedded One."""
    return path if new.one_path and path.startswith(new.one_path + ".") else path.split(".")[0]
