"""`flotilla apiserver --workers 2`: two API server processes on one etcd, sharing one port.

One etcd member and one pool serve the module, and the tests run in file order: the kill -9 test
leaves a restarted worker behind, the last test stops the pool. Every request goes over a fresh TLS
connection, as a new kubectl's would. Which worker serves a connection is read from the kernel,
not from the server: the server end of a TCP connection is a socket in exactly one worker's file
table (`/proc/net/tcp` gives its inode, `/proc/<pid>/fd` who holds it).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import socket
import ssl
import urllib.parse
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.processes import ServerProcess, flotilla
from tests.support.waiting import eventually
from tests.unit.storage.etcdserver import ETCD, ETCDCTL, MISSING_REASON, EtcdServer, running_member

pytestmark = pytest.mark.skipif(ETCD is None or ETCDCTL is None, reason=MISSING_REASON)

WORKER_SERVING = re.compile(r"event='apiserver\.worker_serving' worker=(\d+) pid=(\d+)")


@pytest.fixture(scope="module")
def etcd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EtcdServer]:
    yield from running_member(tmp_path_factory.mktemp("etcd"))


@pytest.fixture(scope="module")
def pool(etcd: EtcdServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    args = [f"--etcd-servers={etcd.url}", "--workers=2"]
    process = ServerProcess(tmp_path_factory.mktemp("apiserver"), extra_args=args).start(timeout=90)
    yield process
    process.stop()


def serving_workers(pool: ServerProcess) -> dict[int, int]:
    """Worker index → pid of the run serving now, from the parent's log."""
    return {int(index): int(pid) for index, pid in WORKER_SERVING.findall(pool.log())}


@dataclass
class Connection:
    """One fresh HTTPS connection to the pool, with the worker that accepted it."""

    http: http.client.HTTPSConnection
    worker_pid: int

    def close(self) -> None:
        self.http.close()

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any, str]:
        """(status, decoded body, Audit-Id) of one request on this connection."""
        data = json.dumps(body).encode() if body is not None else None
        self.http.request(method, path, body=data, headers={"Content-Type": "application/json"})
        response = self.http.getresponse()
        return response.status, json.loads(response.read()), response.headers["Audit-Id"]


class Hub:
    """Opens connections to the pool and finds the worker each landed on."""

    def __init__(self, pool: ServerProcess) -> None:
        self.pool = pool
        url = urllib.parse.urlsplit(pool.url)
        assert url.hostname is not None and url.port is not None
        self.host, self.port = url.hostname, url.port
        pki = pool.data_dir / "pki"
        self.tls = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        self.tls.load_cert_chain(pki / "admin.crt", pki / "admin.key")

    def connect(self) -> Connection:
        """A new connection on which one request has been answered (so a worker has accepted it)."""
        connection = http.client.HTTPSConnection(self.host, self.port, context=self.tls, timeout=30)
        try:
            connection.request("GET", "/version")
            connection.getresponse().read()
            assert connection.sock is not None
            client_port = connection.sock.getsockname()[1]
            pid = accepting_process(self.port, client_port, serving_workers(self.pool))
        except BaseException:
            connection.close()
            raise
        return Connection(connection, pid)

    def connect_to(self, pid: int, attempts: int = 40) -> Connection:
        """A new connection accepted by worker `pid` (the kernel picks: open until one lands there)."""
        for _ in range(attempts):
            connection = self.connect()
            if connection.worker_pid == pid:
                return connection
            connection.close()
        raise AssertionError(f"no connection landed on worker {pid} in {attempts} attempts")


