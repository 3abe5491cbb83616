"""Memory of the watch cache's history: RSS of `flotilla apiserver` under PUTs of a large ConfigMap.

Issue #13 (D3): every revision of the history window stayed in memory, each with its whole object
(and the object's JSON, and a watch frame of it), so 200 PUTs of a 900 KB ConfigMap grew the server
by ~380 MB and never gave it back. The history kept in memory is now bounded by bytes as well as by
revisions (`--history-max-bytes`); older history is replayed from the store.

The bench starts an API server (with `--history-max-bytes BOUND` when given), opens one watch on
ConfigMaps that reads every event (as a controller would: frames are encoded), and prints RSS
(from /proc) at each phase:

  start          after the server is ready
  after PUTs     after `--puts` updates of one ConfigMap of `--size` bytes (each a new value)
  after more     after as many updates again (growth must not go on: the bound holds)
  after rollover after the ConfigMap is deleted and `--rollover` small writes pushed its versions
                 out of the revision window (`--history-window`): the memory is given back

then a resume of a watch from the first revision: it must get every event (from disk), in order.
Run: `.venv/bin/python bench/history_memory.py [--bound-mib 64] [--puts 200] [--size 900000]`
(`--bound-mib 0` runs the server without the flag, i.e. with its default).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import ssl
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from apiserver import start_apiserver, stop

MIB = 1024 * 1024
BASE = "/api/v1/namespaces/default/configmaps"


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


class Hub:
    def __init__(self, url: str, data_dir: Path) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or ""
        self.port = parts.port or 443
        pki = data_dir / "pki"
        self.tls = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        self.tls.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))

    def connect(self, timeout: float = 60) -> http.client.HTTPSConnection:
        return http.client.HTTPSConnection(self.host, self.port, context=self.tls, timeout=timeout)

    def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        connection = self.connect()
        try:
            data = json.dumps(body).encode() if body is not None else None
            connection.request(method, path, body=data, headers={"Content-Type": "application/json"})
            response = connection.getresponse()
            answer: dict[str, Any] = json.loads(response.read())
        finally:
            connection.close()
        if response.status >= 300:
            raise RuntimeError(f"{method} {path}: {response.status} {answer.get('message')}")
        return answer


class Watch(threading.Thread):
    """A watch that reads every event, counting them and remembering their resourceVersions."""

    def __init__(self, hub: Hub, query: str) -> None:
        super().__init__(daemon=True)
        self.hub = hub
        self.query = query
        self.revisions: list[int] = []
        self.types: list[str] = []
        self.done = threading.Event()

    def run(self) -> None:
        connection = self.hub.connect(timeout=120)
        try:
            connection.request("GET", f"{BASE}?watch=true&{self.query}")
            response = connection.getresponse()
            while not self.done.is_set():
                line = response.readline()
                if not line:
                    break
                event = json.loads(line)
                self.types.append(event["type"])
                metadata = event["object"].get("metadata") or {}
                self.revisions.append(int(metadata.get("resourceVersion") or 0))
        except (OSError, http.client.HTTPException):
            pass
        finally:
            connection.close()


def wait_until(check: Any, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        time.sleep(0.05)


def put_versions(hub: Hub, name: str, size: int, count: int, first: int) -> int:
    current = hub.call("GET", f"{BASE}/{name}")
    for i in range(first, first + count):
        current["data"] = {"payload": f"{i:08d}" + "x" * (size - 8)}
        current = hub.call("PUT", f"{BASE}/{name}", current)
    return int(current["metadata"]["resourceVersion"])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bound-mib", type=int, default=64, help="--history-max-bytes in MiB (0: not given)")
    parser.add_argument("--puts", type=int, default=200)
    parser.add_argument("--size", type=int, default=900_000)
    parser.add_argument("--history-window", type=int, default=1000)
    parser.add_argument("--rollover", type=int, default=1100)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="flotilla-history-") as workdir:
        extra = f"--history-window {args.history_window} --compaction-interval 3600"
        if args.bound_mib:
            extra += f" --history-max-bytes {args.bound_mib * MIB}"
        os.environ["BENCH_APISERVER_ARGS"] = extra
        data_dir = Path(workdir) / "hub"
        process, url = start_apiserver(data_dir)
        try:
            hub = Hub(url, data_dir)
            time.sleep(1.0)
            figures: dict[str, int] = {"start": rss_bytes(process.pid)}
            created = hub.call("POST", BASE, {"metadata": {"name": "big"}, "data": {"payload": ""}})
            start = int(created["metadata"]["resourceVersion"])
            live = Watch(hub, f"resourceVersion={start}")
            live.start()
            last = put_versions(hub, "big", args.size, args.puts, 0)
            wait_until(lambda: live.revisions and live.revisions[-1] >= last)
            figures["after PUTs"] = rss_bytes(process.pid)
            last = put_versions(hub, "big", args.size, args.puts, args.puts)
            wait_until(lambda: live.revisions and live.revisions[-1] >= last)
            figures["after more"] = rss_bytes(process.pid)

            resumed = Watch(hub, f"resourceVersion={start}")
            started = time.monotonic()
            resumed.start()
            wait_until(lambda: resumed.revisions and resumed.revisions[-1] >= last)
            replay_seconds = time.monotonic() - started
            resumed.done.set()
            expected = list(range(start + 1, last + 1))
            complete = resumed.revisions[: len(expected)] == expected

            hub.call("DELETE", f"{BASE}/big")
            hub.call("POST", BASE, {"metadata": {"name": "small"}, "data": {"n": "0"}})
            for i in range(args.rollover):
                hub.call("PUT", f"{BASE}/small", {"metadata": {"name": "small"}, "data": {"n": str(i)}})
            time.sleep(1.0)
            figures["after rollover"] = rss_bytes(process.pid)
            live.done.set()
        finally:
            stop(process)

    bound = f"{args.bound_mib} MiB" if args.bound_mib else "the server's default"
    print(f"history bound: {bound}; {args.puts} + {args.puts} PUTs of a {args.size / 1e3:.0f} KB ConfigMap")
    for phase, value in figures.items():
        growth = (value - figures["start"]) / MIB
        print(f"  RSS {phase:<15} {value / MIB:8.1f} MiB  (growth {growth:+8.1f} MiB)")
    verdict = "complete and in order" if complete else "INCOMPLETE"
    events = len(resumed.revisions)
    print(f"  resume from revision {start}: {events} events in {replay_seconds:.2f} s, {verdict}")
    if not complete:
        sys.exit(1)


if __name__ == "__main__":
    main()
