// Runs generated mongosh scripts in a Node `vm` against a recording, stateful stand-in for `db`.
//
//   node harness.js [--runs N] [--state FILE] [--seed SCRIPT]... SCRIPT...
//   node harness.js [--runs N] --batch FILE
//
// A --seed script runs once before the runs (e.g. the OLD design's setup script with samples, before a
// migration script); --kill-after N makes the first run die before its (N+1)th updateMany or deleteMany (a run killed
// between two batches); "documents" in the output holds every stored document as canonical Extended JSON.
// Every script runs N times (default 2) against the same in-memory server state, the
// way a DBA would run it twice against one cluster. Prints one JSON document:
//   {"runs": [{"calls": [...], "prints": [...]}, ...], "state": {...}}
// Each call is {op, db, collection?, ...} with arguments as relaxed Extended JSON;
// index keys are recorded as [[field, kind], ...] so their order can be asserted;
// inserted documents are also recorded as canonical Extended JSON (exact BSON types), typed as the driver inside
// mongosh sends them (a whole JS number in int32 range an int, any other number a double), and a read promotes an
// int and a double to a JS number unless it passes { promoteValues: false }, as mongosh's does
// (tests/live/test_mongosh_migration.py compares both with the real mongosh).
// The stand-in behaves like a server where it matters for idempotency: createCollection
// on an existing collection fails, an index name reused with other keys fails, a
// duplicate _id fails, sharding an already sharded collection fails. Any API the
// stand-in does not know throws, so a script using `use`, `db.coll` shortcuts or
// top-level `await` cannot pass.
// --batch FILE (a JSON list of script groups) runs each group N times against its own fresh
// stand-in, so one Node process checks many projects; it prints one result per group:
//   {"results": [{"error": null|text, "validators": {"db.coll": validator|null}, "inserted": {"db.coll": [doc]}}]}
// (what the first run created and inserted, documents as canonical Extended JSON) and exits 0.
"use strict";

const fs = require("fs");
const path = require("path");
const vm = require("vm");

const modulesDir = process.env.MODELLER_NODE_MODULES || path.resolve(__dirname, "../../../.cache/node/node_modules");
let bson;
try {
  bson = require(path.join(modulesDir, "bson"));
} catch (err) {
  process.stderr.write(
    `the npm package 'bson' is not installed in ${modulesDir}; run scripts/setup-node-deps.sh first\n`);
  process.exit(3);
}
const { EJSON, ObjectId, Decimal128, Long, Int32, Double, UUID, Binary } = bson;

function relaxed(value) {
  return EJSON.serialize(value === undefined ? null : value, { relaxed: true });
}
// A value as the driver inside mongosh sends it: its BSON serializer makes a JS number that is a whole value in int32
// range an int and every other number (5000000000, -0, 2.5) a double. Canonical Extended JSON would call a whole
// number beyond int32 a long, so what is recorded goes through the serializer first.
function wire(value) {
  return bson.deserialize(bson.serialize({ v: value }), { promoteValues: false }).v;
}
function canonical(value) {
  return EJSON.serialize(wire(value), { relaxed: false });
}
// A stored document as mongosh reads it: an int and a double become a JS number (a long and a decimal keep their
// class), unless the read asks for { promoteValues: false } (the migrations' exact()), which keeps every type.
function read(doc, options) {
  if (doc === undefined || doc === null) return doc;
  const exact = options !== undefined && options !== null && options.promoteValues === false;
  return bson.deserialize(bson.serialize(doc), exact ? { promoteValues: false } : { promoteLongs: false });
}
function same(a, b) {
  return EJSON.stringify(a, { relaxed: false }) === EJSON.stringify(b, { relaxed: false });
}
function strict(target, what) {
  return new Proxy(target, {
    get(obj, prop) {
      if (typeof prop === "symbol" || Object.prototype.hasOwnProperty.call(obj, prop)) return obj[prop];
      throw new Error(`the stand-in does not support ${what}.${String(prop)}`);
    },
  });
}

