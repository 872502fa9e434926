"""A TCP proxy in front of the test server that can cut every connection: a dropped network, on demand."""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit


class CuttingProxy:
    """Forwards 127.0.0.1:port to the server of ``uri``; after :meth:`cut` every connection is closed at once."""

    def __init__(self, uri: str) -> None:
        target = urlsplit(uri)
        self.target = (target.hostname or "127.0.0.1", target.port or 27017)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.uri = f"mongodb://127.0.0.1:{self.port}/?directConnection=true"
        self.cutting = threading.Event()
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.cutting.is_set():
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        """Close every open connection and every new one."""
        self.cutting.set()
        with self.lock:
            for sock in self.sockets:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def close(self) -> None:
        self.cut()
        self.listener.close()
