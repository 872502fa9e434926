"""``migration.mongosh.js``: the mongosh script that brings a database of the OLD design to the NEW one.

Safe order for a live database: new collections and indexes first; validators rolled out with
``validationLevel: "moderate"`` / ``validationAction: "warn"`` (documents not migrated yet stay
writable); then the data steps, each a batched ``updateMany`` over ``_id`` ranges that records its
progress in a marker document (``modeller_migrations``), so a run killed between two batches
continues where it stopped and a finished step is skipped; removed indexes are hidden
(``hideIndex``), and dropping them, unsetting removed fields and tightening the validators are
commented steps a DBA runs when the applications are ready. Idempotent: every step selects only
documents that still need it. A field inside array elements is rewritten element by element
(``array_fields``); a strategy change copies or moves the documents (``strategy_copies``,
``pattern_copies``), and the field steps such a copy carries out itself are left out. A copy reads
documents unpromoted (``exact()``) and a default is a canonical Extended JSON literal (``js_exact``), so
each number keeps its BSON type (mongosh writes a whole JS number as an int). Every user name is a JSON
string literal (``modeller.export.literals``).
"""

from __future__ import annotations

import datetime as dt
import shlex
from collections.abc import Callable
from typing import Any

from bson import Decimal128, Int64

from modeller.export.common import GENERATOR, database_name, design_digest, index_key, index_options
from modeller.export.literals import comment, js_exact, js_string, js_value, quoted
from modeller.export.mongosh import _HELPERS, _collection_options, _indented
from modeller.model.project import Entity
from modeller.model.wording import counted
from modeller.review.array_fields import (
    ARRAY_HELPERS,
    array_route,
    array_update,
    converted,
    defaulted,
    element_ids,
    renamed,
    unset,
)
from modeller.review.changes import Change
from modeller.review.copy_storage import through_array
from modeller.review.diff import SchemaDiff
from modeller.review.pattern_copies import by_hand, staging
from modeller.review.pattern_helpers import PATTERN_HELPERS
from modeller.review.shared_copies import SHARED_HELPERS
from modeller.review.strategy_copies import STRATEGY_HELPERS, reshaped_by, strategy_step
from modeller.rules.physical.design import CollectionDesign

#: documents per batch ([Skills] example batch size, RULES.md rule 26)
BATCH = 1000
#: the collection holding one marker document per migration step
MARKERS = "modeller_migrations"

