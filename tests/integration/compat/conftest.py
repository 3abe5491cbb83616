"""One federation for the whole compatibility suite: a hub, two simulated members, a controller manager.

Every client of the suite (four kubectl versions, the official Python client, lightkube, kr8s, a kopf
operator) meets the same hub, each in namespaces of its own, so the suite pays for one set of processes.
Workloads go to both members through one PropagationPolicy per namespace, so a Deployment applied by a
client gets copies in the members and the status aggregated back, as a user of that client would see it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.compat.workloads import MEMBERS, spread_policy
from tests.integration.federation import Federation, members_named
from tests.support.kubectl import Kubectl


@pytest.fixture(scope="package")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("compat")
    with Federation(root, members_named(*MEMBERS, nodes=2)) as federation:
        yield federation.start()


@pytest.fixture(scope="package")
def hub_admin(federation: Federation, tmp_path_factory: pytest.TempPathFactory) -> Kubectl:
    """The system kubectl against the hub, for the suite's own set-up and checks (not under test)."""
    return federation.kubectl(tmp_path_factory.mktemp("admin-cache"))


@pytest.fixture(scope="package")
def kubeconfig(federation: Federation) -> Path:
    return federation.hub.kubeconfig


def client_namespace(hub_admin: Kubectl, name: str) -> str:
    """Namespace `name` on the hub with the policy that spreads every Deployment in it over both members."""
    if not hub_admin.succeeds("get", "namespace", name):
        hub_admin("create", "namespace", name)
    hub_admin.apply_yaml(spread_policy(), "-n", name)
    return name
