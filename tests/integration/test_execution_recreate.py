"""Member objects deleted behind Flotilla's back come back: while the manager runs, and after a restart.

A `Federation` with one member and a controller manager without leader election (so a manager
restarted after kill -9 acts at once). The member's own kubeconfig deletes what the hub delivered.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    members_named,
    propagation_policy,
    resource_selector,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

CLUSTER = "solo"
MANAGER_ARGS = [*FAST_CLUSTER_STATUS, "--cluster-failure-threshold", "2", "--leader-elect=false"]


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("recreate")
    with Federation(root, members_named(CLUSTER), manager_args=MANAGER_ARGS) as federation:
        yield federation.start(wait_ready=False)


def workload(name: str) -> list[dict[str, Any]]:
    """ConfigMap `name` and a policy placing it on the member."""
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name},
        "data": {"greeting": "hello"},
    }
    selectors = [resource_selector("ConfigMap", name, api_version="v1")]
    return [config_map, propagation_policy(name, selectors, {"clusterAffinity": {"clusterNames": [CLUSTER]}})]


def member_uid(member: Kubectl, ns: str, name: str) -> str:
    found = member.json_or_none("get", "configmap", name, "-n", ns)
    return str(found["metadata"]["uid"]) if found else ""


def test_deleted_member_objects_are_recreated_while_running_and_after_a_restart(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A member object deleted by hand comes back, also when it was deleted while the manager was down."""
    member = members[CLUSTER]
    hub.apply_yaml(workload("greeting"), "-n", ns)
    original = eventually(lambda: member_uid(member, ns, "greeting"), what="delivered")

    member("delete", "configmap", "greeting", "-n", ns)
    recreated = eventually(
        lambda: (uid := member_uid(member, ns, "greeting")) not in ("", original) and uid,
        what="re-created while the manager runs",
    )

    federation.manager.kill()
    member("delete", "configmap", "greeting", "-n", ns)
    federation.manager.start()
    eventually(
        lambda: member_uid(member, ns, "greeting") not in ("", original, recreated),
        what="re-created after a restart",
    )
