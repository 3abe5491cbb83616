"""What a hub keeps on disk (issue #13, D3 and D4): no Secret in plaintext anywhere, private files, history.

A Secret propagated to a member lives on the hub twice — as itself and inside its Work — and once
more in the member's own API server; none of the three stores, nor their write-ahead logs, nor the
hub's audit log at Request level, may hold its value or its base64. Works still read back whole,
`flotilla secrets reencrypt` rewrites them (plaintext ones left by an older version included), the
data directory is private after `flotilla apiserver` starts (and tightened when it was not), and a
watch resuming from history that only the store still holds gets every change, without stalling
the server.
"""

from __future__ import annotations

import base64
import json
import sqlite3
import stat
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from tests.integration.federation import Federation, members_named, propagation_policy, resource_selector
from tests.integration.hostile.probe import Probe
from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess
from tests.support.waiting import eventually

ENVELOPE = b"k8s:enc:aesgcm:v1:"


def disk_bytes(directory: Path, *names: str) -> bytes:
    """The raw bytes of the named files of `directory` that exist (a store, its WAL, logs)."""
    return b"".join((directory / name).read_bytes() for name in names if (directory / name).exists())


def store_bytes(data_dir: Path) -> bytes:
    return disk_bytes(data_dir, "store.db", "store.db-wal")


