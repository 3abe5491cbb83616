"""The API server on etcd against raw etcd, with one process and two (issue #17 acceptance).

Starts one etcd member on free loopback ports and measures, each beside the raw etcd floor taken in
the same run (aetcd, the grpc.aio client the etcd backend uses, with `--concurrency` requests in
flight on pre-encoded values of a stored ConfigMap's size):

  CREATE  creates/s through one API server on SQLite, one on etcd, `--workers 2` on etcd  vs puts/s
  GET     GETs/s of one object through the same three                             vs raw etcd gets/s

The ratio API-server-on-etcd / raw-etcd is printed with its goal (>= 0.5), and the ratio two
workers / one with its goal for GETs (>= 1.6 on a 2-core machine), as verdicts, never asserted;
the SQLite rows show what moving the store costs.

One and two workers run side by side, each on its own etcd member, and are measured in `--rounds`
pairs, alternately first, so that both sides of a pair share whatever else the machine does; the
etcd rows show each side's median run, the two-vs-one ratio is the median of the pairs' ratios.
Each run prints where the machine's CPU went (API server processes, etcd, the clients, in cores
busy) and the load average: on 2 cores the clients, etcd and any other work take CPU the second
worker would need, which bounds the two-vs-one ratio.

The clients are bench/loadgen.py's lean client (keep-alive connections, ready-made requests: a
fifth of aiohttp's client CPU per request) in `--clients` processes started together, sharing
`--concurrency` requests in flight: one Python client process cannot keep two server processes
busy. A consistent GET crosses three processes (client, API server, etcd for the revision read),
each of which may wait for a core on a loaded machine; the requests in flight must cover that
latency, and 32 kept one worker busy but left two waiting, so the default is 64. `--get-client
wrk` sends the GETs with wrk instead (Debian's `wrk`, in C: about half the lean client's CPU per
request; it authenticates with a bearer token).

Run: `.venv/bin/python bench/store.py [--seconds 5] [--concurrency 64] [--clients 4] [--rounds 3]
[--get-client lean|wrk]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apiserver import HERE, PYTHON, configmap, request, start_apiserver, stop

GOAL = 0.5
TWO_WORKERS_GOAL = 1.6
PREFIX = "/bench"
WRK_TOKEN = "bench-wrk-token"  # noqa: S105 - a loopback benchmark's static token, not a secret
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


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


def process_tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by a process and all its live descendants, from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return 0.0
    own = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return own + sum(process_tree_cpu(int(child)) for child in children)


def loadgens(spec: dict[str, Any], clients: int, watched: dict[str, int]) -> dict[str, Any]:
    """`clients` load generator processes started together, `spec["concurrency"]` requests in flight
    between them; their summed rate, and the CPU the `watched` process trees and the clients used."""
    share, extra = divmod(spec["concurrency"], clients)
    start_at = time.time() + 1.0 + 0.3 * clients  # after every client's interpreter has started
    processes = []
    for index in range(clients):
        prefix = f"{spec.get('prefix', 'b')}{index}"
        one = {
            **spec,
            "kind": "lean",
            "concurrency": share + (index < extra),
            "start_at": start_at,
            "prefix": prefix,
        }
        processes.append(
            subprocess.Popen(
                [PYTHON, str(HERE / "loadgen.py"), json.dumps(one)], stdout=subprocess.PIPE, text=True
            )
        )
    time.sleep(max(0.0, start_at - time.time()))
    before = {name: process_tree_cpu(pid) for name, pid in watched.items()}
    outputs = [process.communicate(timeout=600)[0] for process in processes]
    if any(process.returncode for process in processes):
        raise RuntimeError("a load generator failed")
    cpu = {name: process_tree_cpu(pid) - before[name] for name, pid in watched.items()}
    results = [json.loads(output) for output in outputs]
    seconds = max(result["seconds"] for result in results)
    requests = sum(result["requests"] for result in results)
    cpu["clients"] = sum(result["client_cpu"] for result in results)
    return {
        "rate": requests / seconds,
        "errors": sum(result["errors"] for result in results),
        "seconds": seconds,
        "cores": {name: used / seconds for name, used in cpu.items()},
        "server_cpu_per_op_us": cpu["apiserver"] / max(requests, 1) * 1e6,
    }


def wrk_gets(url: str, args: argparse.Namespace, watched: dict[str, int]) -> dict[str, Any]:
    """GETs/s from wrk (Debian's `wrk`, a C client: `--clients` threads, `--concurrency` connections),
    which authenticates with a bearer token since it sends no client certificate."""
    if shutil.which("wrk") is None:
        raise SystemExit("--get-client wrk needs the wrk binary (Debian package wrk)")
    command = ["wrk", f"-t{args.clients}", f"-c{args.concurrency}", f"-d{max(1, round(args.seconds))}s"]
    command += ["-H", f"Authorization: Bearer {WRK_TOKEN}", url]
    before = {name: process_tree_cpu(pid) for name, pid in watched.items()}
    clients_before = os.times()
    started = time.perf_counter()
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    seconds = time.perf_counter() - started
    clients_after = os.times()
    cpu = {name: process_tree_cpu(pid) - before[name] for name, pid in watched.items()}
    cpu["clients"] = (clients_after.children_user + clients_after.children_system) - (
        clients_before.children_user + clients_before.children_system
    )
    rate = float(output.split("Requests/sec:", 1)[1].split()[0])
    errors = int(output.split("Non-2xx or 3xx responses:", 1)[1].split()[0]) if "Non-2xx" in output else 0
    return {
        "rate": rate,
        "errors": errors,
        "seconds": seconds,
        "cores": {name: used / seconds for name, used in cpu.items()},
        "server_cpu_per_op_us": cpu["apiserver"] / max(rate * seconds, 1) * 1e6,
    }


@dataclass
class Target:
    """A running `flotilla apiserver` (its process tree watched for CPU) with a ConfigMap to GET."""

    server: subprocess.Popen[bytes]
    tls: dict[str, str]
    base: str
    watched: dict[str, int]


def start_target(data_dir: Path, extra: tuple[str, ...], etcd: int | None) -> Target:
    data_dir.mkdir(parents=True, exist_ok=True)
    tokens = data_dir.parent / f"{data_dir.name}-tokens.csv"  # for wrk, which sends no client certificate
    tokens.write_text(f'{WRK_TOKEN},bench,bench,"system:masters"\n')
    server, url = start_apiserver(data_dir, (*extra, "--token-auth-file", str(tokens)))
    pki = data_dir / "pki"
    tls = {"ca": str(pki / "ca.crt"), "cert": str(pki / "admin.crt"), "key": str(pki / "admin.key")}
    base = f"{url}/api/v1/namespaces/bench/configmaps"
    request(tls, "POST", f"{url}/api/v1/namespaces", {"metadata": {"name": "bench"}})
    request(tls, "POST", base, configmap("target"))
    return Target(server, tls, base, {"apiserver": server.pid, **({"etcd": etcd} if etcd else {})})


def measure(target: Target, args: argparse.Namespace, operation: str, round_: int) -> dict[str, Any]:
    """Creates/s (`create`) or GETs/s of one ConfigMap (`get`) through the target."""
    common = {**target.tls, "concurrency": args.concurrency, "duration": args.seconds}
    if operation == "get" and args.get_client == "wrk":
        return wrk_gets(f"{target.base}/target", args, target.watched)
    if operation == "get":
        return loadgens(
            {**common, "method": "GET", "url": f"{target.base}/target"}, args.clients, target.watched
        )
    spec = {
        **common,
        "method": "POST",
        "url": target.base,
        "body": json.dumps(configmap("NAME")),
        "prefix": f"r{round_}c",
        "headers": {"Content-Type": "application/json"},
    }
    return loadgens(spec, args.clients, target.watched)


def through_apiserver(data_dir: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Creates/s and GETs/s through one `flotilla apiserver` on SQLite."""
    target = start_target(data_dir, (), None)
    try:
        return {operation: measure(target, args, operation, 0) for operation in ("create", "get")}
    finally:
        stop(target.server)


def one_and_two_workers(
    workdir: Path, args: argparse.Namespace, first_etcd: tuple[int, int]
) -> list[dict[str, Any]]:
    """Paired rounds: one API server process, then `--workers 2` (the order alternates), both running
    throughout, so that both sides of each pair share whatever else the machine is doing.

    Each side has its own etcd member (the first is the floor's): etcd's revision counter is the
    whole cluster's, and two hubs writing under two prefixes of one etcd would each see revisions
    their own watch never delivers.
    """
    second, second_port = start_etcd(workdir / "etcd-2")
    sides = []
    try:
        for name, (etcd, port), extra in (
            ("one", first_etcd, ()),
            ("two", (second.pid, second_port), ("--workers", "2")),
        ):
            flags = ("--etcd-servers", f"http://127.0.0.1:{port}", "--etcd-prefix", PREFIX, *extra)
            sides.append((name, start_target(workdir / f"etcd-hub-{name}", flags, etcd)))
        rounds = []
        for round_ in range(args.rounds):
            pair = sides[:: 1 if round_ % 2 == 0 else -1]
            rounds.append(
                {
                    operation: {name: measure(target, args, operation, round_) for name, target in pair}
                    for operation in ("create", "get")
                }
            )
        return rounds
    finally:
        for _, target in sides:
            stop(target.server)
        stop(second)


def row(
    name: str, store: str, result: dict[str, Any], floor: float, units: tuple[str, str], goal: bool
) -> dict[str, Any]:
    """One line: the API server's rate beside the raw etcd floor and their ratio (verdict on etcd rows)."""
    rate, (unit, floor_unit) = result["rate"], units
    ratio = rate / floor if floor else float("nan")
    verdict = f"  (goal >= {GOAL:.2f}: {'met' if ratio >= GOAL else 'MISSED'})" if goal else ""
    errors = f"  [{result['errors']} errors]" if result["errors"] else ""
    print(
        f"{name:<7} apiserver on {store:<10} {rate:>9,.0f} {unit:<10} "
        f"raw etcd {floor:>9,.0f} {floor_unit:<7} ratio {ratio:5.2f}{verdict}{errors}"
    )
    cores = "  ".join(f"{who} {busy:.2f}" for who, busy in result["cores"].items())
    print(f"{'':<7} cores busy: {cores}; API server CPU {result['server_cpu_per_op_us']:.0f} us/request")
    return {
        "name": name,
        "store": store,
        "value": rate,
        "floor": floor,
        "ratio": ratio,
        "errors": result["errors"],
        "cores": result["cores"],
    }


def median_run(rounds: list[dict[str, Any]], operation: str, side: str) -> dict[str, Any]:
    """The run with the median rate among the rounds' runs of one side."""
    runs = sorted((r[operation][side] for r in rounds), key=lambda run: float(run["rate"]))
    return runs[len(runs) // 2]


def scaling(name: str, rounds: list[dict[str, Any]], operation: str, goal: float | None) -> dict[str, Any]:
    """Two workers against one: the median of the paired rounds' ratios (a verdict against `goal`),
    each round on its own line with the cores the API server processes got."""
    ratios = []
    for index, measured in enumerate(rounds, start=1):
        one, two = measured[operation]["one"], measured[operation]["two"]
        ratios.append(two["rate"] / one["rate"] if one["rate"] else float("nan"))
        print(
            f"{name:<7} round {index}: one {one['rate']:>7,.0f}/s ({one['cores']['apiserver']:.2f} cores)  "
            f"two {two['rate']:>7,.0f}/s ({two['cores']['apiserver']:.2f} cores)  ratio {ratios[-1]:.2f}"
        )
    ratio = statistics.median(ratios)
    verdict = f"  (goal >= {goal:.2f}: {'met' if ratio >= goal else 'MISSED'})" if goal else ""
    print(f"{name:<7} two workers / one on etcd: median of {len(ratios)} paired rounds {ratio:.2f}{verdict}")
    per_core = {side: per_server_core(rounds, operation, side) for side in ("one", "two")}
    print(
        f"{name:<7} per API server core (all rounds): one {per_core['one']:,.0f}/s, "
        f"two {per_core['two']:,.0f}/s (equal: the second worker costs nothing extra, "
        "and the two-vs-one ratio is the cores the two got)"
    )
    return {"name": f"{name} x2/x1", "value": ratio, "rounds": ratios, "goal": goal, "per_core": per_core}


def per_server_core(rounds: list[dict[str, Any]], operation: str, side: str) -> float:
    """Operations per second of API server CPU over every round of one side."""
    runs = [measured[operation][side] for measured in rounds]
    operations = sum(run["rate"] * run["seconds"] for run in runs)
    cpu = sum(run["cores"]["apiserver"] * run["seconds"] for run in runs)
    return operations / cpu if cpu else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each throughput run")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=64,
        help="requests in flight, clients and floor alike (two workers need about 64 to stay busy)",
    )
    parser.add_argument(
        "--clients", type=int, default=4, help="load generator processes sharing the requests in flight"
    )
    parser.add_argument(
        "--get-client",
        choices=("lean", "wrk"),
        default="lean",
        help="what sends the GETs: the lean Python client, or wrk (Debian's wrk; cheaper per request)",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="paired runs of one API server process and two on etcd"
    )
    args = parser.parse_args()
    size = len(json.dumps(configmap("c-w0-0"))) + 300  # about what the API server stores per ConfigMap

    load_before = os.getloadavg()[0]  # other work on the machine takes the cores the workers need
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
            on_sqlite = through_apiserver(workdir / "sqlite", args)
            rounds = one_and_two_workers(workdir, args, (etcd.pid, port))
        finally:
            stop(etcd)
    creates, gets = ("creates/s", "puts/s"), ("GETs/s", "gets/s")
    results = [
        row("CREATE", "SQLite", on_sqlite["create"], floors["put"], creates, goal=False),
        row("CREATE", "etcd", median_run(rounds, "create", "one"), floors["put"], creates, goal=True),
        row("CREATE", "etcd x2", median_run(rounds, "create", "two"), floors["put"], creates, goal=True),
        row("GET", "SQLite", on_sqlite["get"], floors["get"], gets, goal=False),
        row("GET", "etcd", median_run(rounds, "get", "one"), floors["get"], gets, goal=True),
        row("GET", "etcd x2", median_run(rounds, "get", "two"), floors["get"], gets, goal=True),
        scaling("CREATE", rounds, "create", None),
        scaling("GET", rounds, "get", TWO_WORKERS_GOAL),
    ]
    load_after = os.getloadavg()[0]
    print(
        f"load average (1 min): {load_before:.2f} before the run, {load_after:.2f} after "
        f"({os.cpu_count()} CPUs; other work takes the cores the workers need)"
    )
    summary = {
        "results": results,
        "cpus": os.cpu_count(),
        "concurrency": args.concurrency,
        "clients": args.clients,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
