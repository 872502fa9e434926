"""Data steps of a strategy change into or out of the subset, bucket and single collection patterns.

A subset keeps the full N collection and adds, in each One, an array of copies of its latest N
(``subsetIn``); a bucket design keeps the N's collection but holds bucket documents of up to the
design's size, one series (the One) each, with the time bounds, the count and the value statistics
(``bucketIn``, and ``bucketOut`` back); the single collection pattern keeps the N's documents in the
One's collection with the discriminator and a ``links`` element naming their One (``shareIn``, and
``shareOut`` back). Reshaping a collection in place (buckets) or leaving a shared one (single
collection) moves the documents: the new one is written before the old one is removed, and the marker
names both meanwhile, so a run cut at any write completes on the next run without a duplicate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from modeller.export.literals import js_string, js_value, quoted
from modeller.review.copy_storage import Calls, Storage

#: JavaScript helpers the pattern steps call (after the strategy helpers: they use ``pick``, ``put``, ``inBatches``)
PATTERN_HELPERS = """\
  // The time of a document for its bucket: its time field, else the creation time of an ObjectId _id.
  function stamp(doc, path) {
    const value = pick(doc, path);
    if (Object.prototype.toString.call(value) === "[object Date]") return value;
    const id = doc._id;
    return id !== null && typeof id === "object" && typeof id.getTimestamp === "function" ? id.getTimestamp() : null;
  }

  function number(value) {
    if (typeof value === "number") return value;
    if (value === null || typeof value !== "object") return null;
    const n = typeof value.toNumber === "function" ? value.toNumber() : Number(String(value));
    return Number.isFinite(n) ? n : null;
  }

  // One bucket document of `docs` (one series, in time order): bounds, count, the fields copied from the series'
  // One, value statistics and the items: each document but its _id and reference (`b.drop`), so a field the same
  // migration renames is kept under its old name, never lost (the statistics' names are the bucket pattern's own).
  function bucketOf(docs, series, b) {
    const bucket = { _id: ObjectId() };
    put(bucket, b.series, series);
    const times = docs.map((doc) => stamp(doc, b.time)).filter((t) => t !== null);
    const epoch = ISODate("1970-01-01T00:00:00Z");
    bucket[b.start] = times.reduce((a, t) => (t.getTime() < a.getTime() ? t : a), times[0] || epoch);
    bucket[b.end] = times.reduce((a, t) => (t.getTime() > a.getTime() ? t : a), times[0] || epoch);
    bucket.count = NumberInt(docs.length);
    const one = b.copies.length > 0 ? target.getCollection(b.parent).findOne({ _id: series }) : null;
    for (const [name, source] of b.copies) {
      const copied = one === null ? undefined : pick(one, source);
      if (copied !== undefined) put(bucket, name, copied);
    }
    if (b.value !== null) {
      const values = docs.map((doc) => number(pick(doc, b.value))).filter((n) => n !== null);
      bucket.sum = Double(values.reduce((a, n) => a + n, 0));
      bucket.min = Double(values.length > 0 ? Math.min(...values) : 0);
      bucket.max = Double(values.length > 0 ? Math.max(...values) : 0);
    }
    bucket[b.items] = docs.map((doc) => {
      const item = Object.assign({}, doc);
      for (const name of b.drop) delete item[name];
      return item;
    });
    return bucket;
  }

  // The documents of `coll` not in a bucket yet (no `b.items`), one series (`ref`) at a time, grouped in time
  // order into bucket documents of at most `b.size`. A bucket is inserted before the documents it holds are
  // removed, and the marker names both meanwhile: a cut run removes them first when it runs again. A unique index
  // would refuse the buckets (they lack the documents' fields): the step then waits until it is dropped.
  function bucketIn(step, coll, ref, b, label) {
    const c = target.getCollection(coll);
    const unique = c.getIndexes().filter((ix) => ix.unique === true && ix.name !== "_id_").map((ix) => ix.name);
    if (unique.length > 0) {
      print(label + ": not moved yet: the unique index(es) " + JSON.stringify(unique) + " of " + JSON.stringify(coll)
        + " would refuse the bucket documents; drop them and run the script again");
      return;
    }
    const key = MIGRATION + " " + step + " open";
    const open = markers.findOne({ _id: key });
    if (open !== null && open.bucket !== null && c.countDocuments({ _id: open.bucket }, { limit: 1 }) > 0) {
      c.deleteMany({ _id: { $in: open.ids } });
    }
    const loose = { [b.items]: { $exists: false } };
    inBatches(step, coll, loose, (ids) => {
      for (const id of ids) {
        const first = c.findOne({ $and: [{ _id: id }, loose] });
        if (first === null) continue; // in a bucket with an earlier document of its series
        const series = pick(first, ref);
        if (series === undefined || series === null) {
          print(label + ": the document " + JSON.stringify(id) + " names no series; left as it is");
          continue;
        }
        for (;;) {
          const docs = c.find({ $and: [{ [ref]: series }, loose] }).sort({ [b.time]: 1, _id: 1 }).limit(b.size)
            .toArray();
          if (docs.length === 0) break;
          const bucket = bucketOf(docs, series, b);
          const held = docs.map((doc) => doc._id);
          markers.updateOne({ _id: key }, { $set: { bucket: bucket._id, ids: held } }, { upsert: true });
          c.insertMany([bucket]);
          c.deleteMany({ _id: { $in: held } });
          markers.updateOne({ _id: key }, { $set: { bucket: null, ids: [] } }, { upsert: true });
        }
      }
    }, label);
  }

  // Each bucket document of `coll` (one with `b.items`) split into one document per item with `ref` = its
  // series. The new _ids are kept in the marker before they are inserted, and the bucket is removed last: a cut
  // run inserts only the missing ones when it runs again.
  function bucketOut(step, coll, ref, b, label) {
    const c = target.getCollection(coll);
    const key = MIGRATION + " " + step + " open";
    inBatches(step, coll, { [b.items]: { $exists: true } }, (ids) => {
      for (const id of ids) {
        const bucket = c.findOne({ _id: id });
        if (bucket === null) continue;
        const items = Array.isArray(bucket[b.items]) ? bucket[b.items] : [];
        const open = markers.findOne({ _id: key });
        let fresh = open !== null && JSON.stringify(open.bucket) === JSON.stringify(id) ? open.ids : null;
        if (!Array.isArray(fresh) || fresh.length !== items.length) {
          fresh = items.map(() => ObjectId());
          markers.updateOne({ _id: key }, { $set: { bucket: id, ids: fresh } }, { upsert: true });
        }
        const have = new Set(c.find({ _id: { $in: fresh } }, { _id: 1 }).toArray().map((d) => JSON.stringify(d._id)));
        const docs = items.map((item, i) => {
          const doc = Object.assign({}, item, { _id: fresh[i] });
          put(doc, ref, pick(bucket, b.series));
          return doc;
        }).filter((doc) => !have.has(JSON.stringify(doc._id)));
        if (docs.length > 0) c.insertMany(docs);
        c.deleteMany({ _id: id });
        markers.updateOne({ _id: key }, { $set: { bucket: null, ids: [] } }, { upsert: true });
      }
    }, label);
  }

  // Each parent's array `field`: copies (`copies`: [name, source]) of its `k` latest N documents (those whose
  // `ref` is its _id), newest first by `sort` (else by _id).
  function subsetIn(step, parent, field, child, ref, k, sort, copies, label) {
    const to = target.getCollection(parent);
    const from = target.getCollection(child);
    const order = sort === null ? { _id: -1 } : { [sort[0]]: sort[1], _id: sort[1] };
    inBatches(step, parent, { [field]: { $exists: false } }, (ids) => {
      for (const doc of to.find({ _id: { $in: ids } }).toArray()) {
        if (doc[field] !== undefined) continue;
        const items = from.find({ [ref]: doc._id }).sort(order).limit(k).toArray().map((item) => {
          const copy = {};
          for (const [name, source] of copies) {
            const value = pick(item, source);
            if (value !== undefined) put(copy, name, value);
          }
          return copy;
        });
        to.updateOne({ _id: doc._id }, { $set: { [field]: items } });
      }
    }, label);
  }

  // The N documents of `child` copied into their parent's collection `host` (same _id), typed `s.many` in the
  // discriminator and linked to the parent their `ref` names; a document already there is skipped.
  function shareIn(step, child, ref, drop, host, s, label) {
    const from = target.getCollection(child);
    const to = target.getCollection(host);
    inBatches(step, child, {}, (ids) => {
      const have = new Set(to.find({ _id: { $in: ids } }, { _id: 1 }).toArray().map((d) => JSON.stringify(d._id)));
      const copies = from.find({ _id: { $in: ids } }).toArray().filter((doc) => !have.has(JSON.stringify(doc._id)))
        .map((doc) => {
          const parent = ref === null ? undefined : pick(doc, ref);
          const copy = Object.assign({}, doc);
          for (const name of drop) delete copy[name];
          copy[s.type] = s.many;
          copy[s.links] = parent === undefined || parent === null ? [] : [{ [s.target]: parent, [s.linkType]: s.one }];
          return copy;
        });
      if (copies.length > 0) to.insertMany(copies);
    }, label);
  }

  // The N documents each parent of `host` lists in its array `field` copied into `host` (typed `s.many`, same _id)
  // with a links element naming that parent: one element per parent that lists it, added once.
  function shareListed(step, child, field, drop, host, s, label) {
    const from = target.getCollection(child);
    const to = target.getCollection(host);
    inBatches(step, host, { [field]: { $exists: true } }, (ids) => {
      for (const parent of to.find({ _id: { $in: ids } }).toArray()) {
        const listed = Array.isArray(parent[field]) ? parent[field] : [];
        const link = { [s.target]: parent._id, [s.linkType]: s.one };
        for (const doc of from.find({ _id: { $in: listed } }).toArray()) {
          const there = to.findOne({ _id: doc._id });
          if (there === null) {
            const copy = Object.assign({}, doc);
            for (const name of drop) delete copy[name];
            copy[s.type] = s.many;
            copy[s.links] = [link];
            to.insertMany([copy]);
            continue;
          }
          const links = Array.isArray(there[s.links]) ? there[s.links] : [];
          if (!links.some((l) => JSON.stringify(l) === JSON.stringify(link))) {
            to.updateOne({ _id: doc._id }, { $set: { [s.links]: links.concat([link]) } });
          }
        }
      }
    }, label);
  }

  // Each parent in `host` gets, in its array `field`, the _id of every document typed `s.many` that links to it.
  function refsFromLinks(step, host, s, field, label) {
    const c = target.getCollection(host);
    inBatches(step, host, { [s.type]: s.many }, (ids) => {
      for (const doc of c.find({ _id: { $in: ids } }).toArray()) {
        for (const link of Array.isArray(doc[s.links]) ? doc[s.links] : []) {
          if (link === null || typeof link !== "object" || link[s.linkType] !== s.one) continue;
          const parent = c.findOne({ _id: link[s.target] });
          if (parent === null) continue;
          const refs = Array.isArray(parent[field]) ? parent[field] : [];
          if (!refs.some((r) => JSON.stringify(r) === JSON.stringify(doc._id))) {
            c.updateOne({ _id: parent._id }, { $set: { [field]: refs.concat([doc._id]) } });
          }
        }
      }
    }, label);
  }

  // The documents embedded at `path` in each parent of `host` become documents of `host` typed `s.many` (an
  // embedded _id is kept) with a links element naming the parent, which is typed `s.one` last. The new _ids are
  // kept in the marker before the insert, so a cut run inserts only the missing ones; a typed parent is done.
  function shareEmbedded(step, host, path, s, label) {
    const c = target.getCollection(host);
    const key = MIGRATION + " " + step + " open";
    inBatches(step, host, { $and: [{ [path]: { $exists: true } }, { [s.type]: { $exists: false } }] }, (ids) => {
      for (const id of ids) {
        const parent = c.findOne({ _id: id });
        if (parent === null || parent[s.type] !== undefined) continue;
        const items = embedded(parent, path).map((item) => (item !== null && typeof item === "object" ? item : {}));
        const open = markers.findOne({ _id: key });
        let fresh = open !== null && JSON.stringify(open.parent) === JSON.stringify(id) ? open.ids : null;
        if (!Array.isArray(fresh) || fresh.length !== items.length) {
          fresh = items.map((item) => (item._id !== undefined ? item._id : ObjectId()));
          markers.updateOne({ _id: key }, { $set: { parent: id, ids: fresh } }, { upsert: true });
        }
        const have = new Set(c.find({ _id: { $in: fresh } }, { _id: 1 }).toArray().map((d) => JSON.stringify(d._id)));
        const link = { [s.target]: id, [s.linkType]: s.one };
        const copies = items.map((item, i) => Object.assign({}, item, { _id: fresh[i], [s.type]: s.many, [s.links]: [link] }))
          .filter((copy) => !have.has(JSON.stringify(copy._id)));
        if (copies.length > 0) c.insertMany(copies);
        c.updateOne({ _id: id }, { $set: { [s.type]: s.one } });
      }
    }, label);
  }

  // Each parent typed `s.one` in `host` gets, at `path`, copies of the documents typed `s.many` that link to it
  // (an array, or one document when `single`) without their type, links and the fields named in `drop`.
  function embedShared(step, host, path, s, single, drop, label) {
    const c = target.getCollection(host);
    inBatches(step, host, { $and: [{ [s.type]: s.one }, { [path]: { $exists: false } }] }, (ids) => {
      for (const id of ids) {
        const linked = { [s.type]: s.many, [s.links]: { $elemMatch: { [s.target]: id, [s.linkType]: s.one } } };
        const items = c.find(linked).sort({ _id: 1 }).toArray().map((doc) => {
          const copy = Object.assign({}, doc);
          for (const name of [s.type, s.links, ...drop]) delete copy[name];
          return copy;
        });
        if (single && items.length === 0) continue;
        c.updateOne({ _id: id }, { $set: { [path]: single ? items[0] : items } });
      }
    }, label);
  }

  // The documents typed `s.many` in `host` whose every copy is in place (a parent they link to exists) removed;
  // one that links to no parent stays, and is counted.
  function removeEmbedded(step, host, s, label) {
    const c = target.getCollection(host);
    const typed = { [s.type]: s.many };
    let kept = 0;
    inBatches(step, host, typed, (ids) => {
      const gone = c.find({ _id: { $in: ids } }).toArray().filter((doc) => {
        const links = Array.isArray(doc[s.links]) ? doc[s.links] : [];
        const held = links.some((l) => l !== null && typeof l === "object" && l[s.linkType] === s.one
          && c.countDocuments({ _id: l[s.target], [s.type]: s.one }, { limit: 1 }) > 0);
        if (!held) kept += 1;
        return held;
      }).map((doc) => doc._id);
      if (gone.length > 0) c.deleteMany({ $and: [{ _id: { $in: gone } }, typed] });
    }, label);
    if (kept > 0) print(label + ": " + kept + " document(s) link to no parent and stay in " + JSON.stringify(host));
  }

  // The documents typed `s.many` in `host` moved into `child` (same _id) with `ref` = the parent their link
  // names; each is removed from `host` once its copy exists, so a cut run copies only the missing ones.
  function shareOut(step, host, s, child, ref, label) {
    const from = target.getCollection(host);
    const to = target.getCollection(child);
    const typed = { [s.type]: s.many };
    inBatches(step, host, typed, (ids) => {
      const have = new Set(to.find({ _id: { $in: ids } }, { _id: 1 }).toArray().map((d) => JSON.stringify(d._id)));
      const copies = from.find({ _id: { $in: ids } }).toArray().filter((doc) => !have.has(JSON.stringify(doc._id)))
        .map((doc) => {
          const links = Array.isArray(doc[s.links]) ? doc[s.links] : [];
          const link = links.find((l) => l !== null && typeof l === "object" && l[s.linkType] === s.one);
          const copy = Object.assign({}, doc);
          delete copy[s.type];
          delete copy[s.links];
          if (link !== undefined && ref !== null) put(copy, ref, link[s.target]);
          return copy;
        });
      if (copies.length > 0) to.insertMany(copies);
      from.deleteMany({ $and: [{ _id: { $in: ids } }, typed] });
    }, label);
  }
