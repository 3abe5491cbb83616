"""Benchmark `flotilla apiserver` against floors measured in the same run on the same machine.

Figures, each beside its floor and the ratio (targets from issue #2):
  GET one object           vs a bare aiohttp JSON handler behind the same TLS setup   (target >= 0.40)
  LIST 100 objects         vs a bare handler answering a 100-item list                (reported)
  create throughput        vs a raw SQLite insert loop, same pragmas, commit per insert (target >= 0.25)
  watch fan-out, 100 watchers vs a raw chunked stream of pre-encoded events          (target >= 0.50)

Every load generator runs in its own process with the same client certificate. On this 2-core
machine one Python client process saturates before a server does, so GET, LIST and fan-out compare
*capacity*: operations per CPU-second of the server process (read from /proc), with the wall-clock
rates printed beside them. Creates are compared by wall-clock throughput, since durable commits, not
CPU, bound them. Run: `make bench` (or `.venv/bin/python bench/apiserver.py [--seconds 5]`).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PYTHON = sys.executable
TARGETS = {"GET": 0.40, "LIST": None, "CREATE": 0.25, "FANOUT": 0.50}


def loadgen(spec: dict[str, Any]) -> dict[str, Any]:
    out = subprocess.run(
        [PYTHON, str(HERE / "loadgen.py"), json.dumps(spec)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    if out.returncode != 0:
        raise RuntimeError(f"load generator failed: {out.stderr}")
    return json.loads(out.stdout)


def start_apiserver(data_dir: Path, extra_args: tuple[str, ...] = ()) -> tuple[subprocess.Popen[bytes], str]:
    """Start `flotilla apiserver` on a free port; `extra_args` (e.g. --etcd-servers) are appended."""
    data_dir.mkdir(parents=True, exist_ok=True)
    log = (data_dir / "apiserver.log").open("wb")
    process = subprocess.Popen(
        [
            PYTHON,
            "-m",
            "flotilla",
            "apiserver",
            "--data-dir",
            str(data_dir),
            "--secure-port",
            "0",
            "--log-level",
            "warning",
            *os.environ.get("BENCH_APISERVER_ARGS", "").split(),
            *extra_args,
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = (data_dir / "apiserver.log").read_text(errors="replace")
        if "serving on " in text:
            url = text.split("serving on ", 1)[1].split()[0]
            return process, url
        if process.poll() is not None:
            raise RuntimeError(text)
        time.sleep(0.05)
    raise TimeoutError("apiserver did not start")


def start_floor(pki_dir: Path, workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port_file = workdir / "floor.port"
    process = subprocess.Popen([PYTHON, str(HERE / "floors.py"), str(pki_dir), str(port_file)])
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if port_file.exists() and port_file.read_text():
            return process, f"https://127.0.0.1:{port_file.read_text()}"
        time.sleep(0.05)
    raise TimeoutError("floor server did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()


def request(tls: dict[str, str], method: str, url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    import ssl
    import urllib.request

    context = ssl.create_default_context(cafile=tls["ca"])
    context.load_cert_chain(tls["cert"], tls["key"])
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, context=context, timeout=30) as response:
        return json.loads(response.read())


def configmap(name: str, size: int = 900) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name},
        "data": {"payload": "x" * size},
    }


def report(name: str, value: float, floor: float, unit: str) -> dict[str, Any]:
    ratio = value / floor if floor else float("nan")
    target = TARGETS.get(name)
    verdict = ""
    if target is not None:
        verdict = f"  (target >= {target:.2f}: {'met' if ratio >= target else 'MISSED'})"
    figures = f"flotilla {value:>12,.0f} {unit:<14} floor {floor:>12,.0f} {unit:<14} ratio {ratio:5.2f}"
    print(f"{name:<8} {figures}{verdict}")
    return {"name": name, "value": value, "floor": floor, "ratio": ratio, "unit": unit, "target": target}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=float, default=5.0, help="duration of each throughput run")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--events", type=int, default=2000, help="events per watcher in the fan-out run")
    parser.add_argument("--watchers", type=int, default=100)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="flotilla-bench-") as tmp:
        workdir = Path(tmp)
        server, url = start_apiserver(workdir / "hub")
        pki = workdir / "hub" / "pki"
        tls = {"ca": str(pki / "ca.crt"), "cert": str(pki / "admin.crt"), "key": str(pki / "admin.key")}
        floor, floor_url = start_floor(pki, workdir)
        results = []
        try:
            results = run_all(args, url, floor_url, tls, server, floor, workdir)
        finally:
            stop(floor)
            stop(server)
        print(json.dumps({"results": results, "cpus": os.cpu_count()}))


def run_all(
    args: argparse.Namespace,
    url: str,
    floor_url: str,
    tls: dict[str, str],
    server: subprocess.Popen[bytes],
    floor: subprocess.Popen[bytes],
    workdir: Path,
) -> list[dict[str, Any]]:
    results = []
    base = f"{url}/api/v1/namespaces/bench/configmaps"
    request(tls, "POST", f"{url}/api/v1/namespaces", {"metadata": {"name": "bench"}})
    request(tls, "POST", base, configmap("target"))
    for i in range(100):
        request(tls, "POST", f"{url}/api/v1/namespaces/default/configmaps", configmap(f"list-{i:03d}"))
    common = {**tls, "concurrency": args.concurrency, "duration": args.seconds, "method": "GET"}

    floor_get = measured(floor, {**common, "url": f"{floor_url}/obj"})
    ours_get = measured(server, {**common, "url": f"{base}/target"})
    results.append(report_capacity("GET", ours_get, floor_get, "req"))

    floor_list = measured(floor, {**common, "url": f"{floor_url}/list"})
    ours_list = measured(server, {**common, "url": f"{url}/api/v1/namespaces/default/configmaps"})
    results.append(report_capacity("LIST", ours_list, floor_list, "lists"))

    sys.path.insert(0, str(HERE))
    from floors import sqlite_inserts

    floor_create = sqlite_inserts(workdir / "floor.db", args.seconds)
    batched = sqlite_inserts(workdir / "floor-batched.db", args.seconds, batch=100)
    body = json.dumps(configmap("NAME"))
    headers = {"Content-Type": "application/json"}
    ours_create = measured(
        server, {**common, "method": "POST", "url": base, "body": body, "prefix": "c", "headers": headers}
    )
    results.append(report("CREATE", ours_create["rate"], floor_create, "creates/s"))
    print(
        f"         (server CPU {ours_create['cpu_per_op_us']:.0f} us/create; SQLite committing 100 inserts "
        f"per transaction: {batched:,.0f} inserts/s; create errors: {ours_create['errors']})"
    )

    request(tls, "POST", f"{url}/api/v1/namespaces", {"metadata": {"name": "fanout"}})
    revision = request(tls, "GET", f"{url}/api/v1/namespaces/fanout/configmaps")["metadata"][
        "resourceVersion"
    ]
    loadgen(
        {
            **common,
            "method": "POST",
            "url": f"{url}/api/v1/namespaces/fanout/configmaps",
            "body": body,
            "prefix": "f",
            "headers": headers,
            "duration": 600,
            "total": args.events,
        }
    )
    parts, floor_parts = urllib.parse.urlsplit(url), urllib.parse.urlsplit(floor_url)
    fan = {**tls, "kind": "fanout", "watchers": args.watchers, "expected": args.events}
    floor_fan = measured(
        floor,
        {**fan, "host": floor_parts.hostname, "port": floor_parts.port, "path": f"/stream?n={args.events}"},
        key="deliveries",
    )
    ours_fan = measured(
        server,
        {
            **fan,
            "host": parts.hostname,
            "port": parts.port,
            "path": f"/api/v1/namespaces/fanout/configmaps?watch=true&resourceVersion={revision}",
        },
        key="deliveries",
    )
    results.append(report_capacity("FANOUT", ours_fan, floor_fan, "deliveries"))
    return results


def cpu_seconds(process: subprocess.Popen[bytes]) -> float:
    """User + system CPU of a process (all its threads) from /proc."""
    fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measured(process: subprocess.Popen[bytes], spec: dict[str, Any], key: str = "requests") -> dict[str, Any]:
    """Run a load generator and note the server CPU it cost: capacity = operations per server CPU-second."""
    before = cpu_seconds(process)
    result = loadgen(spec)
    used = max(cpu_seconds(process) - before, 1e-9)
    operations = result[key]
    result["cpu"] = used
    result["capacity"] = operations / used
    result["cpu_per_op_us"] = used / max(operations, 1) * 1e6
    return result


def report_capacity(name: str, ours: dict[str, Any], floor: dict[str, Any], unit: str) -> dict[str, Any]:
    """Ratio of what one server CPU-second serves; the wall-clock rates (client-bound here) are shown too."""
    entry = report(name, ours["capacity"], floor["capacity"], f"{unit}/cpu-s")
    print(
        f"         (wall clock: flotilla {ours['rate']:,.0f}/s, floor {floor['rate']:,.0f}/s; "
        f"server CPU per op: flotilla {ours['cpu_per_op_us']:.1f} us, floor {floor['cpu_per_op_us']:.1f} us)"
    )
    entry["wall"] = {"flotilla": ours["rate"], "floor": floor["rate"]}
    return entry


if __name__ == "__main__":
    main()
