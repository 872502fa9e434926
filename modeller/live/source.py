"""Sample a live database with pymongo: ``$sample`` per collection, counts, indexes, collection options.

Every network call is bounded: finding the server and connecting get the
timeout (5 s by default), each read waits for its answer the timeout or
:data:`MIN_READ_S`, whichever is longer (a ``$sample`` of large documents takes
longer than connecting). Each failure becomes one :class:`LiveError` line that names
the server with its password hidden (``mongodb://user:***@host``) and says
what to do. Reference candidates are looked up in the other collections
(``_id: {$in: [...]}``, :data:`LOOKUP_BATCH` ids per query), so a sample of
1,000 out of millions still finds its references.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pymongo
from pymongo import errors

from modeller.live.apply import FAILING_READ
from modeller.live.collstats import STAGE, StorageStats, storage_stats
from modeller.live.drift import failing_fields
from modeller.live.errors import LiveError
from modeller.live.infer import CollectionSample, reference_candidates
from modeller.live.state import DatabaseState, ObservedCollection, validator_differs, wanted_validator
from modeller.live.stats import CollectionStats
from modeller.live.workload import (
    OWN_COMMENT,
    PROFILE_LIMIT,
    ObservedQuery,
    Workload,
    from_index_stats,
    from_profile,
    merge,
)
from modeller.model.text import hide_secret_options, shown
from modeller.rules.physical.design import CollectionDesign, Design

DEFAULT_SAMPLE = 1_000
DEFAULT_TIMEOUT_S = 5.0
#: seconds a read waits for its answer at least, whatever the (connection) timeout
MIN_READ_S = 30.0
#: reference candidates looked up per field and collection
LOOKUP_LIMIT = 200
#: ids per ``$in`` of the reference lookup (a loaded server answers 10,000 at once slowly, if at all)
LOOKUP_BATCH = 500

_PASSWORD = re.compile(r"(?P<head>^[a-z][a-z0-9+.-]*://[^:/@]*:)[^@]*(?=@)", re.IGNORECASE)


def redact(uri: str) -> str:
    """The URI as it may be shown, logged or stored: the password (and password options) as ``***``."""
    hidden = _PASSWORD.sub(r"\g<head>***", uri, count=1)
    return hide_secret_options(hidden)


def _unsupported(exc: errors.OperationFailure) -> bool:
    """The server has no such command (MongoDB: code 59; stand-ins such as mongoeco: "unsupported ...")."""
    message = str((exc.details or {}).get("errmsg") or exc).lower()
    return exc.code == 59 or "no such command" in message or "unsupported" in message


def _timed_out(exc: BaseException) -> bool:
    """An operation pymongo cancelled because the server's status check timed out (a busy server, not a cut)."""
    seen: BaseException | None = exc
    for _ in range(5):
        if seen is None:
            return False
        if isinstance(seen, TimeoutError | errors.NetworkTimeout) or "timed out" in str(seen).lower():
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _own_words(warning: str) -> str:
    """pymongo's warning without its pointer to its own docstring, which a user of the CLI or the app cannot read."""
    return warning.replace(" Refer to docstring.", "").replace("Refer to docstring.", "").strip()


def is_uri(text: str) -> bool:
    return text.startswith(("mongodb://", "mongodb+srv://"))


