"""ReflectStatus of member objects and AggregateStatus onto the template, for counters and load balancers."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from flotilla.interpreter import InterpreterError, aggregate_status, reflect_status
from tests.unit.interpreter.samples import member_deployment_status, web_deployment

NOW = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)


def _member_deployment(
    status: dict[str, Any], *, generation: int = 2, template_generation: str = "3"
) -> dict[str, Any]:
    member = web_deployment()
    member["metadata"]["generation"] = generation
    member["metadata"]["annotations"]["resourcetemplate.karmada.io/generation"] = template_generation
    member["status"] = status
    return member


def test_deployment_reflects_counters_both_generations_and_its_conditions() -> None:
    """The member's own generation, the template generation it was rendered from and its
    conditions (without timestamps) come along."""
    member = _member_deployment(
        {
            "observedGeneration": 2,
            "replicas": 2,
            "updatedReplicas": 2,
            "readyReplicas": 1,
            "availableReplicas": 1,
            "unavailableReplicas": 1,
            "conditions": [
                {"type": "Available", "status": "True", "lastUpdateTime": "2025-03-01T10:00:00Z"},
                {"type": "ReplicaFailure", "status": "False"},
            ],
        }
    )
    assert reflect_status(member) == {
        "generation": 2,
        "resourceTemplateGeneration": 3,
        "observedGeneration": 2,
        "replicas": 2,
        "updatedReplicas": 2,
        "readyReplicas": 1,
        "availableReplicas": 1,
        "unavailableReplicas": 1,
        "conditions": [{"type": "Available", "status": "True"}],
    }


def test_zero_counters_are_omitted_as_kube_omits_them() -> None:
    """A Deployment scaled to zero reflects no replica counters at all."""
    reflected = reflect_status(_member_deployment({"observedGeneration": 2, "replicas": 0}))
    assert reflected == {"generation": 2, "resourceTemplateGeneration": 3, "observedGeneration": 2}


def test_a_member_without_status_reflects_nothing() -> None:
    """No status yet means nothing to report, not an empty status."""
    member = web_deployment()
    assert reflect_status(member) is None


def test_a_malformed_generation_annotation_is_an_interpreter_error() -> None:
    """The template generation annotation must be a number."""
    with pytest.raises(InterpreterError, match=r"resourcetemplate\.karmada\.io/generation"):
        reflect_status(_member_deployment({"replicas": 1}, template_generation="three"))


def test_stateful_set_and_daemon_set_keep_the_counters_kube_always_writes() -> None:
    """Required Go fields stay even at zero, optional ones are dropped; a StatefulSet's revisions come too."""
    stateful_set = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "generation": 1},
        "status": {"replicas": 0, "currentRevision": "db-1"},
    }
    assert reflect_status(stateful_set) == {
        "generation": 1,
        "replicas": 0,
        "availableReplicas": 0,
        "currentRevision": "db-1",
    }
    daemon_set = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "generation": 4},
        "status": {"desiredNumberScheduled": 3, "numberReady": 3, "observedGeneration": 4},
    }
    assert reflect_status(daemon_set) == {
        "generation": 4,
        "currentNumberScheduled": 0,
        "numberMisscheduled": 0,
        "desiredNumberScheduled": 3,
        "numberReady": 3,
        "observedGeneration": 4,
    }


def test_service_reflects_its_load_balancer_only_when_it_is_one() -> None:
    """ClusterIP Services have nothing worth reporting."""
    load_balancer = {"ingress": [{"ip": "203.0.113.9"}]}
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"type": "LoadBalancer"},
    }
    assert reflect_status({**service, "status": {"loadBalancer": load_balancer}}) == {
        "loadBalancer": load_balancer
    }
    cluster_ip = {**service, "spec": {"type": "ClusterIP"}, "status": {"loadBalancer": {}}}
    assert reflect_status(cluster_ip) is None


def test_job_reflects_progress_conditions_and_times() -> None:
    """A Job reports what its aggregation needs and nothing else."""
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "pi"},
        "status": {
            "active": 1,
            "failed": 0,
            "startTime": "2025-03-01T10:00:00Z",
            "ready": 1,
            "terminating": 0,
        },
    }
    assert reflect_status(job) == {"startTime": "2025-03-01T10:00:00Z", "active": 1}


def test_kinds_without_a_rule_reflect_their_whole_status() -> None:
    """A custom resource's status is reported as it is."""
    custom = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "status": {"phase": "Ready", "shards": [1, 2]},
    }
    assert reflect_status(custom) == {"phase": "Ready", "shards": [1, 2]}
    assert reflect_status({"apiVersion": "v1", "kind": "ConfigMap"}) is None


