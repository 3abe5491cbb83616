"""Karmada-style propagation end to end: a hub, a controller manager and three simulated members.

The members are `sz` and `fz` (region-a) and `gz` (region-b); all run in one `flotilla sim` process
and are joined in Push mode with `flotilla join`. Every test uses its own namespace on the hub.
"""

from __future__ import annotations

import signal
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.harness import (
    ControllerManagerProcess,
    Kubectl,
    ServerProcess,
    SimProcess,
    flotilla,
    wait_until,
)

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


class Environment:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.hub = ServerProcess(root / "hub")
        config = {
            "clusters": [
                {"name": name, "nodes": 2, "nodeCPU": "4", "nodeMemory": "8Gi", "labels": labels}
                for name, labels in MEMBERS.items()
            ]
        }
        (root / "sim.yaml").parent.mkdir(parents=True, exist_ok=True)
        (root / "sim.yaml").write_text(yaml.safe_dump(config))
        self.sim = SimProcess(
            root / "sim", ["--config", str(root / "sim.yaml"), "--pod-start-seconds", "0.1"]
        )
        self.manager: ControllerManagerProcess | None = None

    def start(self) -> Environment:
        self.hub.start()
        self.sim.start()
        for name, labels in MEMBERS.items():
            flotilla(
                "join",
                name,
                "--kubeconfig",
                str(self.hub.kubeconfig),
                "--cluster-kubeconfig",
                str(self.sim.kubeconfig(name)),
                "--cluster-provider",
                labels["provider"],
                "--cluster-region",
                labels["topology.kubernetes.io/region"],
                "--cluster-zones",
                labels["topology.kubernetes.io/zone"],
            )
        self.start_manager()
        hub = self.kubectl(self.root / "cache-hub")
        for name, labels in MEMBERS.items():
            hub("label", "cluster", name, f"tier={labels['tier']}", "--overwrite")
        wait_until(lambda: self.ready_clusters(hub) == set(MEMBERS), timeout=60, message="clusters Ready")
        return self

    def start_manager(self) -> None:
        self.manager = ControllerManagerProcess(
            self.hub.kubeconfig,
            self.root / "logs",
            [
                "--cluster-status-interval",
                "1",
                "--cluster-success-threshold",
                "0",
                "--cluster-failure-threshold",
                "2",
            ],
        ).start()

    def stop(self) -> None:
        if self.manager is not None:
            self.manager.stop()
        self.sim.stop()
        self.hub.stop()

    def kubectl(self, cache: Path) -> Kubectl:
        return Kubectl(self.hub.kubeconfig, cache)

    def member(self, name: str, cache: Path) -> Kubectl:
        return Kubectl(self.sim.kubeconfig(name), cache)

    @staticmethod
    def ready_clusters(hub: Kubectl) -> set[str]:
        clusters = hub.json("get", "clusters")["items"]
        return {
            c["metadata"]["name"]
            for c in clusters
            if any(
                x["type"] == "Ready" and x["status"] == "True"
                for x in c.get("status", {}).get("conditions", [])
            )
        }


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Environment]:
    environment = Environment(tmp_path_factory.mktemp("karmada")).start()
    yield environment
    environment.stop()


@pytest.fixture
def hub(env: Environment, tmp_path: Path) -> Kubectl:
    return env.kubectl(tmp_path / "hub-cache")


@pytest.fixture
def members(env: Environment, tmp_path: Path) -> dict[str, Kubectl]:
    return {name: env.member(name, tmp_path / f"{name}-cache") for name in MEMBERS}


@pytest.fixture
def ns(hub: Kubectl) -> str:
    name = f"p-{uuid.uuid4().hex[:6]}"
    hub("create", "namespace", name)
    return name


def deployment(name: str, replicas: int, image: str = "nginx", **extra: Any) -> dict[str, Any]:
    manifest: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "nginx", "image": image, "ports": [{"containerPort": 80}]}]},
            },
        },
    }
    manifest["spec"]["template"]["spec"].update(extra)
    return manifest


def policy(
    name: str, selectors: list[dict[str, Any]], placement: dict[str, Any], **spec: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name},
        "spec": {"resourceSelectors": selectors, "placement": placement, **spec},
    }


def select(kind: str, name: str, api_version: str = "apps/v1") -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "name": name}


def replicas_on(members: dict[str, Kubectl], ns: str, name: str) -> dict[str, int]:
    """spec.replicas of the Deployment on each member that has it."""
    found = {}
    for cluster, kubectl in members.items():
        result = kubectl.run("get", "deploy", name, "-n", ns, "-o", "json", check=False)
        if result.returncode == 0:
            found[cluster] = yaml.safe_load(result.stdout)["spec"]["replicas"]
    return found


def ready_on(members: dict[str, Kubectl], ns: str, name: str) -> dict[str, int]:
    found = {}
    for cluster, kubectl in members.items():
        result = kubectl.run("get", "deploy", name, "-n", ns, "-o", "json", check=False)
        if result.returncode == 0:
            found[cluster] = yaml.safe_load(result.stdout).get("status", {}).get("readyReplicas", 0)
    return found


