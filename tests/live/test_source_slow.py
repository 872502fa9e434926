"""A slow server is named as slow, not as a dropped connection; the reference lookup asks in batches."""

from __future__ import annotations

import pymongo
import pytest
from bson import ObjectId
from delay_proxy import DelayProxy
from live_support import LiveServer, print_server
from pymongo import monitoring

from modeller.live import source as source_module
from modeller.live.errors import LiveError
from modeller.live.source import LOOKUP_BATCH, Source


def test_an_answer_later_than_the_timeout_says_so_and_how_to_wait_longer(
    live_db: tuple[LiveServer, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    server, name = live_db
    print_server(server)
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name].things.insert_many([{"n": i} for i in range(10)])
    finally:
        client.close()
    monkeypatch.setattr(source_module, "MIN_READ_S", 1.0)  # reads wait 1 s here, not 30
    proxy = DelayProxy(server.uri)
    try:
        with Source(proxy.uri, timeout_s=1) as source:
            source.ping()
            proxy.slow()
            with pytest.raises(LiveError) as caught:
                source.sample(name, "things", 5)
    finally:
        proxy.fast()
        proxy.close()
    message = str(caught.value)
    assert "\n" not in message and "dropped" not in message, message
    assert f"the server at mongodb://127.0.0.1:{proxy.port}" in message
    # pymongo cancels the read when the server's status check times out, or the read itself times out
    assert "did not answer " in message and "within 1 s while sampling 'things'" in message
    assert message.endswith("; --timeout waits longer")


class _Finds(monitoring.CommandListener):
    def __init__(self) -> None:
        self.sizes: list[int] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name == "find":
            self.sizes.append(len(event.command["filter"]["_id"]["$in"]))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def test_the_reference_lookup_sends_its_ids_in_batches(live_db: tuple[LiveServer, str]) -> None:
    server, name = live_db
    print_server(server)
    people = [{"_id": ObjectId()} for _ in range(30)]
    # 3 fields of 200 candidates each: 600 ids, more than one batch
    tasks = [{"_id": ObjectId(), **{f"ref{k}": ObjectId() for k in range(3)}} for _ in range(200)]
    tasks[0]["owner_id"] = people[0]["_id"]
    client: pymongo.MongoClient = pymongo.MongoClient(server.uri, serverSelectionTimeoutMS=5000)
    try:
        client[name].people.insert_many(people)
        client[name].tasks.insert_many(tasks)
    finally:
        client.close()
    finds = _Finds()
    with Source(server.uri, timeout_s=5, listeners=[finds]) as source:
        _, found = source.sample_database(name)
    assert found["people"] == {people[0]["_id"]}
    assert finds.sizes and max(finds.sizes) <= LOOKUP_BATCH
    assert sum(finds.sizes) == 2 * 601  # every candidate asked once per collection
