"""A real single-member etcd on loopback for tests: free ports, a temporary data directory.

The storage tests run their properties against it (one member per test session, a fresh key
prefix per example), and the API server integration test runs it with TLS. The `etcd` binary
comes from the system (Debian's `etcd-server`); tests that need it are skipped when it is missing.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from flotilla.apiserver.pki.etcd import ensure_etcd_pki

ETCD = shutil.which("etcd")
ETCDCTL = shutil.which("etcdctl")
MISSING_REASON = "the etcd binary is not installed (Debian package etcd-server)"
MEMBER_NAME = "test"


@dataclass(frozen=True)
class EtcdTLS:
    """PEM files: the CA etcd's server certificate chains to, and the client's certificate and key."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def make_tls(directory: Path) -> EtcdTLS:
    """A CA, etcd's serving certificate for 127.0.0.1 and a client certificate, as PEM files.

    Issued as `flotilla up --ha` issues them (`flotilla.apiserver.pki.etcd`), for one member.
    """
    paths = ensure_etcd_pki(directory, [MEMBER_NAME])
    return EtcdTLS(
        ca=paths.ca_cert,
        server_cert=paths.server_cert(MEMBER_NAME),
        server_key=paths.server_key(MEMBER_NAME),
        client_cert=paths.apiserver_client_cert,
        client_key=paths.apiserver_client_key,
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class EtcdServer:
    """One etcd member; `url` is its client endpoint."""

    def __init__(self, directory: Path, tls: EtcdTLS | None = None) -> None:
        assert ETCD is not None, MISSING_REASON
        self.directory = directory
        self.tls = tls
        self.client_port = _free_port()
        self.peer_port = _free_port()
        scheme = "https" if tls else "http"
        self.url = f"{scheme}://127.0.0.1:{self.client_port}"
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        assert ETCD is not None
        peer = f"http://127.0.0.1:{self.peer_port}"
        args = [
            ETCD,
            f"--name={MEMBER_NAME}",
            f"--data-dir={self.directory / 'data'}",
            f"--listen-client-urls={self.url}",
            f"--advertise-client-urls={self.url}",
            f"--listen-peer-urls={peer}",
            f"--initial-advertise-peer-urls={peer}",
            f"--initial-cluster=test={peer}",
            "--unsafe-no-fsync",
            "--log-level=error",
            "--logger=zap",
        ]
        if self.tls is not None:
            args += [
                f"--trusted-ca-file={self.tls.ca}",
                f"--cert-file={self.tls.server_cert}",
                f"--key-file={self.tls.server_key}",
                "--client-cert-auth",
            ]
        return args

    def start(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        with (self.directory / "etcd.log").open("ab") as log:
            self.process = subprocess.Popen(self.command(), stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"etcd exited: {(self.directory / 'etcd.log').read_text()[-2000:]}")
            if self.ctl("endpoint", "health", check=False).returncode == 0:
                return
            time.sleep(0.05)
        raise RuntimeError("etcd did not become healthy within 20 s")

    def tls_flags(self) -> list[str]:
        """The `--etcd-cafile/--etcd-certfile/--etcd-keyfile` flags a Flotilla command needs to reach
        this member (none without TLS)."""
        if self.tls is None:
            return []
        return [
            f"--etcd-cafile={self.tls.ca}",
            f"--etcd-certfile={self.tls.client_cert}",
            f"--etcd-keyfile={self.tls.client_key}",
        ]

    def ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        assert ETCDCTL is not None, MISSING_REASON
        command = [ETCDCTL, f"--endpoints={self.url}", "--command-timeout=5s"]
        if self.tls is not None:
            command += [
                f"--cacert={self.tls.ca}",
                f"--cert={self.tls.client_cert}",
                f"--key={self.tls.client_key}",
            ]
        return subprocess.run([*command, *args], capture_output=True, check=check, env={"ETCDCTL_API": "3"})

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def running_member(directory: Path, *, tls: bool = False) -> Iterator[EtcdServer]:
    """A started member in `directory` (with certificates of its own under `pki/` when `tls`),
    stopped when the generator resumes: the body of a test module's `etcd` fixture
    (`yield from running_member(tmp_path_factory.mktemp("etcd"))`)."""
    member = EtcdServer(directory, make_tls(directory / "pki") if tls else None)
    member.start()
    try:
        yield member
    finally:
        member.stop()
