"""Hardening end to end: in-flight limits (429), deadlines (504), header and body limits, and certificate
lifetime (`flotilla certs check-expiration` / `renew`, served certificate reloaded without a restart)."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from cryptography import x509

from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually

TOKEN = "carol-token-0001"
FUTURE = "/api/v1/namespaces/default/configmaps/x?resourceVersion=999999999"
"""A read that holds its seat for the server's future-revision wait (3 s), then answers 504."""
SEATED_SECONDS = 0.5
"""How long the holder's read is given to take the only seat before a test asks for one: a window,
kept because nothing outside the server shows a request holding its seat except asking for a seat,
which could take the holder's."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    directory = tmp_path_factory.mktemp("hardening")
    (directory / "tokens.csv").write_text(f"{TOKEN},carol,2001\n")
    process = ServerProcess(
        directory / "data",
        [
            "--token-auth-file",
            str(directory / "tokens.csv"),
            "--max-requests-inflight",
            "1",
            "--max-mutating-requests-inflight",
            "1",
        ],
    ).start()
    admin = Kubectl(process.kubeconfig, directory / "cache")
    admin.run(
        "create", "clusterrolebinding", "carol", "--clusterrole=cluster-admin", "--user=carol", check=False
    )
    yield process
    code = process.stop()
    assert code == 0, f"apiserver did not shut down cleanly (exit {code}):\n{process.log()}"


def context(server: ServerProcess, admin: bool = False) -> ssl.SSLContext:
    pki = server.data_dir / "pki"
    tls = ssl.create_default_context(cafile=str(pki / "ca.crt"))
    if admin:
        tls.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
    return tls


def send(
    server: ServerProcess,
    path: str,
    *,
    admin: bool = False,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> tuple[int, dict[str, str], Any]:
    url = urlsplit(server.url)
    connection = http.client.HTTPSConnection(
        url.hostname or "", url.port, context=context(server, admin), timeout=30
    )
    auth = {} if admin else {"Authorization": f"Bearer {TOKEN}"}
    try:
        connection.request(method, path, body=body, headers={**auth, **(headers or {})})
        response = connection.getresponse()
        raw = response.read()
    finally:
        connection.close()
    try:
        parsed: Any = json.loads(raw)
    except ValueError:
        parsed = raw.decode(errors="replace")
    return response.status, dict(response.headers), parsed


def test_a_request_beyond_the_in_flight_limit_gets_429(server: ServerProcess) -> None:
    """While one read holds the only slot, another read is 429 with Retry-After: 1; masters still pass."""
    holder = threading.Thread(target=send, args=(server, FUTURE))
    holder.start()
    try:
        time.sleep(SEATED_SECONDS)
        status, headers, body = send(server, "/api/v1/namespaces")
        assert status == 429
        assert headers["Retry-After"] == "1"
        assert body["reason"] == "TooManyRequests"
        assert body["details"]["retryAfterSeconds"] == 1
        assert send(server, "/api/v1/namespaces", admin=True)[0] == 200
        assert send(server, "/api/v1/namespaces/default/configmaps", method="POST", body=b"{}")[0] != 429
    finally:
        holder.join()


def test_a_flood_gets_429s_and_never_a_server_error(server: ServerProcess) -> None:
    """Thirty concurrent reads with one slot: some succeed, some are told to retry, none fail."""
    holder = threading.Thread(target=send, args=(server, FUTURE))
    holder.start()
    try:
        time.sleep(SEATED_SECONDS)
        with ThreadPoolExecutor(max_workers=30) as pool:
            codes = list(pool.map(lambda _: send(server, "/api/v1/namespaces")[0], range(30)))
    finally:
        holder.join()
    assert set(codes) <= {200, 429}
    assert 429 in codes


def test_watches_do_not_take_an_in_flight_slot(server: ServerProcess) -> None:
    """With a watch open, the single read slot is still free."""
    url = urlsplit(server.url)
    watch = http.client.HTTPSConnection(url.hostname or "", url.port, context=context(server), timeout=30)
    try:
        watch.request(
            "GET",
            "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=5",
            headers={"Authorization": f"Bearer {TOKEN}"},
        )
        assert watch.getresponse().status == 200
        assert send(server, "/api/v1/namespaces")[0] == 200
    finally:
        watch.close()


def test_a_request_past_its_deadline_gets_504(server: ServerProcess) -> None:
    """?timeout=500ms cuts a read waiting for a future revision short with kube's Timeout status."""
    started = time.monotonic()
    status, _, body = send(server, FUTURE + "&timeout=500ms", admin=True)
    assert status == 504
    assert body["reason"] == "Timeout"
    assert body["message"] == "Timeout: request did not complete within the allotted timeout"
    assert time.monotonic() - started < 2.5


