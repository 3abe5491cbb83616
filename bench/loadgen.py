"""Load generators for `bench/apiserver.py`, each run in its own process beside the server.

Every generator talks HTTPS with the same client certificate, so the floor (a bare aiohttp handler
behind the same TLS setup) and Flotilla are measured with the same client cost. Results are printed
as one JSON object on stdout, with the CPU seconds the generator itself spent sending (`client_cpu`).
Several generators run side by side (`bench/store.py`) start together at the wall-clock time
`start_at` of their spec, when it has one. `"kind": "lean"` uses `hammer_lean`, a client that costs
a fraction of aiohttp's CPU per request: on a 2-core machine aiohttp's client needs about as much CPU
per request as the API server, and so takes the core a second server process would use.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import sys
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

import aiohttp


def client_ssl(ca: str, cert: str, key: str) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=ca)
    context.load_cert_chain(cert, key)
    return context


async def hammer(
    url: str,
    method: str,
    *,
    concurrency: int,
    duration: float,
    tls: ssl.SSLContext,
    body_for: Any = None,
    headers: dict[str, str] | None = None,
    total: int = 0,
    start_at: float = 0.0,
) -> dict[str, Any]:
    """Send requests from `concurrency` workers for `duration` seconds (or `total` requests)."""
    done = 0
    errors = 0
    connector = aiohttp.TCPConnector(ssl=tls, limit=concurrency)
    if start_at:
        await asyncio.sleep(max(0.0, start_at - time.time()))
    stop_at = time.perf_counter() + duration
    cpu_before = time.process_time()
    async with aiohttp.ClientSession(connector=connector, headers=headers or {}) as session:

        async def worker(index: int) -> None:
            nonlocal done, errors
            sequence = 0
            while time.perf_counter() < stop_at and (not total or done + errors < total):
                data = body_for(index, sequence) if body_for else None
                sequence += 1
                async with session.request(method, url, data=data) as response:
                    await response.read()
                    if response.status < 300:
                        done += 1
                    else:
                        errors += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(concurrency)))
        elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_before
    return {"requests": done, "errors": errors, "seconds": elapsed, "rate": done / elapsed, "client_cpu": cpu}


async def hammer_lean(
    url: str,
    method: str,
    *,
    concurrency: int,
    duration: float,
    tls: ssl.SSLContext,
    body_for: Callable[[int, int], bytes] | None = None,
    headers: dict[str, str] | None = None,
    start_at: float = 0.0,
) -> dict[str, Any]:
    """`hammer`'s measurement with a lean client: one keep-alive connection per worker, each request
    written as ready bytes, each response read by its Content-Length (the API server sends one)."""
    parts = urllib.parse.urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 443
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n{extra}"
    done = errors = 0
    if start_at:
        await asyncio.sleep(max(0.0, start_at - time.time()))
    stop_at = time.perf_counter() + duration
    cpu_before = time.process_time()

    async def worker(index: int) -> None:
        nonlocal done, errors
        reader, writer = await asyncio.open_connection(host, port, ssl=tls, server_hostname="localhost")
        sequence = 0
        while time.perf_counter() < stop_at:
            body = body_for(index, sequence) if body_for else b""
            sequence += 1
            writer.write(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
            response = await reader.readuntil(b"\r\n\r\n")
            length = _content_length(response)
            await reader.readexactly(length)
            if response[9:10] == b"2":
                done += 1
            else:
                errors += 1
        writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(concurrency)))
    elapsed = time.perf_counter() - started
    cpu = time.process_time() - cpu_before
    return {"requests": done, "errors": errors, "seconds": elapsed, "rate": done / elapsed, "client_cpu": cpu}


def _content_length(response_head: bytes) -> int:
    for line in response_head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            return int(value)
    raise ValueError(f"a response without Content-Length: {response_head[:200]!r}")


async def fanout(
    host: str, port: int, path: str, *, watchers: int, expected: int, tls: ssl.SSLContext, timeout: float
) -> dict[str, Any]:
    """Open raw HTTPS watch streams and count newline-terminated events until each saw `expected`."""
    counts = [0] * watchers
    first: list[float] = []
    last: list[float] = []

    async def one(index: int) -> None:
        reader, writer = await asyncio.open_connection(host, port, ssl=tls, server_hostname="localhost")
        request = f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n\r\n"
        writer.write(request.encode())
        await writer.drain()
        await reader.readuntil(b"\r\n\r\n")
        carry = b""
        while counts[index] < expected:
            chunk = await reader.read(1 << 16)
            if not chunk:
                break
            if not first:
                first.append(time.perf_counter())
            counts[index] += (carry + chunk).count(b"}\n")
            carry = chunk[-1:] if chunk[-1:] == b"}" else b""
        last.append(time.perf_counter())
        writer.close()

    await asyncio.wait_for(asyncio.gather(*(one(i) for i in range(watchers))), timeout)
    delivered = sum(min(c, expected) for c in counts)
    elapsed = max(last) - first[0] if first and last else float("nan")
    return {"deliveries": delivered, "seconds": elapsed, "rate": delivered / elapsed}


def run(coroutine: Any) -> Any:
    """Run on uvloop where it is installed (the lean client's loop costs count too)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    return uvloop.run(coroutine)


def main() -> None:
    spec = json.loads(sys.argv[1])
    tls = client_ssl(spec["ca"], spec["cert"], spec["key"])
    if spec.get("kind") == "fanout":
        result = asyncio.run(
            fanout(
                spec["host"],
                spec["port"],
                spec["path"],
                watchers=spec["watchers"],
                expected=spec["expected"],
                tls=tls,
                timeout=spec.get("timeout", 120),
            )
        )
    else:
        body = spec.get("body")
        body_for = None
        if body is not None:
            template = body

            prefix = spec.get("prefix", "b")

            def body_for(worker: int, sequence: int) -> bytes:
                return template.replace("NAME", f"{prefix}-w{worker}-{sequence}").encode()

        if spec.get("kind") == "lean":
            result = run(
                hammer_lean(
                    spec["url"],
                    spec["method"],
                    concurrency=spec["concurrency"],
                    duration=spec["duration"],
                    tls=tls,
                    body_for=body_for,
                    headers=spec.get("headers"),
                    start_at=spec.get("start_at", 0.0),
                )
            )
            print(json.dumps(result))
            return
        result = asyncio.run(
            hammer(
                spec["url"],
                spec["method"],
                concurrency=spec["concurrency"],
                duration=spec["duration"],
                tls=tls,
                body_for=body_for,
                headers=spec.get("headers"),
                total=spec.get("total", 0),
                start_at=spec.get("start_at", 0.0),
            )
        )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
