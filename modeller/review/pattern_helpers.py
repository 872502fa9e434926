"""The mongosh helpers the subset, bucket and single collection copies call (``pattern_copies`` writes the calls).

They sit inside the migration script's function after the strategy helpers, whose ``pick``, ``put``,
``embedded`` and ``inBatches`` they use; every name they touch arrives as an argument (a JSON literal).
"""

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
    const one = b.copies.length > 0 ? target.getCollection(b.parent).findOne({ _id: series }, {}, exact()) : null;
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
        const first = c.findOne({ $and: [{ _id: id }, loose] }, {}, exact());
        if (first === null) continue; // in a bucket with an earlier document of its series
        const series = pick(first, ref);
        if (series === undefined || series === null || Array.isArray(series)) {
          print(label + ": the document " + JSON.stringify(id) + " names no single series; left as it is");
          continue;
        }
        for (;;) {
          const docs = c.find({ $and: [{ [ref]: series }, loose] }, {}, exact()).sort({ [b.time]: 1, _id: 1 })
            .limit(b.size).toArray();
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

  // The measurements of the time series collection `ts` grouped into bucket documents of at most `b.size` in
  // `aside`, one series (a document of `parent`, named by `ref`) at a time, in time order. A series cut short is
  // built again (its buckets in `aside` are replaced), so a cut run completes; `ts` is only read.
  function bucketFromSeries(step, ts, aside, parent, ref, b, label) {
    const from = target.getCollection(ts);
    const to = target.getCollection(aside);
    inBatches(step, parent, {}, (ids) => {
      for (const id of ids) {
        to.deleteMany({ [b.series]: id });
        const docs = from.find({ [ref]: id }, {}, exact()).sort({ [b.time]: 1, _id: 1 }).toArray();
        const buckets = [];
        for (let i = 0; i < docs.length; i += b.size) buckets.push(bucketOf(docs.slice(i, i + b.size), id, b));
        if (buckets.length > 0) to.insertMany(buckets);
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
        const bucket = c.findOne({ _id: id }, {}, exact());
        if (bucket === null) continue;
        const items = Array.isArray(bucket[b.items]) ? bucket[b.items] : [];
        const open = markers.findOne({ _id: key }, {}, exact()); // the ids are written
        let fresh = open !== null && JSON.stringify(open.bucket) === JSON.stringify(id) ? open.ids : null;
        if (!Array.isArray(fresh) || fresh.length !== items.length) {
          fresh = items.map(() => ObjectId());
          markers.updateOne({ _id: key }, { $set: { bucket: id, ids: fresh } }, { upsert: true });
        }
        const have = present(c, fresh);
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
      for (const doc of to.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        if (doc[field] !== undefined) continue;
        const items = from.find({ [ref]: doc._id }, {}, exact()).sort(order).limit(k).toArray().map((item) => {
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
  // discriminator and linked to the parent their `ref` names (each parent of a many-to-many's array of ids); a
  // document already there is skipped.
  function shareIn(step, child, ref, drop, host, s, label) {
    const from = target.getCollection(child);
    const to = target.getCollection(host);
    inBatches(step, child, {}, (ids) => {
      const have = present(to, ids);
      const copies = from.find({ _id: { $in: ids } }, {}, exact()).toArray()
        .filter((doc) => !have.has(JSON.stringify(doc._id)))
        .map((doc) => {
          const parent = ref === null ? undefined : pick(doc, ref);
          const parents = parent === undefined || parent === null ? [] : Array.isArray(parent) ? parent : [parent];
          const copy = Object.assign({}, doc);
          for (const name of drop) delete copy[name];
          copy[s.type] = s.many;
          copy[s.links] = parents.map((one) => ({ [s.target]: one, [s.linkType]: s.one }));
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
      for (const parent of to.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        const listed = Array.isArray(parent[field]) ? parent[field] : [];
        const link = { [s.target]: parent._id, [s.linkType]: s.one };
        for (const doc of from.find({ _id: { $in: listed } }, {}, exact()).toArray()) {
          const there = to.findOne({ _id: doc._id }, {}, exact());
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
      for (const doc of c.find({ _id: { $in: ids } }, {}, exact()).toArray()) {
        for (const link of Array.isArray(doc[s.links]) ? doc[s.links] : []) {
          if (link === null || typeof link !== "object" || link[s.linkType] !== s.one) continue;
          const parent = c.findOne({ _id: link[s.target] }, {}, exact());
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
        const parent = c.findOne({ _id: id }, {}, exact());
        if (parent === null || parent[s.type] !== undefined) continue;
        const items = embedded(parent, path).map((item) => (item !== null && typeof item === "object" ? item : {}));
        const open = markers.findOne({ _id: key }, {}, exact()); // the ids are written
        let fresh = open !== null && JSON.stringify(open.parent) === JSON.stringify(id) ? open.ids : null;
        if (!Array.isArray(fresh) || fresh.length !== items.length) {
          fresh = items.map((item) => (item._id !== undefined ? item._id : ObjectId()));
          markers.updateOne({ _id: key }, { $set: { parent: id, ids: fresh } }, { upsert: true });
        }
        const have = present(c, fresh);
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
        const items = c.find(linked, {}, exact()).sort({ _id: 1 }).toArray().map((doc) => {
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
      const gone = c.find({ _id: { $in: ids } }, {}, exact()).toArray().filter((doc) => {
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
  // names (`many`: the array of every parent they link to, a many-to-many's); each is removed from `host` once its
  // copy exists, so a cut run copies only the missing ones.
  function shareOut(step, host, s, child, ref, many, label) {
    const from = target.getCollection(host);
    const to = target.getCollection(child);
    const typed = { [s.type]: s.many };
    inBatches(step, host, typed, (ids) => {
      const have = present(to, ids);
      const copies = from.find({ _id: { $in: ids } }, {}, exact()).toArray()
        .filter((doc) => !have.has(JSON.stringify(doc._id)))
        .map((doc) => {
          const links = Array.isArray(doc[s.links]) ? doc[s.links] : [];
          const ones = links.filter((l) => l !== null && typeof l === "object" && l[s.linkType] === s.one)
            .map((l) => l[s.target]);
          const copy = Object.assign({}, doc);
          delete copy[s.type];
          delete copy[s.links];
          if (ref !== null && many) put(copy, ref, ones);
          else if (ref !== null && ones.length > 0) put(copy, ref, ones[0]);
          return copy;
        });
      if (copies.length > 0) to.insertMany(copies);
      from.deleteMany({ $and: [{ _id: { $in: ids } }, typed] });
    }, label);
  }
"""
