"""`flotilla plan` against a real hub, three simulated members and the controller manager.

The members are `member1`, `member2` (region-a) and `member3` (region-b), joined in Push mode. The
plan is compared with what the real scheduler writes once the same manifests are applied, and
checked to leave the hub untouched before that.
"""

from __future__ import annotations

import json
import subprocess
import sys
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

REGIONS = {"member1": "region-a", "member2": "region-a", "member3": "region-b"}
TAINT_KEY = "cluster.karmada.io/unschedulable"


class Environment:
    """A hub, a sim process serving the members, and a controller manager, for the whole module."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.hub = ServerProcess(root / "hub")
        self.sim = SimProcess(
            root / "sim", ["--clusters", ",".join(REGIONS), "--nodes", "1", "--pod-start-seconds", "0.1"]
        )
        self.manager = ControllerManagerProcess(
            self.hub.kubeconfig,
            root / "logs",
            ["--cluster-status-interval", "1", "--cluster-success-threshold", "0"],
        )

    def start(self) -> Environment:
        self.hub.start()
        self.sim.start()
        for name, region in REGIONS.items():
            flotilla(
                "join",
                name,
                "--kubeconfig",
                str(self.hub.kubeconfig),
                "--cluster-kubeconfig",
                str(self.sim.kubeconfig(name)),
                "--cluster-region",
                region,
            )
        self.manager.start()
        kubectl = self.kubectl(self.root / "cache")
        wait_until(lambda: _ready_clusters(kubectl) == set(REGIONS), timeout=60, message="clusters Ready")
        return self

    def stop(self) -> None:
        self.manager.stop()
        self.sim.stop()
        self.hub.stop()

    def kubectl(self, cache: Path) -> Kubectl:
        return Kubectl(self.hub.kubeconfig, cache)

    def plan(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "flotilla", "plan", "--kubeconfig", str(self.hub.kubeconfig), *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


def _ready_clusters(hub: Kubectl) -> set[str]:
    return {
        item["metadata"]["name"]
        for item in hub.json("get", "clusters")["items"]
        if any(
            condition["type"] == "Ready" and condition["status"] == "True"
            for condition in item.get("status", {}).get("conditions", [])
        )
    }


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Environment]:
    environment = Environment(tmp_path_factory.mktemp("plan")).start()
    yield environment
    environment.stop()


@pytest.fixture
def hub(env: Environment, tmp_path: Path) -> Kubectl:
    return env.kubectl(tmp_path / "hub-cache")


@pytest.fixture
def ns(hub: Kubectl) -> str:
    name = f"plan-{uuid.uuid4().hex[:6]}"
    hub("create", "namespace", name)
    return name


def deployment(name: str, namespace: str, replicas: int) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": name}},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {"containers": [{"name": "web", "image": "nginx"}]},
            },
        },
    }


def without_replicas(manifest: dict[str, Any]) -> dict[str, Any]:
    del manifest["spec"]["replicas"]
    return manifest


def propagation_policy(name: str, namespace: str, target: str, placement: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": target}],
            "placement": placement,
        },
    }


def divided_evenly() -> dict[str, Any]:
    return {
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
    }


def write_manifests(path: Path, documents: list[dict[str, Any]]) -> Path:
    path.write_text(yaml.safe_dump_all(documents))
    return path


def binding_clusters(hub: Kubectl, namespace: str, name: str) -> list[dict[str, Any]] | None:
    result = hub.run(
        "get", "resourcebinding", f"{name}-deployment", "-n", namespace, "-o", "json", check=False
    )
    if result.returncode != 0:
        return None
    binding = json.loads(result.stdout)
    scheduled = any(
        condition["type"] == "Scheduled" and condition["status"] == "True"
        for condition in binding.get("status", {}).get("conditions", [])
    )
    return binding["spec"].get("clusters") if scheduled else None


def test_plan_names_the_taint_and_matches_the_scheduler(
    env: Environment, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """A tainted member is excluded by TaintToleration with the taint named, and the real scheduler agrees."""
    hub(
        "patch",
        "cluster",
        "member3",
        "--type=merge",
        "-p",
        json.dumps({"spec": {"taints": [{"key": TAINT_KEY, "effect": "NoSchedule"}]}}),
    )
    try:
        manifests = write_manifests(
            tmp_path / "web.yaml",
            [deployment("web", ns, 4), propagation_policy("web", ns, "web", divided_evenly())],
        )
        text = env.plan("-f", str(manifests))
        assert text.returncode == 0, text.stderr
        rows = {line.split()[0]: line for line in text.stdout.splitlines() if line.startswith("  member")}
        assert (
            f"excluded by TaintToleration: cluster(s) had untolerated taint {{{TAINT_KEY}:NoSchedule}}"
            in (rows["member3"])
        )
        assert "placed" in rows["member1"] and "placed" in rows["member2"]
        assert f"PropagationPolicy {ns}/web (from the manifests)" in text.stdout

        planned = json.loads(env.plan("-f", str(manifests), "-o", "json").stdout)["workloads"]
        assert [(item["kind"], item["name"]) for item in planned] == [("Deployment", "web")]
        placement = planned[0]["placement"]
        assert sum(item["replicas"] for item in placement) == 4
        assert {item["name"] for item in placement} == {"member1", "member2"}

        # The plan created nothing: no template, no binding.
        assert hub.run("get", "deployment", "web", "-n", ns, check=False).returncode != 0
        assert hub.run("get", "resourcebinding", "web-deployment", "-n", ns, check=False).returncode != 0

        hub("apply", "-f", str(manifests))
        scheduled = wait_until(
            lambda: binding_clusters(hub, ns, "web"), timeout=30, message="binding scheduled"
        )
        assert scheduled in [placement, planned[0].get("alternativePlacement")]
    finally:
        hub("patch", "cluster", "member3", "--type=merge", "-p", '{"spec":{"taints":null}}')


def test_plan_of_an_existing_workload_shows_the_change(
    env: Environment, hub: Kubectl, ns: str, tmp_path: Path
) -> None:
    """After an apply, an unchanged plan keeps the placement and a narrower policy shows what moves."""
    placement = {"clusterAffinity": {"clusterNames": ["member1", "member2"]}, **divided_evenly()}
    manifests = write_manifests(
        tmp_path / "api.yaml", [deployment("api", ns, 2), propagation_policy("api", ns, "api", placement)]
    )
    hub("apply", "-f", str(manifests))
    current = wait_until(lambda: binding_clusters(hub, ns, "api"), timeout=30, message="binding scheduled")
    assert current == [{"name": "member1", "replicas": 1}, {"name": "member2", "replicas": 1}]

    unchanged = json.loads(env.plan("-f", str(manifests), "-o", "json").stdout)["workloads"][0]
    assert unchanged["rescheduled"] is False
    assert unchanged["placement"] == unchanged["currentPlacement"] == current

    # The policy as the hub serves it (server fields and all), edited, on standard input.
    live_policy = hub.json("get", "propagationpolicy", "api", "-n", ns)
    live_policy["spec"]["placement"]["clusterAffinity"]["clusterNames"] = ["member2"]
    text = env.plan("-f", "-", stdin=json.dumps(live_policy))
    assert text.returncode == 0, text.stderr
    assert "deployment.apps/api" in text.stdout
    fields = dict(line.split(":", 1) for line in text.stdout.splitlines() if not line.startswith(" "))
    assert fields["Change"].strip() == "member1 1 -> none, member2 1 -> 2"
    member1 = next(line for line in text.stdout.splitlines() if line.startswith("  member1"))
    assert "excluded by ClusterAffinity" in member1 and "not in clusterNames [member2]" in member1
    # Still nothing changed on the hub.
    assert binding_clusters(hub, ns, "api") == current


def test_plan_without_a_policy_and_with_a_spread_error(env: Environment, ns: str, tmp_path: Path) -> None:
    """No policy: not propagated; an unmeetable spread: the scheduler's error; defaults: the hub's."""
    spread = {
        "spreadConstraints": [
            {"spreadByField": "region", "minGroups": 3, "maxGroups": 3},
            {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 3},
        ],
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        },
    }
    manifests = write_manifests(
        tmp_path / "mixed.yaml",
        [
            deployment("lonely", ns, 1),
            without_replicas(deployment("spread", ns, 3)),
            propagation_policy("spread", ns, "spread", spread),
            deployment("elsewhere", "not-created-yet", 2),
        ],
    )
    result = env.plan("-f", str(manifests), "-o", "yaml")
    assert result.returncode == 0, result.stderr
    lonely, spreading, elsewhere = yaml.safe_load(result.stdout)["workloads"]
    assert lonely["policy"] is None
    assert lonely["unplanned"] == "no policy matches: would not be propagated"
    assert spreading["scheduled"]["status"] == "False"
    assert spreading["scheduled"]["reason"] == "SchedulerError"
    assert "less than spreadConstraint.MinGroups" in spreading["scheduled"]["message"]
    assert spreading["placement"] == []
    assert spreading["replicas"] == 1  # the hub's default, from the dry run
    assert elsewhere["notes"] == [
        'planned as written, without the hub\'s defaults: namespaces "not-created-yet" not found'
    ]
