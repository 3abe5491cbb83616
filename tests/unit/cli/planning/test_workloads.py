"""Planning a workload: the detector's choice of policy and binding, then the scheduler's preview."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.cli.planning.workloads import (
    NAMESPACE_AUTO_PROPAGATED,
    NO_POLICY,
    NO_POLICY_RELEASED,
    SKIPPED_NAMESPACE,
    PlanInputError,
    merge_policies,
    plan_workload,
    planned_member,
    selects,
)
from flotilla.scheduler.core.inputs import ClusterInfo, TargetCluster
from flotilla.scheduler.core.workloadgroups import GroupMember, WorkloadGroups
from flotilla.scheduler.preview import Outcome

PP_ID_LABEL = "propagationpolicy.karmada.io/permanent-id"


def cluster(name: str, **spec: Any) -> ClusterInfo:
    return ClusterInfo.from_object(
        {
            "metadata": {"name": name},
            "spec": spec,
            "status": {
                "apiEnablements": [{"groupVersion": "apps/v1", "resources": [{"kind": "Deployment"}]}],
                "resourceSummary": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}},
            },
        }
    )


CLUSTERS = [cluster("member1"), cluster("member2"), cluster("member3")]


def deployment(
    name: str = "web", namespace: str = "shop", replicas: int = 4, **metadata: Any
) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, **metadata},
        "spec": {
            "replicas": replicas,
            "template": {"spec": {"containers": [{"name": "web", "image": "nginx"}]}},
        },
    }


def policy(
    name: str,
    placement: dict[str, Any],
    *,
    namespace: str | None = "shop",
    selector: dict[str, Any] | None = None,
    priority: int | None = None,
    permanent_id: str | None = None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    if permanent_id is not None:
        label = PP_ID_LABEL if namespace is not None else "clusterpropagationpolicy.karmada.io/permanent-id"
        metadata["labels"] = {label: permanent_id}
    spec: dict[str, Any] = {
        "resourceSelectors": [selector or {"apiVersion": "apps/v1", "kind": "Deployment"}],
        "placement": placement,
    }
    if priority is not None:
        spec["priority"] = priority
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy" if namespace is not None else "ClusterPropagationPolicy",
        "metadata": metadata,
        "spec": spec,
    }


def only(*names: str) -> dict[str, Any]:
    return {
        "clusterAffinity": {"clusterNames": list(names)},
        "replicaScheduling": {"replicaSchedulingType": "Divided"},
    }


def placed(plan: Any) -> dict[str, int]:
    assert plan.preview is not None
    return {target.name: target.replicas for target in plan.preview.targets}


def test_a_template_no_policy_selects_is_not_propagated() -> None:
    """Without a selecting policy there is no preview, and the plan says it would not be propagated."""
    plan = plan_workload(deployment(), merge_policies([], []), CLUSTERS)
    assert plan.policy is None
    assert plan.preview is None
    assert plan.unplanned == NO_POLICY


def test_a_policy_in_the_manifests_replaces_the_hub_policy_of_the_same_name() -> None:
    """The manifest's version of `shop/web` places the workload, and is reported as from the manifests."""
    policies = merge_policies(
        [policy("web", only("member1"), permanent_id="id-1")], [policy("web", only("member2", "member3"))]
    )
    plan = plan_workload(deployment(), policies, CLUSTERS)
    assert plan.policy is not None
    assert (str(plan.policy), plan.policy.from_manifests) == ("PropagationPolicy shop/web", True)
    assert placed(plan) == {"member2": 2, "member3": 2}
    assert policies.propagation_policies[0].metadata.labels[PP_ID_LABEL] == "id-1"


def test_the_higher_explicit_priority_wins_then_the_more_specific_selector() -> None:
    """Priority beats selector specificity; among equal priorities a name selector beats a kind selector."""
    by_name = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    policies = merge_policies(
        [
            policy("a-kind", only("member1")),
            policy("b-name", only("member2"), selector=by_name),
        ],
        [],
    )
    assert str(plan_workload(deployment(), policies, CLUSTERS).policy) == "PropagationPolicy shop/b-name"
    urgent = merge_policies(
        [],
        [policy("a-kind", only("member1"), priority=5), policy("b-name", only("member2"), selector=by_name)],
    )
    assert str(plan_workload(deployment(), urgent, CLUSTERS).policy) == "PropagationPolicy shop/a-kind"


