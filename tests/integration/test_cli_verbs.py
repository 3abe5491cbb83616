"""The karmadactl verbs end to end: `flotilla apply`, `promote`, `cordon` / `uncordon` and `taint`.

One hub, one `flotilla sim` serving member1…member3 (joined in Push mode) and one controller
manager are shared by the module; every test works in its own namespace and checks the results
with kubectl against the hub and the members. The verbs run as the installed `flotilla` binary.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.propagation import apply_policy, policy_name
from tests.integration.harness import (
    ControllerManagerProcess,
    Kubectl,
    ServerProcess,
    SimProcess,
    wait_until,
)

pytestmark = pytest.mark.kubectl

MEMBERS = ("member1", "member2", "member3")
FLOTILLA = Path(sys.executable).parent / "flotilla"


class Environment:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.hub = ServerProcess(root / "hub")
        self.sim = SimProcess(
            root / "sim", ["--clusters", ",".join(MEMBERS), "--nodes", "1", "--pod-start-seconds", "0.1"]
        )
        self.manager: ControllerManagerProcess | None = None

    def start(self) -> Environment:
        self.hub.start()
        self.sim.start()
        joins = [
            subprocess.Popen(
                [
                    str(FLOTILLA),
                    "join",
                    name,
                    "--kubeconfig",
                    str(self.hub.kubeconfig),
                    "--cluster-kubeconfig",
                    str(self.sim.kubeconfig(name)),
                ],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for name in MEMBERS
        ]
        for join in joins:
            output, _ = join.communicate(timeout=60)
            assert join.returncode == 0, output
        self.manager = ControllerManagerProcess(
            self.hub.kubeconfig,
            self.root / "logs",
            ["--cluster-status-interval", "1", "--cluster-success-threshold", "0"],
        ).start()
        hub = self.kubectl(self.root / "cache-hub")
        wait_until(lambda: ready_clusters(hub) == set(MEMBERS), timeout=60, message="clusters Ready")
        return self

    def stop(self) -> None:
        if self.manager is not None:
            self.manager.stop()
        self.sim.stop()
        self.hub.stop()

    def kubectl(self, cache: Path) -> Kubectl:
        return Kubectl(self.hub.kubeconfig, cache)

    def verb(self, *args: str, input: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run `flotilla ARGS` against the hub (through KUBECONFIG, as a user would)."""
        return subprocess.run(
            [str(FLOTILLA), *args],
            input=input,
            capture_output=True,
            text=True,
            env={**os.environ, "KUBECONFIG": str(self.hub.kubeconfig)},
            timeout=60,
            check=False,
        )


def ready_clusters(hub: Kubectl) -> set[str]:
    return {
        cluster["metadata"]["name"]
        for cluster in hub.json("get", "clusters")["items"]
        if any(
            condition["type"] == "Ready" and condition["status"] == "True"
            for condition in cluster.get("status", {}).get("conditions", [])
        )
    }


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Environment]:
    environment = Environment(tmp_path_factory.mktemp("verbs")).start()
    yield environment
    environment.stop()


@pytest.fixture
def hub(env: Environment, tmp_path: Path) -> Kubectl:
    return env.kubectl(tmp_path / "hub-cache")


@pytest.fixture
def members(env: Environment, tmp_path: Path) -> dict[str, Kubectl]:
    return {name: Kubectl(env.sim.kubeconfig(name), tmp_path / f"{name}-cache") for name in MEMBERS}


@pytest.fixture
def ns(hub: Kubectl) -> str:
    name = f"v-{uuid.uuid4().hex[:6]}"
    hub("create", "namespace", name)
    return name


def deployment(name: str, replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
            },
        },
    }


def config_map(name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"k": "v"}}


def everywhere(obj: dict[str, Any], ns: str) -> list[dict[str, Any]]:
    """`obj` in `ns` and the policy `apply --all-clusters` writes for it (kubectl applies them faster)."""
    placed = {**obj, "metadata": {**obj["metadata"], "namespace": ns}}
    gvk = GroupVersionKind("", "v1", obj["kind"])
    return [placed, apply_policy(gvk, obj["metadata"]["name"], ns, None)]


def manifest_file(directory: Path, documents: list[dict[str, Any]]) -> str:
    path = directory / f"{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(yaml.safe_dump_all(documents))
    return str(path)