def flotilla(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flotilla", *args], capture_output=True, text=True, timeout=120, check=False
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# -- a Secret propagated to a member ---------------------------------------------------------------


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("at-rest")
    with Federation(root, members_named("m1")) as federation:
        federation.hub.extra_args = ["--audit-level", "Request"]
        federation.start()
        yield federation


def test_a_propagated_secret_is_in_no_store_in_plaintext(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Hub store and WAL (the Secret and its Work), the hub's audit log and the member's store hold
    neither the value nor its base64; the Work reads back with the Secret's data in its manifest."""
    value = f"s3cr3t-{uuid.uuid4().hex}"
    encoded = base64.b64encode(value.encode()).decode()
    hub("create", "secret", "generic", "db", "-n", ns, f"--from-literal=password={value}")
    policy = propagation_policy(
        "db",
        [resource_selector("Secret", "db", api_version="v1")],
        {"clusterAffinity": {"clusterNames": ["m1"]}},
    )
    hub("apply", "-n", ns, "-f", "-", input=yaml.safe_dump(policy))
    eventually(
        lambda: members["m1"].succeeds("get", "secret", "db", "-n", ns), timeout=60, what="the Secret on m1"
    )

    works = json.loads(hub("get", "works", "-n", "karmada-es-m1", "-o", "json"))["items"]
    manifests = [m for work in works for m in work["spec"]["workload"]["manifests"]]
    carried = [m for m in manifests if m.get("kind") == "Secret" and m["metadata"]["name"] == "db"]
    assert carried and carried[0]["data"] == {"password": encoded}
    assert "password" in hub("get", "works", "-n", "karmada-es-m1", "-o", "yaml")

    hub_dir, member_dir = federation.hub.data_dir, federation.sim.data_dir / "m1"
    on_disk = {
        "hub store": store_bytes(hub_dir),
        "hub audit log": disk_bytes(hub_dir, "audit.log"),
        "member store": store_bytes(member_dir),
    }
    assert b"karmada-es-m1" in on_disk["hub audit log"], "the audit log records the Work's creation"
    for where, found in on_disk.items():
        assert value.encode() not in found, f"the Secret's value is readable in the {where}"
        assert encoded.encode() not in found, f"the Secret's base64 is readable in the {where}"
    assert ENVELOPE in on_disk["hub store"] and ENVELOPE in on_disk["member store"]


# -- re-encryption and plaintext Works of an older version ----------------------------------------------


@pytest.fixture
def stoppable(tmp_path: Path) -> Iterator[ServerProcess]:
    process = ServerProcess(tmp_path / "data")
    yield process
    process.stop()


def work(name: str, secret_value: str) -> dict[str, Any]:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": "default"},
        "data": {"password": base64.b64encode(secret_value.encode()).decode()},
    }
    return {
        "apiVersion": "work.karmada.io/v1alpha1",
        "kind": "Work",
        "metadata": {"name": name, "namespace": "karmada-es-x"},
        "spec": {"workload": {"manifests": [secret]}},
    }


def store_plaintext_work(store: Path, obj: dict[str, Any]) -> None:
    """Append a Work row the way a version that did not encrypt Works stored it (the server is stopped)."""
    meta = obj["metadata"]
    meta.update(uid=str(uuid.uuid4()), creationTimestamp="2026-01-01T00:00:00Z", generation=1)
    key = f"/registry/work.karmada.io/works/{meta['namespace']}/{meta['name']}"
    conn = sqlite3.connect(store, isolation_level=None)
    try:
        (last,) = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'kine'").fetchone()
        conn.execute(
            "INSERT INTO kine (id, name, created, deleted, create_revision, prev_revision, value) "
            "VALUES (?, ?, 1, 0, ?, 0, ?)",
            (last + 1, key, last + 1, orjson.dumps(obj)),
        )
    finally:
        conn.close()


def manifest_password(kubectl: Kubectl, name: str) -> str:
    found = json.loads(kubectl("get", "work", name, "-n", "karmada-es-x", "-o", "json"))
    return base64.b64decode(found["spec"]["workload"]["manifests"][0]["data"]["password"]).decode()


def test_reencrypt_rewrites_works_including_plaintext_ones_from_an_older_version(
    stoppable: ServerProcess, tmp_path: Path
) -> None:
    """A plaintext Work stays readable; reencrypt seals it and the key-1 Work under key-2, and the
    old key can go."""
    kubectl = Kubectl(stoppable.kubeconfig, tmp_path / "cache")
    stoppable.start()
    kubectl("create", "namespace", "karmada-es-x")
    kubectl("apply", "-f", "-", input=yaml.safe_dump(work("sealed", "sealed-value")))
    assert stoppable.stop() == 0
    old_value = f"plain-{uuid.uuid4().hex}"
    store_plaintext_work(stoppable.data_dir / "store.db", work("legacy", old_value))
    assert base64.b64encode(old_value.encode()) in store_bytes(stoppable.data_dir)  # the scan sees it

    assert flotilla("secrets", "rotate-key", "--data-dir", str(stoppable.data_dir)).returncode == 0
    stoppable.start()
    assert manifest_password(kubectl, "legacy") == old_value  # readable as it was stored
    assert stoppable.stop() == 0

    done = flotilla("secrets", "reencrypt", "--data-dir", str(stoppable.data_dir))
    assert done.returncode == 0, done.stderr
    assert "2 of 2 Works" in done.stdout, done.stdout
    on_disk = store_bytes(stoppable.data_dir)
    assert old_value.encode() not in on_disk
    assert base64.b64encode(old_value.encode()) not in on_disk
    assert ENVELOPE + b"key-1:" not in on_disk

    keys_file = stoppable.data_dir / "encryption-keys.yaml"
    keys = yaml.safe_load(keys_file.read_text())
    keys["keys"] = keys["keys"][:1]
    keys_file.write_text(yaml.safe_dump(keys))
    stoppable.start()
    assert manifest_password(kubectl, "legacy") == old_value
    assert manifest_password(kubectl, "sealed") == "sealed-value"


# -- the data directory -------------------------------------------------------------------------------


PRIVATE_FILES = (
    "store.db",
    "store.db-wal",
    "store.db-shm",
    "encryption-keys.yaml",
    "admin.kubeconfig",
    "audit.log",
)


def test_the_data_directory_is_private_and_a_loose_one_is_tightened(stoppable: ServerProcess) -> None:
    """0700 directories, 0600 files (certificates may stay 0644); a second start tightens what an
    older version (or a user) left readable by others, and logs each path."""
    stoppable.start()
    data = stoppable.data_dir
    pki = data / "pki"
    assert Probe(stoppable).send("GET", "/api/v1/namespaces").status == 200
    eventually((data / "audit.log").exists, what="the audit log written")
    assert mode(data) == mode(pki) == 0o700
    for name in PRIVATE_FILES:
        assert mode(data / name) == 0o600, name
    keys = sorted(pki.glob("*.key"))
    assert keys and all(mode(key) == 0o600 for key in keys)
    assert all(mode(path) & 0o022 == 0 for path in pki.iterdir())
    assert stoppable.stop() == 0

    loosened = [data / "store.db", data / "encryption-keys.yaml", data / "audit.log", keys[0]]
    data.chmod(0o755)
    pki.chmod(0o755)
    for path in loosened:
        path.chmod(0o644)
    stoppable.start()
    assert mode(data) == mode(pki) == 0o700
    assert all(mode(path) == 0o600 for path in loosened)
    tightened = [line for line in stoppable.log().splitlines() if "permissions_tightened" in line]
    for path in [data, pki, *loosened]:
        assert any(f"'{path}'" in line for line in tightened), path


# -- history that only the store holds --------------------------------------------------------------


class WatchStream:
    """A raw watch on one connection, read line by line."""

    def __init__(self, probe: Probe, path: str) -> None:
        self.connection = probe.connect(timeout=60)
        self.connection.request("GET", path)
        self.response = self.connection.getresponse()
        assert self.response.status == 200

    def events(self, count: int) -> list[dict[str, Any]]:
        found = []
        while len(found) < count:
            line = self.response.readline()
            if not line:
                break
            found.append(json.loads(line))
        return found

    def close(self) -> None:
        self.connection.close()


def put(probe: Probe, current: dict[str, Any], payload: str) -> dict[str, Any]:
    current["data"] = {"payload": payload}
    answer = probe.send("PUT", "/api/v1/namespaces/default/configmaps/big", current, timeout=60)
    assert answer.status == 200, answer.body
    updated: dict[str, Any] = answer.body
    return updated


def test_a_watch_resumed_from_history_kept_only_on_disk_gets_every_change(tmp_path: Path) -> None:
    """With a 256 KiB in-memory history, 40 updates of a 400 KB ConfigMap are replayed from the store
    to a watch from the first revision — each once, in order — then live ones follow; /readyz stays
    fast while the replay runs."""
    server = ServerProcess(tmp_path / "hub", ["--history-max-bytes", str(256 * 1024)]).start()
    try:
        probe = Probe(server)
        created = probe.send(
            "POST", "/api/v1/namespaces/default/configmaps", {"metadata": {"name": "big"}, "data": {}}
        )
        assert created.status == 201, created.body
        start = int(created.body["metadata"]["resourceVersion"])
        current = created.body
        revisions = []
        for i in range(40):
            current = put(probe, current, f"{i:04d}" + "x" * 400_000)
            revisions.append(int(current["metadata"]["resourceVersion"]))

        with probe.responsiveness():
            watch = WatchStream(
                probe, f"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={start}"
            )
            replayed = watch.events(40)
        try:
            assert [e["type"] for e in replayed] == ["MODIFIED"] * 40
            assert [int(e["object"]["metadata"]["resourceVersion"]) for e in replayed] == revisions
            assert [e["object"]["data"]["payload"][:4] for e in replayed] == [f"{i:04d}" for i in range(40)]
            live = put(probe, current, "after")
            (followed,) = watch.events(1)
            assert followed["type"] == "MODIFIED"
            assert followed["object"]["metadata"]["resourceVersion"] == live["metadata"]["resourceVersion"]
        finally:
            watch.close()
    finally:
        assert server.stop() == 0


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def test_the_history_of_a_large_object_stays_within_its_byte_bound(tmp_path: Path) -> None:
    """D3: 120 updates of a 900 KB ConfigMap, each sent to a watcher, grow the server by far less
    than the 108 MB the versions weigh (it grew ~4.7 MB per update when every version stayed in memory)."""
    server = ServerProcess(tmp_path / "hub", ["--history-max-bytes", str(8 * 1024 * 1024)]).start()
    try:
        assert server.process is not None
        probe = Probe(server)
        created = probe.send(
            "POST", "/api/v1/namespaces/default/configmaps", {"metadata": {"name": "big"}, "data": {}}
        )
        assert created.status == 201, created.body
        start = created.body["metadata"]["resourceVersion"]
        watch = WatchStream(
            probe, f"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion={start}"
        )
        seen: list[int] = []
        last = [0]  # the revision to read up to, once the writes are done

        def read() -> None:
            while not (last[0] and seen and seen[-1] >= last[0]):
                (event,) = watch.events(1)
                seen.append(int(event["object"]["metadata"]["resourceVersion"]))

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            current = created.body
            for i in range(5):  # first allocations of buffers that large are not what is measured
                current = put(probe, current, f"{i:04d}" + "x" * 900_000)
            before = rss_bytes(server.process.pid)
            for i in range(120):
                current = put(probe, current, f"{i:04d}" + "x" * 900_000)
            last[0] = int(current["metadata"]["resourceVersion"])
            # One more event, in case the reader took the last update before `last` was set.
            nudge = {"metadata": {"name": "nudge"}, "data": {}}
            assert probe.send("POST", "/api/v1/namespaces/default/configmaps", nudge).status == 201
            eventually(lambda: not reader.is_alive(), timeout=60, what="the watcher received every update")
            growth = rss_bytes(server.process.pid) - before
        finally:
            watch.close()
        assert growth < 120 * 900_000, f"RSS grew {growth / 2**20:.0f} MiB over 120 updates of 900 KB"
    finally:
        assert server.stop() == 0
