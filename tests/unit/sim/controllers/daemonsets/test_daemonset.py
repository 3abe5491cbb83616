"""The DaemonSet controller: a pod per eligible node, pinned by node affinity, rolled node by node."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.localclient import LocalClient
from flotilla.sim.controllers.daemonsets import nodeplacement
from flotilla.sim.controllers.daemonsets.daemonpods import REVISION_LABEL, target_node
from flotilla.sim.controllers.daemonsets.daemonset import DaemonSetController
from flotilla.sim.controllers.framework.kinds import DAEMON_SET, NODE, POD
from tests.support.waiting import eventually_async
from tests.unit.sim.controllers.fakekubelet import run_pods_until
from tests.unit.sim.controllers.harness import pod_template, running


def daemon_set(**spec: Any) -> dict[str, Any]:
    template = pod_template({"app": "agent"})
    template["spec"].update(spec.pop("pod", {}))
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": template, **spec},
    }


async def add_nodes(client: LocalClient, count: int = 3, **labels: str) -> None:
    for index in range(count):
        await client.create(
            NODE,
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": f"node-{index}",
                    "labels": {"kubernetes.io/hostname": f"node-{index}", **labels},
                },
            },
        )


def nodes_with_pods(client: LocalClient) -> list[str]:
    return sorted(
        target_node(pod)
        for pod in client.list(POD, namespace="default")
        if not pod["metadata"].get("deletionTimestamp")
    )


def status_of(client: LocalClient) -> dict[str, Any]:
    found = client.get(DAEMON_SET, "agent", namespace="default")
    assert found is not None
    return found.get("status") or {}


async def test_every_node_gets_one_pod_pinned_to_it(api: EmbeddedAPI, client: LocalClient) -> None:
    """Three nodes, three pods, each with a required affinity on its node's name and daemon tolerations."""
    await add_nodes(client)
    async with running(api, DaemonSetController):
        await client.create(DAEMON_SET, daemon_set())
        await eventually_async(lambda: nodes_with_pods(client) == ["node-0", "node-1", "node-2"])
        pod = client.list(POD, namespace="default")[0]
        terms = pod["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        assert terms == {
            "nodeSelectorTerms": [
                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [target_node(pod)]}]}
            ]
        }
        assert "nodeName" not in pod["spec"]
        assert {
            "key": "node.kubernetes.io/unschedulable",
            "operator": "Exists",
            "effect": "NoSchedule",
        } in pod["spec"]["tolerations"]
        assert pod["metadata"]["labels"][REVISION_LABEL]
        await eventually_async(lambda: status_of(client).get("currentNumberScheduled") == 3)
        status = status_of(client)
        assert status["desiredNumberScheduled"] == 3 and status["numberReady"] == 0
        assert status["numberUnavailable"] == 3 and status["updatedNumberScheduled"] == 3


async def test_status_follows_pod_readiness(api: EmbeddedAPI, client: LocalClient) -> None:
    """Ready pods count as ready and available; nothing is unavailable then."""
    await add_nodes(client, 2)
    async with running(api, DaemonSetController):
        await client.create(DAEMON_SET, daemon_set())
        await run_pods_until(client, "default", lambda: status_of(client).get("numberAvailable") == 2)
        status = status_of(client)
        assert status["numberReady"] == 2 and "numberUnavailable" not in status
        assert status["observedGeneration"] == 1


async def test_node_selector_and_labels_decide_where_pods_run(api: EmbeddedAPI, client: LocalClient) -> None:
    """Only labelled nodes get a pod; labelling a node adds one, unlabelling removes it."""
    await add_nodes(client)
    await client.patch(NODE, "node-0", {"metadata": {"labels": {"tier": "edge"}}})
    async with running(api, DaemonSetController):
        await client.create(DAEMON_SET, daemon_set(pod={"nodeSelector": {"tier": "edge"}}))
        await eventually_async(lambda: nodes_with_pods(client) == ["node-0"])
        await client.patch(NODE, "node-2", {"metadata": {"labels": {"tier": "edge"}}})
        await eventually_async(lambda: nodes_with_pods(client) == ["node-0", "node-2"])
        await client.patch(NODE, "node-0", {"metadata": {"labels": {"tier": None}}})
        await eventually_async(lambda: nodes_with_pods(client) == ["node-2"])
        await eventually_async(lambda: status_of(client).get("desiredNumberScheduled") == 1)


