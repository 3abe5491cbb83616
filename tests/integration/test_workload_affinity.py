"""A policy's `workloadAffinity` enforced end to end: a hub, three simulated members, the controller manager.

Workloads join a group by a label of their template (`groupByLabelKey`): the detector writes the
group into the binding, the scheduler's WorkloadAffinity and WorkloadAntiAffinity filters place it
by where the group's other workloads are, and the members end up running them there.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.federation import (
    Federation,
    condition,
    deployment,
    members_named,
    propagation_policy,
    replicas_on,
    resource_selector,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

MEMBERS = ("member1", "member2", "member3")
ONE_CLUSTER = [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    with Federation(tmp_path_factory.mktemp("affinity"), members_named(*MEMBERS)) as federation:
        yield federation.start()


def labelled(name: str, replicas: int, namespace: str, **labels: str) -> dict[str, Any]:
    body = deployment(name, replicas, namespace=namespace)
    body["metadata"]["labels"].update(labels)
    return body


def binding_of(hub: Kubectl, namespace: str, name: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = hub.json_or_none(
        "get", "resourcebinding", f"{name}-deployment", "-n", namespace
    )
    return found


def placement(hub: Kubectl, namespace: str, name: str) -> dict[str, int] | None:
    """The binding's result once it is Scheduled, as {cluster: replicas}."""
    binding = binding_of(hub, namespace, name)
    if binding is None or condition(binding, "Scheduled").get("status") != "True":
        return None
    return {item["name"]: item.get("replicas", 0) for item in binding["spec"].get("clusters") or []}


def test_an_affinity_group_follows_the_workload_placed_first(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """`cache` is pinned to member3; `web`, of the same `app.stack`, would divide over all three but
    runs all its replicas on member3."""
    grouped = {"workloadAffinity": {"affinity": {"groupByLabelKey": "app.stack"}}}
    cache_policy = {"clusterAffinity": {"clusterNames": ["member3"]}, **grouped}
    hub.apply_yaml(
        [
            labelled("cache", 1, ns, **{"app.stack": "shop"}),
            propagation_policy(
                "cache", [resource_selector("Deployment", "cache")], cache_policy, namespace=ns
            ),
        ]
    )
    eventually(lambda: placement(hub, ns, "cache") == {"member3": 1}, timeout=60, what="cache on member3")

    evenly = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
    hub.apply_yaml(
        [
            labelled("web", 3, ns, **{"app.stack": "shop"}),
            propagation_policy(
                "web",
                [resource_selector("Deployment", "web")],
                {"replicaScheduling": evenly, **grouped},
                namespace=ns,
            ),
        ]
    )
    assert eventually(lambda: placement(hub, ns, "web"), timeout=60, what="web scheduled") == {"member3": 3}
    web_binding = binding_of(hub, ns, "web")
    assert web_binding is not None
    assert web_binding["spec"]["workloadAffinityGroups"] == {"affinityGroup": "app.stack=shop"}
    eventually(
        lambda: replicas_on(members, ns, "web") == {"member3": 3}, timeout=60, what="web runs on member3"
    )


def test_an_anti_affinity_group_never_shares_a_cluster(
    hub: Kubectl, members: dict[str, Kubectl], ns: str, tmp_path: Path
) -> None:
    """Three pipelines of one `app.ha`, applied at once, run on three different members; a fourth has
    nowhere to go (NoClusterFit) until one of them is deleted, and then takes its member."""
    selector = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "labelSelector": {"matchLabels": {"app.ha": "pipeline"}},
    }
    apart = {
        "spreadConstraints": ONE_CLUSTER,
        "workloadAffinity": {"antiAffinity": {"groupByLabelKey": "app.ha"}},
    }
    pipelines = ["p1", "p2", "p3"]
    hub.apply_yaml(
        [
            propagation_policy("pipelines", [selector], apart, namespace=ns),
            *(labelled(name, 1, ns, **{"app.ha": "pipeline"}) for name in pipelines),
        ]
    )
    placed = {
        name: eventually(lambda name=name: placement(hub, ns, name), timeout=60, what=f"{name} scheduled")
        for name in pipelines
    }
    where = {name: next(iter(clusters)) for name, clusters in placed.items()}
    assert sorted(where.values()) == list(MEMBERS), placed
    for name, cluster in where.items():
        eventually(
            lambda name=name, cluster=cluster: replicas_on(members, ns, name) == {cluster: 1},
            timeout=60,
            what=f"{name} runs on {cluster} only",
        )

    hub.apply_yaml([labelled("p4", 1, ns, **{"app.ha": "pipeline"})])
    stuck = eventually(
        lambda: condition(binding_of(hub, ns, "p4"), "Scheduled") or None, timeout=60, what="p4 tried"
    )
    assert (stuck["status"], stuck["reason"]) == ("False", "NoClusterFit")
    assert "3 cluster already has workload with the same anti-affinity group" in stuck["message"]

    hub("delete", "deployment", "p1", "-n", ns)
    freed = where["p1"]
    eventually(lambda: placement(hub, ns, "p4") == {freed: 1}, timeout=60, what=f"p4 on {freed}")
    eventually(lambda: replicas_on(members, ns, "p4") == {freed: 1}, timeout=60, what=f"p4 runs on {freed}")
