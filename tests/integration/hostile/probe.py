"""A bounded raw HTTPS client for hostile requests, and a watchdog that the server stays responsive.

`Probe.send` speaks plain HTTP/1.1 over TLS with the server's admin certificate (or a bearer token,
or another client certificate),
with a deadline on every request, and returns what came back — or raises `NoResponse` when the
server closed the connection without answering, which is itself a defect (D5). `Responsiveness` runs
`GET /readyz` from a child process (`tests/support/readyz.py`) on its own kept-alive connection
every 20 ms while the body of the `with` runs, and fails the test when one answer took longer than
the limit: a request that blocks the event loop blocks `/readyz` too. The default limit is 100 ms,
or three times the slowest answer in a calm moment measured just before the body runs when the
machine is busier than that (two test workers on two cores); an explicit limit is kept as given.
"""

from __future__ import annotations

import http.client
import json
import ssl
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from tests.support.processes import ServerProcess

READY_LIMIT_SECONDS = 0.1
CALM_SECONDS = 0.3
"""How long the watchdog measures a calm server before the body runs (about 15 answers)."""
CALM_FACTOR = 3.0


class NoResponse(AssertionError):
    """The server closed the connection (or timed out) without an HTTP response."""


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any
    raw: bytes
    header_lines: list[tuple[str, str]] = field(default_factory=list)
    """Every header as sent, in order (`headers` keeps one value of a repeated header)."""

    def header_values(self, name: str) -> list[str]:
        """All values of a header that may repeat (`Warning`)."""
        return [value for key, value in self.header_lines if key.lower() == name.lower()]

    @property
    def reason(self) -> str:
        return str(self.body.get("reason", "")) if isinstance(self.body, dict) else ""

    @property
    def message(self) -> str:
        return str(self.body.get("message", "")) if isinstance(self.body, dict) else ""

    def is_status(self, code: int) -> bool:
        """Whether this is a Kubernetes Status with HTTP code `code`."""
        return (
            self.status == code
            and isinstance(self.body, dict)
            and self.body.get("kind") == "Status"
            and self.body.get("code") == code
        )


@dataclass
class Probe:
    """Requests to one API server process, as its admin (client certificate) or with a bearer token."""

    server: ServerProcess
    token: str = ""
    timeout: float = 20.0
    extra_headers: dict[str, str] = field(default_factory=dict)
    client_certificate: tuple[Path, Path] | None = None
    """(certificate, key) files to authenticate with instead of the admin's."""

    def tls(self) -> ssl.SSLContext:
        pki = self.server.data_dir / "pki"
        context = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        if self.client_certificate is not None:
            context.load_cert_chain(*(str(path) for path in self.client_certificate))
        elif not self.token:
            context.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
        return context

    def connect(self, timeout: float | None = None) -> http.client.HTTPSConnection:
        url = urlsplit(self.server.url)
        return http.client.HTTPSConnection(
            url.hostname or "", url.port, context=self.tls(), timeout=timeout or self.timeout
        )

    def send(
        self,
        method: str,
        path: str,
        body: bytes | str | dict[str, Any] | list[Any] | None = None,
        *,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
        timeout: float | None = None,
    ) -> Answer:
        if isinstance(body, dict | list):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        sent = {**self.extra_headers, **(headers or {})}
        if body is not None:
            sent.setdefault("Content-Type", content_type)
        if self.token:
            sent.setdefault("Authorization", f"Bearer {self.token}")
        connection = self.connect(timeout)
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            raw = response.read()
        except (http.client.RemoteDisconnected, ConnectionError, TimeoutError) as exc:
            raise NoResponse(f"{method} {path}: no response ({type(exc).__name__}: {exc})") from exc
        finally:
            connection.close()
        try:
            parsed: Any = json.loads(raw)
        except ValueError:
            parsed = raw.decode(errors="replace")
        return Answer(response.status, dict(response.headers), parsed, raw, list(response.headers.items()))

    def responsiveness(self, limit: float | None = None) -> Responsiveness:
        """A watchdog on this server; `limit` None is the default, scaled by the calm floor."""
        return Responsiveness(self, limit)


class Responsiveness:
    """While open, `/readyz` is asked every 20 ms from another process (`tests/support/readyz.py`);
    on exit, the slowest answer must be under `limit`."""

    def __init__(self, probe: Probe, limit: float | None) -> None:
        self.probe = probe
        self.limit = READY_LIMIT_SECONDS if limit is None else limit
        self._scaled = limit is None
        self.calm = 0.0
        """The slowest answer in the calm moment before the body ran (measured for the default limit)."""
        self.slowest = 0.0
        self.answers = 0
        self.failures: list[str] = []
        self._child: subprocess.Popen[str] | None = None
        self._reader = threading.Thread(target=self._read, name="readyz-watchdog-reader", daemon=True)
        self._ready = threading.Event()

    def __enter__(self) -> Responsiveness:
        server = self.probe.server
        self._child = subprocess.Popen(
            [sys.executable, "-m", "tests.support.readyz", server.url, str(server.data_dir / "pki")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._reader.start()
        self._ready.wait(timeout=30)
        if self._scaled:
            time.sleep(CALM_SECONDS)
            self.calm, self.slowest = self.slowest, 0.0
            self.limit = max(self.limit, CALM_FACTOR * self.calm)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        child = self._child
        assert child is not None and child.stdin is not None
        child.stdin.close()
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        self._reader.join(timeout=10)
        if child.stdout is not None:
            child.stdout.close()
        if kind is not None:
            return
        assert not self.failures, f"/readyz failed while the request ran: {self.failures[:3]}"
        assert self.slowest <= self.limit, (
            f"/readyz took {self.slowest * 1000:.0f} ms while the request ran (limit "
            f"{self.limit * 1000:.0f} ms, calm {self.calm * 1000:.0f} ms): the request blocked the server"
        )

    def _read(self) -> None:
        assert self._child is not None and self._child.stdout is not None
        for line in self._child.stdout:
            word, _, rest = line.strip().partition(" ")
            if word == "ready":
                self._ready.set()
            elif word == "ok":
                self.slowest = max(self.slowest, float(rest))
                self.answers += 1
            elif word == "failed":
                self.failures.append(rest)
        self._ready.set()