_MIGRATION_HELPERS = """\
  const markers = target.getCollection(MARKERS);

  // Read options for documents a step writes back: mongosh promotes an int, a double and a long to a JS number
  // (and writes a whole one back as an int), so a double 3.0 would become an int; unpromoted, each keeps its type.
  function exact() {
    return { promoteValues: false };
  }

  // One data step: batches of BATCH documents in _id order; the marker keeps the last _id done, the documents
  // counted over all runs, and the ids of the batch under way (a run killed inside it changed some of them).
  function inBatches(step, collection, filter, work, label) {
    const key = MIGRATION + " " + step;
    const marker = markers.findOne({ _id: key });
    if (marker !== null && marker.done === true) {
      print(label + ": done in an earlier run (" + marker.count + " document(s))");
      return;
    }
    const coll = target.getCollection(collection);
    let last = marker === null ? null : marker.last;
    let count = marker === null ? 0 : marker.count;
    if (marker !== null && Array.isArray(marker.pending)) {
      // the killed run's documents of that batch no longer match; those still matching are selected again below
      const left = coll.countDocuments({ $and: [filter, { _id: { $in: marker.pending } }] });
      count += marker.pending.length - left;
      markers.updateOne({ _id: key }, { $set: { count: count }, $unset: { pending: "" } });
    }
    for (;;) {
      const range = last === null ? filter : { $and: [filter, { _id: { $gt: last } }] };
      const ids = coll.find(range, { _id: 1 }, exact()).sort({ _id: 1 }).limit(BATCH).toArray()
        .map((doc) => doc._id);
      if (ids.length === 0) break;
      markers.updateOne({ _id: key }, { $set: { last: last, count: count, pending: ids, done: false } },
        { upsert: true });
      work(ids);
      last = ids[ids.length - 1];
      count += ids.length;
      markers.updateOne({ _id: key }, { $set: { last: last, count: count, done: false }, $unset: { pending: "" } },
        { upsert: true });
      print(label + ": " + count + " document(s) so far");
    }
    markers.updateOne({ _id: key }, { $set: { last: last, count: count, done: true } }, { upsert: true });
    print(label + ": done (" + count + " document(s))");
  }

  // Steps were numbered ("004-strategy-changed-0") before they were named ("004-strategy-changed-copy-out"):
  // a marker a run of such a script left is taken over, so this script resumes where that run stopped.
  function renameMarkers(pairs) {
    for (const [was, now] of pairs) {
      for (const tail of ["", " open"]) {
        const old = markers.findOne({ _id: MIGRATION + " " + was + tail });
        if (old === null) continue;
        if (markers.findOne({ _id: MIGRATION + " " + now + tail }) === null) {
          markers.insertOne(Object.assign({}, old, { _id: MIGRATION + " " + now + tail }));
        }
        markers.deleteOne({ _id: MIGRATION + " " + was + tail });
      }
    }
  }

  function migrate(step, collection, filter, update, label) {
    const coll = target.getCollection(collection);
    inBatches(step, collection, filter, (ids) => coll.updateMany({ $and: [filter, { _id: { $in: ids } }] }, update),
      label);
  }

  function renameCollection(from, to) {
    if (existing.has(from) && !existing.has(to)) {
      target.getCollection(from).renameCollection(to);
      existing.delete(from);
      existing.add(to);
      print("renamed collection " + JSON.stringify(from) + " to " + JSON.stringify(to));
    }
  }

  function replaceIndex(collection, keys, options) {
    const coll = target.getCollection(collection);
    const old = coll.getIndexes().find((index) => index.name === options.name);
    if (old !== undefined && JSON.stringify(old.key) !== JSON.stringify(keys)) coll.dropIndex(options.name);
    else if (old !== undefined) {
      const same = Object.keys(options).every((k) => JSON.stringify(old[k]) === JSON.stringify(options[k]));
      if (!same) coll.dropIndex(options.name);
    }
    needIndex(collection, keys, options);
  }

  // A collection with these options: created, or updated with collMod only where its options differ, so a second
  // run says it found them instead of claiming it set them again
  function ensureOptions(name, options) {
    if (existing.has(name)) {
      const info = target.getCollectionInfos({ name: name })[0];
      const have = (info && info.options) || {};
      const keys = ["validator", "validationLevel", "validationAction", "expireAfterSeconds"];
      if (keys.every((k) => !(k in options) || JSON.stringify(have[k]) === JSON.stringify(options[k]))) {
        print("collection " + JSON.stringify(name) + " already has these options");
        return;
      }
    }
    ensureCollection(name, options);
  }

  // An index the NEW design needs: created unless an index of the same keys is there (under any name; a hidden one
  // is unhidden). The database may never have got the OLD design's advised indexes (an inferred OLD "has" them):
  // this runs before any old index is hidden, so a query never loses its index half-way.
  function needIndex(collection, keys, options) {
    const where = JSON.stringify(options.name) + " on " + JSON.stringify(collection);
    if (!existing.has(collection)) {
      print("index " + where + " not created: the collection is not in the database (modeller apply creates both)");
      return;
    }
    const coll = target.getCollection(collection);
    const indexes = coll.getIndexes();
    const same = indexes.find((ix) => ix.name === options.name) ||
      indexes.find((ix) => JSON.stringify(ix.key) === JSON.stringify(keys));
    if (same === undefined) {
      coll.createIndex(keys, options);
      print("created index " + where);
    } else if (same.name === options.name && JSON.stringify(same.key) !== JSON.stringify(keys) && !("_fts" in same.key)) {
      print("index " + where + " has other keys in the database; compare them with modeller drift");
    } else if (same.hidden === true) {
      coll.unhideIndex(same.name);
      print("unhid index " + JSON.stringify(same.name) + " on " + JSON.stringify(collection));
    }
  }

  // What a conversion left (a value $convert cannot change, a null): counted, with the query that finds it
  function leftOver(collection, filter, label) {
    const left = target.getCollection(collection).countDocuments(filter);
    if (left > 0) {
      print(label + ": " + left + " document(s) hold a value $convert cannot change; fix them by hand: " +
        "target.getCollection(" + JSON.stringify(collection) + ").find(" + JSON.stringify(filter) + ")");
    }
  }

  function hideIndex(collection, name) {
    const coll = target.getCollection(collection);
    const index = coll.getIndexes().find((ix) => ix.name === name);
    if (index !== undefined && index.hidden !== true) {
      coll.hideIndex(name);
      print("hid index " + JSON.stringify(name) + " on " + JSON.stringify(collection));
    }
  }
"""

