"""`flotilla store migrate`: a hub's SQLite store copied into etcd, then served from there.

One round trip serves the module: an API server on SQLite gets a namespace, ConfigMaps, a Secret
(encrypted at rest), a CRD and a custom resource through kubectl; the migration is refused while
that server runs, then the server stops, a dry run counts, the migration copies into a real etcd
member (mutual TLS), a second migration into the same prefix is refused, and an API server on the
same --data-dir with --etcd-servers serves the objects. Each test checks one step's outcome.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess, flotilla
from tests.unit.storage.etcdserver import ETCD, ETCDCTL, MISSING_REASON, EtcdServer, running_member

pytestmark = pytest.mark.skipif(ETCD is None or ETCDCTL is None, reason=MISSING_REASON)

NAMESPACE = "moving"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "boats.fleet.example.com"},
    "spec": {
        "group": "fleet.example.com",
        "scope": "Namespaced",
        "names": {"plural": "boats", "singular": "boat", "kind": "Boat"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                },
            }
        ],
    },
}
OBJECTS = [
    ("namespace", NAMESPACE, None),
    ("configmap", "first", NAMESPACE),
    ("configmap", "second", NAMESPACE),
    ("secret", "password", NAMESPACE),
    ("customresourcedefinition", "boats.fleet.example.com", None),
    ("boat", "dinghy", NAMESPACE),
]


@dataclass
class RoundTrip:
    """What each step of the migration printed, and the objects before it."""

    before: dict[tuple[str, str], Any]
    while_running: subprocess.CompletedProcess[str]
    dry_run: subprocess.CompletedProcess[str]
    keys_after_dry_run: bytes
    migrated: subprocess.CompletedProcess[str]
    again: subprocess.CompletedProcess[str]


def _get(kubectl: Kubectl, kind: str, name: str, namespace: str | None) -> Any:
    scope = ["-n", namespace] if namespace else []
    return kubectl.json("get", kind, name, *scope)


def _fill(kubectl: Kubectl) -> dict[tuple[str, str], Any]:
    kubectl("create", "namespace", NAMESPACE)
    kubectl("create", "configmap", "first", "-n", NAMESPACE, "--from-literal=colour=blue")
    kubectl("create", "configmap", "second", "-n", NAMESPACE, "--from-literal=size=9")
    kubectl("create", "secret", "generic", "password", "-n", NAMESPACE, "--from-literal=word=swordfish")
    kubectl.apply_yaml([CRD])
    kubectl("wait", "--for=condition=Established", "crd/boats.fleet.example.com", "--timeout=20s")
    boat = {
        "apiVersion": "fleet.example.com/v1",
        "kind": "Boat",
        "metadata": {"name": "dinghy"},
        "spec": {"oars": 2},
    }
    kubectl.apply_yaml([boat], "-n", NAMESPACE)
    return {(kind, name): _get(kubectl, kind, name, namespace) for kind, name, namespace in OBJECTS}


@pytest.fixture(scope="module")
def etcd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EtcdServer]:
    yield from running_member(tmp_path_factory.mktemp("etcd"), tls=True)


def _migrate(data_dir: Path, etcd: EtcdServer, *extra: str) -> subprocess.CompletedProcess[str]:
    target = "etcd://" + etcd.url.removeprefix("https://")
    args = ["store", "migrate", "--from", f"sqlite:{data_dir}", "--to", target, *etcd.tls_flags(), *extra]
    return flotilla(*args, check=False)


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hub")


@pytest.fixture(scope="module")
def round_trip(etcd: EtcdServer, data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> RoundTrip:
    on_sqlite = ServerProcess(data_dir).start()
    try:
        before = _fill(Kubectl(on_sqlite.kubeconfig, tmp_path_factory.mktemp("kube-cache")))
        while_running = _migrate(data_dir, etcd)
    finally:
        assert on_sqlite.stop() == 0, on_sqlite.log()
    dry_run = _migrate(data_dir, etcd, "--dry-run")
    keys = etcd.ctl("get", "/registry/", "--prefix", "--keys-only").stdout
    migrated = _migrate(data_dir, etcd)
    again = _migrate(data_dir, etcd)
    return RoundTrip(before, while_running, dry_run, keys, migrated, again)


@pytest.fixture(scope="module")
def server(round_trip: RoundTrip, etcd: EtcdServer, data_dir: Path) -> Iterator[ServerProcess]:
    """The API server on etcd, on the data directory the SQLite one used (PKI, encryption keys)."""
    process = ServerProcess(data_dir, extra_args=[f"--etcd-servers={etcd.url}", *etcd.tls_flags()]).start()
    yield process
    code = process.stop()
    assert code == 0, f"apiserver did not shut down cleanly (exit {code}):\n{process.log()}"


def _mod_revision(etcd: EtcdServer, key: str) -> int:
    found = json.loads(etcd.ctl("get", key, "--write-out=json").stdout)
    return int(found["kvs"][0]["mod_revision"])


def test_migrate_refuses_while_the_api_server_runs_on_the_store(round_trip: RoundTrip) -> None:
    """The source must be stopped: the running server's SQLite connection is detected, nothing copied."""
    assert round_trip.while_running.returncode != 0
    assert "is the API server running?" in round_trip.while_running.stderr
    assert "Traceback" not in round_trip.while_running.stderr


