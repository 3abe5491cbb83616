"""Throughput of the pure scheduling core: bindings scheduled per second, no I/O (issue #5's figure).

Builds W ResourceBinding and M Cluster wire objects (default 1,000 x 10), then times three passes:
reading the wire objects (`from_object`), scheduling already-read bindings (`schedule`), and both
together, which is what the scheduler controller does per binding. Bindings mix the placement modes
a fleet sees: duplicated, static weights, dynamic weights, aggregated, spread by region and
cluster, and ordered cluster affinities. The end-to-end target is 500 bindings/s including the API
round trips; the core alone should manage thousands.
Run: `.venv/bin/python bench/scheduler.py [--bindings 1000] [--clusters 10] [--rounds 3]`.
"""

from __future__ import annotations

import argparse
import contextlib
import time
from typing import Any

from flotilla.scheduler.core.errors import SchedulingError
from flotilla.scheduler.core.generic import schedule
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.plugins import in_tree_registry

REGIONS = ("eu", "us", "ap")


def cluster_object(index: int) -> dict[str, Any]:
    return {
        "metadata": {"name": f"member{index}", "labels": {"tier": "gold" if index % 2 else "silver"}},
        "spec": {"syncMode": "Push", "provider": "sim", "region": REGIONS[index % 3], "zones": [f"z{index}"]},
        "status": {
            "apiEnablements": [
                {"groupVersion": "apps/v1", "resources": [{"name": "deployments", "kind": "Deployment"}]},
                {"groupVersion": "v1", "resources": [{"name": "configmaps", "kind": "ConfigMap"}]},
            ],
            "resourceSummary": {
                "allocatable": {"cpu": "64", "memory": "256Gi", "pods": "1100"},
                "allocated": {"cpu": f"{index}", "memory": "8Gi", "pods": "20"},
            },
        },
    }


def placement(index: int, clusters: int) -> dict[str, Any]:
    names = [f"member{i}" for i in range(clusters)]
    divided = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}
    kinds: list[dict[str, Any]] = [
        {"clusterAffinity": {"clusterNames": names}},
        {
            "clusterAffinity": {"labelSelector": {"matchLabels": {"tier": "gold"}}},
            "replicaScheduling": {
                **divided,
                "weightPreference": {
                    "staticWeightList": [
                        {"targetCluster": {"clusterNames": [name]}, "weight": 1 + n % 3}
                        for n, name in enumerate(names)
                    ]
                },
            },
        },
        {"replicaScheduling": {**divided, "weightPreference": {"dynamicWeight": "AvailableReplicas"}}},
        {
            "replicaScheduling": {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Aggregated",
            }
        },
        {
            "spreadConstraints": [
                {"spreadByField": "region", "minGroups": 2, "maxGroups": 2},
                {"spreadByField": "cluster", "minGroups": 2, "maxGroups": 4},
            ],
            "replicaScheduling": {**divided, "weightPreference": {"dynamicWeight": "AvailableReplicas"}},
        },
        {
            "clusterAffinities": [
                {
                    "affinityName": "eu",
                    "fieldSelector": {
                        "matchExpressions": [{"key": "region", "operator": "In", "values": ["eu"]}]
                    },
                },
                {"affinityName": "any", "clusterNames": names},
            ],
            "clusterTolerations": [{"key": "cluster.karmada.io/not-ready", "operator": "Exists"}],
        },
    ]
    return kinds[index % len(kinds)]


def binding_object(index: int, clusters: int) -> dict[str, Any]:
    return {
        "metadata": {"name": f"app-{index}-deployment", "namespace": "default", "uid": f"uid-{index}"},
        "spec": {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": "default",
                "name": f"app-{index}",
            },
            "replicas": 1 + index % 12,
            "replicaRequirements": {"resourceRequest": {"cpu": "250m", "memory": "256Mi"}},
            "placement": placement(index, clusters),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bindings", type=int, default=1000)
    parser.add_argument("--clusters", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()

    cluster_objects = [cluster_object(i) for i in range(options.clusters)]
    binding_objects = [binding_object(i, options.clusters) for i in range(options.bindings)]
    registry = in_tree_registry()
    clusters = [ClusterInfo.from_object(item) for item in cluster_objects]
    bindings = [BindingInfo.from_object(item) for item in binding_objects]

    def read() -> None:
        for item in binding_objects:
            BindingInfo.from_object(item)

    def decide() -> None:
        for info in bindings:
            with contextlib.suppress(SchedulingError):
                schedule(info, clusters, registry)

    def both() -> None:
        for item in binding_objects:
            with contextlib.suppress(SchedulingError):
                schedule(BindingInfo.from_object(item), clusters, registry)

    failures = 0
    for info in bindings:
        try:
            schedule(info, clusters, registry)
        except SchedulingError:
            failures += 1
    size = f"{options.bindings} bindings x {options.clusters} clusters"
    print(f"{size}, {failures} not schedulable, best of {options.rounds} rounds")
    print(f"{'pass':<28} {'seconds':>8} {'bindings/s':>11}")
    for label, run in (
        ("read (from_object)", read),
        ("schedule (pure core)", decide),
        ("read + schedule", both),
    ):
        best = min(_timed(run) for _ in range(options.rounds))
        print(f"{label:<28} {best:>8.3f} {options.bindings / best:>11,.0f}")


def _timed(run: Any) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


if __name__ == "__main__":
    main()
