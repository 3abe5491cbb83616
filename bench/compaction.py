"""Store size under sustained churn: 100,000 updates to the same 100 objects (issue #3's figure).

Starts `flotilla apiserver` with its default history window and a short compaction interval, creates
100 ConfigMaps, then sends merge patches round-robin from 32 concurrent connections, printing the
store's file sizes (database and WAL) every 10,000 updates. With compaction the size levels off once the
window is full; without it, it would grow by roughly one object version per update.
Run: `.venv/bin/python bench/compaction.py [--updates 100000] [--window 10000]`.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
import orjson


def size_of(data_dir: Path) -> str:
    database = (data_dir / "store.db").stat().st_size
    wal = (data_dir / "store.db-wal").stat().st_size if (data_dir / "store.db-wal").exists() else 0
    return f"{database:>12,} {wal:>12,}"


async def churn(url: str, pki: Path, data_dir: Path, updates: int, objects: int) -> None:
    tls = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    tls.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
    base = f"{url}/api/v1/namespaces/default/configmaps"
    payload = "x" * 900
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=tls, limit=32)) as session:
        for i in range(objects):
            body = {"metadata": {"name": f"churn-{i}"}, "data": {"n": "0", "payload": payload}}
            async with session.post(
                base, data=orjson.dumps(body), headers={"Content-Type": "application/json"}
            ) as response:
                response.raise_for_status()
        print(f"{'updates':>8} {'store.db':>12} {'store.db-wal':>12} {'seconds':>8}")
        print(f"{0:>8} {size_of(data_dir)} {0:>8.1f}")
        done = 0
        started = time.perf_counter()
        next_report = 10000

        async def worker(offset: int) -> None:
            nonlocal done, next_report
            sequence = offset
            while done < updates:
                done += 1
                name = f"churn-{sequence % objects}"
                sequence += 32
                patch = orjson.dumps({"data": {"n": str(sequence)}})
                async with session.patch(
                    f"{base}/{name}", data=patch, headers={"Content-Type": "application/merge-patch+json"}
                ) as response:
                    await response.read()
                    response.raise_for_status()
                if done >= next_report:
                    next_report += 10000
                    elapsed = time.perf_counter() - started
                    print(f"{done:>8} {size_of(data_dir)} {elapsed:>8.1f}", flush=True)

        await asyncio.gather(*(worker(i) for i in range(32)))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--updates", type=int, default=100000)
    parser.add_argument("--objects", type=int, default=100)
    parser.add_argument("--window", type=int, default=10000)
    parser.add_argument("--interval", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="flotilla-compaction-") as tmp:
        data_dir = Path(tmp) / "hub"
        data_dir.mkdir()
        log = (data_dir / "apiserver.log").open("wb")
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "flotilla",
                "apiserver",
                "--data-dir",
                str(data_dir),
                "--secure-port",
                "0",
                "--history-window",
                str(args.window),
                "--compaction-interval",
                str(args.interval),
                "--log-level",
                "warning",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + 60
            url = ""
            while not url and time.monotonic() < deadline:
                text = (data_dir / "apiserver.log").read_text(errors="replace")
                if "serving on " in text:
                    url = text.split("serving on ", 1)[1].split()[0]
                time.sleep(0.05)
            asyncio.run(churn(url, data_dir / "pki", data_dir, args.updates, args.objects))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
            log.close()


if __name__ == "__main__":
    main()
