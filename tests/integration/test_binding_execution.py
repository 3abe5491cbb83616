"""Bindings → Works → members → status, with hand-made ResourceBindings (no detector or scheduler).

A hub, one `flotilla sim` process with clusters `sz` and `fz` joined in Push mode, and a controller
manager running only the binding, execution, work-status and binding-status controllers. The
Clusters are marked Ready and their execution namespaces created by hand, as the cluster
controller would; each test writes a template and a ResourceBinding whose `spec.clusters` is
already filled in, as the scheduler would.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.integration.federation import (
    Federation,
    deployment,
    member_deployments,
    members_named,
    registry_override,
    replicas_on,
    template_ready,
)
from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

CLUSTERS = ("sz", "fz")
CONTROLLERS = "binding,execution,workStatus,bindingStatus"
READY = {
    "status": {
        "conditions": [
            {
                "type": "Ready",
                "status": "True",
                "reason": "ClusterReady",
                "message": "cluster is healthy and ready to accept workloads",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
            }
        ]
    }
}


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("binding")
    members = members_named(*CLUSTERS, node_memory="16Gi")
    with Federation(root, members, manager_args=["--controllers", CONTROLLERS]) as federation:
        federation.start_hub_and_sim()
        federation.join_all()
        hub = federation.kubectl(root / "cache")
        for name in CLUSTERS:
            hub("patch", "cluster", name, "--subresource=status", "--type=merge", "-p", json.dumps(READY))
            hub("create", "namespace", f"karmada-es-{name}")
        federation.manager.start()
        yield federation


@pytest.fixture
def ns(ns: str, members: dict[str, Kubectl]) -> str:
    """The hub's fresh namespace, created on every member too (the namespace controller is not running)."""
    for kubectl in members.values():
        kubectl("create", "namespace", ns)
    return ns


def bind(hub: Kubectl, ns: str, name: str, clusters: dict[str, int], placement: dict[str, Any]) -> None:
    """Write the ResourceBinding of Deployment `name` as detector and scheduler would have."""
    template = hub.json("get", "deploy", name, "-n", ns)
    binding = {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {
            "name": f"{name}-deployment",
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "Deployment",
                    "name": name,
                    "uid": template["metadata"]["uid"],
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": {
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": ns, "name": name},
            "replicas": template["spec"]["replicas"],
            "placement": placement,
            "clusters": [{"name": cluster, "replicas": replicas} for cluster, replicas in clusters.items()],
        },
    }
    hub.apply_yaml(binding, "-n", ns, "--server-side", "--force-conflicts")


DIVIDED = {
    "clusterAffinity": {"clusterNames": list(CLUSTERS)},
    "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"},
}


