"""What a server process looks like from outside while a bench loads it: `/readyz` latency and memory.

`Watchdog` runs `watch_readyz` in a child process: it asks `GET /readyz` every 20 ms on one
kept-alive connection (as the admin) and keeps the slowest answer, every answer slower than a limit
(with its start, to name the requests that ran meanwhile) and the failures; a request that blocks
the server's event loop delays `/readyz` by as long. It also samples the server's VmRSS every
0.25 s. A child process rather than a thread: a bench that generates its requests in Python (as
schemathesis does) holds the GIL for tens of milliseconds at a time, and a thread beside it would
count that as the server's stall. Used by `hostile.py`; the same approach as the hostile test
suite's `Responsiveness` check.
"""

from __future__ import annotations

import http.client
import multiprocessing
import ssl
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

PING_INTERVAL = 0.02
RSS_INTERVAL = 0.25


def admin_connection(url: str, data_dir: Path, timeout: float = 60) -> http.client.HTTPSConnection:
    """An HTTPS connection to the server at `url` with the admin certificate of its data directory."""
    parts = urlsplit(url)
    pki = data_dir / "pki"
    tls = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    tls.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
    return http.client.HTTPSConnection(parts.hostname or "", parts.port or 443, context=tls, timeout=timeout)


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in bytes."""
    figures = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            figures[key] = int(value.split()[0]) * 1024
    return figures


@dataclass
class Readyz:
    """What the watchdog saw."""

    slowest: float = 0.0
    answers: int = 0
    failures: list[str] = field(default_factory=list)
    slow: list[tuple[float, float]] = field(default_factory=list)
    """(monotonic start, seconds) of each answer slower than the limit."""
    peak_rss: int = 0


def watch_readyz(url: str, data_dir: Path, pid: int, limit: float, done: Any, results: Any) -> None:
    """Ping and sample until `done` is set, then put a `Readyz` on `results` (after a None once ready)."""
    seen = Readyz()
    connection = admin_connection(url, data_dir)
    connection.request("GET", "/readyz")  # the TLS handshake is not part of what is measured
    connection.getresponse().read()
    results.put(None)
    sampled = 0.0
    while not done.is_set():
        started = time.monotonic()
        if started - sampled >= RSS_INTERVAL:
            seen.peak_rss, sampled = max(seen.peak_rss, proc_status(pid)["VmRSS"]), started
            started = time.monotonic()
        try:
            connection.request("GET", "/readyz")
            response = connection.getresponse()
            response.read()
        except (OSError, http.client.HTTPException) as exc:
            seen.failures.append(f"{type(exc).__name__}: {exc}")
            connection.close()
            connection = admin_connection(url, data_dir)
            continue
        elapsed = time.monotonic() - started
        seen.slowest = max(seen.slowest, elapsed)
        if elapsed > limit:
            seen.slow.append((started, elapsed))
        seen.answers += 1
        if response.status != 200:
            seen.failures.append(f"HTTP {response.status}")
        done.wait(PING_INTERVAL)
    connection.close()
    results.put(seen)


class Watchdog:
    """`watch_readyz` in a child process, from `start` (returns once the first answer came) to `stop`."""

    def __init__(self, url: str, data_dir: Path, pid: int, limit: float) -> None:
        context = multiprocessing.get_context("spawn")
        self.done, self.results = context.Event(), context.Queue()
        self.process = context.Process(
            target=watch_readyz, args=(url, data_dir, pid, limit, self.done, self.results), daemon=True
        )

    def start(self) -> None:
        self.process.start()
        self.results.get(timeout=60)

    def stop(self) -> Readyz:
        self.done.set()
        seen: Readyz = self.results.get(timeout=60)
        self.process.join(timeout=10)
        return seen