def _items(*statuses: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [
        {
            "clusterName": f"member{index}",
            "applied": True,
            **({"status": status} if status is not None else {}),
        }
        for index, status in enumerate(statuses, start=1)
    ]


def test_deployment_on_two_clusters_sums_the_counters() -> None:
    """Two members with one and two ready replicas make the template READY 3/4."""
    template = web_deployment()
    items = _items(
        member_deployment_status(replicas=2, ready=1), member_deployment_status(replicas=2, ready=2)
    )
    status = aggregate_status(template, items, now=NOW)["status"]
    status.pop("conditions")
    assert status == {
        "observedGeneration": 3,
        "replicas": 4,
        "updatedReplicas": 4,
        "readyReplicas": 3,
        "availableReplicas": 3,
        "unavailableReplicas": 1,
    }
    assert "status" not in template


@pytest.mark.parametrize(
    "stale",
    [
        member_deployment_status(replicas=2, ready=2, template_generation=2),
        member_deployment_status(replicas=2, ready=2, generation=5, observed=4),
        None,
    ],
    ids=["rendered-from-older-template", "member-controller-behind", "not-reported"],
)
def test_observed_generation_waits_until_every_member_runs_the_current_template(
    stale: dict[str, Any] | None,
) -> None:
    """Argo CD reads observedGeneration, so it only advances once all members caught up."""
    template = {**web_deployment(), "status": {"observedGeneration": 2}}
    items = _items(member_deployment_status(replicas=2, ready=2), stale)
    assert aggregate_status(template, items, now=NOW)["status"]["observedGeneration"] == 2


def test_observed_generation_reaches_the_template_generation_when_all_members_caught_up() -> None:
    """With every member current, observedGeneration equals the template's generation."""
    template = {**web_deployment(), "status": {"observedGeneration": 2}}
    items = _items(
        member_deployment_status(replicas=2, ready=2), member_deployment_status(replicas=2, ready=0)
    )
    assert aggregate_status(template, items, now=NOW)["status"]["observedGeneration"] == 3


def test_stateful_set_and_replica_set_sum_their_counters() -> None:
    """Other workloads fold the same way with their own counters."""
    stateful_set = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "generation": 1},
    }
    member = {"generation": 1, "resourceTemplateGeneration": 1, "observedGeneration": 1, "replicas": 1}
    status = aggregate_status(stateful_set, _items({**member, "readyReplicas": 1}, member), now=NOW)["status"]
    assert status == {"observedGeneration": 1, "replicas": 2, "readyReplicas": 1, "availableReplicas": 0}
    replica_set = {**stateful_set, "kind": "ReplicaSet"}
    status = aggregate_status(replica_set, _items({**member, "availableReplicas": 1}), now=NOW)["status"]
    assert status == {"replicas": 1, "availableReplicas": 1, "observedGeneration": 1}


def test_load_balancer_service_shows_the_union_of_member_ingress() -> None:
    """Each member's address appears once, named after its cluster when it has no hostname."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"type": "LoadBalancer"},
    }
    items = _items(
        {"loadBalancer": {"ingress": [{"ip": "198.51.100.2"}]}},
        {"loadBalancer": {"ingress": [{"ip": "192.0.2.7"}, {"hostname": "lb.example.com"}]}},
        {"loadBalancer": {"ingress": [{"ip": "198.51.100.2", "hostname": "member1"}]}},
        None,
    )
    assert aggregate_status(service, items, now=NOW)["status"] == {
        "loadBalancer": {
            "ingress": [
                {"hostname": "lb.example.com"},
                {"ip": "192.0.2.7", "hostname": "member2"},
                {"ip": "198.51.100.2", "hostname": "member1"},
            ]
        }
    }


def test_a_service_that_is_not_a_load_balancer_keeps_its_status() -> None:
    """ClusterIP and NodePort Services are left as the template has them."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web"},
        "spec": {"type": "NodePort"},
    }
    items = _items({"loadBalancer": {"ingress": [{"ip": "192.0.2.7"}]}})
    assert aggregate_status(service, items, now=NOW) == service


def test_ingress_shows_the_union_of_member_load_balancers() -> None:
    """An Ingress collects every member controller's address."""
    ingress = {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "web"}}
    items = _items({"loadBalancer": {"ingress": [{"ip": "192.0.2.7", "ports": [{"port": 443}]}]}})
    assert aggregate_status(ingress, items, now=NOW)["status"] == {
        "loadBalancer": {"ingress": [{"ip": "192.0.2.7", "ports": [{"port": 443}], "hostname": "member1"}]}
    }


def test_disruption_budget_and_autoscaler_sum_their_members() -> None:
    """Budgets and autoscalers add up; disrupted pods are named with their cluster."""
    budget = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "web"}}
    member = {"disruptionsAllowed": 1, "currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3}
    items = _items({**member, "disruptedPods": {"web-1": "2025-03-01T11:00:00Z"}}, member)
    assert aggregate_status(budget, items, now=NOW)["status"] == {
        "disruptedPods": {"member1/web-1": "2025-03-01T11:00:00Z"},
        "disruptionsAllowed": 2,
        "currentHealthy": 6,
        "desiredHealthy": 4,
        "expectedPods": 6,
    }
    autoscaler = {
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": "web"},
    }
    items = _items({"currentReplicas": 2, "desiredReplicas": 3}, {"currentReplicas": 1, "desiredReplicas": 1})
    assert aggregate_status(autoscaler, items, now=NOW)["status"] == {
        "currentReplicas": 3,
        "desiredReplicas": 4,
    }


def test_kinds_without_aggregation_are_returned_unchanged() -> None:
    """A ConfigMap has no status to fold."""
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    assert aggregate_status(config_map, _items({"anything": 1}), now=NOW) == config_map
