"""Karmada-style propagation end to end: a hub, a controller manager and three simulated members.

The members are `sz` and `fz` (region-a) and `gz` (region-b); all run in one `flotilla sim` process
and are joined in Push mode with `flotilla join`. Every test uses its own namespace on the hub.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from tests.integration.federation import (
    FAST_CLUSTER_STATUS,
    Federation,
    MemberCluster,
    deployment,
    member_deployments,
    nginx_walkthrough,
    propagation_policy,
    ready_on,
    registry_override,
    replicas_on,
    resource_selector,
    static_weights,
    template_ready,
)
from tests.integration.harness import Kubectl, wait_until

pytestmark = pytest.mark.kubectl

MEMBERS = {
    "sz": {
        "topology.kubernetes.io/region": "region-a",
        "topology.kubernetes.io/zone": "region-a-1",
        "provider": "cloud-one",
        "tier": "gold",
    },
    "fz": {
        "topology.kubernetes.io/region": "region-a",
        "topology.kubernetes.io/zone": "region-a-2",
        "provider": "cloud-one",
        "tier": "silver",
    },
    "gz": {
        "topology.kubernetes.io/region": "region-b",
        "topology.kubernetes.io/zone": "region-b-1",
        "provider": "cloud-two",
        "tier": "silver",
    },
}


def member_cluster(name: str, labels: dict[str, str]) -> MemberCluster:
    """Two nodes of 4 CPUs and 8Gi, joined with the provider, region and zone its labels name."""
    return MemberCluster(
        name,
        nodes=2,
        node_cpu="4",
        node_memory="8Gi",
        labels=labels,
        region=labels["topology.kubernetes.io/region"],
        zones=labels["topology.kubernetes.io/zone"],
        provider=labels["provider"],
    )


@pytest.fixture(scope="module")
def federation(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Federation]:
    root = tmp_path_factory.mktemp("karmada")
    members = [member_cluster(name, labels) for name, labels in MEMBERS.items()]
    manager_args = [*FAST_CLUSTER_STATUS, "--cluster-failure-threshold", "2"]
    with Federation(root, members, manager_args=manager_args) as federation:
        federation.start(wait_ready=False)
        hub = federation.kubectl(root / "cache-hub")
        for name, labels in MEMBERS.items():
            hub("label", "cluster", name, f"tier={labels['tier']}", "--overwrite")
        federation.wait_clusters_ready()
        yield federation


def test_getting_started_walkthrough(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Karmada's walkthrough verbatim: nginx split 1:1 over sz and fz, READY 2/2 on the hub."""
    hub.apply_yaml(nginx_walkthrough("sz", "fz"), "-n", ns)
    wait_until(
        lambda: replicas_on(members, ns, "nginx") == {"sz": 1, "fz": 1}, message="1 replica on sz and fz"
    )
    wait_until(lambda: ready_on(members, ns, "nginx") == {"sz": 1, "fz": 1}, message="running on members")
    wait_until(lambda: template_ready(hub, ns, "nginx") == "2/2", message="READY 2/2 on the hub")
    binding = hub.json("get", "resourcebinding", "nginx-deployment", "-n", ns)
    assert sorted(c["name"] for c in binding["spec"]["clusters"]) == ["fz", "sz"]
    member_deploy = members["sz"].json("get", "deploy", "nginx", "-n", ns)
    assert member_deploy["metadata"]["labels"]["karmada.io/managed"] == "true"


