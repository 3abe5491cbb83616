"""Impersonation end to end: `kubectl --as` acts as the user named, if the caller may impersonate it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.hostile.probe import Probe
from tests.integration.test_authentication import token_kubectl
from tests.support.kubectl import Kubectl
from tests.support.processes import ServerProcess

EVE_TOKEN = "eve-token-000000001"
IVAN_TOKEN = "ivan-token-00000001"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """A hub where eve may do nothing and ivan may impersonate the user alice, and only her."""
    directory = tmp_path_factory.mktemp("impersonation")
    (directory / "tokens.csv").write_text(f"{EVE_TOKEN},eve,3001\n{IVAN_TOKEN},ivan,3002\n")
    process = ServerProcess(directory / "data", ["--token-auth-file", str(directory / "tokens.csv")]).start()
    admin = Kubectl(process.kubeconfig, directory / "cache")
    admin(
        "create",
        "clusterrole",
        "impersonate-alice",
        "--verb=impersonate",
        "--resource=users",
        "--resource-name=alice",
    )
    admin("create", "clusterrolebinding", "ivan-as-alice", "--clusterrole=impersonate-alice", "--user=ivan")
    admin("create", "configmap", "visible", "-n", "default")
    yield process
    code = process.stop()
    assert code == 0, f"apiserver did not shut down cleanly (exit {code}):\n{process.log()}"


def test_kubectl_as_runs_the_request_as_that_user(kubectl: Kubectl) -> None:
    """alice has no permissions: acting as her, the admin is refused as she would be."""
    refused = kubectl.run("get", "configmaps", "-n", "default", "--as=alice", check=False)
    assert refused.returncode != 0
    assert 'User "alice" cannot list resource "configmaps"' in refused.stderr
    assert kubectl("auth", "can-i", "list", "configmaps", "--as=alice", check=False).strip() == "no"
    listed = kubectl(
        "get", "configmaps", "-n", "default", "--as=alice", "--as-group=system:masters", "-o", "name"
    )
    assert "configmap/visible" in listed


def test_impersonating_needs_the_impersonate_verb_on_what_is_impersonated(
    server: ServerProcess, tmp_path: Path
) -> None:
    answer = Probe(server, token=EVE_TOKEN).send(
        "GET", "/api/v1/namespaces/default/configmaps", headers={"Impersonate-User": "alice"}
    )
    assert answer.is_status(403), answer.body
    assert answer.message == (
        'users "alice" is forbidden: User "eve" cannot impersonate resource "users" in API group "" at the '
        "cluster scope"
    )
    ivan = token_kubectl(server, IVAN_TOKEN, tmp_path)
    as_alice = ivan.run("get", "configmaps", "-n", "default", "--as=alice", check=False)
    assert 'User "alice" cannot list resource "configmaps"' in as_alice.stderr
    as_bob = ivan.run("get", "configmaps", "-n", "default", "--as=bob", check=False)
    assert 'users "bob" is forbidden: User "ivan" cannot impersonate resource "users"' in as_bob.stderr
    with_group = ivan.run(
        "get", "configmaps", "-n", "default", "--as=alice", "--as-group=system:masters", check=False
    )
    assert 'groups "system:masters" is forbidden: User "ivan" cannot impersonate resource "groups"' in (
        with_group.stderr
    )