#: $convert targets (the server converts to these; arrays and objects are not convertible)
_CONVERTIBLE = {"string", "int", "long", "double", "decimal", "bool", "date", "objectId"}
#: the default of a new required field without an example; BSON-typed, written through ``js_exact``
_ZERO: dict[str, Any] = {
    "string": "",
    "int": 0,
    "long": Int64(0),
    "double": 0.0,
    "decimal": Decimal128("0"),
    "bool": False,
    "date": dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
    "object": {},
    "array": [],
}
_INT32 = range(-(2**31), 2**31)


def _int32(value: Any) -> int:
    number = int(value)
    if number not in _INT32:
        raise ValueError(f"{number} is beyond int32")
    return number


#: an example as the exact value of a number type (raises when it is not one: the server's $convert then decides)
_EXACT: dict[str, Callable[[Any], Any]] = {
    "int": _int32,
    "long": Int64,
    "double": float,
    "decimal": lambda value: Decimal128(str(value)),
}


def default_value(bson_type: str, example: Any, enum: list[Any] | None = None) -> Any | None:
    """The aggregation expression a new required field gets: its example as a value of its type, else a zero.

    A field with allowed values gets its example when that is one of them, else the first: a zero (``""``) the
    new validator refuses would be written into every document. The values are BSON-typed (a double is a float,
    a long an Int64): render the update with ``js_exact``, so mongosh does not write a whole double as an int nor
    round a long beyond 2**53. None when there is no sensible default (an ObjectId, binary data): the step is left
    to the DBA.
    """
    if enum:
        example = example if example in enum else enum[0]
    if example is not None:
        if bson_type in _EXACT and isinstance(example, (int, float, str)):
            try:
                return {"$literal": _EXACT[bson_type](example)}
            except (ValueError, ArithmeticError):  # Decimal128 raises InvalidOperation, an ArithmeticError
                return {"$convert": {"input": {"$literal": example}, "to": bson_type}}
        if bson_type == "date" and isinstance(example, (int, float, str)):
            return {"$convert": {"input": {"$literal": example}, "to": bson_type}}
        if bson_type in ("string", "bool") or isinstance(example, (dict, list)):
            return {"$literal": example}
    return {"$literal": _ZERO[bson_type]} if bson_type in _ZERO else None