def test_an_unparseable_timeout_is_400(server: ServerProcess) -> None:
    """A timeout that is not a Go duration is refused as kube refuses it."""
    status, _, body = send(server, "/api/v1/namespaces?timeout=soon", admin=True)
    assert status == 400
    assert body["message"].startswith("invalid timeout specified in the request URL")


def raw_request(server: ServerProcess, head: bytes) -> bytes:
    url = urlsplit(server.url)
    with (
        socket.create_connection((url.hostname or "", url.port or 0), timeout=10) as plain,
        context(server, admin=True).wrap_socket(plain, server_hostname=url.hostname) as tls,
    ):
        tls.sendall(head)
        received = b""
        while chunk := tls.recv(65536):
            received += chunk
            if b"\r\n\r\n" in received:
                break
        return received


def test_oversized_headers_and_request_lines_are_refused_without_a_server_error(
    server: ServerProcess,
) -> None:
    """A 70 KiB header or URL is a 400 from the parser; a normal request still works after."""
    big = b"x" * (70 * 1024)
    answer = raw_request(server, b"GET /version HTTP/1.1\r\nHost: h\r\nX-Big: " + big + b"\r\n\r\n")
    assert answer.split(b" ")[1] == b"400", answer[:100]
    answer = raw_request(server, b"GET /version?" + big + b" HTTP/1.1\r\nHost: h\r\n\r\n")
    assert answer.split(b" ")[1] == b"400", answer[:100]
    assert send(server, "/version", admin=True)[0] == 200


def test_bodies_over_three_mebibytes_are_413(server: ServerProcess) -> None:
    """The body limit answers 413 RequestEntityTooLarge as a Status."""
    body = b'{"data": {"k": "' + b"x" * (3 * 1024 * 1024 + 10) + b'"}}'
    status, _, answer = send(
        server,
        "/api/v1/namespaces/default/configmaps",
        admin=True,
        method="POST",
        body=body,
        headers={"Content-Type": "application/json"},
    )
    assert status == 413 and answer["reason"] == "RequestEntityTooLarge"


# -- certificate lifetime -----------------------------------------------------------------------------


def flotilla(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flotilla", *args], capture_output=True, text=True, timeout=60, check=False
    )


def served_serial(server: ServerProcess) -> int:
    url = urlsplit(server.url)
    with (
        socket.create_connection((url.hostname or "", url.port or 0), timeout=10) as plain,
        context(server).wrap_socket(plain, server_hostname=url.hostname) as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return x509.load_der_x509_certificate(der).serial_number


def test_check_expiration_lists_each_certificate(server: ServerProcess) -> None:
    """The report shows admin, apiserver and the CA with a year, a year and ten years left."""
    result = flotilla("certs", "check-expiration", "--data-dir", str(server.data_dir))
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines() if line and not line.startswith("[")}
    assert "364d" in rows["admin.kubeconfig"] and "ca" in rows["admin.kubeconfig"]
    assert "364d" in rows["apiserver"]
    assert rows["ca"].split()[-2:] == ["9y", "no"]
    assert "sa.key" in result.stdout


def test_renewal_is_served_without_a_restart(server: ServerProcess, tmp_path: Path) -> None:
    """After `certs renew all` new connections see a new serving certificate; kubectl still works."""
    before = served_serial(server)
    pid = server.process.pid if server.process else None
    result = flotilla("certs", "renew", "all", "--data-dir", str(server.data_dir))
    assert result.returncode == 0, result.stderr
    assert "certificate for serving the Kubernetes API renewed" in result.stdout
    eventually(
        lambda: served_serial(server) != before, timeout=20, what="the renewed serving certificate is served"
    )
    assert server.process is not None and server.process.pid == pid and server.process.poll() is None
    on_disk = x509.load_pem_x509_certificate((server.data_dir / "pki" / "apiserver.crt").read_bytes())
    assert served_serial(server) == on_disk.serial_number
    admin = Kubectl(server.kubeconfig, tmp_path / "cache")
    assert "default" in admin("get", "namespaces", "-o", "name")


def test_renewing_an_unknown_target_fails_cleanly(server: ServerProcess) -> None:
    """Only all, apiserver and admin can be renewed."""
    result = flotilla("certs", "renew", "ca", "--data-dir", str(server.data_dir))
    assert result.returncode != 0 and "Invalid value" in result.stderr