def test_a_cluster_policy_applies_when_no_namespaced_policy_selects_the_template() -> None:
    """A ClusterPropagationPolicy is the fallback; a PropagationPolicy of another namespace never applies."""
    policies = merge_policies(
        [
            policy("elsewhere", only("member1"), namespace="other"),
            policy("everywhere", only("member3"), namespace=None),
        ],
        [],
    )
    plan = plan_workload(deployment(), policies, CLUSTERS)
    assert str(plan.policy) == "ClusterPropagationPolicy everywhere"
    assert placed(plan) == {"member3": 4}


def test_the_binding_carries_the_templates_replicas_through_the_interpreter() -> None:
    """A Job's parallelism (capped by completions) is what the scheduler divides."""
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "batch", "namespace": "shop"},
        "spec": {"parallelism": 5, "completions": 3, "template": {"spec": {"containers": []}}},
    }
    selector = {"apiVersion": "batch/v1", "kind": "Job"}
    plan = plan_workload(
        job, merge_policies([], [policy("jobs", only("member1"), selector=selector)]), CLUSTERS
    )
    assert plan.replicas == 3
    assert plan.preview is not None
    # The members do not serve batch/v1 Job: APIEnablement keeps it off every cluster.
    assert {item.plugin for item in plan.preview.decisions} == {"APIEnablement"}


def test_an_existing_binding_gives_the_current_placement_and_its_uid() -> None:
    """The hub's binding is the starting point: its result is `current`; the template's UID (not the
    binding's) settles ties."""
    template = deployment(replicas=3, uid="template-uid")
    existing = {
        "apiVersion": "work.karmada.io/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {
            "name": "web-deployment",
            "namespace": "shop",
            "uid": "binding-uid",
            "ownerReferences": [{"uid": "template-uid", "controller": True}],
            "labels": {"resourcebinding.karmada.io/permanent-id": "rb-id"},
        },
        "spec": {"replicas": 2, "clusters": [{"name": "member1", "replicas": 2}]},
    }
    policies = merge_policies([], [policy("web", only("member1", "member2"))])
    plan = plan_workload(template, policies, CLUSTERS, existing)
    assert plan.current == (TargetCluster("member1", 2),)
    assert plan.preview is not None
    assert plan.preview.tie_alternative == ()
    assert plan.preview.tie is not None and plan.preview.tie.template_uid == "template-uid"
    assert sum(placed(plan).values()) == 3


def test_a_new_template_leaves_the_tie_to_the_uid_it_will_get() -> None:
    """No uid yet: the tie is planned ascending, and the other split is offered."""
    plan = plan_workload(
        deployment(replicas=3), merge_policies([], [policy("web", only("member1", "member2"))]), CLUSTERS
    )
    assert plan.preview is not None and plan.preview.tie is not None
    assert not plan.preview.tie.known
    assert placed(plan) == {"member1": 2, "member2": 1}
    assert plan.preview.tie_alternative == (TargetCluster("member1", 1), TargetCluster("member2", 2))