class Source:
    """One connection to one server; use as a context manager so the client is always closed."""

    def __init__(self, uri: str, timeout_s: float = DEFAULT_TIMEOUT_S, listeners: Sequence[Any] = ()) -> None:
        """``listeners``: pymongo command listeners (tests record the commands sent; a GUI could log them)."""
        self.shown = shown(redact(uri), 300)
        self.timeout_s = timeout_s
        #: seconds a read waits for the server's answer
        self.read_timeout_s = max(timeout_s, MIN_READ_S)
        ms = max(1, int(timeout_s * 1000))
        #: what pymongo warned about the URI (an unknown option), one line each, password hidden
        self.warnings: list[str] = []
        with self._errors("opening the connection"), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
                uri,
                # selection waits a little longer than one connection attempt, so that when it gives up the
                # attempt's own error (a TLS handshake that timed out, a refused connection) is known and named
                serverSelectionTimeoutMS=ms + max(1000, ms // 4),
                connectTimeoutMS=ms,
                socketTimeoutMS=int(self.read_timeout_s * 1000),
                appname="modeller",
                event_listeners=list(listeners),
            )
        self.warnings = [f"{self.shown}: {shown(redact(_own_words(str(w.message))), 200)}" for w in caught]
        #: what the server would not tell while sampling (a refused $collStats), one line each, said once
        self.notices: list[str] = []
        #: reason -> the collections whose $collStats the server refused for it (and the notice saying so)
        self._refused: dict[str, list[str]] = {}
        self._refused_notice: dict[str, int] = {}

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.close()

    @contextmanager
    def _errors(self, doing: str, role: str = "read", command: str | None = None) -> Iterator[None]:
        """pymongo's exceptions as one line each: what failed, where, and what to do.

        ``role`` is the one the user needs for it; ``command`` the command sent, named when the server lacks it.
        """
        where = self.shown
        try:
            yield
        except errors.ServerSelectionTimeoutError as exc:
            if any(word in str(exc).lower() for word in ("ssl", "tls", "certificate")):
                raise LiveError(
                    f"the TLS handshake with {where} failed while {doing}; check the tls options in the connection "
                    "string (tlsCAFile, tlsAllowInvalidHostnames) and that the server speaks TLS"
                ) from None
            raise LiveError(
                f"cannot reach {where} within {self.timeout_s:g} s while {doing}; check the host and port, "
                "that the server runs and that a firewall lets you in (--timeout waits longer)"
            ) from None
        except errors.OperationFailure as exc:
            if exc.code == 18 or ("auth" in str(exc).lower() and exc.code in (None, 11, 18)):
                raise LiveError(
                    f"authentication failed at {where}; check the user name and password, and the authSource in the "
                    "connection string"
                ) from None
            if exc.code == 13:
                raise LiveError(
                    f"not allowed while {doing} at {where} ({shown(exc.details and exc.details.get('errmsg'), 160)}); "
                    f"use a user with the {role} role on the database"
                ) from None
            if exc.code == 50:  # MaxTimeMSExpired: the server's own time limit (defaultMaxTimeMS, a busy server)
                raise LiveError(
                    f"the server at {where} stopped {doing}: it took longer than the server allows "
                    f"({shown((exc.details and exc.details.get('errmsg')) or exc, 160)}); try again when it is less busy"
                ) from None
            if _unsupported(exc):
                raise LiveError(
                    f"the server at {where} has no {command or 'such'} command, which this needs: {doing}; "
                    "run that step by hand (mongosh), or use a MongoDB server (3.6 or later) and run again"
                ) from None
            raise LiveError(
                f"the server at {where} refused {doing} ({shown((exc.details and exc.details.get('errmsg')) or exc, 160)}); "
                "it may not support this command"
            ) from None
        except (errors.AutoReconnect, errors.ConnectionFailure) as exc:
            if isinstance(exc, errors.NetworkTimeout) or _timed_out(exc):  # nothing dropped: the answer is late
                waited = (
                    f"within {self.read_timeout_s:g} s"
                    if isinstance(exc, errors.NetworkTimeout)
                    else f"its status check within {self.timeout_s:g} s"
                )
                raise LiveError(
                    f"the server at {where} did not answer {waited} while {doing}; --timeout waits longer"
                ) from None
            raise LiveError(
                f"the connection to {where} dropped while {doing}; check the network and run again"
            ) from None
        except (errors.ConfigurationError, errors.InvalidURI, ValueError) as exc:
            detail = shown(redact(str(exc)), 160)
            raise LiveError(
                f"the connection string {where} is not usable ({detail}); fix it (mongodb://user@host:port)"
            ) from None
        except OSError as exc:  # a TLS file named in the URI (tlsCAFile, tlsCertificateKeyFile) that cannot be read
            raise LiveError(
                f"{where}: {shown(redact(exc.strerror or str(exc)), 160)} while {doing}; "
                "check the tlsCAFile / tlsCertificateKeyFile paths in the connection string"
            ) from None
        except errors.PyMongoError as exc:
            raise LiveError(
                f"{where}: {shown(redact(str(exc)), 160)} while {doing}; run again or check the server log"
            ) from None

    def ping(self) -> None:
        with self._errors("connecting"):
            self.client.admin.command("ping")

    def collections(self, database: str) -> list[Mapping[str, Any]]:
        """``listCollections`` of the database: collections and time series (views and system collections left out)."""
        with self._errors(f"listing the collections of {shown(repr(database), 80)}"):
            found = list(self.client[database].list_collections(comment=OWN_COMMENT))
        return [
            c
            for c in found
            if c.get("type", "collection") in ("collection", "timeseries")
            and not (c.get("options") or {}).get("viewOn")  # some servers (mongoeco) list a view as a collection
            and not c["name"].startswith("system.")
        ]

    def _databases(self) -> str:
        """What to do about a database without collections: the server's databases to choose from, if it lists them."""
        try:
            with self._errors("listing the databases", role="read"):
                names = [n for n in self.client.list_database_names() if n not in ("admin", "config", "local")]
        except LiveError:
            return "check its name (the server would not list its databases)"
        if not names:
            return "the server holds no other database"
        return f"check its name; the server's databases: {shown(', '.join(sorted(names)[:20]), 300)}"

    def sample_database(
        self,
        database: str,
        names: Sequence[str] | None = None,
        size: int = DEFAULT_SAMPLE,
        progress: Callable[[str, int, int], None] | None = None,
        looking_up: Callable[[], None] | None = None,
    ) -> tuple[list[CollectionSample], dict[str, set[Any]]]:
        """Samples of the database's collections (or of ``names``) and the ``_id`` s their references hit;
        ``looking_up`` is called when the sampling is done and the look-up of those ``_id`` s starts."""
        self.ping()
        listed = {c["name"]: c for c in self.collections(database)}
        if not listed:  # a typo in the database's name (the server lists a database only once it has a collection)
            raise LiveError(
                f"{self.shown}: database {shown(repr(database), 80)} has no collections; {self._databases()}"
            )
        if names:
            missing = [n for n in names if n not in listed]
            if missing:
                known = ", ".join(sorted(listed)[:20]) or "none"
                raise LiveError(
                    f"{self.shown}: database {shown(repr(database), 80)} has no collection "
                    f"{shown(repr(missing[0]), 80)}; its collections: {shown(known, 300)}"
                )
            wanted = list(names)
        else:
            wanted = sorted(listed)
        samples = []
        for number, name in enumerate(wanted, start=1):
            if progress is not None:
                progress(name, number, len(wanted))
            samples.append(self.sample_collection(database, name, listed[name], size))
        if looking_up is not None:
            looking_up()
        return samples, self.lookup_references(database, samples)

    def sample_collection(self, database: str, name: str, info: Mapping[str, Any], size: int) -> CollectionSample:
        collection = self.client[database][name]
        notes: list[str] = []
        stats = self.sample(database, name, size)
        timeseries = info.get("type") == "timeseries" or bool((info.get("options") or {}).get("timeseries"))
        server = None if timeseries else self.storage_stats(database, name, notes)
        count: int | None = server.count if server is not None else None
        if server is None:
            try:
                with self._errors(f"counting {shown(repr(name), 80)}"):
                    count = collection.estimated_document_count(comment=OWN_COMMENT)
            except LiveError as exc:
                notes.append(f"no document count ({exc})"[:300])
        indexes: list[Mapping[str, Any]] = []
        try:
            with self._errors(f"listing the indexes of {shown(repr(name), 80)}"):
                indexes = list(collection.list_indexes(comment=OWN_COMMENT))
        except LiveError as exc:
            notes.append(f"no indexes read ({exc})"[:300])
        return CollectionSample(
            stats,
            count=max(count or 0, stats.documents),
            server=server,
            indexes=indexes,
            options=info.get("options") or {},
            notes=notes,
        )

    def storage_stats(self, database: str, name: str, notes: list[str]) -> StorageStats | None:
        """The collection's ``$collStats`` count and size; a refusal gets a note in the collection's description and
        one notice: one for a server without ``$collStats``, one per reason naming the collections otherwise (mongoeco
        cannot size a collection holding Decimal128)."""
        with self._errors(f"reading the $collStats of {shown(repr(name), 80)}"):
            try:
                return storage_stats(self.client[database][name].aggregate([STAGE], comment=OWN_COMMENT))
            except errors.OperationFailure as exc:
                reason = shown((exc.details or {}).get("errmsg") or str(exc), 160)
                lacking = _unsupported(exc) or "unrecognized pipeline stage" in reason.lower()
        notes.append(f"no $collStats ({reason}): the count is the server's estimate")
        if lacking:  # the server has no $collStats: no collection gets them
            if not any("$collStats" in notice for notice in self.notices):
                self.notices.append(
                    f"the server at {self.shown} refused $collStats ({reason}); document counts are its estimates "
                    "and document sizes the sample's"
                )
            return None
        # refused for what this collection holds (mongoeco cannot size a Decimal128): one line per reason
        names = self._refused.setdefault(reason, [])
        names.append(name)
        listed = ", ".join(shown(repr(n), 80) for n in names[:5]) + (
            f" and {len(names) - 5} more" if len(names) > 5 else ""
        )
        line = (
            f"the server at {self.shown} refused $collStats of {listed} ({reason}); "
            f"{'its count is' if len(names) == 1 else 'their counts are'} the server's estimate and "
            f"{'its' if len(names) == 1 else 'their'} document sizes the sample's"
        )
        at = self._refused_notice.setdefault(reason, len(self.notices))
        if at == len(self.notices):
            self.notices.append(line)
        else:
            self.notices[at] = line
        return None

    def sample(self, database: str, name: str, size: int) -> CollectionStats:
        """``$sample`` of ``size`` documents of one collection, counted as they stream past."""
        with self._errors(f"sampling {shown(repr(name), 80)}"):
            sampled = self.client[database][name].aggregate([{"$sample": {"size": size}}], comment=OWN_COMMENT)
            return CollectionStats(name).add_all(sampled)

    def command(self, database: str, command: Mapping[str, Any], doing: str) -> Mapping[str, Any]:
        """Send one command document (``modeller apply``'s steps); the user needs the dbAdmin role for these."""
        name = next(iter(command), "")
        with self._errors(doing, role="dbAdmin", command=name):
            return self.client[database].command(dict(command))

    def read_state(self, database: str, design: Design | None = None) -> DatabaseState:
        """The database's collections with their options and indexes; where the design's validator differs from
        the server's, how many documents would fail the design's (``$nor``: one count per such collection)."""
        self.ping()
        where = shown(repr(database), 80)
        with self._errors(f"listing the collections of {where}"):
            listed = [
                c
                for c in self.client[database].list_collections(comment=OWN_COMMENT)
                if not c["name"].startswith("system.")
            ]
        found: dict[str, ObservedCollection] = {}
        for info in listed:
            name = info["name"]
            observed = ObservedCollection(name, str(info.get("type", "collection")), info.get("options") or {})
            if not observed.is_view:
                collection = self.client[database][name]
                with self._errors(f"listing the indexes of {shown(repr(name), 80)}"):
                    indexes = list(collection.list_indexes(comment=OWN_COMMENT))
                failing: int | None = None
                why: tuple[str, ...] = ()
                wanted = next((c for c in design.stored() if c.name == name), None) if design is not None else None
                if wanted is not None and validator_differs(wanted, observed):
                    with self._errors(
                        f"counting the documents of {shown(repr(name), 80)} the design's validator fails"
                    ):
                        failing = collection.count_documents({"$nor": [wanted_validator(wanted)]}, comment=OWN_COMMENT)
                    if failing:
                        why = self._failing_why(collection, wanted)
                observed = replace(observed, indexes=indexes, failing=failing, failing_why=why)
            found[name] = observed
        return DatabaseState(database, found)

    def _failing_why(self, collection: Any, wanted: CollectionDesign) -> tuple[str, ...]:
        """The fields that make the first :data:`FAILING_READ` failing documents fail (apply names them)."""
        with self._errors(f"reading the documents of {shown(repr(collection.name), 80)} the design's validator fails"):
            failing = collection.find({"$nor": [wanted_validator(wanted)]}, comment=OWN_COMMENT).limit(FAILING_READ)
            return tuple(failing_fields(wanted, CollectionStats(collection.name).add_all(failing)))

    def read_workload(self, database: str, names: Sequence[str]) -> Workload:
        """``$indexStats`` of each collection and the profiler's entries, as observed queries.

        A server without either (or without the privilege) gives a note, not an error: the workload is extra.
        """
        import datetime

        workload = Workload()
        db = self.client[database]
        entries: list[Mapping[str, Any]] = []
        try:
            with self._errors(f"reading the profiler of {shown(repr(database), 80)}"):
                level = db.command("profile", -1).get("was", 0)
                entries = list(
                    db["system.profile"].find({}, comment=OWN_COMMENT).sort("$natural", -1).limit(PROFILE_LIMIT)
                )
            if not entries:
                workload.notes.append(f"the profiler is {'on' if level else 'off'} and holds no queries")
        except LiveError as exc:
            workload.notes.append(f"no profiler entries read ({exc})"[:300])
        used: list[ObservedQuery] = []
        now = datetime.datetime.now(datetime.UTC)
        for name in names:
            try:
                with self._errors(f"reading $indexStats of {shown(repr(name), 80)}"):
                    stats = list(db[name].aggregate([{"$indexStats": {}}], comment=OWN_COMMENT))
                used += from_index_stats(name, stats, now)
            except LiveError as exc:
                workload.notes.append(f"no index use read for {shown(repr(name), 80)} ({exc})"[:300])
        workload.queries = merge(from_profile(entries, database), used)
        return workload

    def lookup_references(self, database: str, samples: list[CollectionSample]) -> dict[str, set[Any]]:
        """For each collection, which of the others' candidate values are its ``_id`` s."""
        candidates = [value for sample in samples for value in reference_candidates(sample, LOOKUP_LIMIT)][:10_000]
        found: dict[str, set[Any]] = {}
        if not candidates:
            return found
        for sample in samples:
            hits: set[Any] = set()
            name = shown(repr(sample.name), 80)
            try:
                with self._errors(f"looking up which sampled values are _ids of {name}"):
                    collection = self.client[database][sample.name]
                    for start in range(0, len(candidates), LOOKUP_BATCH):
                        batch = candidates[start : start + LOOKUP_BATCH]
                        found_ids = collection.find({"_id": {"$in": batch}}, {"_id": 1}, comment=OWN_COMMENT)
                        hits.update(doc["_id"] for doc in found_ids)
            except LiveError as exc:  # every collection was read: say that only this step failed, and the way out
                raise LiveError(
                    f"every collection was sampled, but {exc}; or leave {name} out of the import (references into "
                    "it are not found then)"
                ) from None
            found[sample.name] = hits
        return found
