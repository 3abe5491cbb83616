"""Wire objects for scheduler tests: Clusters and ResourceBindings as served, read back as inputs.

Tests build JSON the way the hub stores it and go through `from_object`, so the parsers are
exercised by every scheduling test, not only by their own.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from flotilla.api.karmada.constants import APPLICATION_FAILED_ON_ANNOTATION
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo

DEPLOYMENT = ("apps/v1", "Deployment")


def cluster_object(
    name: str,
    *,
    labels: Mapping[str, str] | None = None,
    provider: str = "",
    region: str = "",
    zones: Iterable[str] = (),
    taints: Iterable[Mapping[str, str]] = (),
    kinds: Iterable[tuple[str, str]] = (DEPLOYMENT,),
    allocatable: Mapping[str, str] | None = None,
    allocated: Mapping[str, str] | None = None,
    deleting: bool = False,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "labels": dict(labels or {})}
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": metadata,
        "spec": {
            "syncMode": "Push",
            "provider": provider,
            "region": region,
            "zones": list(zones),
            "taints": [dict(taint) for taint in taints],
        },
        "status": {
            "apiEnablements": [
                {"groupVersion": group_version, "resources": [{"name": kind.lower() + "s", "kind": kind}]}
                for group_version, kind in kinds
            ],
            "resourceSummary": {
                "allocatable": dict(allocatable or {"cpu": "8", "memory": "32Gi", "pods": "110"}),
                "allocated": dict(allocated or {}),
            },
        },
    }


def cluster(name: str, **options: Any) -> ClusterInfo:
    return ClusterInfo.from_object(cluster_object(name, **options))


def binding_object(
    *,
    replicas: int = 0,
    placement: Mapping[str, Any] | None = None,
    clusters: Mapping[str, int] | None = None,
    uid: str = "uid-0",
    template_uid: str = "",
    kind: tuple[str, str] = DEPLOYMENT,
    requests: Mapping[str, str] | None = None,
    applied_placement: Mapping[str, Any] | None = None,
    observed_affinity: str = "",
    reschedule_triggered_at: str | None = None,
    last_scheduled_time: str | None = None,
    evicted_from: Iterable[str] = (),
    failed_on: Mapping[str, str] | None = None,
    groups: Mapping[str, str] | None = None,
    name: str = "nginx-deployment",
) -> dict[str, Any]:
    """A ResourceBinding; `uid` is its own, `template_uid` its template's (`spec.resource.uid`, which
    breaks replica ties), `failed_on` the application failover's record (cluster → when), `groups`
    its `spec.workloadAffinityGroups`."""
    annotations = {}
    if applied_placement is not None:
        annotations["policy.karmada.io/applied-placement"] = json.dumps(applied_placement)
    if failed_on is not None:
        annotations[APPLICATION_FAILED_ON_ANNOTATION] = json.dumps(dict(failed_on))
    spec: dict[str, Any] = {
        "resource": {
            "apiVersion": kind[0],
            "kind": kind[1],
            "namespace": "default",
            "name": "nginx",
            "uid": template_uid,
        },
        "replicas": replicas,
        "placement": dict(placement or {}),
        "clusters": [{"name": name, "replicas": count} for name, count in (clusters or {}).items()],
        "gracefulEvictionTasks": [
            {"fromCluster": name, "reason": "TaintUntolerated", "producer": "taint-manager"}
            for name in evicted_from
        ],
    }
    if groups is not None:
        spec["workloadAffinityGroups"] = dict(groups)
    if requests is not None:
        spec["replicaRequirements"] = {"resourceRequest": dict(requests)}
    if reschedule_triggered_at is not None:
        spec["rescheduleTriggeredAt"] = reschedule_triggered_at
    status: dict[str, Any] = {"schedulerObservingAffinityName": observed_affinity}
    if last_scheduled_time is not None:
        status["lastScheduledTime"] = last_scheduled_time
    return {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {
            "name": name,
            "namespace": "default",
            "uid": uid,
            "annotations": annotations,
        },
        "spec": spec,
        "status": status,
    }


def binding(*, now: datetime | None = None, **options: Any) -> BindingInfo:
    """`binding_object(**options)` read as the scheduler reads it, scheduled at `now`."""
    return BindingInfo.from_object(binding_object(**options), now=now)


def static_weights(weights: Mapping[str, int]) -> dict[str, Any]:
    """A Divided/Weighted placement over exactly these clusters, weighted by name."""
    return {
        "clusterAffinity": {"clusterNames": list(weights)},
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": [name]}, "weight": weight}
                    for name, weight in weights.items()
                ]
            },
        },
    }


def dynamic_weights(*, aggregated: bool = False) -> dict[str, Any]:
    """A Divided placement weighted by available replicas (or Aggregated)."""
    if aggregated:
        return {
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Aggregated",
            }
        }
    return {
        "replicaScheduling": {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
            "weightPreference": {"dynamicWeight": "AvailableReplicas"},
        }
    }


def pods_only(count: int) -> dict[str, str]:
    """An allocatable summary that bounds replicas only by the pod count (no resource requests)."""
    return {"cpu": "1000", "memory": "1000Gi", "pods": str(count)}
