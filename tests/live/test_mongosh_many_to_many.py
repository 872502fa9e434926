"""A many-to-many's strategy change (tests/review/chat_members.py) migrated by the real mongosh on the live server.

``modeller apply`` makes the OLD collections; the OLD documents (users in several rooms, a user in none, an empty
room) are inserted with pymongo through the OLD validators; ``modeller diff --migration`` writes the script and
mongosh runs it. Then every document of the NEW collections passes the NEW validators (asked of the server), the
NEW shape holds exactly the OLD memberships with one document per user, a second run changes nothing, and a run
killed (SIGKILL) between two batches completes when run again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pymongo
import pytest
from live_support import LiveServer, print_server
from mongosh_support import failing, mongosh, ran, state
from roundtrip import modeller

REVIEW_TESTS = str(Path(__file__).resolve().parent.parent / "review")
if REVIEW_TESTS not in sys.path:
    sys.path.insert(0, REVIEW_TESTS)

from chat_members import chat, chat_data, held, members, old_documents, stays  # noqa: E402

from modeller.review.copy_storage import Storage, storage  # noqa: E402
from modeller.rules import analyse  # noqa: E402

pytestmark = [pytest.mark.node, pytest.mark.slow]

#: one pair per kind of step: copies merged (embedded, bucketed), split per One, moved out of a shared collection
PAIRS = [
    ("embed", "two-way"),
    ("bucket", "parent-ref"),
    ("parent-ref", "bucket"),
    ("single-collection", "two-way"),
    ("child-refs", "subset"),
    ("embed", "single-collection"),
    ("child-refs", "extended-ref"),
]


class ChatMigration:
    """OLD applied and filled with its documents, and the migration script to NEW."""

    def __init__(self, server: LiveServer, name: str, folder: Path, old: str, new: str) -> None:
        self.server, self.name, self.folder = server, name, folder
        self.old, self.new = chat(old, database=name), chat(new, database=name)
        old_file, self.new_file = folder / "old.modeller.json", folder / "new.modeller.json"
        old_file.write_text(json.dumps(chat_data(old, database=name)), encoding="utf-8")
        self.new_file.write_text(json.dumps(chat_data(new, database=name)), encoding="utf-8")
        self.new_design = analyse(self.new).design
        where = storage(analyse(self.old).design, self.old, "room_members")
        after = storage(self.new_design, self.new, "room_members")
        assert where is not None and after is not None
        self.after: Storage = after
        applied = modeller("apply", str(old_file), server.uri)
        assert applied.returncode == 0, applied.stderr
        with self.client() as client:
            for coll, docs in old_documents(where, members(old)).items():
                client[name][coll].insert_many(docs)  # the OLD validator (strict) takes each one
        self.script = folder / "migration.mongosh.js"
        diffed = modeller("diff", str(old_file), str(self.new_file), "--migration", str(self.script))
        assert diffed.returncode == 0, diffed.stderr
        assert "NOT MIGRATED" not in self.script.read_text(encoding="utf-8")

    def client(self) -> pymongo.MongoClient:
        return pymongo.MongoClient(self.server.uri, serverSelectionTimeoutMS=5000, tz_aware=True)

    def run(self, **kwargs: Any) -> Any:
        return mongosh(self.server.uri, self.script, home=self.folder / "home", **kwargs)

    def documents(self, coll: str) -> list[dict[str, Any]]:
        with self.client() as client:
            return list(client[self.name][coll].find().sort("_id", 1))

    def held(self) -> tuple[set[tuple[str, str]], list[str]]:
        return held(self.documents, self.after)

    def failing(self) -> dict[str, list[Any]]:
        """Per NEW collection, the documents its validator refuses (asked of the server)."""
        with self.client() as client:
            return {coll.name: failing(client[self.name], coll) for coll in self.new_design.collections}


@pytest.mark.parametrize(("old", "new"), PAIRS, ids=lambda v: str(v))
def test_a_many_to_many_migrated_by_mongosh_keeps_every_membership_once(
    old: str, new: str, live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    server, name = live_db
    print_server(server)
    m = ChatMigration(server, name, tmp_path, old, new)
    ran(m.run())
    found, handles = m.held()
    assert found == members(old)
    assert len(handles) == len(set(handles)), sorted(handles)
    left = stays(old, new)
    fay = [d["_id"] for d in m.documents(m.after.child or "") if d.get("handle") == "fay"] if left else []
    assert {c: ids for c, ids in m.failing().items() if ids} == ({m.after.child: fay} if fay else {})
    once = state(server.uri, name)
    again = ran(m.run())
    assert state(server.uri, name) == once, "the second run changed the database"
    assert "done in an earlier run" in again


@pytest.mark.parametrize(("old", "new"), [("embed", "two-way"), ("single-collection", "two-way")], ids=str)
def test_a_many_to_many_migration_killed_between_batches_completes(
    old: str, new: str, live_db: tuple[LiveServer, str], tmp_path: Path
) -> None:
    server, name = live_db
    print_server(server)
    m = ChatMigration(server, name, tmp_path, old, new)
    text = m.script.read_text(encoding="utf-8")
    m.script.write_text(text.replace("const BATCH = 1000;", "const BATCH = 2;", 1), encoding="utf-8")
    killed = m.run(kill_after_batches=1)
    assert killed.returncode == -9, killed.stdout + killed.stderr
    cut = len(m.documents(m.after.child or ""))
    ran(m.run())
    found, handles = m.held()
    assert cut < len(handles), "killed before every user had its document"
    assert found == members(old)
    assert len(handles) == len(set(handles)), sorted(handles)
    assert {c: ids for c, ids in m.failing().items() if ids} == {}
