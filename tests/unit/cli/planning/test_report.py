"""`flotilla plan` output compared with golden files, and the data forms' shape.

Set FLOTILLA_UPDATE_GOLDEN=1 to rewrite the golden files after an intended change of layout.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from flotilla.cli.planning.report import render, tie_data, tie_text
from flotilla.cli.planning.workloads import WorkloadPlan, merge_policies, plan_workload
from flotilla.scheduler.core.inputs import ClusterInfo, TargetCluster
from flotilla.scheduler.core.noderesources import NodeResourceEstimator, PodUsage, node_rooms, pod_usage
from flotilla.scheduler.tiebreak import TieBreak

GOLDEN = Path(__file__).parent / "golden"
UNSCHEDULABLE = {"key": "cluster.karmada.io/unschedulable", "effect": "NoSchedule"}


def cluster(name: str, region: str, taints: list[dict[str, str]] | None = None) -> ClusterInfo:
    return ClusterInfo.from_object(
        {
            "metadata": {"name": name},
            "spec": {"region": region, "taints": taints or []},
            "status": {
                "apiEnablements": [
                    {"groupVersion": "apps/v1", "resources": [{"kind": "Deployment"}]},
                    {"groupVersion": "v1", "resources": [{"kind": "ConfigMap"}]},
                ],
                "resourceSummary": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "20"}},
            },
        }
    )


CLUSTERS = [
    cluster("member1", "region-a"),
    cluster("member2", "region-a"),
    cluster("member3", "region-b", [UNSCHEDULABLE]),
    cluster("member4", "region-c"),
]


def template(kind: str, name: str, replicas: int | None = None, uid: str = "") -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "apps/v1" if kind == "Deployment" else "v1",
        "kind": kind,
        "metadata": {"name": name, "namespace": "shop", **({"uid": uid} if uid else {})},
    }
    if replicas is not None:
        obj["spec"] = {
            "replicas": replicas,
            "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}},
        }
    return obj


def policy(name: str, target_kind: str, target: str, placement: dict[str, Any]) -> dict[str, Any]:
    api_version = "apps/v1" if target_kind == "Deployment" else "v1"
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {
            "resourceSelectors": [{"apiVersion": api_version, "kind": target_kind, "name": target}],
            "placement": placement,
        },
    }


DIVIDED = {"replicaScheduling": {"replicaSchedulingType": "Divided"}}
BY_AVAILABLE = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "weightPreference": {"dynamicWeight": "AvailableReplicas"},
    }
}


def new_workloads() -> list[WorkloadPlan]:
    """A divided Deployment with a tainted cluster, a region spread, a duplicated ConfigMap, no policy."""
    policies = merge_policies(
        [],
        [
            policy("web", "Deployment", "web", DIVIDED),
            policy(
                "api",
                "Deployment",
                "api",
                {
                    "spreadConstraints": [
                        {"spreadByField": "region", "minGroups": 2, "maxGroups": 2},
                        {"spreadByField": "cluster", "minGroups": 2, "maxGroups": 2},
                    ],
                    **BY_AVAILABLE,
                },
            ),
            policy(
                "settings",
                "ConfigMap",
                "settings",
                {"clusterAffinity": {"clusterNames": ["member1", "member4"]}},
            ),
        ],
    )
    return [
        plan_workload(template("Deployment", "web", 4), policies, CLUSTERS),
        plan_workload(template("Deployment", "api", 4), policies, CLUSTERS),
        plan_workload(template("ConfigMap", "settings"), policies, CLUSTERS),
        plan_workload(template("Deployment", "lonely", 1), policies, CLUSTERS),
    ]


def existing_workloads() -> list[WorkloadPlan]:
    """Workloads already bound: one moved by a narrower policy, one unchanged, one unschedulable."""
    hub_policies = [
        {**policy("stay", "Deployment", "stay", DIVIDED), "metadata": {"name": "stay", "namespace": "shop"}},
    ]
    manifests = [
        policy("move", "Deployment", "move", {"clusterAffinity": {"clusterNames": ["member2"]}, **DIVIDED}),
        policy(
            "stuck",
            "Deployment",
            "stuck",
            {
                "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 5, "maxGroups": 5}],
                **BY_AVAILABLE,
            },
        ),
    ]
    policies = merge_policies(hub_policies, manifests)

    def bound(name: str, clusters: dict[str, int], placement: dict[str, Any]) -> dict[str, Any]:
        return {
            "metadata": {
                "name": f"{name}-deployment",
                "namespace": "shop",
                "uid": f"{name}-binding",
                "ownerReferences": [{"uid": f"{name}-uid", "controller": True}],
                "annotations": {"policy.karmada.io/applied-placement": json.dumps(placement)},
            },
            "spec": {
                "replicas": sum(clusters.values()),
                "clusters": [{"name": k, "replicas": v} for k, v in clusters.items()],
            },
        }

    return [
        plan_workload(
            template("Deployment", "move", 2, uid="move-uid"),
            policies,
            CLUSTERS,
            bound("move", {"member1": 1, "member2": 1}, DIVIDED),
        ),
        plan_workload(
            template("Deployment", "stay", 2, uid="stay-uid"),
            policies,
            CLUSTERS,
            bound("stay", {"member1": 1, "member4": 1}, DIVIDED),
        ),
        plan_workload(
            template("Deployment", "stuck", 2, uid="stuck-uid"),
            policies,
            CLUSTERS,
            bound("stuck", {"member1": 2}, DIVIDED),
        ),
    ]


def node(name: str, cpu: str, *, ready: bool = True, unschedulable: bool = False) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {"unschedulable": unschedulable},
        "status": {
            "allocatable": {"cpu": cpu, "memory": "16Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }


def running_pods(cpu: str, *node_names: str) -> list[PodUsage]:
    """What one running pod requesting `cpu` takes on each of `node_names`."""
    container = {"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu}}}
    pods = [
        {"spec": {"nodeName": name, "containers": [container]}, "status": {"phase": "Running"}}
        for name in node_names
    ]
    return [usage for usage in map(pod_usage, pods) if usage is not None]


def sized_by_nodes() -> list[WorkloadPlan]:
    """Summaries claim 8 cpus everywhere; the nodes say member1 is fragmented, member2 has one
    small node, and member4's nodes are cordoned or NotReady."""
    rooms = {
        "member1": node_rooms([node("m1-a", "2"), node("m1-b", "2")], running_pods("500m", "m1-a", "m1-b")),
        "member2": node_rooms([node("m2-a", "1")], []),
        "member4": node_rooms([node("m4-a", "8", unschedulable=True), node("m4-b", "8", ready=False)], []),
    }
    estimator = NodeResourceEstimator(rooms)
    deployment = template("Deployment", "batch", 3)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["resources"] = {"requests": {"cpu": "1"}}
    placement = {
        "replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}
    }
    policies = merge_policies([], [policy("batch", "Deployment", "batch", placement)])
    return [plan_workload(deployment, policies, CLUSTERS, estimators=[estimator])]


