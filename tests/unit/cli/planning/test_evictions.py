"""What a what-if taint moves: the taint manager's evictions and the scheduler's re-placement, settled."""

from __future__ import annotations

from typing import Any

from flotilla.cli.planning.evictions import BindingOutlook, TaintPlan, When
from flotilla.cli.planning.workloads import merge_policies, plan_workload
from flotilla.scheduler.core.inputs import ClusterInfo, TargetCluster
from flotilla.scheduler.preview import Outcome
from tests.unit.cli.planning.taintworld import (
    CLUSTERS,
    DIVIDED,
    DUPLICATED,
    binding,
    cluster,
    tolerating,
    what_if,
)

MAINTENANCE = "member2=maintenance:NoExecute"


def only(plan: TaintPlan) -> BindingOutlook:
    assert len(plan.affected) == 1, plan.affected
    return plan.affected[0]


def targets(**replicas: int) -> tuple[TargetCluster, ...]:
    return tuple(TargetCluster(name, count) for name, count in replicas.items())


def new_binding(name: str, placement: dict[str, Any], replicas: int = 4) -> dict[str, Any]:
    """The binding the manifests' Deployment and policy would create, as `plan` builds it."""
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": name}],
            "placement": placement,
        },
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}},
    }
    planned = plan_workload(
        deployment, merge_policies([], [policy]), [ClusterInfo.from_object(item) for item in CLUSTERS]
    )
    assert planned.binding is not None
    return dict(planned.binding)


def test_an_untolerated_taint_evicts_now_and_the_divided_split_is_recomputed() -> None:
    """The evicted cluster's replicas are split over the others; the eviction task keeps it out."""
    web = only(what_if([binding("web", {"member1": 2, "member2": 2, "member3": 2}, DIVIDED)], MAINTENANCE))
    assert [(item.cluster, item.when, item.replicas) for item in web.clusters] == [("member2", When.NOW, 2)]
    assert web.after == targets(member1=3, member3=3)
    assert web.preview is not None
    member2 = next(decision for decision in web.preview.decisions if decision.cluster == "member2")
    assert member2.outcome is Outcome.FILTERED


def test_toleration_seconds_evict_after_they_run_out() -> None:
    """A toleration with tolerationSeconds: evicted once they have run, counted from the taint's addition."""
    api = only(what_if([binding("api", {"member1": 2, "member2": 2}, tolerating(DIVIDED, 300))], MAINTENANCE))
    assert [(item.cluster, item.when, item.seconds) for item in api.clusters] == [
        ("member2", When.LATER, 300)
    ]
    assert "member2" not in {target.name for target in api.after}
    assert sum(target.replicas for target in api.after) == 4


def test_a_toleration_without_seconds_keeps_the_copy_for_good() -> None:
    """Tolerated forever: listed as never evicted, and the placement stays."""
    logs = only(
        what_if([binding("logs", {"member1": 1, "member2": 1}, tolerating(DUPLICATED, None))], MAINTENANCE)
    )
    assert [(item.cluster, item.when) for item in logs.clusters] == [("member2", When.NEVER)]
    assert logs.after == logs.before
    assert "member2" in {target.name for target in logs.after}


def test_a_duplicated_workload_runs_one_copy_fewer() -> None:
    """Duplicated: the evicted cluster's copy is not replaced (every other cluster runs one already)."""
    cache = only(
        what_if([binding("cache", {"member1": 2, "member2": 2, "member3": 2}, DUPLICATED)], MAINTENANCE)
    )
    assert cache.before == targets(member1=2, member2=2, member3=2)
    assert cache.after == targets(member1=2, member3=2)


def test_a_duplicated_workload_moves_to_a_cluster_it_was_not_on() -> None:
    """With a cluster free and a spread of two, the evicted copy goes to it."""
    spread = {
        **DUPLICATED,
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 2, "maxGroups": 2}],
    }
    moved = only(what_if([binding("pair", {"member1": 1, "member2": 1}, spread)], MAINTENANCE))
    assert moved.after == targets(member1=1, member3=1)