def accepting_process(server_port: int, client_port: int, workers: dict[int, int]) -> int:
    """The pid of the worker whose file table holds the server end of the connection from `client_port`."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            local, remote, inode = fields[1], fields[2], fields[9]
            if (
                int(local.rsplit(":", 1)[1], 16) == server_port
                and int(remote.rsplit(":", 1)[1], 16) == client_port
            ):
                inodes.add(f"socket:[{inode}]")
    holders = set()
    for pid in workers.values():
        fd_dir = Path(f"/proc/{pid}/fd")
        with contextlib.suppress(FileNotFoundError):  # a worker gone, or a file closed while listing
            for fd in os.listdir(fd_dir):
                with contextlib.suppress(FileNotFoundError):
                    if os.readlink(fd_dir / fd) in inodes:
                        holders.add(pid)
    assert len(holders) == 1, f"connection from port {client_port} held by {holders} (workers {workers})"
    return holders.pop()


@pytest.fixture
def hub(pool: ServerProcess) -> Hub:
    return Hub(pool)


@pytest.fixture
def namespace(hub: Hub) -> str:
    name = f"w-{uuid.uuid4().hex[:8]}"
    with contextlib.closing(hub.connect()) as connection:
        status, _, _ = connection.request("POST", "/api/v1/namespaces", {"metadata": {"name": name}})
    assert status == 201
    return name


def configmap(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def test_new_connections_land_on_every_worker_each_auditing_its_own(hub: Hub, pool: ServerProcess) -> None:
    """The kernel spreads new connections over both workers; worker i audits its requests in audit-<i>.log."""
    workers = serving_workers(pool)
    assert len(workers) == 2
    audit_ids: dict[int, list[str]] = {pid: [] for pid in workers.values()}
    with contextlib.ExitStack() as stack:
        for _ in range(30):
            connection = stack.enter_context(contextlib.closing(hub.connect()))
            status, _, audit_id = connection.request("GET", "/api/v1/namespaces/default")
            assert status == 200
            audit_ids[connection.worker_pid].append(audit_id)
    assert all(audit_ids.values()), f"a worker got no connection: {audit_ids}"

    def audited(index: int, ids: list[str]) -> bool:
        log = (pool.data_dir / f"audit-{index}.log").read_text()
        return all(audit_id in log for audit_id in ids)

    for index, pid in workers.items():
        mine = audit_ids[pid]
        eventually(lambda: audited(index, mine), what=f"worker {index} audited")  # noqa: B023 - called at once
        others = [i for other, ids in audit_ids.items() if other != pid for i in ids]
        assert not any(audited(index, [i]) for i in others)


def test_a_write_through_one_worker_is_read_at_once_through_the_other(hub: Hub, namespace: str) -> None:
    """Read-your-writes across processes: a consistent GET on the other worker returns the write just made."""
    pids = sorted(serving_workers(hub.pool).values())
    base = f"/api/v1/namespaces/{namespace}/configmaps"
    for n in range(8):
        writer_pid, reader_pid = pids[n % 2], pids[(n + 1) % 2]
        with contextlib.closing(hub.connect_to(writer_pid)) as writer:
            if n % 2 == 0:
                status, written, _ = writer.request("POST", base, configmap(f"rw-{n}", n=str(n)))
            else:
                name = f"rw-{n - 1}"
                status, written, _ = writer.request("PUT", f"{base}/{name}", configmap(name, n=str(n)))
        assert status in (200, 201), written
        with contextlib.closing(hub.connect_to(reader_pid)) as reader:
            status, read, _ = reader.request("GET", f"{base}/{written['metadata']['name']}")
        assert status == 200
        assert read["metadata"]["resourceVersion"] == written["metadata"]["resourceVersion"]
        assert read["data"] == {"n": str(n)}


def test_a_watch_on_one_worker_sees_writes_through_both_in_order_once(hub: Hub, namespace: str) -> None:
    """Every write after the watch's resourceVersion, through either worker, arrives once and in order."""
    base = f"/api/v1/namespaces/{namespace}/configmaps"
    with contextlib.closing(hub.connect()) as watcher:
        _, listed, _ = watcher.request("GET", base)
        other = next(pid for pid in serving_workers(hub.pool).values() if pid != watcher.worker_pid)
        watcher.http.request("GET", f"{base}?watch=1&resourceVersion={listed['metadata']['resourceVersion']}")
        stream = watcher.http.getresponse()
        written = [write(hub, base, n, other if n % 3 else watcher.worker_pid) for n in range(12)]
        seen = []
        while len(seen) < len(written):
            event = json.loads(stream.readline())
            metadata = event["object"]["metadata"]
            seen.append((event["type"], metadata["name"], metadata["resourceVersion"]))
    assert seen == written