def migration_script(diff: SchemaDiff, file_name: str = "migration.mongosh.js") -> str:
    """The whole script; ``node --check`` parses it (no ``use``, no top-level ``await``). ``file_name`` is the
    name it is saved under, for the header's "run it with" line."""
    old, new = diff.old_design, diff.new_design
    db_name = database_name(new, diff.new)
    migration_id = f"{design_digest(old, diff.old)}->{design_digest(new, diff.new)}"
    colls = {c.name: c for c in new.collections}
    by_kind: dict[str, list[Change]] = {}
    for change in diff.changes:
        by_kind.setdefault(change.kind, []).append(change)

    body = [
        f"  const MIGRATION = {js_string(migration_id)};",
        f"  const MARKERS = {js_string(MARKERS)};",
        f"  const BATCH = {BATCH};",
        "  const existing = new Set(target.getCollectionNames());",
        _HELPERS.rstrip("\n"),
        _MIGRATION_HELPERS.rstrip("\n"),
        STRATEGY_HELPERS.rstrip("\n"),
        PATTERN_HELPERS.rstrip("\n"),
        SHARED_HELPERS.rstrip("\n"),
        ARRAY_HELPERS.rstrip("\n"),
    ]

    body += ["", "  " + comment("1. Collections renamed, new collections and their indexes")]
    for change in by_kind.get("collection-renamed", []):
        body.append("  " + comment(change.summary))
        body.append(f"  renameCollection({js_string(change.details['old'])}, {js_string(change.details['new'])});")
    for change in by_kind.get("collection-added", []):
        coll = colls[change.collection]
        body.append("  " + comment(change.summary))
        body.append(f"  ensureOptions({js_string(coll.name)}, {_indented(js_value(_rollout(coll), indent=2))});")
        for index in coll.indexes:
            body.append(
                f"  needIndex({js_string(coll.name)}, {js_value(index_key(index))}, {js_value(index_options(index))});"
            )
    aside = _built_aside(diff)
    for name, staged in aside.items():  # buckets from a time series collection: built in a collection of their own
        coll = colls[name]
        body.append("  " + comment(f"the buckets of the time series collection {quoted(name)} are built in:"))
        body.append(f"  ensureOptions({js_string(staged)}, {_indented(js_value(_rollout(coll), indent=2))});")
        for index in coll.indexes:
            body.append(
                f"  needIndex({js_string(staged)}, {js_value(index_key(index))}, {js_value(index_options(index))});"
            )
    for change in by_kind.get("index-added", []) + by_kind.get("index-changed", []):
        if change.collection in aside:
            continue
        call = "needIndex" if change.kind == "index-added" else "replaceIndex"
        body.append("  " + comment(f"{change.summary} ({change.risk})"))
        body.append(
            f"  {call}({js_string(change.collection)}, {js_value(change.details['key'])}, "
            f"{js_value(change.details['options'])});"
        )
    body.extend(_kept_indexes(diff, by_kind, aside))

    changed = _changed_collections(diff, colls)
    body += ["", "  " + comment("2. Validators of changed collections, rolled out as moderate / warn")]
    for coll in (c for c in changed if c.name not in aside):
        body.append(f"  ensureOptions({js_string(coll.name)}, {_indented(js_value(_rollout(coll), indent=2))});")

    body += ["", "  " + comment(f"3. Data changes, in batches of {BATCH} with a marker per step")]
    renames = {c.details["old"]: c.details["new"] for c in by_kind.get("collection-renamed", [])}
    copies: dict[int, list[str] | None] = {}
    reshaped: set[tuple[str, str | None]] = set()
    for number, change in enumerate(diff.changes, start=1):
        if change.kind == "strategy-changed":
            step = f"{number:03d}-{change.kind}"
            copies[number] = strategy_step(step, change, (old, diff.old), (new, diff.new), renames)
            if copies[number] is not None:
                reshaped |= reshaped_by(change, (old, diff.old), (new, diff.new), renames)
    for number, change in enumerate(diff.changes, start=1):
        copy = copies.get(number)
        if copy is not None:
            body.extend(copy)
        elif not _reshaped(change, reshaped):
            body.extend(_data_step(f"{number:03d}-{change.kind}", change, _before_after(diff, change.collection)))
    body.extend(_schema_versions(diff, changed))

    body += [
        "",
        "  " + comment("4. Removed indexes hidden now, dropped (with removed collections) once nothing needs them"),
    ]
    for change in by_kind.get("index-removed", []):
        name, coll_name = change.details["name"], change.collection
        serving = _same_keys_in_new(diff, coll_name, name)
        if serving is not None:  # NEW names it otherwise: hiding it would hide the index NEW needs
            body.append(
                "  "
                + comment(
                    f"index {quoted(name)} stays: it has the keys of NEW's index {quoted(serving)} (needIndex "
                    "above found it); rename it by hand if the name matters"
                )
            )
            continue
        body.append(f"  hideIndex({js_string(coll_name)}, {js_string(name)});")
        body.append("  " + comment(f"target.getCollection({js_string(coll_name)}).dropIndex({js_string(name)});"))

    for change in by_kind.get("collection-removed", []):
        body.append("  " + comment(f"{change.summary}; once nothing reads it (uncomment):"))
        body.append("  " + comment(f"target.getCollection({js_string(change.collection)}).drop();"))

    body += ["", "  " + comment("5. When every document is migrated and the applications write the new shape:")]
    body.append("  " + comment("tighten the validators (uncomment):"))
    for coll in changed + [colls[c.collection] for c in by_kind.get("collection-added", [])]:
        if coll.timeseries:
            continue
        tighten = {
            "collMod": coll.name,
            "validationLevel": coll.validation_level,
            "validationAction": coll.validation_action,
        }
        body.append("  " + comment(f"target.runCommand({js_value(tighten)});"))

    header = [
        comment("Modeller migration script"),
        comment(
            f"Project {quoted(diff.new.name)}, database {quoted(db_name)}; {counted(len(diff.changes), 'change')}."
        ),
        comment("Idempotent and resumable: every step selects only documents that still need it, and records its"),
        comment(f"progress in the collection {quoted(MARKERS)}; run it again after an interruption."),
        comment("Destructive steps (dropping indexes, unsetting removed fields) are comments: run them by hand."),
        comment(f'Run it with: mongosh "mongodb://HOST:PORT" {shlex.quote(file_name)}'),
        comment(f"Generated by {GENERATOR}; do not edit by hand, change the projects and diff again."),
    ]
    lines = [
        *header,
        "",
        "(function () {",
        '  "use strict";',
        f"  const target = db.getSiblingDB({js_string(db_name)});",
        *body,
        "})();",
    ]
    return "\n".join(lines) + "\n"