"""


#: what a DBA does by hand for a strategy change the script does not generate, by the NEW strategy
_BY_HAND = {
    "bucket": "group each One's N documents in time order into bucket documents of the design's size "
    "(series, start, end, count, statistics, items)",
    "single-collection": "copy the N documents into the One's collection with the discriminator and a links "
    "element naming their One",
    "embed": "copy each One's N documents into its array (or sub-document) with a pipeline $lookup and $merge",
    "subset": "set each One's array to copies of its latest N documents",
}


def by_hand(old: str, new: str) -> str:
    """The NOT MIGRATED comment of a strategy change whose copy is not generated: what to run instead."""
    todo = _BY_HAND.get(new, "set the N documents' references (or the One's id arrays) from the old shape")
    if old in ("bucket", "single-collection") and new not in ("bucket", "single-collection"):
        todo = f"first move the N documents out of the {old} shape into documents of their own, then {todo}"
    return (
        f"NOT MIGRATED: copying documents for {old} -> {new} is not generated; by hand: {todo}, "
        "and check them against the NEW validator"
    )


def moves_documents(old: Storage, new: Storage) -> bool:
    """Whether the change reshapes a collection (buckets) or shares one (single collection)."""
    return any(s.bucket is not None or s.discriminator is not None for s in (old, new))


def subset_calls(new: Storage, call: Calls, notes: list[str]) -> list[str] | None:
    """Fill the One's subset array from the N documents, once their references are in place."""
    if new.subset is None or new.parent is None or new.child is None or new.ref is None:
        return None
    sort = list(new.subset_sort) if new.subset_sort is not None else None
    copies = [list(c) for c in new.subset_copies]
    call("subsetIn", new.parent, new.subset, new.child, new.ref, new.subset_k, sort, copies)
    return [*notes, f"the full set stays in {quoted(new.child)}; the array keeps copies of the latest {new.subset_k}"]