def test_divided_binding_reaches_members_and_status_comes_back(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Each cluster runs its share; Works, binding and template report it; READY 3/3 on the hub."""
    hub.apply_yaml(deployment("web", 3), "-n", ns)
    bind(hub, ns, "web", {"sz": 1, "fz": 2}, DIVIDED)
    eventually(lambda: replicas_on(members, ns, "web") == {"sz": 1, "fz": 2}, what="1 on sz, 2 on fz")
    member = member_deployments(members, ns, "web")["sz"]
    assert member["metadata"]["labels"]["karmada.io/managed"] == "true"
    assert member["metadata"]["annotations"]["resourcebinding.karmada.io/name"] == "web-deployment"
    assert member["metadata"]["annotations"]["work.karmada.io/namespace"] == "karmada-es-sz"
    work_name = member["metadata"]["annotations"]["work.karmada.io/name"]
    work = hub.json("get", "work", work_name, "-n", "karmada-es-sz")
    assert "karmada.io/execution-controller" in work["metadata"]["finalizers"]

    def applied_everywhere() -> bool:
        status = hub.json("get", "rb", "web-deployment", "-n", ns).get("status", {})
        fully = [c for c in status.get("conditions", []) if c["type"] == "FullyApplied"]
        return bool(fully) and fully[0]["status"] == "True" and len(status.get("aggregatedStatus", [])) == 2

    eventually(applied_everywhere, what="FullyApplied with two aggregated items")
    eventually(lambda: template_ready(hub, ns, "web") == "3/3", what="READY 3/3 on the hub")
    work = hub.json("get", "work", work_name, "-n", "karmada-es-sz")
    statuses = work["status"]["manifestStatuses"]
    assert statuses[0]["identifier"]["resource"] == "deployments"
    assert statuses[0]["health"] == "Healthy"


def test_a_new_schedule_moves_replicas_and_removes_works_of_dropped_clusters(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Dropping sz from spec.clusters deletes its Work and its member Deployment; fz gets all."""
    hub.apply_yaml(deployment("mover", 2), "-n", ns)
    bind(hub, ns, "mover", {"sz": 1, "fz": 1}, DIVIDED)
    eventually(lambda: replicas_on(members, ns, "mover") == {"sz": 1, "fz": 1}, what="spread")
    bind(hub, ns, "mover", {"fz": 2}, DIVIDED)
    eventually(lambda: replicas_on(members, ns, "mover") == {"fz": 2}, what="all on fz")


def test_an_override_policy_changes_one_cluster_only(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """An OverridePolicy created after propagation re-renders the fz Work only."""
    hub.apply_yaml(deployment("img", 1, image="docker.io/library/nginx:1.25"), "-n", ns)
    bind(hub, ns, "img", {"sz": 1, "fz": 1}, {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}})
    eventually(lambda: set(replicas_on(members, ns, "img")) == {"sz", "fz"}, what="on both")
    override = registry_override("img", "fz", "mirror.example")
    hub.apply_yaml(override, "-n", ns)

    def images() -> dict[str, str]:
        return {
            cluster: obj["spec"]["template"]["spec"]["containers"][0]["image"]
            for cluster, obj in member_deployments(members, ns, "img").items()
        }

    eventually(
        lambda: images() == {"sz": "docker.io/library/nginx:1.25", "fz": "mirror.example/library/nginx:1.25"},
        what="image overridden on fz only",
    )


def test_an_unmanaged_member_object_is_a_conflict_left_alone(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A Deployment created directly in sz is not taken over; the Work and binding say why."""
    members["sz"].apply_yaml(deployment("taken", 1, image="busybox"), "-n", ns)
    hub.apply_yaml(deployment("taken", 1), "-n", ns)
    bind(hub, ns, "taken", {"sz": 1}, {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}})

    def conflict_reported() -> str:
        status = hub.json("get", "rb", "taken-deployment", "-n", ns).get("status", {})
        items = status.get("aggregatedStatus", [])
        return items[0].get("appliedMessage", "") if items and items[0].get("applied") is False else ""

    message = eventually(conflict_reported, what="conflict on the binding")
    assert "not managed by Karmada" in message
    member = member_deployments(members, ns, "taken")["sz"]
    assert member["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox"
    assert "karmada.io/managed" not in member["metadata"].get("labels", {})


def test_deleting_the_template_cleans_the_members(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """The garbage collector deletes the binding; its Works and their member objects follow."""
    hub.apply_yaml(deployment("gone", 1), "-n", ns)
    bind(hub, ns, "gone", {"sz": 1, "fz": 1}, {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}})
    eventually(lambda: set(replicas_on(members, ns, "gone")) == {"sz", "fz"}, what="propagated")
    hub("delete", "deploy", "gone", "-n", ns)
    eventually(lambda: replicas_on(members, ns, "gone") == {}, what="removed from members")
    eventually(
        lambda: not hub.succeeds("get", "rb", "gone-deployment", "-n", ns),
        what="binding gone",
    )


def test_a_member_object_deleted_by_hand_comes_back(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """Deleting the Deployment in a member is undone: the Work still wants it there."""
    hub.apply_yaml(deployment("drift", 1), "-n", ns)
    bind(hub, ns, "drift", {"sz": 1}, {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}})
    eventually(lambda: set(replicas_on(members, ns, "drift")) == {"sz"}, what="propagated")
    first = member_deployments(members, ns, "drift")["sz"]["metadata"]["uid"]
    members["sz"]("delete", "deploy", "drift", "-n", ns)

    def recreated() -> bool:
        found = member_deployments(members, ns, "drift").get("sz")
        return found is not None and found["metadata"]["uid"] != first

    eventually(recreated, what="re-created in sz")


def test_suspended_dispatching_keeps_the_work_off_the_member(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A binding suspending dispatching gets a suspended Work and nothing in the member until resumed."""
    hub.apply_yaml(deployment("held", 1), "-n", ns)
    template = hub.json("get", "deploy", "held", "-n", ns)
    binding = {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {"name": "held-deployment"},
        "spec": {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": ns,
                "name": "held",
                "uid": template["metadata"]["uid"],
            },
            "replicas": 1,
            "clusters": [{"name": "sz", "replicas": 1}],
            "suspension": {"dispatching": True},
        },
    }
    hub.apply_yaml(binding, "-n", ns, "--server-side")

    def dispatching() -> str:
        works = hub.json("get", "works", "-n", "karmada-es-sz")["items"]
        for work in works:
            annotations = work["metadata"].get("annotations", {})
            if annotations.get("resourcebinding.karmada.io/name") == "held-deployment":
                conditions = work.get("status", {}).get("conditions", [])
                return next((c["status"] for c in conditions if c["type"] == "Dispatching"), "")
        return ""

    eventually(lambda: dispatching() == "False", what="Dispatching False on the suspended Work")
    assert replicas_on(members, ns, "held") == {}
    binding["spec"]["suspension"] = {"dispatching": False}
    hub.apply_yaml(binding, "-n", ns, "--server-side")
    eventually(lambda: replicas_on(members, ns, "held") == {"sz": 1}, what="dispatched once resumed")
