"""Data steps of a many-to-many's strategy change, where one N belongs to several Ones.

A many-to-many keeps each N once with the ids of its Ones (``parent-ref``: each N's array; ``child-refs``:
each One's array; ``two-way``: both; ``subset``: each N's array and the One's copies of its latest N), or
one copy of it per One (``embed``: in each One's array; ``bucket``: in each One's bucket documents), or
once in the One's collection with one ``links`` element per One (``single-collection``). Copies carry no
id of the N, so copies equal in every field are one N: they become one document (``sameCopy``) that
lists each One they were copied in. Into buckets, each N is first split into one document per One
(``explode``). Into extended references (an array of ``{_id, copies}`` in each N, one per One) each N
first lists its Ones' ids as the steps above do, then the array is built from them (``extendShared``); out of
them, ``<ext>._id`` is the N's array of One ids. The pairs the one-to-many steps already do right (copies into
an embedded array, out of a single collection into child-refs, ...) are left to them.
"""

from __future__ import annotations

from modeller.export.literals import js_string, js_value, quoted
from modeller.review.copy_storage import Calls, Storage
from modeller.review.pattern_copies import bucket_layout, into_buckets, into_shared, shared_layout, subset_calls

#: JavaScript helpers of the many-to-many steps (after the pattern helpers: they use ``embedded``, ``present``)
SHARED_HELPERS = """\
  function has(list, value) {
    return Array.isArray(list) && list.some((v) => JSON.stringify(v) === JSON.stringify(value));
  }

  // The document of `coll` (also matching `extra`) that is the N `item` copies: the one with its _id, else the
  // one equal to it in every field the copy holds (a many-to-many's copies of one N carry no id of it).
  function sameCopy(coll, item, extra) {
    const filter = item._id !== undefined ? { _id: item._id } : Object.assign({}, item);
    return coll.findOne(Object.assign(filter, extra), {}, exact());
  }

  // A many-to-many's embedded copies at `path` become documents of `child`, one per N (equal copies are one N):
  // each lists the parents that held a copy in its array `ref`, each parent their ids in its array `refs` (either
  // may be null). A copy is looked up before one is inserted and an id is added once, so a cut run completes.
  function copyOutShared(step, parent, path, child, ref, refs, label) {
    const from = target.getCollection(parent);
    const to = target.getCollection(child);
    inBatches(step, parent, { [path]: { $exists: true } }, (ids) => {
      for (const doc of from.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        const listed = [];
        for (const item of embedded(doc, path)) {
          if (item === null || typeof item !== "object") continue;
          let copy = sameCopy(to, item, {});
          if (copy === null) {
            copy = Object.assign({ _id: ObjectId() }, item);
            if (ref !== null) copy[ref] = [doc._id];
            to.insertMany([copy]);
          } else if (ref !== null && !has(copy[ref], doc._id)) {
            to.updateOne({ _id: copy._id }, { $addToSet: { [ref]: doc._id } });
          }
          if (!has(listed, copy._id)) listed.push(copy._id);
        }
        if (refs !== null && JSON.stringify(doc[refs]) !== JSON.stringify(listed)) {
          from.updateOne({ _id: doc._id }, { $set: { [refs]: listed } });
        }
      }
    }, label);
  }

  // A many-to-many's bucket documents of `coll` split into one document per N: the items equal in every field
  // (copies of one N in several series' buckets) become one document listing those series in its array `ref`. A
  // bucket is removed once each of its items is in place: a cut run finds them and adds only what is missing.
  function bucketOutMerged(step, coll, ref, b, label) {
    const c = target.getCollection(coll);
    const loose = { [b.items]: { $exists: false } };
    inBatches(step, coll, { [b.items]: { $exists: true } }, (ids) => {
      for (const id of ids) {
        const bucket = c.findOne({ _id: id }, {}, exact());
        if (bucket === null) continue;
        const series = pick(bucket, b.series);
        for (const item of Array.isArray(bucket[b.items]) ? bucket[b.items] : []) {
          if (item === null || typeof item !== "object" || series === undefined || series === null) continue;
          const copy = sameCopy(c, item, loose);
          if (copy === null) c.insertMany([Object.assign({ _id: ObjectId() }, item, { [ref]: [series] })]);
          else if (!has(copy[ref], series)) c.updateOne({ _id: copy._id }, { $addToSet: { [ref]: series } });
        }
        c.deleteMany({ _id: id });
      }
    }, label);
  }

  // Each document of `coll` whose `from` is an array of its parents' ids becomes one document per parent, with
  // that id in `to` (a many-to-many's N, one copy per series, before the copies are grouped into buckets). The
  // copies' _ids are kept in the marker before they are inserted and the document is removed last, so a cut run
  // inserts only the missing ones. A document in no parent's array stays as it is.
  function explode(step, coll, from, to, label) {
    const c = target.getCollection(coll);
    const key = MIGRATION + " " + step + " open";
    inBatches(step, coll, { [from]: { $type: "array" } }, (ids) => {
      for (const id of ids) {
        const doc = c.findOne({ _id: id }, {}, exact());
        const parents = doc === null ? null : pick(doc, from);
        if (!Array.isArray(parents) || parents.length === 0) continue;
        const open = markers.findOne({ _id: key }, {}, exact()); // the ids are written
        let fresh = open !== null && JSON.stringify(open.doc) === JSON.stringify(id) ? open.ids : null;
        if (!Array.isArray(fresh) || fresh.length !== parents.length) {
          fresh = parents.map(() => ObjectId());
          markers.updateOne({ _id: key }, { $set: { doc: id, ids: fresh } }, { upsert: true });
        }
        const have = present(c, fresh);
        const copies = parents.map((one, i) => {
          const copy = Object.assign({}, doc, { _id: fresh[i] });
          delete copy[from];
          put(copy, to, one);
          return copy;
        }).filter((copy) => !have.has(JSON.stringify(copy._id)));
        if (copies.length > 0) c.insertMany(copies);
        c.deleteMany({ _id: id });
        markers.updateOne({ _id: key }, { $set: { doc: null, ids: [] } }, { upsert: true });
      }
    }, label);
  }

  // A many-to-many's embedded copies at `path` in each parent of `host` become documents of `host` typed `s.many`,
  // one per N (equal copies are one N), with one links element per parent that held a copy; the parent is typed
  // `s.one` last. A copy is looked up before one is inserted and a link added once, so a cut run completes.
  function shareEmbeddedMerged(step, host, path, s, label) {
    const c = target.getCollection(host);
    inBatches(step, host, { $and: [{ [path]: { $exists: true } }, { [s.type]: { $exists: false } }] }, (ids) => {
      for (const id of ids) {
        const parent = c.findOne({ _id: id }, {}, exact());
        if (parent === null || parent[s.type] !== undefined) continue;
        const link = { [s.target]: id, [s.linkType]: s.one };
        for (const item of embedded(parent, path)) {
          if (item === null || typeof item !== "object") continue;
          const copy = sameCopy(c, item, { [s.type]: s.many });
          if (copy === null) {
            c.insertMany([Object.assign({ _id: ObjectId() }, item, { [s.type]: s.many, [s.links]: [link] })]);
            continue;
          }
          const links = Array.isArray(copy[s.links]) ? copy[s.links] : [];
          if (!has(links, link)) c.updateOne({ _id: copy._id }, { $set: { [s.links]: links.concat([link]) } });
        }
        c.updateOne({ _id: id }, { $set: { [s.type]: s.one } });
      }
    }, label);
  }

  // Each N document of `child` gets `ext`: an array of {_id, copied fields}, one per id its array `ids` holds (`ids`
  // may be `ext` itself, holding bare ids or earlier elements), the copies read from that parent; a document in no
  // parent's array gets an empty one. A document already holding that array is not written, so a cut run completes.
  function extendShared(step, parent, child, ids, ext, copies, label) {
    const to = target.getCollection(child);
    const from = target.getCollection(parent);
    inBatches(step, child, {}, (batch) => {
      for (const doc of to.find({ _id: { $in: batch } }, {}, exact()).toArray()) {
        const listed = embedded(doc, ids).map((v) => (v !== null && typeof v === "object" && "_id" in v ? v._id : v));
        const ones = new Map(
          from.find({ _id: { $in: listed } }, {}, exact()).toArray().map((one) => [JSON.stringify(one._id), one]),
        );
        const value = listed.map((id) => {
          const one = ones.get(JSON.stringify(id));
          const element = { _id: id };
          for (const [name, source] of copies) {
            const copied = one === undefined ? undefined : pick(one, source);
            if (copied !== undefined) element[name] = copied;
          }
          return element;
        });
        if (JSON.stringify(doc[ext]) !== JSON.stringify(value)) to.updateOne({ _id: doc._id }, { $set: { [ext]: value } });
      }
    }, label);
  }
"""