def pattern_calls(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    """The calls of a change into or out of buckets or a single collection (notes; None: not generated)."""
    notes = []
    if old.subset is not None and new.subset != old.subset:
        notes.append(f"the array {quoted(old.subset)} of copies stays until the removed field is unset")
    steps: list[tuple[Callable[[Storage, Storage, Calls], list[str] | None], Storage, Storage]]
    if old.discriminator is not None and new.bucket is not None:  # through documents of their own
        plain = Storage(parent=new.parent, child=new.child, ref=new.ref)
        steps = [(_out_of_shared, old, plain), (_into_buckets, plain, new)]
    elif old.bucket is not None and new.discriminator is not None:
        plain = Storage(parent=old.parent, child=old.child, ref=old.ref)
        steps = [(_out_of_buckets, old, plain), (_into_shared, plain, new)]
    elif old.embed is not None and new.discriminator is not None:
        steps = [(_embedded_to_shared, old, new)]
    elif old.discriminator is not None and new.embed is not None:
        steps = [(_shared_to_embedded, old, new)]
    elif old.embed is not None and new.bucket is not None:
        plain = Storage(parent=new.parent, child=new.child, ref=new.ref)
        steps = [(_embedded_out, old, plain), (_into_buckets, plain, new)]
    elif old.bucket is not None and (new.embed is not None or (new.refs is not None and new.ref is None)):
        plain = Storage(parent=old.parent, child=old.child, ref=old.ref)
        steps = [(_out_of_buckets, old, plain), (_into_embedded if new.embed is not None else _into_refs, plain, new)]
    elif new.bucket is not None and old.bucket is None:
        steps = [(_into_buckets, old, new)]
    elif old.bucket is not None and new.bucket is None:
        steps = [(_out_of_buckets, old, new)]
    elif new.discriminator is not None and old.discriminator is None:
        steps = [(_into_shared, old, new)]
    elif old.discriminator is not None and new.discriminator is None:
        steps = [(_out_of_shared, old, new)]
    else:
        return None
    for step, before, after in steps:
        done = step(before, after, call)
        if done is None:
            return None
        notes += done
    return notes


def _into_buckets(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if old.child != new.child or old.embed is not None or old.discriminator is not None or old.timeseries:
        return None
    notes: list[str] = []
    series = old.ref
    if series is None and old.refs is not None and new.ref is not None and old.parent is not None:
        call("refsOut", old.parent, old.refs, old.child, new.ref)  # child-refs: each N names its One first
        series = new.ref
    if series is None:
        return None
    for index in old.unique:  # a bucket document lacks the fields a unique index of the documents holds
        notes.append(f"the unique index {quoted(index)} would refuse the bucket documents; drop it first:")
        notes.append(f"target.getCollection({js_string(old.child or '')}).dropIndex({js_string(index)});")
    drop = sorted({"_id", series.split(".")[0], *([old.ext] if old.ext is not None else [])})
    call("bucketIn", new.child, series, _bucket(new, drop))
    return [*notes, f"each bucket document replaces, in {quoted(new.child or '')}, the documents it holds"]


def _embedded_to_shared(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if old.embed is None or old.parent != new.child or new.child is None or new.discriminator is None:
        return None
    call("shareEmbedded", new.child, old.embed, _shared(new))
    call.migrate(new.child, {new.discriminator: {"$exists": False}}, {"$set": {new.discriminator: new.one_type}})
    return [f"the embedded copies stay in {quoted(new.child)} until the removed field is unset (step below)"]


def _shared_to_embedded(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if new.embed is None or new.parent != old.child or old.child is None:
        return None
    call("embedShared", old.child, new.embed, _shared(old), new.single, [] if new.item_id else ["_id"])
    call("removeEmbedded", old.child, _shared(old))
    return [f"each document moves into the parents it links to; it then leaves {quoted(old.child)}"]


def _embedded_out(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    """Embedded documents copied out into documents of their own that name their parent."""
    if old.embed is None or new.child is None or new.ref is None or "." in new.ref:
        return None
    call("copyOut", new.parent, old.embed, new.child, new.ref)
    return [f"the embedded copies stay in {quoted(new.parent or '')} until the removed field is unset (step below)"]


def _into_embedded(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    """Documents that name their parent copied into it (its array, or its sub-document when one-to-one)."""
    if old.child is None or old.ref is None or new.embed is None:
        return None
    drop = [old.ref] if "." not in old.ref else []
    call(
        "copyIn",
        new.parent,
        new.embed,
        old.child,
        {"ref": old.ref},
        new.single,
        [*drop, *([] if new.item_id else ["_id"])],
    )
    return [f"the documents of {quoted(old.child)} stay until you drop that collection"]


def _into_refs(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    """Each parent's id array built from the documents that name it; the reference stays in them until unset."""
    if old.child is None or old.ref is None or new.refs is None or new.child != old.child:
        return None
    call("refsIn", new.parent, new.refs, new.child, old.ref)
    unset = {"$unset": {old.ref: ""}}
    return [
        f"each document keeps {quoted(old.ref)}, which the new design does not read; once nothing does (uncomment):",
        f"target.getCollection({js_string(old.child)}).updateMany({{}}, {js_value(unset)});",
    ]


def _out_of_buckets(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if new.child != old.child or new.ref is None or new.embed is not None or new.discriminator is not None:
        return None
    call("bucketOut", old.child, new.ref, _bucket(old, []))
    return _references_filled(new, call, ["each bucket document is replaced by the documents it held"])


def _into_shared(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if old.child is None or old.child == new.child or (old.ref is None and old.refs is None):
        return None
    if old.embed is not None or old.bucket is not None or new.child is None or new.discriminator is None:
        return None
    drop = [name for name in (old.ref, old.ext) if name is not None and "." not in name]
    call.migrate(new.child, {new.discriminator: {"$exists": False}}, {"$set": {new.discriminator: new.one_type}})
    if old.ref is None:  # child-refs: the links come from the parents' arrays; the N no parent lists follow
        call("shareListed", old.child, old.refs, drop, new.child, _shared(new))
    call("shareIn", old.child, old.ref, drop, new.child, _shared(new))
    return [f"the documents of {quoted(old.child)} stay until you drop that collection"]


def _out_of_shared(old: Storage, new: Storage, call: Calls) -> list[str] | None:
    if new.child is None or new.child == old.child or (new.ref is None and new.refs is None):
        return None
    if new.embed is not None or new.bucket is not None or old.child is None:
        return None
    if new.refs is not None:
        call("refsFromLinks", old.child, _shared(old), new.refs)
    call("shareOut", old.child, _shared(old), new.child, new.ref)
    note = f"each document moves: it leaves {quoted(old.child)} once its copy is in {quoted(new.child)}"
    return _references_filled(new, call, [note], refs_done=True)


def _references_filled(new: Storage, call: Calls, notes: list[str], refs_done: bool = False) -> list[str] | None:
    """After the N documents got their reference: the One's id array (two-way), the extended reference's copies,
    the subset's array."""
    if new.refs is not None and new.ref is not None and not refs_done and new.parent is not None:
        call("refsIn", new.parent, new.refs, new.child, new.ref)
    if new.ext is not None and new.child is not None and new.ref is not None and new.parent is not None:
        call("extend", new.child, new.ref, new.parent, new.ext, [list(c) for c in new.copies])
    if new.subset is not None:
        return subset_calls(new, call, notes)
    return notes


def _bucket(where: Storage, drop: list[str]) -> dict[str, Any]:
    """The bucket layout the helpers read; ``drop``: the fields of a document its bucket item leaves out."""
    b = where.bucket
    assert b is not None
    return {
        "size": b.size,
        "series": b.series_field,
        "items": b.items_field,
        "time": b.time_field,
        "start": b.start_field,
        "end": b.end_field,
        "value": b.value_field,
        "drop": drop,
        "parent": where.parent,
        "copies": [list(c) for c in where.bucket_copies],
    }


def _shared(where: Storage) -> dict[str, Any]:
    return {
        "type": where.discriminator,
        "many": where.many_type,
        "one": where.one_type,
        "links": where.links,
        "target": where.link_target,
        "linkType": where.link_type,
    }