def _kept_indexes(diff: SchemaDiff, by_kind: dict[str, list[Change]], aside: dict[str, str]) -> list[str]:
    """``needIndex`` of every index NEW keeps from OLD: the database may lack it (OLD's engine-advised indexes exist
    only where ``apply`` or a setup script made them), and the indexes of NEW must stand before an old one is hidden
    (tryout a13 item 3: a query lost its index)."""
    listed = {(c.collection, c.subject) for kind in ("index-added", "index-changed") for c in by_kind.get(kind, [])}
    before = {c.root for c in diff.old_design.collections}
    lines: list[str] = []
    for coll in diff.new_design.collections:
        if coll.root not in before or coll.name in aside:
            continue  # a new collection got its indexes above
        for index in coll.indexes:
            if (coll.name, index.name) in listed:
                continue
            if not lines:
                lines.append(
                    "  "
                    + comment(
                        "the indexes NEW keeps: created where the database lacks them (it may never have got OLD's "
                        "advised ones)"
                    )
                )
            lines.append(
                f"  needIndex({js_string(coll.name)}, {js_value(index_key(index))}, {js_value(index_options(index))});"
            )
    return lines


def _same_keys_in_new(diff: SchemaDiff, collection: str, removed: str) -> str | None:
    """The name of NEW's index on ``collection`` with the keys of OLD's removed index ``removed``, if one has them."""
    before, after = _before_after(diff, collection)
    if before is None or after is None:
        return None
    old = next((ix for ix in before.indexes if ix.name == removed), None)
    if old is None:
        return None
    keys = list(index_key(old).items())  # in order: {a: 1, b: 1} is not {b: 1, a: 1}
    return next((ix.name for ix in after.indexes if list(index_key(ix).items()) == keys), None)


def _built_aside(diff: SchemaDiff) -> dict[str, str]:
    """NEW bucket collections whose OLD collection (same name) is a native time series collection, which cannot
    hold bucket documents: each with the collection its buckets are built in (``pattern_copies.staging``)."""
    out: dict[str, str] = {}
    for coll in diff.new_design.collections:
        before = diff.old_design.collection(coll.name)
        if (
            coll.bucket is not None
            and before is not None
            and before.timeseries is not None
            and before.root == coll.root
        ):
            out[coll.name] = staging(coll.name)
    return out


def _rollout(coll: CollectionDesign) -> dict[str, Any]:
    """``createCollection`` / ``collMod`` options with the validator only warning, for documents not migrated yet."""
    options, _ = _collection_options(coll)
    if "validator" in options:
        options["validationLevel"] = "moderate"
        options["validationAction"] = "warn"
    return options


def _changed_collections(diff: SchemaDiff, colls: dict[str, CollectionDesign]) -> list[CollectionDesign]:
    """The NEW collections whose documents change shape (existing ones, not those created in step 1)."""
    names: list[str] = []
    for change in diff.changes:
        reshaped = change.kind.startswith("field-") or change.kind == "validator-changed"
        if reshaped and change.collection in colls and change.collection not in names:
            names.append(change.collection)
    return [colls[n] for n in names]


