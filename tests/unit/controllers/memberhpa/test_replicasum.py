"""When a marked Deployment's template takes the sum of its members' replicas (Karmada's checks)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.controllers.memberhpa.replicasum import Idle, Sync, Wait, decide, members_total

RETAIN = "resourcetemplate.karmada.io/retain-replicas"
DIVIDED = {"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}}


def template(replicas: int | None = 4, *, marked: bool = True) -> dict[str, Any]:
    labels = {RETAIN: "true"} if marked else {}
    spec = {} if replicas is None else {"replicas": replicas}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": labels},
        "spec": spec,
    }


def member(replicas: int, generation: int = 2, observed: int | None = 2) -> dict[str, Any]:
    status: dict[str, Any] = {"replicas": replicas, "generation": generation}
    if observed is not None:
        status["observedGeneration"] = observed
    return status


def binding(
    members: Mapping[str, dict[str, Any] | None],
    *,
    replicas: int = 4,
    placement: dict[str, Any] | None = None,
    generation: int = 3,
    scheduled: int = 3,
) -> dict[str, Any]:
    return {
        "metadata": {"name": "web-deployment", "generation": generation},
        "spec": {
            "replicas": replicas,
            "placement": DIVIDED if placement is None else placement,
            "clusters": [{"name": name, "replicas": 2} for name in members],
        },
        "status": {
            "schedulerObservedGeneration": scheduled,
            "aggregatedStatus": [
                {"clusterName": name, **({"status": status} if status is not None else {})}
                for name, status in members.items()
            ],
        },
    }


def test_the_template_takes_the_sum_of_what_the_members_run() -> None:
    """m1's HPA scaled its copy from 2 to 5: the template says 7."""
    assert decide(template(4), binding({"m1": member(5), "m2": member(2)})) == Sync(7)


def test_a_template_already_at_the_sum_is_left_alone() -> None:
    assert isinstance(decide(template(7), binding({"m1": member(5), "m2": member(2)}, replicas=7)), Idle)


def test_only_marked_divided_templates_with_replicas_and_a_binding_are_the_syncers() -> None:
    members = {"m1": member(5), "m2": member(2)}
    assert isinstance(decide(template(marked=False), binding(members)), Idle)
    assert isinstance(decide(template(), None), Idle)
    assert isinstance(decide(template(None), binding(members)), Idle)
    duplicated = binding(members, placement={"replicaScheduling": {"replicaSchedulingType": "Duplicated"}})
    assert isinstance(decide(template(), duplicated), Idle), "a sum of duplicated copies multiplies"
    assert isinstance(decide(template(), binding(members, placement={})), Idle), (
        "no replicaScheduling: Duplicated"
    )


def test_it_waits_while_the_binding_or_the_scheduler_is_behind() -> None:
    members = {"m1": member(5), "m2": member(2)}
    assert decide(template(7), binding(members, replicas=4)) == Wait(
        "the binding to take the template's replicas"
    )
    assert decide(template(4), binding(members, generation=4, scheduled=3)) == Wait(
        "the scheduler to observe the binding"
    )


def test_it_waits_until_every_target_cluster_reported_a_settled_copy() -> None:
    """A missing or stale member would make the sum too small."""
    assert decide(template(), binding({"m1": member(5), "m2": None})) == Wait("the status of cluster m2")
    assert decide(template(), binding({"m1": member(5), "m2": member(0)})) == Wait("the status of cluster m2")
    stale = binding({"m1": member(5, generation=3, observed=2), "m2": member(2)})
    assert decide(template(), stale) == Wait("cluster m1 to observe its copy's generation 3")
    assert decide(template(), binding({"m1": member(5, observed=None), "m2": member(2)})) == Wait(
        "cluster m1 to observe its copy's generation 2"
    )


def test_the_total_counts_only_target_clusters() -> None:
    """A status left from a cluster no longer targeted does not count."""
    found = binding({"m1": member(3)})
    found["status"]["aggregatedStatus"].append({"clusterName": "gone", "status": member(9)})
    assert members_total(found) == 3
    assert members_total({"spec": {"clusters": []}}) == "no target clusters"