def scheduled_clusters(hub: Kubectl, ns: str, binding: str) -> set[str] | None:
    result = hub.run("get", "resourcebinding", binding, "-n", ns, "-o", "json", check=False)
    if result.returncode != 0:
        return None
    clusters = yaml.safe_load(result.stdout).get("spec", {}).get("clusters")
    return {target["name"] for target in clusters} if clusters else None


def has(kubectl: Kubectl, *args: str) -> bool:
    return kubectl.run("get", *args, check=False).returncode == 0


def test_apply_walkthrough_reaches_ready_on_the_hub_and_reapplying_is_unchanged(
    env: Environment, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """The nginx walkthrough through `flotilla apply` shows 2/2 on the hub; applying again changes nothing."""
    weights = {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {
            "staticWeightList": [
                {"targetCluster": {"clusterNames": ["member1"]}, "weight": 1},
                {"targetCluster": {"clusterNames": ["member2"]}, "weight": 1},
            ]
        },
    }
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "nginx-propagation"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "nginx"}],
            "placement": {
                "clusterAffinity": {"clusterNames": ["member1", "member2"]},
                "replicaScheduling": weights,
            },
        },
    }
    path = manifest_file(tmp_path, [deployment("nginx", 2), policy])
    first = env.verb("apply", "-f", path, "-n", ns)
    assert first.returncode == 0, first.stderr
    assert first.stdout == (
        "deployment.apps/nginx created\npropagationpolicy.policy.karmada.io/nginx-propagation created\n"
    )
    wait_until(
        lambda: hub("get", "deploy", "nginx", "-n", ns).splitlines()[1].split()[1] == "2/2",
        timeout=45,
        message="READY 2/2 on the hub",
    )
    assert scheduled_clusters(hub, ns, "nginx-deployment") == {"member1", "member2"}
    again = env.verb("apply", "-f", path, "-n", ns)
    assert again.returncode == 0, again.stderr
    assert again.stdout == (
        "deployment.apps/nginx unchanged\npropagationpolicy.policy.karmada.io/nginx-propagation unchanged\n"
    )