def _before_after(diff: SchemaDiff, name: str) -> tuple[CollectionDesign | None, CollectionDesign | None]:
    """The OLD and NEW design of a collection (the OLD one found by its entity: the collection may be renamed)."""
    after = diff.new_design.collection(name)
    root = after.root if after is not None else None
    before = next((c for c in diff.old_design.collections if c.root == root), None)
    return before, after


def _reshaped(change: Change, reshaped: set[tuple[str, str | None]]) -> bool:
    """A field change a strategy step carries out itself (buckets, a single collection's new variant)."""
    if not change.kind.startswith("field-"):
        return False
    path = str(change.details.get("path") or change.details.get("new") or change.subject)
    return any((change.collection, p) in reshaped for p in (None, path.split(".")[0], path))


def _field(path: str) -> str:
    """``$path`` for an aggregation expression (field names never start with ``$``, the model refuses that)."""
    return "$" + path


def _in_elements(
    change: Change, colls: tuple[CollectionDesign | None, CollectionDesign | None]
) -> tuple[Any, Any] | str | None:
    """The filter and pipeline of a field change inside array elements, what to do by hand, or None (no step)."""
    details, (before, after) = change.details, colls
    if after is None:
        return "update its elements by hand"
    if change.kind in ("field-renamed", "field-moved"):
        old = array_route(before, details["old"]) if before is not None else None
        new = array_route(after, details["new"])
        if old is None or new is None or old[0] != new[0]:
            return "it moves into or out of an array, or to another one: copy its values by hand"
        return array_update(old[0], *renamed(old[1], new[1]))
    route = array_route(after, details["path"])
    if change.kind in ("field-added", "field-required") and details.get("required"):
        value = default_value(details["bson_type"], details.get("example"), details.get("enum"))
        if value is None or route is None:
            return f"no default for a new {details['bson_type']}; set it in each element by hand"
        return array_update(route[0], *defaulted(route[1], value))
    # a retype converts every value; dropping other types converts the values of those types only
    dropped = details.get("dropped_types") if change.kind == "field-constraint" else None
    if change.kind == "field-retyped" or dropped:
        if details["bson_type"] not in _CONVERTIBLE or route is None:
            return f"$convert cannot make a {details['type']}; reshape each element by hand"
        return array_update(route[0], *converted(route[1], details["bson_type"], list(dropped) if dropped else None))
    return None


def _across_array(
    step: str, change: Change, colls: tuple[CollectionDesign | None, CollectionDesign | None], label: str
) -> list[str] | None:
    """A field moved from the document into the elements of one of its arrays (each element gets the document's
    value), or out of them (the document gets the value its elements share); None for any other move."""
    (before, after), coll = colls, change.collection
    old, new = change.details["old"], change.details["new"]
    if before is None or after is None:
        return None
    old_route, new_route = array_route(before, old), array_route(after, new)
    if old_route is None and new_route is not None and len(new_route[0]) == 1 and _plain(before, old):
        filter_, pipeline = array_update(new_route[0], *defaulted(new_route[1], _field(old)))
        both = {"$and": [{old: {"$exists": True}}, filter_]}
        unset_top = {old: {"$exists": True}}, {"$unset": {old: ""}}
        return [
            "  " + comment(f"each element of {quoted(new_route[0][0])} gets the document's {quoted(old)}"),
            f"  migrate({js_string(step)}, {js_string(coll)}, {js_value(both)}, {js_value(pipeline)}, "
            f"{js_string(label)});",
            "  " + comment(f"the document's own {quoted(old)} stays; once nothing reads it (uncomment):"),
            "  " + comment(_migrate_call(f"{step}-unset", coll, *unset_top, label)),
        ]
    if new_route is None and old_route is not None and len(old_route[0]) == 1 and _plain(after, new):
        array, rel = old_route[0][0], old_route[1]
        mixed = {"$and": [{new: {"$exists": False}}, {array: {"$elemMatch": {rel: {"$exists": True}}}}]}
        cleanup = array_update([array], *unset(rel))
        return [
            "  " + comment(f"each document gets the {quoted(rel)} its elements of {quoted(array)} share"),
            f"  liftOut({js_string(step)}, {js_string(coll)}, {js_string(array)}, {js_string(rel)}, "
            f"{js_string(new)}, {js_string(label)});",
            "  "
            + comment(
                f"NOT MIGRATED where the elements disagree: choose the value and set {quoted(new)} by hand in "
                f"target.getCollection({js_string(coll)}).find({js_value(mixed)})"
            ),
            "  " + comment(f"the elements keep their {quoted(rel)}; once nothing reads it (uncomment):"),
            "  " + comment(_migrate_call(f"{step}-unset", coll, *cleanup, label)),
        ]
    return None


