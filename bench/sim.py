"""Scale of `flotilla sim`: 100 clusters with 10 nodes each in one process (issue #4's figures).

Prints the time until every cluster serves, the process's resident memory, and its CPU use while
idle (sampled from /proc over `--idle-seconds`), then the same after a light load (one Deployment of
3 replicas per cluster). Run: `.venv/bin/python bench/sim.py [--clusters 100] [--nodes 10]`.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(pid: int, seconds: float) -> float:
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - before) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clusters", type=int, default=100)
    parser.add_argument("--nodes", type=int, default=10)
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    args = parser.parse_args()
    names = ",".join(f"m{i:03d}" for i in range(args.clusters))
    with tempfile.TemporaryDirectory(prefix="flotilla-sim-bench-") as tmp:
        data_dir = Path(tmp) / "sim"
        data_dir.mkdir()
        log_path = data_dir / "sim.log"
        with log_path.open("wb") as log:
            started = time.perf_counter()
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "flotilla",
                    "sim",
                    "--data-dir",
                    str(data_dir),
                    "--clusters",
                    names,
                    "--nodes",
                    str(args.nodes),
                    "--log-level",
                    "warning",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
            try:
                while "flotilla sim: serving" not in log_path.read_text(errors="replace"):
                    if process.poll() is not None:
                        raise RuntimeError(log_path.read_text())
                    time.sleep(0.1)
                start_seconds = time.perf_counter() - started
                print(f"clusters: {args.clusters} x {args.nodes} nodes")
                print(f"start (until every cluster serves): {start_seconds:.1f} s")
                time.sleep(5)
                print(f"RSS after start: {rss_mib(process.pid):.0f} MiB")
                idle = idle_cpu(process.pid, args.idle_seconds)
                print(f"idle CPU over {args.idle_seconds:.0f} s: {idle:.3f} cores")
                workloads(data_dir, args.clusters)
                time.sleep(10)
                print(f"RSS with one 3-replica Deployment per cluster: {rss_mib(process.pid):.0f} MiB")
                print(f"idle CPU afterwards: {idle_cpu(process.pid, args.idle_seconds):.3f} cores")
            finally:
                process.send_signal(signal.SIGTERM)
                process.wait(120)


def workloads(data_dir: Path, clusters: int) -> None:
    for i in range(clusters):
        kubeconfig = data_dir / f"m{i:03d}.kubeconfig"
        subprocess.run(
            [
                "kubectl",
                "--kubeconfig",
                str(kubeconfig),
                "create",
                "deployment",
                "web",
                "--image=nginx",
                "--replicas=3",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )


if __name__ == "__main__":
    main()
