"""The usage arithmetic shared by the FederatedResourceQuota controller and the hub's admission."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.federatedquota import (
    at_least,
    binding_usage,
    exceeded,
    overall_used,
    reserved,
    resource_amounts,
    workload_usage,
    written,
)


def binding(requests: dict[str, str] | None, clusters: dict[str, int], **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"clusters": [{"name": c, "replicas": r} for c, r in clusters.items()], **spec}
    if requests is not None:
        body["replicaRequirements"] = {"resourceRequest": requests}
    return {"spec": body}


def test_a_binding_holds_its_scheduled_replicas_times_the_requests_of_one() -> None:
    """3 + 2 scheduled replicas of 500m and 64Mi hold 2500m and 320Mi; unscheduled ones hold nothing."""
    usage = binding_usage(binding({"cpu": "500m", "memory": "64Mi"}, {"m1": 3, "m2": 2}, replicas=9))
    assert written(usage) == {"cpu": "2500m", "memory": "320Mi"}
    assert binding_usage(binding({"cpu": "1"}, {}, replicas=4)) == {}
    assert binding_usage(binding(None, {"m1": 3})) == {}


def test_components_count_once_per_scheduled_cluster() -> None:
    """With components, each component's replicas times its requests, for every cluster (Karmada's rule)."""
    components = [
        {"name": "jobmanager", "replicas": 1, "replicaRequirements": {"resourceRequest": {"cpu": "1"}}},
        {"name": "taskmanager", "replicas": 2, "replicaRequirements": {"resourceRequest": {"cpu": "500m"}}},
    ]
    usage = binding_usage(binding(None, {"m1": 0, "m2": 0}, components=components))
    assert written(usage) == {"cpu": "4"}


def test_overall_used_counts_only_what_the_quota_names_and_requests_prefix_counts_requests() -> None:
    bindings = [binding({"cpu": "250m", "memory": "1Gi"}, {"m1": 2}), binding({"cpu": "1"}, {"m2": 1})]
    assert written(overall_used(bindings, resource_amounts({"cpu": "10"}))) == {"cpu": "1500m"}
    assert written(overall_used(bindings, resource_amounts({"requests.memory": "8Gi"}))) == {
        "requests.memory": "2Gi"
    }


def test_growth_past_the_limit_is_refused_with_kubes_quota_wording() -> None:
    """8 of 10 CPUs used, a workload growing from 1 to 4 CPUs asks 3 more: refused, with the numbers."""
    overall = resource_amounts({"cpu": "10", "memory": "100Gi"})
    refusal = exceeded(
        "team-a",
        overall,
        resource_amounts({"cpu": "8", "memory": "1Gi"}),
        workload_usage(2, {"cpu": "500m", "memory": "1Gi"}),
        workload_usage(8, {"cpu": "500m", "memory": "1Gi"}),
    )
    assert refusal is not None
    assert refusal.message == "exceeded quota: team-a, requested: cpu=3, used: cpu=8, limited: cpu=10"


def test_reaching_the_limit_exactly_passes() -> None:
    overall = resource_amounts({"cpu": "2"})
    assert (
        exceeded("q", overall, resource_amounts({"cpu": "1"}), {}, workload_usage(2, {"cpu": "500m"})) is None
    )


def test_shrinking_or_unchanged_usage_passes_even_over_the_quota() -> None:
    """An administrator lowered overall below what runs: scaling down and relabelling still pass."""
    overall = resource_amounts({"cpu": "1"})
    used = resource_amounts({"cpu": "5"})
    five, three = workload_usage(5, {"cpu": "1"}), workload_usage(3, {"cpu": "1"})
    assert exceeded("q", overall, used, five, three) is None
    assert exceeded("q", overall, used, five, five) is None


def test_resources_the_quota_does_not_name_never_refuse() -> None:
    overall = resource_amounts({"memory": "1Gi"})
    assert exceeded("q", overall, {}, {}, workload_usage(100, {"cpu": "1", "memory": "1Mi"})) is None


def test_several_exceeded_resources_are_listed_in_name_order() -> None:
    overall = resource_amounts({"memory": "1Gi", "cpu": "1"})
    refusal = exceeded("q", overall, {}, {}, workload_usage(2, {"cpu": "1", "memory": "1Gi"}))
    assert refusal is not None
    assert refusal.message == (
        "exceeded quota: q, requested: cpu=2,memory=2Gi, used: cpu=0,memory=0, limited: cpu=1,memory=1Gi"
    )


def test_resource_lists_skip_what_is_not_a_quantity() -> None:
    assert written(resource_amounts({"cpu": "1.5", "memory": "lots", "pods": 3})) == {
        "cpu": "1500m",
        "pods": "3",
    }
    assert resource_amounts(None) == {}


def test_a_reservation_never_lowers_what_the_cache_shows() -> None:
    """Per resource the larger of the cache's usage and the status' reservation counts."""
    cache = resource_amounts({"cpu": "1", "memory": "1Gi"})
    status = resource_amounts({"cpu": "1500m", "pods": "2"})
    assert written(at_least(cache, status)) == {"cpu": "1500m", "memory": "1Gi", "pods": "2"}


def test_a_reservation_adds_only_the_growth_the_quota_counts() -> None:
    """Held plus the growth of each named resource; nothing to reserve when nothing counted grows."""
    overall = resource_amounts({"requests.cpu": "4", "pods": "10"})
    held = resource_amounts({"requests.cpu": "1"})
    before = resource_amounts({"cpu": "500m", "memory": "1Gi"})
    after = resource_amounts({"cpu": "1500m", "memory": "8Gi"})
    assert written(reserved(overall, held, before, after) or {}) == {"requests.cpu": "2"}
    assert reserved(overall, held, after, before) is None