_MERGED = "copies equal in every field are one {n}: it lists each {one} that held one"
#: the user's names of the One and the N entities
Names = tuple[str, str]


def _unbucketed(names: Names) -> str:
    one, many = names
    return f"each bucket document is replaced by one document per {many}; " + _MERGED.format(n=many, one=one)


def shared_calls(old: Storage, new: Storage, call: Calls, names: Names) -> list[str] | None:
    """The calls of a many-to-many's change these steps do (notes), or None: left to the one-to-many steps."""
    if not (old.shared and new.shared) or new.parent is None or old.one_path or new.one_path:
        return None  # a One below the top level: not generated for a many-to-many
    if new.ext_array:
        return _into_extended(old, new, call, names)
    notes = []
    if old.subset is not None and new.subset != old.subset:
        notes.append(f"the array {quoted(old.subset)} of copies stays until the removed field is unset")
    if new.embed is not None:
        return None  # copies into the One's array: the N documents (or buckets, links) that name it, as one-to-many
    if new.discriminator is not None:
        return _shared_from_copies(old, new, call, notes, names)
    if new.bucket is not None:
        return _buckets_per_one(old, new, call, notes, names)
    plain = (old.embed, old.ext, old.bucket, old.discriminator, old.subset, new.subset) == (None,) * 6
    if plain:
        return None  # id arrays on one side or both, before and after (strategy_copies)
    if new.ref is not None:
        done = _holders(old, new, new.ref, call, new.refs, names)
        if done is None:
            return None
        more, refs_done = done
        notes += more
        if new.refs is not None and new.refs != old.refs and not refs_done:
            call("refsIn", new.parent, new.refs, new.child, new.ref)
    else:
        more_notes = _refs_only(old, new, call, names)
        if more_notes is None:
            return None
        notes += more_notes
    if new.subset is not None and new.subset != old.subset:
        return subset_calls(new, call, notes)
    return notes