def test_peers_of_an_anti_affinity_group_keep_the_workload_off_their_clusters() -> None:
    """The policy groups by `app.ha`; a peer of `app.ha=pipeline` runs on member1: excluded, with why;
    the planned binding then counts for the templates planned after it."""
    placement = {
        "clusterAffinity": {"clusterNames": ["member1", "member2"]},
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}],
        "workloadAffinity": {"antiAffinity": {"groupByLabelKey": "app.ha"}},
    }
    group = WorkloadGroups(anti_affinity_group="app.ha=pipeline")
    peer = GroupMember("shop", "copy-deployment", group, frozenset({"member1"}))
    template = deployment(replicas=1, labels={"app.ha": "pipeline"})
    plan = plan_workload(template, merge_policies([], [policy("ha", placement)]), CLUSTERS, peers=[peer])
    assert placed(plan) == {"member2": 1}
    assert plan.preview is not None
    member1 = next(item for item in plan.preview.decisions if item.cluster == "member1")
    assert (member1.outcome, member1.plugin) == (Outcome.FILTERED, "WorkloadAntiAffinity")
    assert member1.reason.endswith("anti-affinity group app.ha=pipeline runs here: copy-deployment")
    assert planned_member(plan) == GroupMember("shop", "web-deployment", group, frozenset({"member2"}))


def test_a_binding_of_another_template_is_not_the_current_placement() -> None:
    """A leftover binding owned by an older object of the same name is ignored."""
    existing = {
        "metadata": {"name": "web-deployment", "ownerReferences": [{"uid": "old", "controller": True}]},
        "spec": {"clusters": [{"name": "member1", "replicas": 2}]},
    }
    plan = plan_workload(deployment(uid="new"), merge_policies([], []), CLUSTERS, existing)
    assert plan.current is None


def test_a_released_workload_keeps_running_where_it_is() -> None:
    """A template with a binding but no policy any more is released, not removed."""
    existing = {
        "metadata": {"name": "web-deployment"},
        "spec": {"clusters": [{"name": "member1", "replicas": 4}]},
    }
    plan = plan_workload(deployment(uid="u"), merge_policies([], []), CLUSTERS, existing)
    assert plan.unplanned == NO_POLICY_RELEASED
    assert plan.current == (TargetCluster("member1", 4),)


def test_namespaces_and_reserved_namespaces_are_explained() -> None:
    """A Namespace without a policy goes everywhere by itself; objects in kube-system are never templates."""
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}
    assert plan_workload(namespace, merge_policies([], []), CLUSTERS).unplanned == NAMESPACE_AUTO_PROPAGATED
    hidden = deployment(namespace="kube-system")
    everything = merge_policies([], [policy("all", only("member1"), namespace=None)])
    assert plan_workload(hidden, everything, CLUSTERS).unplanned == SKIPPED_NAMESPACE


def test_suspended_scheduling_is_not_previewed() -> None:
    """A policy that suspends scheduling leaves the binding to wait; there is nothing to preview."""
    suspended = policy("web", only("member1"))
    suspended["spec"]["suspension"] = {"scheduling": True}
    plan = plan_workload(deployment(), merge_policies([], [suspended]), CLUSTERS)
    assert plan.preview is None
    assert plan.unplanned == "scheduling is suspended by the policy"


def test_a_policy_in_the_manifests_that_does_not_parse_is_an_input_error() -> None:
    """A malformed policy stops the plan with a message naming it."""
    broken = policy("web", only("member1"))
    broken["spec"]["resourceSelectors"] = "everything"
    with pytest.raises(PlanInputError, match="PropagationPolicy web"):
        merge_policies([], [broken])


def test_selects_respects_the_policy_namespace() -> None:
    """A PropagationPolicy selects only templates of its own namespace."""
    policies = merge_policies([], [policy("web", only("member1"))])
    web = policies.propagation_policies[0]
    assert selects(web, deployment())
    assert not selects(web, deployment(namespace="other"))


def test_the_tainted_cluster_decision_reaches_the_plan() -> None:
    """The preview's decisions arrive intact: a taint excludes member3 by TaintToleration."""
    tainted = [*CLUSTERS[:2], cluster("member3", taints=[{"key": "maintenance", "effect": "NoSchedule"}])]
    plan = plan_workload(
        deployment(), merge_policies([], [policy("web", {"replicaScheduling": {}})]), tainted
    )
    assert plan.preview is not None
    member3 = next(item for item in plan.preview.decisions if item.cluster == "member3")
    assert (member3.outcome, member3.plugin) == (Outcome.FILTERED, "TaintToleration")
    assert placed(plan) == {"member1": 2, "member2": 2}
