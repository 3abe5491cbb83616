"""A `/readyz` watchdog in its own process: how long a server keeps every other client waiting.

`python -m tests.support.readyz URL PKI_DIR` asks `GET /readyz` every 20 ms on one kept-alive
connection (as the server's admin) and prints one line per answer — `ok <seconds>` or
`failed <reason>` — until its standard input closes. A request that blocks the server's event loop
delays `/readyz` by as long. The watchdog is a separate process because a test in the same
interpreter holds the GIL for tens of milliseconds at a time whenever it encodes or decodes a big
body, and a thread beside it would count that as the server's stall (a 1.4 MB ConfigMap's JSON
read by the test showed as 130-290 ms of "stall" that the server never had).
"""

from __future__ import annotations

import http.client
import ssl
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

PING_INTERVAL_SECONDS = 0.02


def connect(url: str, pki: Path) -> http.client.HTTPSConnection:
    parts = urlsplit(url)
    tls = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    tls.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
    return http.client.HTTPSConnection(parts.hostname or "", parts.port or 443, context=tls, timeout=60)


def watch(url: str, pki: Path, stop: threading.Event) -> None:
    connection = connect(url, pki)
    connection.request("GET", "/readyz")  # the TLS handshake is not part of what is measured
    connection.getresponse().read()
    print("ready", flush=True)
    while not stop.is_set():
        started = time.monotonic()
        try:
            connection.request("GET", "/readyz")
            response = connection.getresponse()
            response.read()
        except (OSError, http.client.HTTPException) as exc:
            print(f"failed {type(exc).__name__}: {exc}", flush=True)
            connection.close()
            connection = connect(url, pki)
            continue
        if response.status != 200:
            print(f"failed HTTP {response.status}", flush=True)
        else:
            print(f"ok {time.monotonic() - started:.6f}", flush=True)
        stop.wait(PING_INTERVAL_SECONDS)
    connection.close()


def main() -> None:
    url, pki = sys.argv[1], Path(sys.argv[2])
    stop = threading.Event()
    watcher = threading.Thread(target=watch, args=(url, pki, stop), daemon=True)
    watcher.start()
    sys.stdin.read()  # until the parent closes it
    stop.set()
    watcher.join(timeout=60)


if __name__ == "__main__":
    main()