def _plain(coll: CollectionDesign, path: str) -> bool:
    """``path`` is a field of ``coll``'s documents outside any array."""
    return not through_array(coll.shape, path)


def _migrate_call(step: str, coll: str, filter_: Any, update: Any, label: str) -> str:
    return (
        f"migrate({js_string(step)}, {js_string(coll)}, {js_value(filter_)}, {js_value(update)}, {js_string(label)});"
    )


def _data_step(
    step: str, change: Change, colls: tuple[CollectionDesign | None, CollectionDesign | None] = (None, None)
) -> list[str]:
    """The lines of one data step (none for changes that need no data change); ``colls`` are the OLD and NEW
    collection the change is in (fields inside arrays need their shapes)."""
    details, coll = change.details, change.collection
    label = f"{coll}: {change.kind} {change.subject}"
    head = ["", "  " + comment(f"{change.summary}: {change.risk}")]
    defaults = change.kind in ("field-added", "field-required") and bool(details.get("required"))

    def call(filter_: Any, update: Any) -> str:
        literal = js_exact if defaults else js_value  # a default is BSON-typed (``default_value``)
        return (
            f"migrate({js_string(step)}, {js_string(coll)}, {js_value(filter_)}, {literal(update)}, "
            f"{js_string(label)});"
        )

    if details.get("in_array") and change.kind in ("field-renamed", "field-moved"):
        across = _across_array(step, change, colls, label)
        if across is not None:
            return [*head, *across]
    array = element_ids(colls[1], str(details.get("path"))) if defaults and details.get("in_array") else None
    if array is not None:  # a new _id in each element: an ObjectId of its own, not one default for all
        return [*head, f"  idElements({js_string(step)}, {js_string(coll)}, {js_string(array)}, {js_string(label)});"]
    if details.get("in_array"):
        step_or_reason = _in_elements(change, colls)
        if step_or_reason is None:
            return []
        if isinstance(step_or_reason, str):
            return [*head, "  " + comment(f"NOT MIGRATED: the field is inside an array; {step_or_reason}")]
        if change.kind == "field-constraint":  # what $convert cannot change is counted, as outside arrays
            left = step_or_reason[0]
            return [
                *head,
                "  " + call(*step_or_reason),
                _left_over(coll, left, details["path"]),
            ]
        return [*head, "  " + call(*step_or_reason)]
    if change.kind in ("field-renamed", "field-moved"):
        old, new = details["old"], details["new"]
        return [*head, "  " + call({old: {"$exists": True}, new: {"$exists": False}}, {"$rename": {old: new}})]
    if defaults:
        path = details["path"]
        value = default_value(details["bson_type"], details.get("example"), details.get("enum"))
        if value is None:
            return [*head, "  " + comment(f"NOT MIGRATED: no default for a new {details['bson_type']}; set it by hand")]
        return [*head, "  " + call({path: {"$exists": False}}, [{"$set": {path: value}}])]
    if change.kind == "field-retyped":
        path, to = details["path"], details["bson_type"]
        if to not in _CONVERTIBLE:
            return [*head, "  " + comment(f"NOT MIGRATED: $convert cannot make a {details['type']}; reshape by hand")]
        convert = {"$convert": {"input": _field(path), "to": to, "onError": _field(path), "onNull": None}}
        return [*head, "  " + call({path: {"$exists": True, "$not": {"$type": to}}}, [{"$set": {path: convert}}])]
    if change.kind == "field-constraint" and details.get("dropped_types"):
        return [*head, *_dropped_types_step(change, call)]
    if change.kind == "field-removed":
        path = details["path"]
        return [
            *head,
            "  " + comment("after the applications stop reading it (uncomment):"),
            "  " + comment(call({path: {"$exists": True}}, {"$unset": {path: ""}})),
        ]
    if change.kind == "strategy-changed":
        return [*head, "  " + comment(by_hand(details["old"], details["new"]))]
    return []