async def test_untolerated_taints_keep_pods_away_but_cordoned_nodes_keep_theirs(
    api: EmbeddedAPI, client: LocalClient
) -> None:
    """A NoSchedule taint of its own bars a node; the unschedulable taint of a cordon does not."""
    await add_nodes(client)
    await client.patch(
        NODE, "node-1", {"spec": {"taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]}}
    )
    await client.patch(
        NODE,
        "node-2",
        {
            "spec": {
                "unschedulable": True,
                "taints": [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}],
            }
        },
    )
    async with running(api, DaemonSetController):
        await client.create(DAEMON_SET, daemon_set())
        await eventually_async(lambda: nodes_with_pods(client) == ["node-0", "node-2"])


async def test_a_rolling_update_replaces_one_node_at_a_time(api: EmbeddedAPI, client: LocalClient) -> None:
    """maxUnavailable 1: never two nodes without an available pod while the new image rolls out."""
    await add_nodes(client)
    async with running(api, DaemonSetController):
        await client.create(DAEMON_SET, daemon_set())
        await run_pods_until(client, "default", lambda: status_of(client).get("numberAvailable") == 3)
        old_hash = client.list(POD, namespace="default")[0]["metadata"]["labels"][REVISION_LABEL]
        await client.patch(
            DAEMON_SET,
            "agent",
            {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:1.28"}]}}}},
            namespace="default",
        )
        worst = 0

        def step() -> bool:
            nonlocal worst
            ready_nodes = {
                target_node(pod)
                for pod in client.list(POD, namespace="default")
                if not pod["metadata"].get("deletionTimestamp")
                and any(
                    c["type"] == "Ready" and c["status"] == "True"
                    for c in pod.get("status", {}).get("conditions", [])
                )
            }
            worst = max(worst, 3 - len(ready_nodes))
            status = status_of(client)
            return (
                status.get("updatedNumberScheduled") == 3
                and status.get("numberAvailable") == 3
                and (status.get("observedGeneration") == 2)
            )

        await run_pods_until(client, "default", step)
        assert worst <= 1
        hashes = {pod["metadata"]["labels"][REVISION_LABEL] for pod in client.list(POD, namespace="default")}
        assert len(hashes) == 1 and old_hash not in hashes


def test_a_node_fits_when_every_expression_of_one_term_matches() -> None:
    """Terms are ORed, expressions ANDed; Gt compares integers; an empty term matches nothing."""
    node = {"metadata": {"name": "n1", "labels": {"zone": "a", "cores": "16"}}}

    def spec(*terms: dict[str, Any]) -> dict[str, Any]:
        return {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}
                }
            }
        }

    zone_b = {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}
    big = {
        "matchExpressions": [
            {"key": "cores", "operator": "Gt", "values": ["8"]},
            {"key": "gpu", "operator": "DoesNotExist"},
        ]
    }
    assert nodeplacement.fits_node(spec(zone_b, big), node)
    assert not nodeplacement.fits_node(spec(zone_b), node)
    assert not nodeplacement.fits_node(spec({}), node)
    named = {"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]}
    assert not nodeplacement.fits_node(spec(named), node)


def test_a_pod_may_stay_on_a_node_with_an_untolerated_no_schedule_taint() -> None:
    """NoSchedule bars new pods only; NoExecute also evicts."""
    node: dict[str, Any] = {
        "metadata": {"name": "n1"},
        "spec": {"taints": [{"key": "k", "effect": "NoSchedule"}]},
    }
    assert nodeplacement.should_run({}, node) == (False, True)
    node["spec"]["taints"] = [{"key": "k", "value": "v", "effect": "NoExecute"}]
    assert nodeplacement.should_run({}, node) == (False, False)
    tolerant = {"tolerations": [{"key": "k", "operator": "Equal", "value": "v"}]}
    assert nodeplacement.should_run(tolerant, node) == (True, True)
