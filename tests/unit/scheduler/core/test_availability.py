"""Available replicas from a cluster's resource summary (Karmada's general estimator)."""

from __future__ import annotations

from typing import Any

from flotilla.scheduler.core.availability import available_replicas, available_replicas_by_cluster
from flotilla.scheduler.core.inputs import ClusterInfo
from tests.unit.scheduler.manifests import binding, cluster, cluster_object


def requirements(**requests: str) -> Any:
    info = binding(replicas=1, requests=requests)
    return info.replica_requirements


def test_free_resources_bound_the_count() -> None:
    """(allocatable - allocated - allocating) / request, for the tightest resource."""
    info = cluster("a", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}, allocated={"cpu": "1"})
    assert available_replicas(info, requirements(cpu="500m", memory="1Gi")) == 6
    assert available_replicas(info, requirements(cpu="250m", memory="2Gi")) == 4


def test_allocating_pods_count_against_the_budget() -> None:
    """Pending pods' requests are not free either."""
    raw = cluster_object("a", allocatable={"cpu": "4", "pods": "10"})
    raw["status"]["resourceSummary"]["allocating"] = {"cpu": "3", "pods": "2"}
    info = ClusterInfo.from_object(raw)
    assert available_replicas(info, requirements(cpu="1")) == 1
    assert available_replicas(info, None) == 8


def test_pod_budget_bounds_requests_free_replicas() -> None:
    """Without requests, the remaining pod count is the answer."""
    info = cluster("a", allocatable={"cpu": "4", "pods": "110"}, allocated={"pods": "100"})
    assert available_replicas(info, None) == 10


def test_cluster_without_summary_or_pods_takes_nothing() -> None:
    """No summary, or no `pods` in it, means no room — as Karmada reads it."""
    assert available_replicas(ClusterInfo("a"), None) == 0
    assert available_replicas(cluster("b", allocatable={"cpu": "4"}), None) == 0


def test_requested_resource_the_cluster_does_not_report_allows_nothing() -> None:
    """A GPU request on a cluster without GPUs fits zero replicas."""
    assert available_replicas(cluster("a"), requirements(**{"nvidia.com/gpu": "1"})) == 0


def test_cpu_is_compared_in_millicores() -> None:
    """1.5 free CPUs hold three 500m replicas, not one."""
    info = cluster("a", allocatable={"cpu": "1500m", "pods": "110"})
    assert available_replicas(info, requirements(cpu="500m")) == 3


def test_resource_models_count_nodes_of_big_enough_grades() -> None:
    """With models, each node of a grade whose minimum fits the request holds min/request replicas."""
    raw = cluster_object("a", allocatable={"cpu": "100", "memory": "1000Gi", "pods": "110"})
    raw["spec"]["resourceModels"] = [
        {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "2"}]},
        {"grade": 1, "ranges": [{"name": "cpu", "min": "2", "max": "4"}]},
        {"grade": 2, "ranges": [{"name": "cpu", "min": "4", "max": "8"}]},
    ]
    raw["status"]["resourceSummary"]["allocatableModelings"] = [
        {"grade": 0, "count": 5},
        {"grade": 1, "count": 2},
        {"grade": 2, "count": 1},
    ]
    info = ClusterInfo.from_object(raw)
    # 1 CPU per replica: grade 0 (min 0) is too small; grade 1 holds 2 per node, grade 2 holds 4.
    assert available_replicas(info, requirements(cpu="1")) == 2 * 2 + 1 * 4


def test_non_workloads_are_not_sized() -> None:
    """A binding without replicas gets 0 everywhere, as Karmada reports it."""
    assert available_replicas_by_cluster(binding(), [cluster("a")]) == {"a": 0}
