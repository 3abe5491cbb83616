"""A hub for `plan --taint`'s tests: three Clusters and bindings built as the controllers leave them.

`member1` and `member2` are in region-a, `member3` in region-b, each with room for 20 pods by its
resource summary. A binding here is one the scheduler has placed (its applied-placement annotation
matches its placement, `lastScheduledTime` set), so without a taint nothing moves.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from flotilla.cli.planning.evictions import BindingSubject, TaintPlan, taint_plan
from flotilla.cli.planning.taints import parse_cluster_taints, tainted_clusters

NOW = datetime(2026, 12, 2, 4, 0, 0, tzinfo=UTC)
PP_ID_LABEL = "propagationpolicy.karmada.io/permanent-id"
APPLIED_PLACEMENT = "policy.karmada.io/applied-placement"


def cluster(name: str, region: str, taints: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name},
        "spec": {"region": region, **({"taints": taints} if taints else {})},
        "status": {
            "apiEnablements": [
                {"groupVersion": "apps/v1", "resources": [{"kind": "Deployment"}]},
                {"groupVersion": "v1", "resources": [{"kind": "ConfigMap"}]},
            ],
            "resourceSummary": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "20"}},
        },
    }


CLUSTERS = [cluster("member1", "region-a"), cluster("member2", "region-a"), cluster("member3", "region-b")]

DIVIDED = {
    "replicaScheduling": {
        "replicaSchedulingType": "Divided",
        "replicaDivisionPreference": "Weighted",
        "weightPreference": {"dynamicWeight": "AvailableReplicas"},
    }
}
DUPLICATED = {"replicaScheduling": {"replicaSchedulingType": "Duplicated"}}


def tolerating(placement: dict[str, Any], seconds: int | None) -> dict[str, Any]:
    """`placement` tolerating `maintenance:NoExecute`, for `seconds` (None: for as long as it stays)."""
    toleration: dict[str, Any] = {"key": "maintenance", "operator": "Exists", "effect": "NoExecute"}
    if seconds is not None:
        toleration["tolerationSeconds"] = seconds
    return {**placement, "clusterTolerations": [toleration]}


def binding(
    name: str, clusters: dict[str, int], placement: dict[str, Any], replicas: int | None = None
) -> dict[str, Any]:
    """A scheduled ResourceBinding of Deployment shop/`name` (Divided: `replicas` is the sum)."""
    duplicated = "Duplicated" in json.dumps(placement)
    total = (
        replicas
        if replicas is not None
        else (max(clusters.values()) if duplicated else sum(clusters.values()))
    )
    return {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {
            "name": f"{name}-deployment",
            "namespace": "shop",
            "uid": f"{name}-binding-uid",
            "labels": {PP_ID_LABEL: f"{name}-policy-id"},
            "annotations": {APPLIED_PLACEMENT: json.dumps(placement)},
        },
        "spec": {
            "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop", "name": name},
            "replicas": total,
            "placement": placement,
            "clusters": [
                {"name": cluster_name, "replicas": count} for cluster_name, count in clusters.items()
            ],
        },
        "status": {
            "lastScheduledTime": "2026-12-01T00:00:00Z",
            "conditions": [{"type": "Scheduled", "status": "True", "reason": "Success"}],
        },
    }


def what_if(
    bindings: list[dict[str, Any]],
    *taints: str,
    clusters: list[dict[str, Any]] | None = None,
    from_manifests: list[dict[str, Any]] | None = None,
) -> TaintPlan:
    """`plan --taint TAINTS` over `bindings` on the hub (and `from_manifests`, the manifests' ones)."""
    hub_clusters = clusters if clusters is not None else CLUSTERS
    tainted, laid = tainted_clusters(hub_clusters, parse_cluster_taints(taints), NOW)
    subjects = [
        *(BindingSubject(item, from_manifests=True) for item in from_manifests or []),
        *(BindingSubject(item) for item in bindings),
    ]
    return taint_plan(subjects, hub_clusters, tainted, laid, NOW)


def maintenance_bindings() -> list[dict[str, Any]]:
    """A Divided and a Duplicated workload without and with tolerations, and one left alone."""
    return [
        binding("web", {"member1": 2, "member2": 2, "member3": 2}, DIVIDED),
        binding("api", {"member1": 2, "member2": 2}, tolerating(DIVIDED, 300)),
        binding("cache", {"member1": 2, "member2": 2, "member3": 2}, DUPLICATED),
        binding("queue", {"member1": 1, "member2": 1, "member3": 1}, tolerating(DUPLICATED, 600)),
        binding("logs", {"member1": 1, "member2": 1, "member3": 1}, tolerating(DUPLICATED, None)),
        binding("solo", {"member1": 3}, {**DIVIDED, "clusterAffinity": {"clusterNames": ["member1"]}}),
    ]
