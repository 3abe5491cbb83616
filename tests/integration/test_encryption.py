"""Secrets encrypted at rest, seen from outside: the store's bytes, kubectl, and key rotation with the CLI."""

from __future__ import annotations

import base64
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess


@pytest.fixture
def stoppable(tmp_path: Path) -> Iterator[ServerProcess]:
    """A server of this test alone, which the test stops and starts again."""
    process = ServerProcess(tmp_path / "data")
    yield process
    process.stop()


def store_bytes(data_dir: Path) -> bytes:
    """Everything SQLite has on disk for the store: the database file and its write-ahead log."""
    return b"".join(
        (data_dir / name).read_bytes() for name in ("store.db", "store.db-wal") if (data_dir / name).exists()
    )


def flotilla(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "flotilla", *args], capture_output=True, text=True, timeout=60, check=False
    )


def secret_value(kubectl: Kubectl, name: str, namespace: str = "default") -> str:
    encoded = kubectl("get", "secret", name, "-n", namespace, "-o", "jsonpath={.data.password}")
    return base64.b64decode(encoded).decode()


def test_a_secret_is_not_in_the_store_in_plaintext_but_reads_back_decrypted(
    server: ServerProcess, kubectl: Kubectl, namespace: str
) -> None:
    """The database file and WAL hold neither the value nor its base64; the API returns it intact."""
    secret, visible = f"s3cr3t-{uuid.uuid4().hex}", f"plain-{uuid.uuid4().hex}"
    kubectl("create", "secret", "generic", "db", "-n", namespace, f"--from-literal=password={secret}")
    kubectl("create", "configmap", "settings", "-n", namespace, f"--from-literal=value={visible}")

    on_disk = store_bytes(server.data_dir)
    assert visible.encode() in on_disk  # the scan does see what is stored in plaintext
    assert secret.encode() not in on_disk
    assert base64.b64encode(secret.encode()) not in on_disk
    assert b"k8s:enc:aesgcm:v1:key-1:" in on_disk
    assert secret_value(kubectl, "db", namespace) == secret


def test_the_key_file_is_private_and_holds_one_256_bit_key(server: ServerProcess) -> None:
    """encryption-keys.yaml is created on first start, mode 0600, with a single AES-256 key."""
    path = server.data_dir / "encryption-keys.yaml"
    assert path.stat().st_mode & 0o777 == 0o600
    (key,) = yaml.safe_load(path.read_text())["keys"]
    assert key["name"] == "key-1"
    assert len(base64.b64decode(key["secret"])) == 32


def test_kubectl_auth_can_i_list_works(kubectl: Kubectl) -> None:
    """`kubectl auth can-i --list` (a protobuf SelfSubjectRulesReview) answers with the admin's rules."""
    listed = kubectl("auth", "can-i", "--list")
    assert "Resources" in listed.splitlines()[0]
    assert "*.*" in listed
    assert "yes" in kubectl("auth", "can-i", "create", "secrets")


def test_after_rotation_and_reencryption_the_old_key_can_go(stoppable: ServerProcess, tmp_path: Path) -> None:
    """rotate-key, restart, reencrypt (refused while serving), drop the old key: every Secret still reads."""
    data_dir = stoppable.data_dir
    kubectl = Kubectl(stoppable.kubeconfig, tmp_path / "cache")
    stoppable.start()
    kubectl("create", "secret", "generic", "before", "--from-literal=password=first-value")

    rotated = flotilla("secrets", "rotate-key", "--data-dir", str(data_dir))
    assert rotated.returncode == 0, rotated.stderr
    keys_file = data_dir / "encryption-keys.yaml"
    assert [k["name"] for k in yaml.safe_load(keys_file.read_text())["keys"]] == ["key-2", "key-1"]

    stoppable.stop()
    stoppable.start()
    kubectl("create", "secret", "generic", "after", "--from-literal=password=second-value")
    refused = flotilla("secrets", "reencrypt", "--data-dir", str(data_dir))
    assert refused.returncode != 0
    assert "in use" in refused.stderr
    assert stoppable.stop() == 0

    without_old = yaml.safe_load(keys_file.read_text())
    without_old["keys"] = without_old["keys"][:1]
    full = keys_file.read_text()
    keys_file.write_text(yaml.safe_dump(without_old))
    with pytest.raises(RuntimeError, match="encrypted with key 'key-1'"):
        stoppable.start()  # the old key is still needed: the server says so and does not start
    keys_file.write_text(full)

    done = flotilla("secrets", "reencrypt", "--data-dir", str(data_dir))
    assert done.returncode == 0, done.stderr
    assert "1 of" in done.stdout and "key-2" in done.stdout
    on_disk = store_bytes(data_dir)
    assert b"k8s:enc:aesgcm:v1:key-1:" not in on_disk
    assert b"k8s:enc:aesgcm:v1:key-2:" in on_disk

    keys_file.write_text(yaml.safe_dump(without_old))
    stoppable.start()
    assert secret_value(kubectl, "before") == "first-value"
    assert secret_value(kubectl, "after") == "second-value"
