"""The API server on etcd against raw etcd, measured in the same run (issue #17 acceptance, first half).

Starts one etcd member on free loopback ports and measures, each beside the raw etcd floor taken in
the same run (aetcd, the grpc.aio client the etcd backend uses, with `--concurrency` requests in
flight on pre-encoded values of a stored ConfigMap's size):

  CREATE  creates/s through one API server on SQLite and one on etcd    vs raw etcd puts/s
  GET     GETs/s of one object through the same two API servers         vs raw etcd gets/s

The ratio API-server-on-etcd / raw-etcd is printed with its goal (>= 0.5) as a verdict, never
asserted; the SQLite rows show what moving the store costs. The clients are bench/apiserver.py's
load generator (one process per run, same client certificate). The run with two API server
processes on one etcd is printed as skipped: several API servers on one store is a later step of
issue #17. Run: `.venv/bin/python bench/store.py [--seconds 5] [--concurrency 32]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from apiserver import configmap, loadgen, request, start_apiserver, stop

GOAL = 0.5
PREFIX = "/bench"
TWO_SERVERS_SKIPPED = (
    "TWO-API skipped: two API server processes on one etcd are not supported yet "
    "(several API servers on one store is a later step of issue #17)"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start_etcd(directory: Path) -> tuple[subprocess.Popen[bytes], int]:
    """One etcd member with its default durability (fsync on), as the API server would use it."""
    etcd, etcdctl = shutil.which("etcd"), shutil.which("etcdctl")
    if etcd is None or etcdctl is None:
        raise SystemExit("bench/store.py needs the etcd and etcdctl binaries (Debian package etcd-server)")
    client, peer = free_port(), free_port()
    url, peer_url = f"http://127.0.0.1:{client}", f"http://127.0.0.1:{peer}"
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "etcd.log").open("wb") as log:
        process = subprocess.Popen(
            [
                etcd,
                "--name=bench",
                f"--data-dir={directory / 'data'}",
                f"--listen-client-urls={url}",
                f"--advertise-client-urls={url}",
                f"--listen-peer-urls={peer_url}",
                f"--initial-advertise-peer-urls={peer_url}",
                f"--initial-cluster=bench={peer_url}",
                "--log-level=error",
                "--logger=zap",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError((directory / "etcd.log").read_text()[-2000:])
        health = [etcdctl, f"--endpoints={url}", "--command-timeout=2s", "endpoint", "health"]
        if subprocess.run(health, check=False, capture_output=True, env={"ETCDCTL_API": "3"}).returncode == 0:
            return process, client
        time.sleep(0.1)
    raise TimeoutError("etcd did not become healthy")


async def etcd_floor(port: int, operation: str, *, concurrency: int, seconds: float, size: int) -> float:
    """Raw etcd puts/s or gets/s with `concurrency` in flight: the store's own bound on this machine."""
    import aetcd

    value = b"x" * size
    async with aetcd.Client(host="127.0.0.1", port=port) as client:
        await client.put(b"/floor/target", value)
        stop_at = time.perf_counter() + seconds
        done = 0

        async def worker(index: int) -> None:
            nonlocal done
            sequence = 0
            while time.perf_counter() < stop_at:
                if operation == "put":
                    await client.put(f"/floor/{index}/{sequence}".encode(), value)
                else:
                    await client.get(b"/floor/target")
                sequence += 1
                done += 1

        started = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(concurrency)))
        return done / (time.perf_counter() - started)


def through_apiserver(data_dir: Path, args: argparse.Namespace, extra: tuple[str, ...]) -> dict[str, Any]:
    """Creates/s and GETs/s of ConfigMaps through one `flotilla apiserver` with the given store flags."""
    server, url = start_apiserver(data_dir, extra)
    try:
        pki = data_dir / "pki"
        tls = {"ca": str(pki / "ca.crt"), "cert": str(pki / "admin.crt"), "key": str(pki / "admin.key")}
        base = f"{url}/api/v1/namespaces/bench/configmaps"
        request(tls, "POST", f"{url}/api/v1/namespaces", {"metadata": {"name": "bench"}})
        request(tls, "POST", base, configmap("target"))
        common = {**tls, "concurrency": args.concurrency, "duration": args.seconds}
        create = loadgen(
            {
                **common,
                "method": "POST",
                "url": base,
                "body": json.dumps(configmap("NAME")),
                "prefix": "c",
                "headers": {"Content-Type": "application/json"},
            }
        )
        get = loadgen({**common, "method": "GET", "url": f"{base}/target"})
    finally:
        stop(server)
    return {"create": create, "get": get}


def row(
    name: str, store: str, result: dict[str, Any], floor: float, units: tuple[str, str], goal: bool
) -> dict[str, Any]:
    """One line: the API server's rate beside the raw etcd floor and their ratio (verdict on etcd rows)."""
    rate, (unit, floor_unit) = result["rate"], units
    ratio = rate / floor if floor else float("nan")
    verdict = f"  (goal >= {GOAL:.2f}: {'met' if ratio >= GOAL else 'MISSED'})" if goal else ""
    errors = f"  [{result['errors']} errors]" if result["errors"] else ""
    print(
        f"{name:<7} apiserver on {store:<7} {rate:>9,.0f} {unit:<10} raw etcd {floor:>9,.0f} {floor_unit:<7} "
        f"ratio {ratio:5.2f}{verdict}{errors}"
    )
    return {
        "name": name,
        "store": store,
        "value": rate,
        "floor": floor,
        "ratio": ratio,
        "errors": result["errors"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each throughput run")
    parser.add_argument(
        "--concurrency", type=int, default=32, help="requests in flight, clients and floor alike"
    )
    args = parser.parse_args()
    size = len(json.dumps(configmap("c-w0-0"))) + 300  # about what the API server stores per ConfigMap

    with tempfile.TemporaryDirectory(prefix="flotilla-bench-store-") as tmp:
        workdir = Path(tmp)
        etcd, port = start_etcd(workdir / "etcd")
        try:
            floors = {
                op: asyncio.run(
                    etcd_floor(port, op, concurrency=args.concurrency, seconds=args.seconds, size=size)
                )
                for op in ("put", "get")
            }
            on_sqlite = through_apiserver(workdir / "sqlite", args, ())
            etcd_flags = ("--etcd-servers", f"http://127.0.0.1:{port}", "--etcd-prefix", PREFIX)
            on_etcd = through_apiserver(workdir / "etcd-hub", args, etcd_flags)
        finally:
            stop(etcd)
    results = [
        row("CREATE", "SQLite", on_sqlite["create"], floors["put"], ("creates/s", "puts/s"), goal=False),
        row("CREATE", "etcd", on_etcd["create"], floors["put"], ("creates/s", "puts/s"), goal=True),
        row("GET", "SQLite", on_sqlite["get"], floors["get"], ("GETs/s", "gets/s"), goal=False),
        row("GET", "etcd", on_etcd["get"], floors["get"], ("GETs/s", "gets/s"), goal=True),
    ]
    print(TWO_SERVERS_SKIPPED)
    print(json.dumps({"results": results, "cpus": os.cpu_count(), "concurrency": args.concurrency}))


if __name__ == "__main__":
    main()