def test_duplicated_puts_all_replicas_everywhere(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Duplicated scheduling gives every selected cluster the full replica count; scaling follows."""
    hub.apply_yaml(
        [
            deployment("dup", 2),
            propagation_policy(
                "dup",
                [resource_selector("Deployment", "dup")],
                {
                    "clusterAffinity": {"clusterNames": list(MEMBERS)},
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ],
        "-n",
        ns,
    )
    wait_until(lambda: replicas_on(members, ns, "dup") == dict.fromkeys(MEMBERS, 2), message="2 everywhere")
    hub("scale", "deploy", "dup", "-n", ns, "--replicas=3")
    wait_until(lambda: replicas_on(members, ns, "dup") == dict.fromkeys(MEMBERS, 3), message="3 everywhere")


def test_static_weights_scale_up_and_down(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Static weights 1:2 split 3 replicas 1/2 and 6 replicas 2/4, and back."""
    weights = static_weights({"sz": 1, "gz": 2})
    hub.apply_yaml(
        [
            deployment("w", 3),
            propagation_policy(
                "w",
                [resource_selector("Deployment", "w")],
                {"clusterAffinity": {"clusterNames": ["sz", "gz"]}, "replicaScheduling": weights},
            ),
        ],
        "-n",
        ns,
    )
    wait_until(lambda: replicas_on(members, ns, "w") == {"sz": 1, "gz": 2}, message="1/2")
    hub("scale", "deploy", "w", "-n", ns, "--replicas=6")
    wait_until(lambda: replicas_on(members, ns, "w") == {"sz": 2, "gz": 4}, message="2/4")
    hub("scale", "deploy", "w", "-n", ns, "--replicas=3")
    wait_until(lambda: replicas_on(members, ns, "w") == {"sz": 1, "gz": 2}, message="back to 1/2")


def test_placement_by_labels_and_field_selector(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """labelSelector picks clusters by label; fieldSelector by provider/region."""
    hub.apply_yaml(
        [
            deployment("by-label", 1),
            propagation_policy(
                "by-label",
                [resource_selector("Deployment", "by-label")],
                {"clusterAffinity": {"labelSelector": {"matchLabels": {"tier": "silver"}}}},
            ),
            deployment("by-field", 1),
            propagation_policy(
                "by-field",
                [resource_selector("Deployment", "by-field")],
                {
                    "clusterAffinity": {
                        "fieldSelector": {
                            "matchExpressions": [
                                {"key": "region", "operator": "In", "values": ["region-a"]},
                                {"key": "provider", "operator": "NotIn", "values": ["cloud-two"]},
                            ]
                        }
                    }
                },
            ),
        ],
        "-n",
        ns,
    )
    wait_until(lambda: set(replicas_on(members, ns, "by-label")) == {"fz", "gz"}, message="silver clusters")
    wait_until(lambda: set(replicas_on(members, ns, "by-field")) == {"sz", "fz"}, message="region-a clusters")


def test_taint_without_toleration_excludes_a_cluster(
    hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A NoSchedule taint keeps new workloads off a cluster unless the policy tolerates it."""
    hub(
        "patch",
        "cluster",
        "gz",
        "--type=merge",
        "-p",
        '{"spec":{"taints":[{"key":"maintenance","value":"yes","effect":"NoSchedule"}]}}',
    )
    try:
        hub.apply_yaml(
            [
                deployment("intolerant", 1),
                propagation_policy(
                    "intolerant",
                    [resource_selector("Deployment", "intolerant")],
                    {"clusterAffinity": {"clusterNames": list(MEMBERS)}},
                ),
                deployment("tolerant", 1),
                propagation_policy(
                    "tolerant",
                    [resource_selector("Deployment", "tolerant")],
                    {
                        "clusterAffinity": {"clusterNames": list(MEMBERS)},
                        "clusterTolerations": [
                            {"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}
                        ],
                    },
                ),
            ],
            "-n",
            ns,
        )
        wait_until(lambda: set(replicas_on(members, ns, "intolerant")) == {"sz", "fz"}, message="not on gz")
        wait_until(lambda: set(replicas_on(members, ns, "tolerant")) == set(MEMBERS), message="also on gz")
    finally:
        hub("patch", "cluster", "gz", "--type=merge", "-p", '{"spec":{"taints":null}}')


def test_spread_by_region(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Spreading over exactly two regions puts the workload in both region-a and region-b."""
    hub.apply_yaml(
        [
            deployment("spread", 2),
            propagation_policy(
                "spread",
                [resource_selector("Deployment", "spread")],
                {
                    "spreadConstraints": [
                        {"spreadByField": "region", "maxGroups": 2, "minGroups": 2},
                        {"spreadByField": "cluster", "maxGroups": 2, "minGroups": 2},
                    ],
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ],
        "-n",
        ns,
    )
    placed = wait_until(
        lambda: len(replicas_on(members, ns, "spread")) == 2 and replicas_on(members, ns, "spread"),
        message="two clusters",
    )
    assert "gz" in placed and ({"sz", "fz"} & set(placed))


def test_image_override_per_cluster(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """An OverridePolicy changes the image registry on one cluster only."""
    override = registry_override("img", "fz", "mirror.example")
    hub.apply_yaml(
        [
            override,
            deployment("img", 1, image="docker.io/library/nginx:1.25"),
            propagation_policy(
                "img",
                [resource_selector("Deployment", "img")],
                {
                    "clusterAffinity": {"clusterNames": ["sz", "fz"]},
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ],
        "-n",
        ns,
    )

    def images() -> dict[str, str]:
        on_sz_and_fz = {cluster: members[cluster] for cluster in ("sz", "fz")}
        return {
            cluster: obj["spec"]["template"]["spec"]["containers"][0]["image"]
            for cluster, obj in member_deployments(on_sz_and_fz, ns, "img").items()
        }

    wait_until(
        lambda: images() == {"sz": "docker.io/library/nginx:1.25", "fz": "mirror.example/library/nginx:1.25"},
        message="image overridden on fz only",
    )


def test_dependent_configmap_follows(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """With propagateDeps a ConfigMap used by the workload lands where the workload does."""
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "app-config"},
        "data": {"k": "v"},
    }
    workload = deployment("deps", 1, volumes=[{"name": "cfg", "configMap": {"name": "app-config"}}])
    hub.apply_yaml(
        [
            config_map,
            workload,
            propagation_policy(
                "deps",
                [resource_selector("Deployment", "deps")],
                {"clusterAffinity": {"clusterNames": ["fz"]}},
                propagateDeps=True,
            ),
        ],
        "-n",
        ns,
    )
    wait_until(
        lambda: members["fz"].succeeds("get", "cm", "app-config", "-n", ns),
        message="ConfigMap on fz",
    )
    assert not members["sz"].succeeds("get", "cm", "app-config", "-n", ns)


def test_deleting_the_template_cleans_the_members(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Deleting the Deployment on the hub removes it from every member; the policy stays."""
    hub.apply_yaml(
        [
            deployment("gone", 1),
            propagation_policy(
                "gone",
                [resource_selector("Deployment", "gone")],
                {
                    "clusterAffinity": {"clusterNames": ["sz", "gz"]},
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ],
        "-n",
        ns,
    )
    wait_until(lambda: set(replicas_on(members, ns, "gone")) == {"sz", "gz"}, message="propagated")
    hub("delete", "deploy", "gone", "-n", ns)
    wait_until(lambda: replicas_on(members, ns, "gone") == {}, message="removed from members")
    assert hub.succeeds("get", "pp", "gone", "-n", ns)


def test_changing_the_policy_moves_the_workload(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Editing the policy's cluster list moves the workload from sz to gz."""
    hub.apply_yaml(
        [
            deployment("mover", 1),
            propagation_policy(
                "mover",
                [resource_selector("Deployment", "mover")],
                {"clusterAffinity": {"clusterNames": ["sz"]}},
            ),
        ],
        "-n",
        ns,
    )
    wait_until(lambda: set(replicas_on(members, ns, "mover")) == {"sz"}, message="on sz")
    hub.apply_yaml(
        propagation_policy(
            "mover", [resource_selector("Deployment", "mover")], {"clusterAffinity": {"clusterNames": ["gz"]}}
        ),
        "-n",
        ns,
    )
    wait_until(lambda: set(replicas_on(members, ns, "mover")) == {"gz"}, message="moved to gz")


def test_killed_controller_manager_converges_after_restart(
    federation: Federation, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """kill -9 of the controller manager mid-propagation: after a restart every workload arrives."""
    documents = []
    for i in range(10):
        documents += [
            deployment(f"crash-{i}", 1),
            propagation_policy(
                f"crash-{i}",
                [resource_selector("Deployment", f"crash-{i}")],
                {
                    "clusterAffinity": {"clusterNames": ["sz", "fz"]},
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ]
    hub.apply_yaml(documents, "-n", ns)
    federation.manager.stop(signal.SIGKILL)
    federation.manager.start()
    for i in range(10):
        wait_until(
            lambda i=i: set(replicas_on(members, ns, f"crash-{i}")) == {"sz", "fz"},
            timeout=60,
            message=f"crash-{i} on both clusters",
        )