def test_apply_all_clusters_puts_a_configmap_in_every_member(
    env: Environment, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """`--all-clusters` adds karmadactl's generated policy; the ConfigMap reaches every member."""
    result = env.verb(
        "apply", "-f", "-", "-n", ns, "--all-clusters", input=yaml.safe_dump(config_map("settings"))
    )
    assert result.returncode == 0, result.stderr
    generated = policy_name(ns, "settings", GroupVersionKind("", "v1", "ConfigMap"))
    assert result.stdout == (
        f"configmap/settings created\npropagationpolicy.policy.karmada.io/{generated} created\n"
    )
    policy = hub.json("get", "propagationpolicy", generated, "-n", ns)
    assert policy["spec"]["resourceSelectors"] == [
        {"apiVersion": "v1", "kind": "ConfigMap", "name": "settings", "namespace": ns}
    ]
    wait_until(
        lambda: all(has(member, "configmap", "settings", "-n", ns) for member in members.values()),
        timeout=30,
        message="the ConfigMap in every member",
    )


def test_an_invalid_manifest_fails_naming_the_field_while_the_others_are_applied(
    env: Environment, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """A negative replica count is the hub's Invalid error naming the field; the ConfigMap is applied."""
    path = manifest_file(tmp_path, [deployment("broken", -1), config_map("fine")])
    result = env.verb("apply", "-f", path, "-n", ns)
    assert result.returncode == 1
    assert result.stdout == "configmap/fine created\n"
    assert f'Error from server (Invalid): error when applying "{path}"' in result.stderr
    assert "spec.replicas" in result.stderr
    assert "Traceback" not in result.stderr
    assert has(hub, "configmap", "fine", "-n", ns)
    assert not has(hub, "deployment", "broken", "-n", ns)


def test_promote_adopts_a_deployment_running_in_a_member_in_place(
    env: Environment, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """The member's Deployment becomes a hub template bound to that member, keeping its UID, now managed."""
    member = members["member3"]
    wait_until(lambda: has(member, "namespace", ns), timeout=30, message="namespace propagated to member3")
    member("create", "deployment", "web", "--image", "nginx", "--replicas", "1", "-n", ns)
    uid = member.json("get", "deployment", "web", "-n", ns)["metadata"]["uid"]

    result = env.verb("promote", "deployment", "web", "-n", ns, "--cluster", "member3")
    assert result.returncode == 0, result.stderr
    generated = policy_name(ns, "web", GroupVersionKind("apps", "v1", "Deployment"))
    assert result.stdout == (
        "deployment.apps/web promoted from cluster member3\n"
        f"propagationpolicy.policy.karmada.io/{generated} created\n"
    )
    template = hub.json("get", "deployment", "web", "-n", ns)
    assert template["metadata"]["annotations"]["work.karmada.io/conflict-resolution"] == "overwrite"
    wait_until(
        lambda: scheduled_clusters(hub, ns, "web-deployment") == {"member3"},
        timeout=30,
        message="binding scheduled to member3",
    )
    adopted = wait_until(
        lambda: (
            (found := member.json("get", "deployment", "web", "-n", ns))["metadata"]
            .get("labels", {})
            .get("karmada.io/managed")
            == "true"
            and found
        ),
        timeout=30,
        message="the member Deployment is managed",
    )
    assert adopted["metadata"]["uid"] == uid
    for other in ("member1", "member2"):
        assert not has(members[other], "deployment", "web", "-n", ns)

    again = env.verb("promote", "deploy", "web", "-n", ns, "-C", "member3")
    assert again.returncode == 1
    assert "already exists on the hub" in again.stderr


def test_cordon_keeps_new_workloads_off_a_cluster_until_uncordoned(
    env: Environment, hub: Kubectl, members: dict[str, Kubectl], ns: str
) -> None:
    """A cordoned cluster is skipped by a new all-clusters workload; uncordoning brings it back."""
    result = env.verb("cordon", "member2")
    try:
        assert (result.returncode, result.stdout) == (0, "cluster/member2 cordoned\n"), result.stderr
        assert env.verb("cordon", "member2").stdout == "cluster/member2 already cordoned\n"
        hub.apply_yaml(everywhere(config_map("c1"), ns))
        wait_until(
            lambda: scheduled_clusters(hub, ns, "c1-configmap") == {"member1", "member3"},
            timeout=30,
            message="scheduled around the cordoned member2",
        )
    finally:
        uncordoned = env.verb("uncordon", "member2")
    assert (uncordoned.returncode, uncordoned.stdout) == (0, "cluster/member2 uncordoned\n"), (
        uncordoned.stderr
    )
    wait_until(
        lambda: scheduled_clusters(hub, ns, "c1-configmap") == set(MEMBERS),
        timeout=30,
        message="rescheduled onto member2 after uncordon",
    )
    wait_until(lambda: has(members["member2"], "configmap", "c1", "-n", ns), timeout=30, message="on member2")


def test_taint_no_schedule_repels_new_workloads_and_a_trailing_dash_removes_it(
    env: Environment, hub: Kubectl, ns: str
) -> None:
    """A NoSchedule taint repels a new workload; re-adding needs --overwrite; `key:Effect-` removes it."""
    tainted = env.verb("taint", "clusters", "member3", "dedicated=ops:NoSchedule")
    try:
        assert (tainted.returncode, tainted.stdout) == (0, "cluster.cluster.karmada.io/member3 tainted\n")
        repeated = env.verb("taint", "clusters", "member3", "dedicated=other:NoSchedule")
        assert repeated.returncode == 1
        assert "member3 already has dedicated taint(s) with same effect(s) and --overwrite is false" in (
            repeated.stderr
        )
        hub.apply_yaml(everywhere(config_map("t1"), ns))
        wait_until(
            lambda: scheduled_clusters(hub, ns, "t1-configmap") == {"member1", "member2"},
            timeout=30,
            message="scheduled around the tainted member3",
        )
    finally:
        removed = env.verb("taint", "clusters", "member3", "dedicated:NoSchedule-")
    assert (removed.returncode, removed.stdout) == (0, "cluster.cluster.karmada.io/member3 untainted\n")
    taints = hub.json("get", "cluster", "member3")["spec"].get("taints") or []
    assert all(taint["key"] != "dedicated" for taint in taints)