def test_getting_started_walkthrough(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Karmada's walkthrough verbatim: nginx split 1:1 over sz and fz, READY 2/2 on the hub."""
    weights = {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["sz"]}, "weight": 1},
                {"targetCluster": {"clusterNames": ["fz"]}, "weight": 1},
            ]
        },
    }
    hub.apply_yaml(
        [
            deployment("nginx", 2),
            policy(
                "nginx-propagation",
                [select("Deployment", "nginx")],
                {"clusterAffinity": {"clusterNames": ["sz", "fz"]}, "replicaScheduling": weights},
            ),
        ],
        "-n",
        ns,
    )
    wait_until(
        lambda: replicas_on(members, ns, "nginx") == {"sz": 1, "fz": 1}, message="1 replica on sz and fz"
    )
    wait_until(lambda: ready_on(members, ns, "nginx") == {"sz": 1, "fz": 1}, message="running on members")
    wait_until(
        lambda: hub("get", "deploy", "nginx", "-n", ns).splitlines()[1].split()[1] == "2/2",
        message="READY 2/2 on the hub",
    )
    binding = hub.json("get", "resourcebinding", "nginx-deployment", "-n", ns)
    assert sorted(c["name"] for c in binding["spec"]["clusters"]) == ["fz", "sz"]
    member_deploy = members["sz"].json("get", "deploy", "nginx", "-n", ns)
    assert member_deploy["metadata"]["labels"]["karmada.io/managed"] == "true"


def test_duplicated_puts_all_replicas_everywhere(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Duplicated scheduling gives every selected cluster the full replica count; scaling follows."""
    hub.apply_yaml(
        [
            deployment("dup", 2),
            policy(
                "dup",
                [select("Deployment", "dup")],
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
    weights = {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["sz"]}, "weight": 1},
                {"targetCluster": {"clusterNames": ["gz"]}, "weight": 2},
            ]
        },
    }
    hub.apply_yaml(
        [
            deployment("w", 3),
            policy(
                "w",
                [select("Deployment", "w")],
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
            policy(
                "by-label",
                [select("Deployment", "by-label")],
                {"clusterAffinity": {"labelSelector": {"matchLabels": {"tier": "silver"}}}},
            ),
            deployment("by-field", 1),
            policy(
                "by-field",
                [select("Deployment", "by-field")],
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
                policy(
                    "intolerant",
                    [select("Deployment", "intolerant")],
                    {"clusterAffinity": {"clusterNames": list(MEMBERS)}},
                ),
                deployment("tolerant", 1),
                policy(
                    "tolerant",
                    [select("Deployment", "tolerant")],
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
            policy(
                "spread",
                [select("Deployment", "spread")],
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
    override = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "registry"},
        "spec": {
            "resourceSelectors": [select("Deployment", "img")],
            "overrideRules": [
                {
                    "targetCluster": {"clusterNames": ["fz"]},
                    "overriders": {
                        "imageOverrider": [
                            {"component": "Registry", "operator": "replace", "value": "mirror.example"}
                        ]
                    },
                }
            ],
        },
    }
    hub.apply_yaml(
        [
            override,
            deployment("img", 1, image="docker.io/library/nginx:1.25"),
            policy(
                "img",
                [select("Deployment", "img")],
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
        found = {}
        for cluster in ("sz", "fz"):
            result = members[cluster].run("get", "deploy", "img", "-n", ns, "-o", "json", check=False)
            if result.returncode == 0:
                found[cluster] = yaml.safe_load(result.stdout)["spec"]["template"]["spec"]["containers"][0][
                    "image"
                ]
        return found

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
            policy(
                "deps",
                [select("Deployment", "deps")],
                {"clusterAffinity": {"clusterNames": ["fz"]}},
                propagateDeps=True,
            ),
        ],
        "-n",
        ns,
    )
    wait_until(
        lambda: members["fz"].run("get", "cm", "app-config", "-n", ns, check=False).returncode == 0,
        message="ConfigMap on fz",
    )
    assert members["sz"].run("get", "cm", "app-config", "-n", ns, check=False).returncode != 0


def test_deleting_the_template_cleans_the_members(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Deleting the Deployment on the hub removes it from every member; the policy stays."""
    hub.apply_yaml(
        [
            deployment("gone", 1),
            policy(
                "gone",
                [select("Deployment", "gone")],
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
    assert hub.run("get", "pp", "gone", "-n", ns, check=False).returncode == 0


def test_changing_the_policy_moves_the_workload(hub: Kubectl, members: dict[str, Kubectl], ns: str) -> None:
    """Editing the policy's cluster list moves the workload from sz to gz."""
    hub.apply_yaml(
        [
            deployment("mover", 1),
            policy("mover", [select("Deployment", "mover")], {"clusterAffinity": {"clusterNames": ["sz"]}}),
        ],
        "-n",
        ns,
    )
    wait_until(lambda: set(replicas_on(members, ns, "mover")) == {"sz"}, message="on sz")
    hub.apply_yaml(
        policy("mover", [select("Deployment", "mover")], {"clusterAffinity": {"clusterNames": ["gz"]}}),
        "-n",
        ns,
    )
    wait_until(lambda: set(replicas_on(members, ns, "mover")) == {"gz"}, message="moved to gz")


def test_killed_controller_manager_converges_after_restart(
    env: Environment, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """kill -9 of the controller manager mid-propagation: after a restart every workload arrives."""
    assert env.manager is not None
    documents = []
    for i in range(10):
        documents += [
            deployment(f"crash-{i}", 1),
            policy(
                f"crash-{i}",
                [select("Deployment", f"crash-{i}")],
                {
                    "clusterAffinity": {"clusterNames": ["sz", "fz"]},
                    "replicaScheduling": {"replicaSchedulingType": "Duplicated"},
                },
            ),
        ]
    hub.apply_yaml(documents, "-n", ns)
    env.manager.stop(signal.SIGKILL)
    env.start_manager()
    for i in range(10):
        wait_until(
            lambda i=i: set(replicas_on(members, ns, f"crash-{i}")) == {"sz", "fz"},
            timeout=60,
            message=f"crash-{i} on both clusters",
        )