def assert_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if os.environ.get("FLOTILLA_UPDATE_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(actual)
    assert actual == path.read_text(), f"{name} differs from the golden file"


@pytest.mark.parametrize(
    ("golden", "plans"),
    [
        ("plan_new.txt", new_workloads),
        ("plan_existing.txt", existing_workloads),
        ("plan_nodes.txt", sized_by_nodes),
    ],
)
def test_text_output_matches_the_golden_file(golden: str, plans: Any) -> None:
    """The describe-like text layout, cluster table and decisions are exactly as recorded."""
    assert_golden(golden, render(plans(), "text"))


def test_json_output_matches_the_golden_file() -> None:
    """The JSON form holds the same plan as data, placement in spec.clusters form."""
    assert_golden("plan_existing.json", render(existing_workloads(), "json"))


def test_yaml_and_json_hold_the_same_document() -> None:
    """Both data forms decode to one document."""
    plans = new_workloads()
    assert yaml.safe_load(render(plans, "yaml")) == json.loads(render(plans, "json"))


def test_the_placement_is_written_like_spec_clusters() -> None:
    """Replica counts per cluster come as `{name, replicas}` entries, sorted by cluster name."""
    web = json.loads(render(new_workloads(), "json"))["workloads"][0]
    assert sorted(item["name"] for item in web["placement"]) == ["member1", "member2", "member4"]
    assert sum(item["replicas"] for item in web["placement"]) == 4
    assert web["policy"] == {
        "kind": "PropagationPolicy",
        "namespace": "shop",
        "name": "web",
        "source": "manifests",
    }


def test_no_workloads_say_so() -> None:
    """An empty plan is one explanatory line, not an empty output."""
    assert render([], "text") == "No workloads in the manifests.\n"


def test_a_tie_of_an_existing_template_states_karmadas_rule() -> None:
    """Which cluster got the tied replica, the order, the hash of the template's uid, the other split."""
    tie = TieBreak(
        "0b6f3c2e-5d0a-4c55-9a8e-3f1d2b7c9e10",
        favoured=("member2",),
        alternative=(TargetCluster("member1", 2), TargetCluster("member2", 1)),
        alternative_favoured=("member1",),
    )
    assert tie_text(tie, 3) == (
        "member2 gets the tied replica: tied clusters are taken in descending name order, as the FNV-1a "
        "hash of the template's uid 0b6f3c2e-5d0a-4c55-9a8e-3f1d2b7c9e10 is odd (0x80ffcb57); "
        "ascending would give member1:2, member2:1"
    )
    assert tie_data(tie) == {
        "templateUID": "0b6f3c2e-5d0a-4c55-9a8e-3f1d2b7c9e10",
        "order": "descending",
        "uidHash": 0x80FFCB57,
        "favoured": ["member2"],
        "otherOrder": {
            "placement": [{"name": "member1", "replicas": 2}, {"name": "member2", "replicas": 1}],
            "favoured": ["member1"],
        },
    }


def test_a_tie_of_a_new_template_leaves_it_to_the_uid_it_will_get() -> None:
    """Before creation both outcomes are stated, the planned one being the even (ascending) one."""
    tie = TieBreak(
        "",
        favoured=("member1",),
        alternative=(TargetCluster("member1", 1), TargetCluster("member2", 2)),
        alternative_favoured=("member2",),
    )
    assert tie_text(tie, 3) == (
        "decided by the uid the template will get: member1 gets the tied replica if its FNV-1a hash is "
        "even (names ascending, as planned), member2 gets the tied replica if odd "
        "(names descending: member1:1, member2:2)"
    )
    assert tie_data(tie)["order"] == "unknown" and tie_data(tie)["templateUID"] is None
