"""Run a mongoeco wire-protocol server on 127.0.0.1 (a free port) for the live tests.

Started by ``tests/live/conftest.py`` with the Python 3.13 of ``.venv-mongo``
(mongoeco needs 3.13; the project itself runs on 3.11). Prints the server's
URI as its first line, then serves until its standard input closes, so the
server never outlives the test session that started it. ``mongoeco_extras``
adds the few commands mongoeco lacks (collMod, buildinfo) and the reply shape
mongosh needs; its docstring says what and why. ``--limited`` leaves them out
and refuses $collStats too: a server without collMod and $collStats, for the
tests of what the user is told then.
"""

import asyncio
import sys

from mongoeco.wire import AsyncMongoEcoProxyServer
from mongoeco_extras import extend, limit


async def main() -> None:
    """Start, announce the URI, serve until stdin reaches end of file, close."""
    server = AsyncMongoEcoProxyServer(host="127.0.0.1", port=0)
    if "--limited" in sys.argv:
        limit(server)
    else:
        extend(server)  # collMod, buildinfo, Int64 cursor ids: what mongosh and `modeller apply` need (see there)
    address = await server.start()
    print(address.uri, flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)
    await server.close()


if __name__ == "__main__":
    asyncio.run(main())
