"""What we add to mongoeco and why: the few server commands the live tests need that mongoeco 4.11 lacks.

mongoeco (the wire-protocol stand-in of the live tests, see ``serve_mongoeco.py``) answers real pymongo,
but these gaps stop the tests from running the project's own output against it:

- **Cursor ids as 64-bit integers.** mongoeco sends ``cursor.id`` as a 32-bit int; the Node driver inside
  mongosh reads it only as a BSON long and fails every command with "BSON element "id" is missing".
  Every reply's cursor id is re-typed as Int64, as a real ``mongod`` sends it.
- **``buildinfo`` (lower case)**, which pymongo's ``server_info()`` sends, is answered as ``buildInfo``
  (mongoeco knows only that spelling; a real server accepts both).
- **``collMod``** (``modeller apply`` sets validators with it; mongosh's ``hideIndex`` sends it): the
  ``validator``, ``validationLevel`` and ``validationAction`` it is given replace the collection's
  options, so ``listCollections`` reports them and mongoeco's own validation (it enforces
  ``$jsonSchema``, honours ``moderate`` and ``warn``) applies them to the next writes; ``index:
  {name | keyPattern, hidden}`` hides or unhides an index, which ``listIndexes`` then reports.
  Errors are the server's: NamespaceNotFound (26), IndexNotFound (27), InvalidOptions (72).
- **``getParameter``** for ``featureCompatibilityVersion`` (mongosh asks on connect), answered from the
  version ``buildInfo`` reports; other parameters stay unsupported, as before.

``limit`` does the opposite for the tests of a server that lacks something: on plain mongoeco (no collMod)
it also refuses ``$collStats`` and ``collStats`` with MongoDB's errors for an unknown stage and command,
as a locked-down or old server would, and stops every ``find`` by a list of ``_id`` s (``infer``'s reference
look-up) with MaxTimeMSExpired, as a busy server with a ``defaultMaxTimeMS`` would.

Nothing else changes, and nothing in ``modeller/`` knows about this module: it only fills gaps of the
test server. It reaches into mongoeco's wire executor and memory engine (private names), so
``extend`` checks that those are still there and fails at start with a one-line reason if a
mongoeco release moved them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from mongoeco.core.bson_scalars import BsonInt64
from mongoeco.errors import CollectionInvalid
from mongoeco.wire import AsyncMongoEcoProxyServer
from mongoeco.wire._executor_support import WIRE_INTERNAL_KEYS

#: the command names handled here rather than by mongoeco
HANDLED = ("collMod", "getParameter")
_COLLMOD_OPTIONS = ("validator", "validationLevel", "validationAction")
_LEVELS = ("off", "strict", "moderate")
_ACTIONS = ("error", "warn")


class _Extra:
    """A request this module answers: mongoeco's proxy only needs ``execute_prepared`` to accept it."""

    def __init__(self, name: str, db_name: str, command: dict[str, Any]) -> None:
        self.command_name = name
        self.db_name = db_name
        self.command = command


def _error(message: str, code: int, code_name: str) -> dict[str, Any]:
    return {"ok": 0.0, "errmsg": message, "code": code, "codeName": code_name}


def _int64_cursor_ids(result: Any) -> Any:
    """A real server sends cursor ids as BSON longs; the Node driver reads nothing else."""
    cursor = result.get("cursor") if isinstance(result, dict) else None
    if isinstance(cursor, dict) and isinstance(cursor.get("id"), int) and not isinstance(cursor["id"], bool):
        result = {**result, "cursor": {**cursor, "id": BsonInt64(cursor["id"])}}
    return result


class _Handlers:
    """The added commands, run against the server's memory engine."""

    def __init__(self, server: AsyncMongoEcoProxyServer) -> None:
        self.server = server
        self.engine = server._client._engine

    async def run(self, request: _Extra) -> dict[str, Any]:
        if request.command_name == "collMod":
            return await self.coll_mod(request.db_name, request.command)
        return await self.get_parameter(request.command)

    async def get_parameter(self, command: dict[str, Any]) -> dict[str, Any]:
        if "featureCompatibilityVersion" not in command:
            names = [k for k in command if k != "getParameter"]
            return _error(f"no such parameter: {', '.join(names) or command['getParameter']}", 72, "InvalidOptions")
        info = await self.server._client.get_database("admin").command({"buildInfo": 1})
        major, minor = info["versionArray"][:2]
        return {"featureCompatibilityVersion": {"version": f"{major}.{minor}"}, "ok": 1.0}

    async def coll_mod(self, db_name: str, command: dict[str, Any]) -> dict[str, Any]:
        name = command["collMod"]
        if not isinstance(name, str) or not name:
            return _error("collMod needs a collection name", 73, "InvalidNamespace")
        unknown = [k for k in command if k not in ("collMod", "index", "comment", "writeConcern", *_COLLMOD_OPTIONS)]
        if unknown:
            return _error(
                f"collMod option(s) not supported by the test server: {', '.join(unknown)}", 72, "InvalidOptions"
            )
        if command.get("validationLevel", "strict") not in _LEVELS:
            return _error("validationLevel must be 'off', 'strict' or 'moderate'", 2, "BadValue")
        if command.get("validationAction", "error") not in _ACTIONS:
            return _error("validationAction must be 'error' or 'warn'", 2, "BadValue")
        if "validator" in command and not isinstance(command["validator"], dict):
            return _error("validator must be a document", 14, "TypeMismatch")
        engine = self.engine
        async with engine._get_lock(db_name, name):
            try:
                await engine.collection_options(db_name, name)
            except CollectionInvalid:
                return _error(f"ns does not exist: {db_name}.{name}", 26, "NamespaceNotFound")
            with engine._meta_lock:
                reply: dict[str, Any] = {"ok": 1.0}
                if "index" in command:
                    changed = self._hide_index(db_name, name, command["index"])
                    if "errmsg" in changed:
                        return changed
                    reply.update(changed)
                options = engine._collection_options.setdefault(db_name, {}).setdefault(name, {})
                for key in _COLLMOD_OPTIONS:
                    if key in command:
                        options[key] = command[key]
                return reply

    def _hide_index(self, db_name: str, name: str, spec: Any) -> dict[str, Any]:
        if not isinstance(spec, dict) or "hidden" not in spec or not isinstance(spec["hidden"], bool):
            return _error("collMod index needs {name or keyPattern, hidden: true|false}", 72, "InvalidOptions")
        indexes = self.engine._indexes.get(db_name, {}).get(name, [])
        for i, record in enumerate(indexes):
            if record.name == spec.get("name") or ("keyPattern" in spec and dict(record.key) == spec["keyPattern"]):
                if record.name == "_id_":
                    return _error("cannot hide the _id index", 72, "InvalidOptions")
                indexes[i] = dataclasses.replace(record, hidden=spec["hidden"])
                return {"hidden_old": record.hidden, "hidden_new": spec["hidden"]}
        return _error(
            f"cannot find index {spec.get('name', spec.get('keyPattern'))} for ns {db_name}.{name}", 27, "IndexNotFound"
        )