// --- a small query and update evaluator: what the migration scripts use ($and, $or, $exists, $gt, $lt, $in, $not/$type,
// $elemMatch, $rename/$set/$unset and pipeline $set with field paths, $literal, $convert and $toX, and the operators that
// rewrite array elements) on dotted paths without arrays; a query also matches through an array of documents
// (`{"reviews.stars": 3}`) and an array field by its elements (`$in`), as the query plans need
const MISSING = undefined;
function getPath(doc, path) {
  let value = doc;
  for (const part of path.split(".")) {
    if (value === null || typeof value !== "object" || Array.isArray(value) || !(part in value)) return MISSING;
    value = value[part];
  }
  return value;
}
function setPath(doc, path, value) {
  const parts = path.split(".");
  let at = doc;
  for (const part of parts.slice(0, -1)) {
    if (at[part] === null || typeof at[part] !== "object" || Array.isArray(at[part])) at[part] = {};
    at = at[part];
  }
  at[parts[parts.length - 1]] = value;
}
function unsetPath(doc, path) {
  const parts = path.split(".");
  let at = doc;
  for (const part of parts.slice(0, -1)) {
    if (at === null || typeof at !== "object" || !(part in at)) return;
    at = at[part];
  }
  if (at !== null && typeof at === "object") delete at[parts[parts.length - 1]];
}
function isInt32(value) {
  return Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 && !Object.is(value, -0);
}
function typeName(value) {
  if (value === MISSING) return "missing";
  if (value === null) return "null";
  if (typeof value === "string") return "string";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "number") return isInt32(value) ? "int" : "double"; // as the driver sends it (wire)
  if (value instanceof Date) return "date";
  if (Array.isArray(value)) return "array";
  const bsontype = value._bsontype;
  const names = { Int32: "int", Double: "double", Long: "long", Decimal128: "decimal", ObjectId: "objectId",
                  Binary: "binData", UUID: "binData" };
  if (bsontype && names[bsontype]) return names[bsontype];
  return "object";
}
function compare(a, b) {
  const key = (v) => (v && v._bsontype === "ObjectId" ? v.toHexString() : v && v.valueOf ? v.valueOf() : v);
  const x = key(a);
  const y = key(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
function matchValue(value, cond) {
  if (cond !== null && typeof cond === "object" && !Array.isArray(cond) && !cond._bsontype && !(cond instanceof Date)
      && Object.keys(cond).some((k) => k.startsWith("$"))) {
    return Object.entries(cond).every(([op, arg]) => {
      if (op === "$exists") return (value !== MISSING) === Boolean(arg);
      if (op === "$gt") return value !== MISSING && compare(value, arg) > 0;
      if (op === "$lt") return value !== MISSING && compare(value, arg) < 0;
      // as the server: an array field matches when it or one of its elements is in the list
      if (op === "$in") {
        return arg.some((v) => same(v, value === MISSING ? null : value) || (Array.isArray(value) && value.some((e) => same(v, e))));
      }
      if (op === "$type") return [].concat(arg).includes(typeName(value)); // one alias, or a list of them
      if (op === "$not") return !matchValue(value, arg);
      if (op === "$elemMatch") return Array.isArray(value) && value.some((e) => typeName(e) === "object" && matches(e, arg));
      throw new Error(`the stand-in does not evaluate the query operator ${op}`);
    });
  }
  // as the server: a value matches an array that holds it (`{members: id}`)
  return value !== MISSING && (same(value, cond) || (Array.isArray(value) && value.some((e) => same(e, cond))));
}
function matches(doc, filter) {
  return Object.entries(filter).every(([key, cond]) => {
    if (key === "$and") return cond.every((f) => matches(doc, f));
    if (key === "$or") return cond.some((f) => matches(doc, f));
    if (key.startsWith("$")) throw new Error(`the stand-in does not evaluate ${key}`);
    return matchValue(getPath(doc, key), cond) || matchThroughArray(doc, key, cond);
  });
}
// as the server: a dotted path through an array of documents matches when one element does (`{"reviews.stars": 3}`);
// only for conditions a missing value cannot satisfy ($exists and $not keep the path-without-arrays reading)
function matchThroughArray(doc, path, cond) {
  const ops = cond !== null && typeof cond === "object" && !Array.isArray(cond) && !cond._bsontype ? Object.keys(cond) : [];
  if (ops.includes("$exists") || ops.includes("$not")) return false;
  const parts = path.split(".");
  let value = doc;
  for (let i = 0; i < parts.length - 1; i += 1) {
    value = value === null || typeof value !== "object" ? MISSING : value[parts[i]];
    if (Array.isArray(value)) {
      const rest = parts.slice(i + 1).join(".");
      return value.some((e) => typeName(e) === "object" && matches(e, { [rest]: cond }));
    }
  }
  return false;
}
function convert(value, to) {
  if (to === "string") return value instanceof Date ? value.toISOString() : String(value.valueOf());
  const n = Number(value instanceof Date ? value.getTime() : value.valueOf());
  if (to === "int") {
    if (!Number.isInteger(n)) throw new Error("not an int");
    return new Int32(n);
  }
  if (to === "long") {
    if (!Number.isInteger(n)) throw new Error("not a long");
    return Long.fromNumber(n);
  }
  if (to === "double") {
    if (Number.isNaN(n)) throw new Error("not a number");
    return new Double(n);
  }
  if (to === "decimal") return Decimal128.fromString(String(value.valueOf()));
  if (to === "bool") return Boolean(value.valueOf());
  if (to === "date") {
    const d = new Date(typeof value === "string" ? value : n);
    if (Number.isNaN(d.getTime())) throw new Error("not a date");
    return d;
  }
  if (to === "objectId") return new ObjectId(String(value));
  throw new Error(`the stand-in cannot $convert to ${to}`);
}
// the array-element operators of the migration script ($map, $cond, $let, $mergeObjects, ...): "$$name.path" reads a
// variable, and a missing value stays missing (an object literal or $mergeObjects leaves it out, as the server does)
function arrayExpression(op, arg, doc, vars) {
  const ev = (e) => evaluate(e, doc, vars, true);
  const isObject = (v) => v !== MISSING && typeName(v) === "object";
  switch (op) {
    case "$map": {
      const input = ev(arg.input);
      if (input === MISSING || input === null) return null;
      return input.map((e) => {
        const v = evaluate(arg.in, doc, Object.assign({}, vars, { [arg.as]: e }), true);
        return v === MISSING ? null : v;
      });
    }
    case "$filter": {
      const input = ev(arg.input);
      return input.filter((e) => evaluate(arg.cond, doc, Object.assign({}, vars, { [arg.as]: e }), true) === true);
    }
    case "$let": {
      const bound = Object.assign({}, vars);
      for (const [name, e] of Object.entries(arg.vars)) bound[name] = ev(e);
      return evaluate(arg.in, doc, bound, true);
    }
    case "$cond": return ev(arg[0]) === true ? ev(arg[1]) : ev(arg[2]);
    case "$eq": return same(ev(arg[0]), ev(arg[1]));
    case "$ne": return !same(ev(arg[0]), ev(arg[1]));
    case "$in": return ev(arg[1]).some((v) => same(v, ev(arg[0])));
    case "$type": return typeName(ev(Array.isArray(arg) ? arg[0] : arg));
    case "$isArray": return Array.isArray(ev(Array.isArray(arg) ? arg[0] : arg));
    case "$mergeObjects":
      return Object.assign({}, ...arg.map(ev).filter((v) => isObject(v)));
    case "$objectToArray": return Object.entries(ev(arg)).map(([k, v]) => ({ k, v }));
    case "$arrayToObject": return Object.fromEntries(ev(arg).map((kv) => [kv.k, kv.v]));
    default: return undefined;
  }
}
function evaluate(expr, doc, vars = {}, keepMissing = false) {
  if (typeof expr === "string" && expr.startsWith("$$")) {
    const [name, ...rest] = expr.slice(2).split(".");
    if (!(name in vars)) throw new Error(`the stand-in does not know the variable $$${name}`);
    const v = rest.length === 0 ? vars[name] : getPath(vars[name], rest.join("."));
    return v === MISSING && !keepMissing ? null : v;
  }
  if (typeof expr === "string" && expr.startsWith("$")) {
    const v = getPath(doc, expr.slice(1));
    return v === MISSING && !keepMissing ? null : v;
  }
  if (expr === null || typeof expr !== "object" || expr._bsontype || expr instanceof Date) return expr;
  if (Array.isArray(expr)) return expr.map((e) => evaluate(e, doc, vars, keepMissing));
  const keys = Object.keys(expr);
  if (keys.length === 1 && keys[0].startsWith("$")) {
    const op = keys[0];
    const arg = expr[op];
    if (op === "$literal") return arg;
    const computed = arrayExpression(op, arg, doc, vars);
    if (computed !== undefined) return computed;
    if (op === "$convert") {
      const input = evaluate(arg.input, doc, vars);
      if (input === null) return "onNull" in arg ? evaluate(arg.onNull, doc, vars) : null;
      try {
        return convert(input, arg.to);
      } catch (err) {
        if ("onError" in arg) return evaluate(arg.onError, doc, vars);
        throw err;
      }
    }
    const to = { $toInt: "int", $toLong: "long", $toDouble: "double", $toDecimal: "decimal", $toDate: "date",
                 $toString: "string", $toBool: "bool", $toObjectId: "objectId" }[op];
    if (to) return convert(evaluate(arg, doc, vars), to);
    throw new Error(`the stand-in does not evaluate the expression ${op}`);
  }
  const entries = keys.map((k) => [k, evaluate(expr[k], doc, vars, true)]);
  return Object.fromEntries(entries.filter(([, v]) => v !== MISSING || !keepMissing).map(([k, v]) => [k, v === MISSING ? null : v]));
}
function applyUpdate(doc, update) {
  const out = EJSON.deserialize(canonical(doc), { relaxed: false });
  if (Array.isArray(update)) {
    for (const stage of update) {
      const [op] = Object.keys(stage);
      if (op === "$set" || op === "$addFields") {
        const values = Object.entries(stage[op]).map(([path, expr]) => [path, evaluate(expr, out)]);
        for (const [path, value] of values) setPath(out, path, value);
      } else if (op === "$unset") {
        for (const path of [].concat(stage[op])) unsetPath(out, path);
      } else throw new Error(`the stand-in does not run the pipeline stage ${op}`);
    }
    return out;
  }
  for (const [op, fields] of Object.entries(update)) {
    for (const [path, value] of Object.entries(fields)) {
      if (op === "$set") setPath(out, path, value);
      else if (op === "$unset") unsetPath(out, path);
      else if (op === "$rename") {
        const v = getPath(out, path);
        if (v !== MISSING) {
          unsetPath(out, path);
          setPath(out, value, v);
        }
      } else if (op === "$addToSet") {  // as the server: a missing array is created, any other non-array refused
        const list = getPath(out, path);
        if (list !== MISSING && !Array.isArray(list)) throw new Error(`$addToSet on the non-array field ${path}`);
        const same = (a) => EJSON.stringify(a, { relaxed: false }) === EJSON.stringify(value, { relaxed: false });
        if (list === MISSING || !list.some(same)) setPath(out, path, [...(list === MISSING ? [] : list), value]);
      } else throw new Error(`the stand-in does not apply the update operator ${op}`);
    }
  }
  return out;
}

// maps keyed by user names have no prototype: a database or collection named "constructor" is just a name
const state = { databases: Object.create(null), sharded: Object.create(null), shardingEnabled: [] };
// --kill-after N: the first run dies before its (N+1)th updateMany or deleteMany, as a killed mongosh would between two batches
const KILLED = "killed by the harness (--kill-after)";
let killAfter = null;
let updatesLeft = 0;
let calls = [];
let prints = [];

function dbState(name) {
  if (!state.databases[name]) state.databases[name] = { collections: Object.create(null) };
  return state.databases[name];
}

function makeCollection(dbName, name) {
  const coll = () => {
    const d = dbState(dbName);
    if (!d.collections[name]) {
      d.collections[name] = { options: {}, indexes: [], docs: [], implicit: true };
    }
    return d.collections[name];
  };
  return strict({
    createIndex(keys, options) {
      const c = coll();
      const key = Object.entries(keys);
      const opts = Object.assign({}, options || {});
      const indexName = opts.name;
      if (typeof indexName !== "string") throw new Error("createIndex without an explicit name");
      const rest = Object.assign({}, opts);
      delete rest.name;
      const existing = c.indexes.find((ix) => ix.name === indexName);
      let created = false;
      if (existing) {
        if (!same(existing.key, key) || !same(existing.options, rest)) {
          throw new Error(`IndexOptionsConflict: an index named ${indexName} exists with other keys or options`);
        }
      } else {
        if (c.indexes.some((ix) => same(ix.key, key) && same(ix.options.collation || null, rest.collation || null))) {
          throw new Error(`IndexKeySpecsConflict: the keys of ${indexName} are indexed under another name`);
        }
        c.indexes.push({ name: indexName, key, options: rest });
        created = true;
      }
      calls.push({ op: "createIndex", db: dbName, collection: nameOf(), key: relaxed(key), options: relaxed(opts),
                   created });
      return indexName;
    },
    countDocuments(filter, options) {
      const c = coll();
      const n = c.docs.filter((d) => matches(d, filter)).length;
      calls.push({ op: "countDocuments", db: dbName, collection: nameOf(), filter: relaxed(filter), result: n });
      return options && options.limit ? Math.min(n, options.limit) : n;
    },
    insertMany(docs) {
      const c = coll();
      for (const doc of docs) {
        if (doc._id === undefined) throw new Error("insertMany: a document has no _id");
        if (c.docs.some((d) => same(d._id, doc._id))) throw new Error("E11000 duplicate key error on _id");
        c.docs.push(doc);
      }
      calls.push({ op: "insertMany", db: dbName, collection: nameOf(), n: docs.length });
      return { acknowledged: true, insertedCount: docs.length };
    },
    insertOne(doc) {
      const c = coll();
      if (doc._id === undefined) throw new Error("insertOne: the sample has no _id");
      if (c.docs.some((d) => same(d._id, doc._id))) throw new Error("E11000 duplicate key error on _id");
      c.docs.push(doc);
      calls.push({ op: "insertOne", db: dbName, collection: nameOf(), doc: canonical(doc) });
      return { acknowledged: true, insertedId: doc._id };
    },
    findOne(filter, projection, options) {
      if (dbName === "config" && name === "collections") {
        const entry = state.sharded[filter._id];
        calls.push({ op: "findOne", db: dbName, collection: name, filter: relaxed(filter), found: Boolean(entry) });
        return entry ? { _id: filter._id, key: entry } : null;
      }
      const doc = coll().docs.find((d) => matches(d, filter));
      calls.push({ op: "findOne", db: dbName, collection: name, filter: relaxed(filter), found: Boolean(doc) });
      return doc === undefined ? null : read(doc, options);
    },
    find(filter, projection, options) {
      const found = coll().docs.filter((d) => matches(d, filter || {}));
      let order = null;
      let limit = 0;
      const cursor = strict({
        sort(spec) {
          order = Object.entries(spec);
          return cursor;
        },
        limit(n) {
          limit = n;
          return cursor;
        },
        toArray() {
          let docs = found.slice();
          if (order) {
            docs.sort((a, b) => {
              for (const [path, dir] of order) {
                const c = compare(getPath(a, path), getPath(b, path));
                if (c !== 0) return c * dir;
              }
              return 0;
            });
          }
          if (limit) docs = docs.slice(0, limit);
          calls.push({ op: "find", db: dbName, collection: nameOf(), filter: relaxed(filter || {}),
                       returned: docs.length });
          if (projection && Object.keys(projection).length === 1 && projection._id === 1) {
            return docs.map((d) => read({ _id: d._id }, options));
          }
          return docs.map((d) => read(d, options));
        },
      }, "cursor");
      return cursor;
    },
    updateMany(filter, update) {
      if (killAfter !== null && updatesLeft-- <= 0) throw new Error(KILLED);
      let modified = 0;
      const docs = coll().docs;
      for (let i = 0; i < docs.length; i += 1) {
        if (!matches(docs[i], filter)) continue;
        const changed = applyUpdate(docs[i], update);
        if (!same(changed, docs[i])) modified += 1;
        docs[i] = changed;
      }
      calls.push({ op: "updateMany", db: dbName, collection: nameOf(), filter: relaxed(filter),
                   update: relaxed(update), modified });
      return { acknowledged: true, modifiedCount: modified };
    },
    deleteMany(filter) {
      if (killAfter !== null && updatesLeft-- <= 0) throw new Error(KILLED);
      const c = coll();
      const before = c.docs.length;
      c.docs = c.docs.filter((d) => !matches(d, filter));
      calls.push({ op: "deleteMany", db: dbName, collection: nameOf(), filter: relaxed(filter),
                   deleted: before - c.docs.length });
      return { acknowledged: true, deletedCount: before - c.docs.length };
    },
    updateOne(filter, update, options) {
      // a data write may be the one the kill interrupts (a migration marker's bookkeeping is not counted)
      if (killAfter !== null && nameOf() !== "modeller_migrations" && updatesLeft-- <= 0) throw new Error(KILLED);
      const docs = coll().docs;
      const at = docs.findIndex((d) => matches(d, filter));
      let upserted = false;
      if (at >= 0) docs[at] = applyUpdate(docs[at], update);
      else if (options && options.upsert) {
        const seed = {};
        for (const [k, v] of Object.entries(filter)) if (!k.startsWith("$")) seed[k] = v;
        docs.push(applyUpdate(seed, update));
        upserted = true;
      }
      calls.push({ op: "updateOne", db: dbName, collection: nameOf(), filter: relaxed(filter), upserted });
      return { acknowledged: true, matchedCount: at >= 0 ? 1 : 0 };
    },
    getIndexes() {
      return coll().indexes.map((ix) => Object.assign({ v: 2, key: Object.fromEntries(ix.key), name: ix.name },
                                                      ix.options));
    },
    hideIndex(indexName) {
      const ix = coll().indexes.find((i) => i.name === indexName);
      if (!ix) throw new Error(`IndexNotFound: ${indexName}`);
      ix.options = Object.assign({}, ix.options, { hidden: true });
      calls.push({ op: "hideIndex", db: dbName, collection: nameOf(), name: indexName });
      return { ok: 1 };
    },
    unhideIndex(indexName) {
      const ix = coll().indexes.find((i) => i.name === indexName);
      if (!ix) throw new Error(`IndexNotFound: ${indexName}`);
      ix.options = Object.assign({}, ix.options);
      delete ix.options.hidden;
      calls.push({ op: "unhideIndex", db: dbName, collection: nameOf(), name: indexName });
      return { ok: 1 };
    },
    dropIndex(indexName) {
      const c = coll();
      const at = c.indexes.findIndex((i) => i.name === indexName);
      if (at < 0) throw new Error(`IndexNotFound: ${indexName}`);
      c.indexes.splice(at, 1);
      calls.push({ op: "dropIndex", db: dbName, collection: nameOf(), name: indexName });
      return { ok: 1 };
    },
    renameCollection(to) {
      const d = dbState(dbName);
      if (!d.collections[name]) throw new Error(`NamespaceNotFound: ${dbName}.${name}`);
      if (d.collections[to]) throw new Error(`NamespaceExists: ${dbName}.${to}`);
      d.collections[to] = d.collections[name];
      delete d.collections[name];
      calls.push({ op: "renameCollection", db: dbName, collection: name, to });
      return { ok: 1 };
    },
  }, `db.getCollection(${JSON.stringify(name)})`);
  function nameOf() {
    return name;
  }
}

function makeDb(dbName) {
  return strict({
    getName() {
      return dbName;
    },
    getSiblingDB(other) {
      if (typeof other !== "string") throw new Error("getSiblingDB needs a string");
      calls.push({ op: "getSiblingDB", db: other });
      return makeDb(other);
    },
    getCollectionInfos(filter) {
      const d = dbState(dbName);
      const wanted = filter && filter.name;
      return Object.entries(d.collections)
        .filter(([name]) => wanted === undefined || name === wanted)
        .map(([name, c]) => ({ name, type: "collection", options: JSON.parse(JSON.stringify(c.options)) }));
    },
    getCollectionNames() {
      calls.push({ op: "getCollectionNames", db: dbName });
      return Object.keys(dbState(dbName).collections).sort();
    },
    createCollection(name, options) {
      const d = dbState(dbName);
      if (d.collections[name]) throw new Error(`NamespaceExists: collection ${dbName}.${name} already exists`);
      d.collections[name] = { options: relaxed(options || {}), indexes: [], docs: [], implicit: false };
      calls.push({ op: "createCollection", db: dbName, collection: name, options: relaxed(options || {}) });
      return { ok: 1 };
    },
    runCommand(command) {
      const verb = Object.keys(command)[0];
      if (verb !== "collMod") throw new Error(`runCommand ${verb} is not supported by the stand-in`);
      const d = dbState(dbName);
      const c = d.collections[command.collMod];
      if (!c) throw new Error(`NamespaceNotFound: ${dbName}.${command.collMod}`);
      const change = Object.assign({}, command);
      delete change.collMod;
      c.options = Object.assign({}, c.options, relaxed(change));
      calls.push({ op: "collMod", db: dbName, collection: command.collMod, options: relaxed(change) });
      return { ok: 1 };
    },
    getCollection(name) {
      if (typeof name !== "string") throw new Error("getCollection needs a string");
      return makeCollection(dbName, name);
    },
  }, "db");
}

const sh = strict({
  enableSharding(dbName) {
    calls.push({ op: "enableSharding", db: dbName });
    if (!state.shardingEnabled.includes(dbName)) state.shardingEnabled.push(dbName);
    return { ok: 1 };
  },
  shardCollection(ns, key) {
    if (state.sharded[ns]) throw new Error(`AlreadyInitialized: ${ns} is already sharded`);
    state.sharded[ns] = relaxed(key);
    calls.push({ op: "shardCollection", ns, key: relaxed(Object.entries(key)) });
    return { ok: 1 };
  },
}, "sh");

function sandbox() {
  return vm.createContext({
    db: makeDb("test"),
    sh,
    print: (...args) => prints.push(args.map(String).join(" ")),
    EJSON,
    ObjectId: (hex) => new ObjectId(hex),
    ISODate: (text) => new Date(text),
    NumberDecimal: (text) => Decimal128.fromString(String(text)),
    NumberLong: (text) => Long.fromString(String(text)),
    NumberInt: (n) => new Int32(n),
    Double: (n) => new Double(n),
    UUID: (text) => new UUID(text),
    BinData: (subtype, b64) => new Binary(Buffer.from(b64, "base64"), subtype),
  });
}

function batch(groups, runs) {
  const results = [];
  for (const scripts of groups) {
    state.databases = Object.create(null);
    state.sharded = Object.create(null);
    state.shardingEnabled = [];
    const result = { error: null, validators: {}, inserted: {} };
    let where = "";
    try {
      for (let r = 0; r < runs; r += 1) {
        calls = [];
        prints = [];
        updatesLeft = Infinity;
        for (const file of scripts) {
          where = `${path.basename(file)} (run ${r + 1})`;
          vm.runInContext(fs.readFileSync(file, "utf8"), sandbox(), { filename: file });
        }
        if (r > 0) continue;
        for (const call of calls) {
          const ns = `${call.db}.${call.collection}`;
          if (call.op === "createCollection") result.validators[ns] = call.options.validator || null;
          if (call.op === "insertOne") (result.inserted[ns] = result.inserted[ns] || []).push(call.doc);
        }
      }
    } catch (err) {
      result.error = `${where}: ${err && err.message ? err.message : err}`;
    }
    results.push(result);
  }
  return { results };
}

function main(argv) {
  let runs = 2;
  let stateFile = null;
  let batchFile = null;
  const scripts = [];
  const seeds = [];
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === "--runs") runs = Number(argv[++i]);
    else if (argv[i] === "--state") stateFile = argv[++i];
    else if (argv[i] === "--seed") seeds.push(argv[++i]);
    else if (argv[i] === "--kill-after") killAfter = Number(argv[++i]);
    else if (argv[i] === "--batch") batchFile = argv[++i];
    else scripts.push(argv[i]);
  }
  if (batchFile) {
    process.stdout.write(JSON.stringify(batch(JSON.parse(fs.readFileSync(batchFile, "utf8")), runs)));
    return;
  }
  const out = { runs: [] };
  for (const file of seeds) {
    vm.runInContext(fs.readFileSync(file, "utf8"), sandbox(), { filename: file });
  }
  calls = [];
  prints = [];
  for (let r = 0; r < runs; r += 1) {
    calls = [];
    prints = [];
    updatesLeft = r === 0 && killAfter !== null ? killAfter : Infinity;
    let killed = false;
    for (const file of scripts) {
      const code = fs.readFileSync(file, "utf8");
      try {
        vm.runInContext(code, sandbox(), { filename: file });
      } catch (err) {
        if (!(err instanceof Error) || err.message !== KILLED) throw err;
        killed = true;
        break;
      }
    }
    out.runs.push(killed ? { calls, prints, killed } : { calls, prints });
  }
  out.state = relaxed(state);
  out.documents = {};
  for (const [dbName, d] of Object.entries(state.databases)) {
    out.documents[dbName] = {};
    for (const [collName, c] of Object.entries(d.collections)) out.documents[dbName][collName] = c.docs.map(canonical);
  }
  const text = JSON.stringify(out);
  if (stateFile) fs.writeFileSync(stateFile, text);
  process.stdout.write(text);
}

main(process.argv.slice(2));