def _into_extended(old: Storage, new: Storage, call: Calls, names: Names) -> list[str] | None:
    """Each N lists its Ones' ids (in its kept reference array, else in the extended references' array itself),
    then each id becomes an element ``{_id, copies}`` read from its One."""
    if new.ext is None or new.child is None:
        return None
    field = new.ref if new.ref is not None and "." not in new.ref else new.ext
    done = _holders(old, new, field, call, None, names)
    if done is None:
        return None
    call("extendShared", new.parent, new.child, field, new.ext, [list(c) for c in new.copies])
    notes = [*done[0], f"each {names[1]} gets one element of {quoted(new.ext)} per {names[0]} it belongs to"]
    if old.subset is not None:
        notes.append(f"the array {quoted(old.subset)} of copies stays until the removed field is unset")
    return notes


def _holders(
    old: Storage, new: Storage, field: str, call: Calls, refs: str | None, names: Names
) -> tuple[list[str], bool] | None:
    """Each N in its own document of ``new.child`` listing its Ones in the array ``field`` (notes, and whether the
    Ones' arrays ``refs`` are written too); None when the OLD shape is not one of these."""
    child = new.child
    if child is None:
        return None
    if old.embed is not None:
        call("copyOutShared", new.parent, old.embed, child, field, refs)
        kept = f"the embedded copies stay in {quoted(new.parent or '')} until the removed field is unset (step below)"
        return [_MERGED.format(n=names[1], one=names[0]), kept], True
    if old.discriminator is not None:
        if refs is not None:
            call("refsFromLinks", old.child, shared_layout(old), refs)
        call("shareOut", old.child, shared_layout(old), child, field, True)
        return [f"each document moves: it leaves {quoted(old.child or '')} once its copy is in {quoted(child)}"], True
    if old.child != child:
        return None
    if old.bucket is not None:
        call("bucketOutMerged", child, field, bucket_layout(old, []))
        return [_unbucketed(names)], False
    if old.ext_array and old.ext is not None and old.ref == f"{old.ext}._id":  # the ids of the extended references
        ids = {"$map": {"input": "$" + old.ext, "as": "e", "in": "$$e._id"}}
        call.migrate(child, {field: {"$exists": False}, old.ext: {"$exists": True}}, [{"$set": {field: ids}}])
    elif old.ref is not None and old.ref != field:
        value = "$" + old.ref if old.ref_array else ["$" + old.ref]
        call.migrate(child, {field: {"$exists": False}, old.ref: {"$exists": True}}, [{"$set": {field: value}}])
    elif old.ref is None and old.refs is not None:
        call("refsAdd", new.parent, old.refs, child, field)
    elif old.ref is None:
        return None
    return [], False