def write(hub: Hub, base: str, n: int, pid: int) -> tuple[str, str, str]:
    """Create watched-n, or (every fourth) update watched-(n-1), through worker `pid`: the event to expect."""
    with contextlib.closing(hub.connect_to(pid)) as writer:
        if n % 4 == 3:
            name = f"watched-{n - 1}"
            status, obj, _ = writer.request("PUT", f"{base}/{name}", configmap(name, v="2"))
        else:
            status, obj, _ = writer.request("POST", base, configmap(f"watched-{n}", v="1"))
    assert status in (200, 201), obj
    return (
        "MODIFIED" if status == 200 else "ADDED",
        obj["metadata"]["name"],
        obj["metadata"]["resourceVersion"],
    )


def test_a_killed_worker_is_restarted_while_the_other_serves(hub: Hub, pool: ServerProcess) -> None:
    """kill -9 of one worker: new connections all land on the survivor; the parent restarts the dead one."""
    workers = serving_workers(pool)
    victim, survivor = workers[2], workers[1]
    os.kill(victim, signal.SIGKILL)
    # The parent hears of the death once the worker's files are closed, its listening socket with them
    # (the process may show as a zombie earlier, while its other threads still exit).
    exited = f"event='apiserver.worker_exited' worker=2 pid={victim} code=-9"
    eventually(lambda: exited in pool.log(), what=f"worker {victim} reported dead")
    for _ in range(20):
        with contextlib.closing(hub.connect()) as connection:
            status, _, _ = connection.request("GET", "/api/v1/namespaces/default")
        assert (connection.worker_pid, status) == (survivor, 200)
    eventually(lambda: serving_workers(pool).get(2) not in (None, victim), what="worker 2 restarted")
    assert "event='apiserver.worker_restarting' worker=2" in pool.log()
    with contextlib.closing(hub.connect_to(serving_workers(pool)[2])) as connection:
        status, _, _ = connection.request("GET", "/api/v1/namespaces/default")
    assert status == 200


def test_sigterm_to_the_parent_stops_every_worker(pool: ServerProcess) -> None:
    """SIGTERM to the parent: it stops its workers, waits for them, exits 0; none of its children is left."""
    assert pool.process is not None
    parent = pool.process.pid
    children = {int(pid) for pid in Path(f"/proc/{parent}/task/{parent}/children").read_text().split()}
    assert set(serving_workers(pool).values()) <= children  # beside them: multiprocessing's resource tracker
    code = pool.stop(signal.SIGTERM)
    assert code == 0, pool.log()
    assert "event='apiserver.workers_stopped' code=0" in pool.log()
    eventually(lambda: not [pid for pid in children if process_state(pid) is not None], what="children gone")


def test_workers_without_etcd_is_a_usage_error(tmp_path: Path) -> None:
    """Processes cannot share the SQLite store: --workers without --etcd-servers says so, starts nothing."""
    result = flotilla("apiserver", "--data-dir", str(tmp_path / "hub"), "--workers", "2", check=False)
    assert result.returncode == 2
    assert "--workers needs --etcd-servers" in result.stderr
    assert "SQLite" in result.stderr
    assert not (tmp_path / "hub").exists()


def process_state(pid: int) -> str | None:
    """The state letter of process `pid` (Z: exited, not yet reaped), or None when there is none."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def test_workers_that_cannot_start_stop_the_pool_with_exit_1(tmp_path: Path) -> None:
    """A worker failing before the pool serves (no etcd there) stops the others; the command exits 1."""
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        nobody = f"http://127.0.0.1:{unused.getsockname()[1]}"  # bound, never listening: refused
        args = ["--data-dir", str(tmp_path), "--secure-port=0", f"--etcd-servers={nobody}", "--workers=2"]
        result = flotilla("apiserver", *args, check=False)
    assert result.returncode == 1, result.stderr
    assert re.search(r"cannot start: worker \d exited with 1 before serving", result.stderr)
    assert "event='apiserver.workers_stopped'" in result.stderr