def extend(server: AsyncMongoEcoProxyServer) -> None:
    """Teach ``server`` (not started yet) the commands above; fail at once if mongoeco's internals moved."""
    executor = server._executor
    engine = getattr(server._client, "_engine", None)
    needed = {
        "executor._build_request_context": hasattr(executor, "_build_request_context"),
        "executor.execute_prepared": hasattr(executor, "execute_prepared"),
        "engine._collection_options": hasattr(engine, "_collection_options"),
        "engine._indexes": hasattr(engine, "_indexes"),
        "engine._meta_lock": hasattr(engine, "_meta_lock"),
        "engine._get_lock": hasattr(engine, "_get_lock"),
    }
    missing = [name for name, present in needed.items() if not present]
    if missing:
        raise RuntimeError(f"mongoeco_extras: this mongoeco has no {', '.join(missing)}; pin mongoeco 4.11")
    handlers = _Handlers(server)
    build = executor._build_request_context
    prepared = executor.execute_prepared

    def build_request_context(body: dict[str, Any], **kwargs: Any) -> Any:
        name = next(iter(body), None)  # a command's name is its first key
        if name == "buildinfo":
            body = {("buildInfo" if key == "buildinfo" else key): value for key, value in body.items()}
        elif name in HANDLED:
            db_name = kwargs.get("db_name") or body.get("$db")
            if kwargs.get("on_normalized") is not None:
                kwargs["on_normalized"](name, body)
            return _Extra(name, db_name, {k: v for k, v in body.items() if k not in WIRE_INTERNAL_KEYS})
        return build(body, **kwargs)

    async def execute_prepared(context: Any) -> dict[str, Any]:
        if isinstance(context, _Extra):
            return await handlers.run(context)
        return _int64_cursor_ids(await prepared(context))

    executor._build_request_context = build_request_context
    executor.execute_prepared = execute_prepared


def _asks_for_collstats(body: dict[str, Any]) -> bool:
    name = next(iter(body), None)
    pipeline = body.get("pipeline") if name == "aggregate" else None
    first = pipeline[0] if isinstance(pipeline, list) and pipeline else None
    return name == "collStats" or (isinstance(first, dict) and "$collStats" in first)


def _looks_up_ids(body: dict[str, Any]) -> bool:
    """A ``find`` of documents by a list of ``_id`` s (``infer``'s reference look-up)."""
    query = body.get("filter") if next(iter(body), None) == "find" else None
    return isinstance(query, dict) and isinstance(query.get("_id"), dict) and "$in" in query["_id"]


def limit(server: AsyncMongoEcoProxyServer) -> None:
    """Make ``server`` (not extended) refuse ``$collStats`` and ``collStats``, as a server without them does, and
    stop a ``find`` by a list of ``_id`` s at its time limit, as a busy server with a ``defaultMaxTimeMS`` does."""
    executor = server._executor
    build = executor._build_request_context
    prepared = executor.execute_prepared

    def build_request_context(body: dict[str, Any], **kwargs: Any) -> Any:
        if _asks_for_collstats(body) or _looks_up_ids(body):
            return _Extra(next(iter(body)), kwargs.get("db_name") or body.get("$db") or "", {})
        return build(body, **kwargs)

    async def execute_prepared(context: Any) -> dict[str, Any]:
        if isinstance(context, _Extra):
            if context.command_name == "find":
                return _error("operation exceeded time limit", 50, "MaxTimeMSExpired")
            if context.command_name == "collStats":
                return _error("no such command: 'collStats'", 59, "CommandNotFound")
            return _error("Unrecognized pipeline stage name: '$collStats'", 40324, "Location40324")
        return await prepared(context)

    executor._build_request_context = build_request_context
    executor.execute_prepared = execute_prepared
