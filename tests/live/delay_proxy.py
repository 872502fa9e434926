"""A TCP proxy in front of the test server that can hold back the server's answers: a slow server on demand.

While :attr:`DelayProxy.hold` is set, bytes from the server wait in the proxy
(the client sees a server that does not answer); clearing it lets them through.
Used to show that the GUI keeps repainting and that Cancel works while a
server is slow. Threads only, stopped by :meth:`close`.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit


class DelayProxy:
    """127.0.0.1:<free port> forwarding to the server of ``uri``."""

    def __init__(self, uri: str) -> None:
        target = urlsplit(uri)
        self.upstream = (target.hostname or "127.0.0.1", target.port or 27017)
        self.released = threading.Event()
        self.released.set()
        self.closed = threading.Event()
        #: answers held back right now (a test waits for one before it cancels)
        self.waiting = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(0.2)
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    @property
    def uri(self) -> str:
        return f"mongodb://127.0.0.1:{self.port}/?directConnection=true"

    def slow(self) -> None:
        """From now on the server's answers wait until :meth:`fast`."""
        self.released.clear()

    def fast(self) -> None:
        self.released.set()

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, _ = self.listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            self.sockets += [client, server]
            for source, sink, gated in ((client, server, False), (server, client, True)):
                thread = threading.Thread(target=self._pump, args=(source, sink, gated), daemon=True)
                thread.start()
                self.threads.append(thread)

    def _pump(self, source: socket.socket, sink: socket.socket, gated: bool) -> None:
        source.settimeout(0.2)
        while not self.closed.is_set():
            try:
                data = source.recv(65536)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
            if gated and not self.released.is_set():
                self.waiting += 1
                while not self.released.wait(0.2):
                    if self.closed.is_set():
                        return
                self.waiting -= 1
            try:
                sink.sendall(data)
            except OSError:
                break
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.closed.set()
        self.released.set()
        self.listener.close()
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.close()
        for thread in self.threads:
            thread.join(timeout=5)