def _dropped_types_step(change: Change, call: Callable[[Any, Any], str]) -> list[str]:
    """The values of the types a field no longer takes (its ``other_types`` removed, as ``mixed-types`` asks)
    converted to its type, as a retype converts them; what ``$convert`` cannot change is kept, counted at run time,
    and found with the query the comment gives."""
    details, coll = change.details, change.collection
    path, to, dropped = details["path"], details["bson_type"], list(details["dropped_types"])
    left = {path: {"$type": dropped}}
    find = f"target.getCollection({js_string(coll)}).find({js_value(left)})"
    if to not in _CONVERTIBLE:
        return ["  " + comment(f"NOT MIGRATED: $convert cannot make a {details['type']}; reshape by hand: {find}")]
    convert = {"$convert": {"input": _field(path), "to": to, "onError": _field(path), "onNull": None}}
    return [
        "  " + comment(f"values of {quoted(path)} typed {', '.join(dropped)} converted to {to}"),
        "  " + call(left, [{"$set": {path: convert}}]),
        _left_over(coll, left, path),
        "  " + comment(f"a value $convert cannot change (a null, a word for a number) stays: fix it by hand: {find}"),
    ]


def _left_over(coll: str, filter_: Any, path: str) -> str:
    """The call that counts the documents a conversion left as they were (``filter_`` still selects them)."""
    return f"  leftOver({js_string(coll)}, {js_value(filter_)}, {js_string(f'{coll}: {quoted(path)}')});"


#: the field the schema-versioning pattern keeps in every document (RULES.md rule 26)
VERSION_FIELD = "schema_version"


def _declared_version(entity: Entity | None) -> int | None:
    """The version a project names in its ``schema_version`` field's example (an integer), if any."""
    declared = next((f for f in entity.fields if f.name == VERSION_FIELD), None) if entity is not None else None
    example = declared.example if declared is not None else None
    return example if isinstance(example, int) and not isinstance(example, bool) else None


def target_version(old: Entity | None, new: Entity) -> int:
    """The version migrated documents get: NEW's declared one when it is higher than OLD's, else OLD's + 1
    (documents without a ``schema_version`` count as version 1, as in the Manual's versioning pattern)."""
    before, after = _declared_version(old), _declared_version(new)
    if after is not None and (before is None or after > before):
        return after
    return (before or 1) + 1


def _schema_versions(diff: SchemaDiff, changed: list[CollectionDesign]) -> list[str]:
    """Rule 26: each document of a reshaped collection that uses the schema-versioning pattern (its entity has
    ``schema_change`` or declares ``schema_version``) gets the new version, once (a re-run selects none)."""
    names = [c.name for c in changed]
    names += [c.collection for c in diff.changes if c.kind == "strategy-changed" and c.collection not in names]
    old_entities = {e.id: e for e in diff.old.entities}
    new_entities = {e.id: e for e in diff.new.entities}
    lines: list[str] = []
    for coll in diff.new_design.collections:
        entity = new_entities.get(coll.root)
        if coll.name not in names or entity is None:
            continue
        if not entity.schema_change and all(f.name != VERSION_FIELD for f in entity.fields):
            continue
        version = target_version(old_entities.get(coll.root), entity)
        step = f"version-{coll.name}"
        filter_ = {"$or": [{VERSION_FIELD: {"$exists": False}}, {VERSION_FIELD: {"$lt": version}}]}
        label = f"{coll.name}: {VERSION_FIELD} {version}"
        node = next((n for n in coll.shape if n.name == VERSION_FIELD), None)
        typed = _EXACT[node.bson_type](version) if node is not None and node.bson_type in _EXACT else version
        lines += [
            "",
            "  " + comment(f"schema versioning: the reshaped documents of {quoted(coll.name)} are version {version}"),
            f"  migrate({js_string(step)}, {js_string(coll.name)}, {js_value(filter_)}, "
            f"{js_exact([{'$set': {VERSION_FIELD: {'$literal': typed}}}])}, {js_string(label)});",
        ]
    return lines
