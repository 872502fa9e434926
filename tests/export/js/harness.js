// Runs generated mongosh scripts in a Node `vm` against a recording, stateful stand-in for `db`.
//
//   node harness.js [--runs N] [--state FILE] SCRIPT...
//   node harness.js [--runs N] --batch FILE
//
// Every script runs N times (default 2) against the same in-memory server state, the
// way a DBA would run it twice against one cluster. Prints one JSON document:
//   {"runs": [{"calls": [...], "prints": [...]}, ...], "state": {...}}
// Each call is {op, db, collection?, ...} with arguments as relaxed Extended JSON;
// index keys are recorded as [[field, kind], ...] so their order can be asserted;
// inserted documents are also recorded as canonical Extended JSON (exact BSON types).
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
function canonical(value) {
  return EJSON.serialize(value, { relaxed: false });
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

// maps keyed by user names have no prototype: a database or collection named "constructor" is just a name
const state = { databases: Object.create(null), sharded: Object.create(null), shardingEnabled: [] };
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
      const keys = Object.keys(filter);
      if (keys.length !== 1 || keys[0] !== "_id") throw new Error("countDocuments: only {_id: value} is supported");
      const n = c.docs.filter((d) => same(d._id, filter._id)).length;
      calls.push({ op: "countDocuments", db: dbName, collection: nameOf(), filter: relaxed(filter), result: n });
      return options && options.limit ? Math.min(n, options.limit) : n;
    },
    insertOne(doc) {
      const c = coll();
      if (doc._id === undefined) throw new Error("insertOne: the sample has no _id");
      if (c.docs.some((d) => same(d._id, doc._id))) throw new Error("E11000 duplicate key error on _id");
      c.docs.push(doc);
      calls.push({ op: "insertOne", db: dbName, collection: nameOf(), doc: canonical(doc) });
      return { acknowledged: true, insertedId: doc._id };
    },
    findOne(filter) {
      if (dbName === "config" && name === "collections") {
        const entry = state.sharded[filter._id];
        calls.push({ op: "findOne", db: dbName, collection: name, filter: relaxed(filter), found: Boolean(entry) });
        return entry ? { _id: filter._id, key: entry } : null;
      }
      throw new Error("findOne is only supported on config.collections");
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
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === "--runs") runs = Number(argv[++i]);
    else if (argv[i] === "--state") stateFile = argv[++i];
    else if (argv[i] === "--batch") batchFile = argv[++i];
    else scripts.push(argv[i]);
  }
  if (batchFile) {
    process.stdout.write(JSON.stringify(batch(JSON.parse(fs.readFileSync(batchFile, "utf8")), runs)));
    return;
  }
  const out = { runs: [] };
  for (let r = 0; r < runs; r += 1) {
    calls = [];
    prints = [];
    for (const file of scripts) {
      const code = fs.readFileSync(file, "utf8");
      vm.runInContext(code, sandbox(), { filename: file });
    }
    out.runs.push({ calls, prints });
  }
  out.state = relaxed(state);
  const text = JSON.stringify(out);
  if (stateFile) fs.writeFileSync(stateFile, text);
  process.stdout.write(text);
}

main(process.argv.slice(2));
