"""Unjoining members that run propagated workloads: cleaned when reachable, never hanging when not.

A `Federation` of `sz` and `fz` with the whole controller manager. A Deployment is propagated to
both; `flotilla unjoin sz` removes it from sz; `fz` is made unreachable and `flotilla unjoin fz
--force` completes without waiting for a member that will not answer.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    deployment,
    members_named,
    propagation_policy,
    resource_selector,
)
from tests.support.kubectl import Kubectl
from tests.support.processes import flotilla
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

CLUSTERS = ("sz", "fz")


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    manager_args = [*FAST_CLUSTER_STATUS, "--cluster-failure-threshold", "2"]
    root = tmp_path_factory.mktemp("unjoin")
    with Federation(root, members_named(*CLUSTERS), manager_args=manager_args) as federation:
        yield federation.start(wait_ready=False)


def test_unjoin_cleans_reachable_members_and_does_not_hang_on_unreachable_ones(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A reachable member loses the workload on unjoin; an unreachable one is let go at once."""
    placement = {"clusterAffinity": {"clusterNames": list(CLUSTERS)}}
    policy = propagation_policy("web", [resource_selector("Deployment", "web")], placement)
    hub.apply_yaml([deployment("web", 1), policy], "-n", ns)

    def on(name: str) -> bool:
        return members[name].succeeds("get", "deploy", "web", "-n", ns)

    for name in CLUSTERS:
        eventually(lambda name=name: on(name), timeout=60, what=f"propagated to {name}")

    hub_kubeconfig = str(federation.hub.kubeconfig)
    flotilla("unjoin", "sz", "--kubeconfig", hub_kubeconfig, "--wait", "60")
    assert not on("sz")

    federation.sim.fault("fz", "--unreachable")
    started = time.monotonic()
    flotilla("unjoin", "fz", "--kubeconfig", hub_kubeconfig, "--wait", "30", "--force")
    assert time.monotonic() - started < 30, "unjoin waited for the unreachable member until forced"
    assert not hub.succeeds("get", "cluster", "fz")
    assert hub.json("get", "works", "-n", "karmada-es-fz")["items"] == []
