"""Floor servers for `bench/apiserver.py`: the least work each measured path could do.

`serve` runs a bare aiohttp application behind exactly the TLS setup of `flotilla apiserver`
(same certificates, same client-certificate verification): `GET /obj` answers a ConfigMap-sized JSON
object encoded per request, `GET /list` a 100-item list, and `GET /stream?n=N` a chunked stream of N
pre-encoded watch events, written in batches (each event serialised once, shared by every stream).
`sqlite_inserts` is a raw insert loop with the store's own pragmas.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import time
from pathlib import Path

import orjson
import uvloop
from aiohttp import web

from flotilla.apiserver.pki.directory import PKIPaths
from flotilla.apiserver.server import tls_context


def sample_object(name: str, size: int = 900) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": "bench",
            "uid": "0" * 36,
            "resourceVersion": "1",
            "creationTimestamp": "2026-11-29T00:00:00Z",
        },
        "data": {"payload": "x" * size},
    }


def make_app(events: int) -> web.Application:
    obj = sample_object("floor")
    items = [sample_object(f"floor-{i}") for i in range(100)]
    line = orjson.dumps({"type": "MODIFIED", "object": obj}) + b"\n"

    async def get_obj(request: web.Request) -> web.Response:
        return web.Response(body=orjson.dumps(obj), content_type="application/json")

    async def get_list(request: web.Request) -> web.Response:
        body = {
            "kind": "ConfigMapList",
            "apiVersion": "v1",
            "metadata": {"resourceVersion": "1"},
            "items": items,
        }
        return web.Response(body=orjson.dumps(body), content_type="application/json")

    async def stream(request: web.Request) -> web.StreamResponse:
        count = int(request.query.get("n", events))
        response = web.StreamResponse()
        response.content_type = "application/json"
        response.enable_chunked_encoding()
        await response.prepare(request)
        batch = line * 256
        sent = 0
        while sent < count:
            step = min(256, count - sent)
            await response.write(batch if step == 256 else line * step)
            sent += step
        return response

    app = web.Application()
    app.router.add_get("/obj", get_obj)
    app.router.add_get("/list", get_list)
    app.router.add_get("/stream", stream)
    return app


def serve(pki_dir: str, port_file: str) -> None:
    async def main() -> None:
        runner = web.AppRunner(make_app(1000), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=tls_context(PKIPaths(Path(pki_dir))))
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        await asyncio.to_thread(Path(port_file).write_text, str(port))
        await asyncio.Event().wait()

    uvloop.run(main())


def sqlite_inserts(path: Path, seconds: float, *, batch: int = 1) -> float:
    """Inserts of 2 KB values per second with the store's pragmas, committing every `batch` inserts."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE kv (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, value BLOB)")
    value = b"x" * 2048
    done = 0
    stop = time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < stop:
        conn.execute("BEGIN IMMEDIATE")
        for _ in range(batch):
            conn.execute(
                "INSERT INTO kv (name, value) VALUES (?, ?)",
                (f"/registry/core/configmaps/bench/c{done}", value),
            )
            done += 1
        conn.execute("COMMIT")
    rate = done / (time.perf_counter() - started)
    conn.close()
    return rate


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2])