def test_a_dry_run_counts_the_keys_per_resource_and_writes_nothing(round_trip: RoundTrip) -> None:
    assert round_trip.dry_run.returncode == 0, round_trip.dry_run.stderr
    out = round_trip.dry_run.stdout
    assert "dry run:" in out
    assert "nothing written" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith("/registry/")}
    assert int(rows["/registry/core/configmaps/"][0]) >= 2
    assert rows["/registry/fleet.example.com/boats/"] == ["1", "-"]
    assert round_trip.keys_after_dry_run.strip() == b""


def test_the_migration_copies_every_key_and_the_counts_match(round_trip: RoundTrip) -> None:
    assert round_trip.migrated.returncode == 0, round_trip.migrated.stderr
    rows = [line.split() for line in round_trip.migrated.stdout.splitlines() if line.startswith("/registry/")]
    assert rows
    assert all(source == target for _, source, target in rows)
    assert ["/registry/fleet.example.com/boats/", "1", "1"] in rows
    assert "mismatch" not in round_trip.migrated.stderr


def test_a_second_migration_into_a_non_empty_prefix_is_refused(round_trip: RoundTrip) -> None:
    assert round_trip.again.returncode != 0
    assert "is not empty" in round_trip.again.stderr
    assert "--etcd-prefix" in round_trip.again.stderr
    assert "Traceback" not in round_trip.again.stderr


def test_the_api_server_on_etcd_serves_the_same_objects_with_their_uids(
    round_trip: RoundTrip, kubectl: Kubectl
) -> None:
    """Same UIDs, creation times and contents; the Secret decrypts with the data directory's keys."""
    for kind, name, namespace in OBJECTS:
        before = round_trip.before[(kind, name)]
        after = _get(kubectl, kind, name, namespace)
        assert after["metadata"]["uid"] == before["metadata"]["uid"], (kind, name)
        assert after["metadata"]["creationTimestamp"] == before["metadata"]["creationTimestamp"]
        for part in ("data", "spec"):
            assert after.get(part) == before.get(part), (kind, name, part)
    boats = kubectl.json("get", "boats", "-n", NAMESPACE)["items"]
    assert [b["metadata"]["name"] for b in boats] == ["dinghy"]


def test_resource_versions_are_etcd_revisions_after_the_migration(
    round_trip: RoundTrip, kubectl: Kubectl, etcd: EtcdServer
) -> None:
    """An object's resourceVersion is now its etcd key's mod revision, and it updates as usual."""
    after = _get(kubectl, "configmap", "first", NAMESPACE)
    key = f"/registry/core/configmaps/{NAMESPACE}/first"
    assert int(after["metadata"]["resourceVersion"]) == _mod_revision(etcd, key)
    kubectl("patch", "configmap", "first", "-n", NAMESPACE, "--type=merge", "-p", '{"data":{"colour":"red"}}')
    patched = _get(kubectl, "configmap", "first", NAMESPACE)
    assert int(patched["metadata"]["resourceVersion"]) == _mod_revision(etcd, key)
    assert patched["metadata"]["uid"] == round_trip.before[("configmap", "first")]["metadata"]["uid"]


def test_the_secret_stays_encrypted_in_etcd(
    round_trip: RoundTrip, server: ServerProcess, etcd: EtcdServer
) -> None:
    """The value was copied as stored: the aesgcm envelope, no plaintext."""
    stored = etcd.ctl("get", f"/registry/core/secrets/{NAMESPACE}/password", "--print-value-only").stdout
    assert stored.startswith(b"k8s:enc:aesgcm:v1:")
    assert b"swordfish" not in stored
    assert b"c3dvcmRmaXNo" not in stored  # base64 of the word
