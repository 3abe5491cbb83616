"""A WorkloadRebalancer's status: Karmada's re-sync of the workload list, trigger times and TTL."""

from __future__ import annotations

from datetime import timedelta

from flotilla.api.karmada.rebalancer import ObservedWorkload, WorkloadReference
from flotilla.controllers.rebalancer.status import needs_trigger, observed_workloads, ttl_left
from flotilla.runtime.clock import ManualClock

NOW = ManualClock().now()


def deployment(name: str, namespace: str = "default") -> WorkloadReference:
    return WorkloadReference(api_version="apps/v1", kind="Deployment", name=name, namespace=namespace)


def role(name: str) -> WorkloadReference:
    return WorkloadReference(api_version="rbac.authorization.k8s.io/v1", kind="ClusterRole", name=name)


def entry(workload: WorkloadReference, result: str | None = None) -> ObservedWorkload:
    reason = "ReferencedBindingNotFound" if result == "Failed" else None
    return ObservedWorkload(workload=workload, result=result, reason=reason)


def test_a_new_rebalancer_gets_an_open_entry_per_workload_in_karmadas_order() -> None:
    """Entries without a result, sorted by apiVersion, kind, namespace, name."""
    entries = observed_workloads([deployment("b"), role("r"), deployment("a")], [])
    assert [(e.workload.kind, e.workload.name, e.result) for e in entries] == [
        ("Deployment", "a", None),
        ("Deployment", "b", None),
        ("ClusterRole", "r", None),
    ]


def test_results_are_kept_for_workloads_still_listed() -> None:
    """Re-syncing an unchanged spec changes nothing: a rebalancer acts once per generation."""
    done = [entry(deployment("a"), "Successful"), entry(deployment("b"), "Failed")]
    assert observed_workloads([deployment("b"), deployment("a")], done) == done


def test_a_changed_spec_keeps_successes_drops_failures_and_adds_new_workloads() -> None:
    """A workload no longer listed stays only if it succeeded; a newly listed one is to be done."""
    done = [entry(deployment("a"), "Successful"), entry(deployment("b"), "Failed")]
    entries = observed_workloads([deployment("c")], done)
    assert [(e.workload.name, e.result) for e in entries] == [("a", "Successful"), ("c", None)]


def test_a_reference_in_another_namespace_is_another_workload() -> None:
    """References are compared by value: the same name elsewhere is a new entry."""
    entries = observed_workloads([deployment("a", "prod")], [entry(deployment("a"), "Failed")])
    assert [(e.workload.namespace, e.result) for e in entries] == [("prod", None)]


def test_a_binding_is_triggered_unless_it_already_was_as_late() -> None:
    """Never triggered, or triggered before the rebalancer was created: trigger; otherwise leave it."""
    assert needs_trigger(NOW, None)
    assert needs_trigger(NOW, NOW - timedelta(seconds=1))
    assert not needs_trigger(NOW, NOW)
    assert not needs_trigger(NOW, NOW + timedelta(seconds=1))


def test_ttl_counts_from_the_finish_time() -> None:
    """Unset: never deleted; 0: at once; otherwise the seconds left; unfinished: not yet."""
    assert ttl_left(NOW, None, NOW) is None
    assert ttl_left(None, 0, NOW) is None
    assert ttl_left(NOW, 0, NOW) == 0
    assert ttl_left(NOW, 30, NOW + timedelta(seconds=10)) == 20
    assert ttl_left(NOW, 30, NOW + timedelta(seconds=40)) == -10