def _refs_only(old: Storage, new: Storage, call: Calls, names: Names) -> list[str] | None:
    """The Ones' id arrays (child-refs) from a many-to-many kept otherwise."""
    if new.refs is None or new.child is None:
        return None
    if old.refs == new.refs and old.child == new.child:
        return []
    if old.embed is not None:
        call("copyOutShared", new.parent, old.embed, new.child, None, new.refs)
        kept = f"the embedded copies stay in {quoted(new.parent or '')} until the removed field is unset (step below)"
        return [_MERGED.format(n=names[1], one=names[0]), kept]
    if old.bucket is not None and old.child == new.child and old.ref is not None:
        series = old.ref.split(".")[0]
        call("bucketOutMerged", new.child, series, bucket_layout(old, []))
        call("refsIn", new.parent, new.refs, new.child, series)
        return [
            _unbucketed(names),
            f"each document keeps the array {quoted(series)} of its series, which the new design does not read; "
            "once nothing does (uncomment):",
            f"target.getCollection({js_string(new.child)}).updateMany({{}}, {js_value({'$unset': {series: ''}})});",
        ]
    if old.ref is not None and old.child == new.child and old.discriminator is None:
        call("refsIn", new.parent, new.refs, new.child, old.ref)
        return []
    return None


def _shared_from_copies(old: Storage, new: Storage, call: Calls, notes: list[str], names: Names) -> list[str] | None:
    """Into a single collection from embedded copies or buckets (the one-to-many steps would copy each copy)."""
    if new.child is None or new.discriminator is None:
        return None
    if old.embed is not None and old.parent == new.child:
        call("shareEmbeddedMerged", new.child, old.embed, shared_layout(new))
        call.migrate(new.child, {new.discriminator: {"$exists": False}}, {"$set": {new.discriminator: new.one_type}})
        kept = f"the embedded copies stay in {quoted(new.child)} until the removed field is unset (step below)"
        return [*notes, _MERGED.format(n=names[1], one=names[0]), kept]
    if old.bucket is not None and old.child is not None and old.ref is not None:
        series = old.ref.split(".")[0]
        call("bucketOutMerged", old.child, series, bucket_layout(old, []))
        plain = Storage(parent=old.parent, child=old.child, ref=series, ref_array=True)
        done = into_shared(plain, new, call)
        if done is None:
            return None
        merged = _unbucketed(names)
        return [*notes, merged, *done]
    return None


def _buckets_per_one(old: Storage, new: Storage, call: Calls, notes: list[str], names: Names) -> list[str] | None:
    """Into buckets: each N split into one document per One first (a bucket holds one series' copies)."""
    if new.ref is None or new.child is None or old.embed is not None or old.timeseries:
        return None  # embedded copies are copied out one per One already (the one-to-many step)
    if old.ref is not None and not old.ref_array and old.discriminator is None:
        return None  # one One per N (an extended reference): the one-to-many step
    done = _holders(old, new, new.ref, call, None, names)
    if done is None:
        return None
    notes += done[0]
    call("explode", new.child, new.ref, new.ref)
    plain = Storage(parent=new.parent, child=new.child, ref=new.ref, unique=old.unique)
    more = into_buckets(plain, new, call)
    if more is None:
        return None
    return [
        *notes,
        f"each document of {quoted(new.child)} is first split into one copy per {names[0]} it belongs to",
        *more,
    ]