def test_a_workload_leaving_a_tainted_cluster_avoids_its_anti_affinity_peer() -> None:
    """`b` leaves member2; member1 runs `a` of its anti-affinity group, so `b` goes to member3."""
    one = {**DUPLICATED, "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]}
    a, b = binding("a", {"member1": 1}, one), binding("b", {"member2": 1}, one)
    for item in (a, b):
        item["spec"]["workloadAffinityGroups"] = {"antiAffinityGroup": "app.ha=pipeline"}
    moved = only(what_if([a, b], MAINTENANCE))
    assert moved.name == "b-deployment"
    assert moved.after == targets(member3=1)


def test_no_schedule_moves_nothing_placed_but_keeps_new_placements_off() -> None:
    """The hub's binding stays on the cluster; the manifests' new binding is not placed there."""
    plan = what_if(
        [binding("web", {"member1": 2, "member2": 2}, DIVIDED)],
        "member2=disk=slow:NoSchedule",
        from_manifests=[new_binding("fresh", DIVIDED)],
    )
    by_name = {outlook.name: outlook for outlook in plan.affected}
    web = by_name["web-deployment"]
    assert web.after == web.before
    assert [(item.cluster, item.when) for item in web.clusters] == [("member2", When.NEVER)]
    assert "NoSchedule moves nothing already placed" in web.clusters[0].reason
    fresh = by_name["fresh-deployment"]
    assert fresh.from_manifests
    assert "member2" in {target.name for target in fresh.before}
    assert "member2" not in {target.name for target in fresh.after}
    assert fresh.clusters == ()  # kept off, not evicted: the scheduler's decision says why


def test_a_new_binding_placed_on_a_tolerated_cluster_leaves_it_when_the_toleration_ends() -> None:
    """The scheduler may place a new binding where a NoExecute taint is tolerated for a while; the taint
    manager evicts it when that while ends, and the split is made again without it."""
    fresh = only(what_if([], MAINTENANCE, from_manifests=[new_binding("fresh", tolerating(DIVIDED, 120))]))
    assert [(item.cluster, item.when, item.seconds) for item in fresh.clusters] == [
        ("member2", When.LATER, 120)
    ]
    assert "member2" not in {target.name for target in fresh.after}
    assert sum(target.replicas for target in fresh.after) == 4


def test_a_taint_already_there_moves_nothing() -> None:
    """Laying a taint the cluster carries changes nothing: it is reported as already there."""
    taint = {"key": "maintenance", "effect": "NoExecute", "timeAdded": "2026-12-01T00:00:00Z"}
    clusters = [cluster("member1", "region-a"), cluster("member2", "region-a", [taint])]
    bindings = [binding("logs", {"member1": 1, "member2": 1}, tolerating(DUPLICATED, None))]
    plan = what_if(bindings, MAINTENANCE, clusters=clusters)
    assert [item.new for item in plan.taints] == [False]
    assert plan.affected == ()
    assert plan.unaffected == 1


def test_a_binding_of_another_scheduler_only_loses_its_evicted_cluster() -> None:
    """The taint manager evicts whatever schedules the binding; Flotilla's scheduler does not re-place it."""
    other = binding("other", {"member1": 2, "member2": 2}, DIVIDED)
    other["spec"]["schedulerName"] = "someone-else"
    outlook = only(what_if([other], MAINTENANCE))
    assert outlook.after == targets(member1=2)
    assert outlook.preview is None
    assert outlook.unscheduled.startswith("scheduled by someone-else")


def test_deleting_bindings_are_not_looked_at_and_the_rest_are_counted() -> None:
    """A binding being deleted is neither affected nor counted; untouched ones are counted."""
    leaving = binding("leaving", {"member2": 2}, DIVIDED)
    leaving["metadata"]["deletionTimestamp"] = "2026-12-02T03:00:00Z"
    plan = what_if([leaving, binding("solo", {"member1": 2}, DIVIDED)], MAINTENANCE)
    assert plan.affected == ()
    assert plan.unaffected == 1


def test_evictions_happen_in_time_order() -> None:
    """An untolerated taint evicts now and a tolerated one later; the placement after is after both."""
    placement = tolerating(DIVIDED, 300)
    plan = what_if(
        [binding("api", {"member1": 2, "member2": 2, "member3": 2}, placement)],
        MAINTENANCE,
        "member3=outage:NoExecute",
    )
    api = only(plan)
    assert [(item.cluster, item.when, item.seconds) for item in api.clusters] == [
        ("member2", When.LATER, 300),
        ("member3", When.NOW, None),
    ]
    assert api.after == targets(member1=6)
