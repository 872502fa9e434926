"""What the live tests share: the server they ran against, and how to name it."""

from __future__ import annotations

import sys
from dataclasses import dataclass

ENV_URI = "MODELLER_TEST_MONGODB_URI"


@dataclass(frozen=True)
class LiveServer:
    """A server the live tests talk to: its name in test ids and reports, and its URI."""

    name: str
    uri: str


def print_server(server: LiveServer) -> None:
    """Write the server a test ran against into its captured output (shown with -rA or on failure)."""
    print(
        f"ran against: {server.name} ({'from ' + ENV_URI if server.name == 'env' else 'tests/live'})", file=sys.stderr
    )
