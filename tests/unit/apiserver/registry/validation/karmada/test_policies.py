"""Propagation policies are validated by Karmada's rules, reported at the field at fault.

Placement and failover rules (`karmada/placement.py`) are tested here too, through the policy that
holds them: Karmada's webhook checks them there, after the policy's defaults.
"""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.apiserver.registry.defaults import karmada as defaults
from flotilla.apiserver.registry.validation import karmada as validation
from tests.unit.api.karmada.manifests import (
    AFFINITIES_POLICY,
    SPREAD_POLICY,
    STATIC_WEIGHTS_POLICY,
    WALKTHROUGH_POLICY,
    fresh,
)


def policy(**spec: Any) -> dict[str, Any]:
    """A PropagationPolicy in `apps` selecting Deployment `web`, with `spec` merged in."""
    return {
        "metadata": {"name": "p", "namespace": "apps"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
            **spec,
        },
    }


def errors(obj: dict[str, Any]) -> list[str]:
    """The errors of a PropagationPolicy after Karmada's defaults, as kube prints them."""
    defaults.default_propagation_policy(obj)
    return [str(e) for e in validation.validate_propagation_policy(obj)]


@pytest.mark.parametrize(
    "manifest",
    [WALKTHROUGH_POLICY, STATIC_WEIGHTS_POLICY, AFFINITIES_POLICY],
    ids=["walkthrough", "static-weights", "affinities"],
)
def test_documented_policies_are_valid(manifest: dict[str, Any]) -> None:
    """Karmada's own examples pass."""
    obj = fresh(manifest)
    obj["metadata"].setdefault("namespace", "apps")
    assert errors(obj) == []


def test_documented_cluster_policy_is_valid() -> None:
    """Spread by region with a cluster constraint beside it."""
    obj = fresh(SPREAD_POLICY)
    defaults.default_cluster_propagation_policy(obj)
    assert validation.validate_cluster_propagation_policy(obj) == []


def test_resource_selectors_are_required_and_not_empty() -> None:
    """Nil or empty selectors never mean "everything"."""
    missing = policy()
    del missing["spec"]["resourceSelectors"]
    assert errors(missing) == [
        "spec.resourceSelectors: Required value: at least one resource selector is required"
    ]
    assert errors(policy(resourceSelectors=[])) == [
        "spec.resourceSelectors: Invalid value: 0: should have at least 1 items"
    ]


def test_selectors_need_api_version_and_kind() -> None:
    """Both identify what is selected."""
    assert errors(policy(resourceSelectors=[{"name": "web"}])) == [
        "spec.resourceSelectors[0].apiVersion: Required value",
        "spec.resourceSelectors[0].kind: Required value",
    ]


def test_a_propagation_policy_selects_only_its_own_namespace() -> None:
    """A selector naming another namespace is refused; cluster policies may select any."""
    obj = policy(resourceSelectors=[{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "other"}])
    assert errors(obj) == [
        'spec.resourceSelectors[0].namespace: Invalid value: "other": a PropagationPolicy selects resources '
        'of its own namespace only ("apps")'
    ]
    cluster_policy = {"spec": obj["spec"]}
    assert validation.validate_cluster_propagation_policy(cluster_policy) == []


def test_label_selectors_are_validated_wherever_they_appear() -> None:
    """Resource selectors, cluster affinity and static weight targets."""
    bad = {"matchLabels": {"bad key!": "v"}}
    obj = policy(
        placement={
            "clusterAffinity": {"labelSelector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}},
            "replicaScheduling": {
                "weightPreference": {
                    "staticWeightList": [{"targetCluster": {"labelSelector": bad}, "weight": 1}]
                }
            },
        }
    )
    obj["spec"]["resourceSelectors"][0]["labelSelector"] = bad
    fields = [e.split(":")[0] for e in errors(obj)]
    assert fields == [
        "spec.resourceSelectors[0].labelSelector.matchLabels",
        "spec.placement.clusterAffinity.labelSelector.matchExpressions[0].operator",
        "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].targetCluster.labelSelector.matchLabels",
    ]


@pytest.mark.parametrize("weight", [0, -1])
def test_static_weights_are_at_least_one(weight: int) -> None:
    """Zero and negative weights are refused at the weight itself."""
    obj = policy(
        placement={
            "replicaScheduling": {
                "weightPreference": {
                    "staticWeightList": [{"targetCluster": {"clusterNames": ["a"]}, "weight": weight}]
                }
            }
        }
    )
    assert errors(obj) == [
        "spec.placement.replicaScheduling.weightPreference.staticWeightList[0].weight: Invalid value: "
        f"{weight}: "
        "must be greater than or equal to 1"
    ]


def test_unknown_enum_values_are_refused() -> None:
    """Every enumerated field lists what it supports."""
    obj = policy(
        conflictResolution="Maybe",
        preemption="Sometimes",
        activationPreference="Eager",
        placement={
            "replicaScheduling": {
                "replicaSchedulingType": "Split",
                "weightPreference": {"dynamicWeight": "FreeMemory"},
            },
            "spreadConstraints": [{"spreadByField": "rack"}, {"spreadByField": "cluster"}],
        },
    )
    assert errors(obj) == [
        'spec.placement.spreadConstraints[0].spreadByField: Unsupported value: "rack": supported values: '
        '"cluster", "region", "zone", "provider"',
        'spec.placement.replicaScheduling.replicaSchedulingType: Unsupported value: "Split": supported '
        "values: "
        '"Duplicated", "Divided"',
        'spec.placement.replicaScheduling.weightPreference.dynamicWeight: Unsupported value: "FreeMemory": '
        'supported values: "AvailableReplicas"',
        'spec.conflictResolution: Unsupported value: "Maybe": supported values: "Abort", "Overwrite"',
        'spec.preemption: Unsupported value: "Sometimes": supported values: "Always", "Never"',
        'spec.activationPreference: Unsupported value: "Eager": supported values: "Lazy"',
    ]


def test_cluster_affinity_and_affinities_are_exclusive() -> None:
    """One or the other."""
    obj = policy(
        placement={
            "clusterAffinity": {"clusterNames": ["a"]},
            "clusterAffinities": [{"affinityName": "g", "clusterNames": ["b"]}],
        }
    )
    assert errors(obj) == [
        "spec.placement.clusterAffinities: Forbidden: clusterAffinities cannot co-exist with clusterAffinity"
    ]


def test_affinity_names_are_qualified_short_and_unique() -> None:
    """1 to 32 characters, a qualified name, each group named once."""
    obj = policy(
        placement={
            "clusterAffinities": [
                {"affinityName": "a" * 33},
                {"affinityName": "no spaces"},
                {"affinityName": ""},
                {"affinityName": "dup"},
                {"affinityName": "dup"},
            ]
        }
    )
    found = errors(obj)
    assert (
        found[0] == "spec.placement.clusterAffinities[0].affinityName: Too long: must have at most 32 chars"
    )
    assert found[1].startswith(
        'spec.placement.clusterAffinities[1].affinityName: Invalid value: "no spaces": '
    )
    assert found[2] == "spec.placement.clusterAffinities[2].affinityName: Required value"
    assert found[3] == (
        'spec.placement.clusterAffinities[4].affinityName: Duplicate value: "dup": '
        "each affinity term in a policy must have a unique name"
    )
    assert len(found) == 4


def test_field_selectors_test_provider_region_zone_with_in_or_not_in() -> None:
    """Other keys and operators are refused, in affinities and affinity groups alike."""
    selector = {"matchExpressions": [{"key": "env", "operator": "Exists"}]}
    obj = policy(placement={"clusterAffinities": [{"affinityName": "g", "fieldSelector": selector}]})
    assert errors(obj) == [
        "spec.placement.clusterAffinities[0].fieldSelector.matchExpressions[0].key: Unsupported value: "
        '"env": '
        'supported values: "provider", "region", "zone"',
        "spec.placement.clusterAffinities[0].fieldSelector.matchExpressions[0].operator: Unsupported value: "
        '"Exists": supported values: "In", "NotIn"',
    ]


def test_overflow_tiers_need_dynamic_or_aggregated_division() -> None:
    """Overflow fills tiers by capacity: static weights and Duplicated cannot use it."""
    term = {"affinityName": "main", "clusterNames": ["a"], "overflowAffinities": [{"affinityName": "more"}]}
    static = policy(placement={"clusterAffinities": [term], "replicaScheduling": {}})
    assert errors(static) == [
        "spec.placement.clusterAffinities[0].overflowAffinities: Forbidden: overflowAffinities can only be "
        "used "
        "with Divided replica scheduling by dynamic weight (dynamicWeight: AvailableReplicas) or Aggregated"
    ]
    dynamic = policy(
        placement={
            "clusterAffinities": [term],
            "replicaScheduling": {"weightPreference": {"dynamicWeight": "AvailableReplicas"}},
        }
    )
    assert errors(dynamic) == []


def test_overflow_tier_names_are_unique_within_their_group() -> None:
    """A tier may not reuse its group's name or a sibling's."""
    term = {
        "affinityName": "main",
        "overflowAffinities": [{"affinityName": "main"}, {"affinityName": "x"}, {"affinityName": "x"}],
    }
    obj = policy(
        placement={
            "clusterAffinities": [term],
            "replicaScheduling": {"replicaDivisionPreference": "Aggregated"},
        }
    )
    assert errors(obj) == [
        'spec.placement.clusterAffinities[0].overflowAffinities[0].affinityName: Duplicate value: "main"',
        'spec.placement.clusterAffinities[0].overflowAffinities[2].affinityName: Duplicate value: "x"',
    ]


def test_spread_constraint_rules() -> None:
    """Field XOR label; groups not negative; max not below min; one per field; a cluster one beside fields."""
    obj = policy(
        placement={
            "spreadConstraints": [
                {"spreadByField": "region", "spreadByLabel": "rack"},
                {"spreadByField": "zone", "minGroups": 3, "maxGroups": 2},
                {"spreadByField": "zone", "maxGroups": -1},
            ]
        }
    )
    assert errors(obj) == [
        'spec.placement.spreadConstraints[0]: Invalid value: {"minGroups":1,"spreadByField":"region",'
        '"spreadByLabel":"rack"}: spreadByLabel should not co-exist with spreadByField',
        "spec.placement.spreadConstraints[1].maxGroups: Invalid value: 2: maxGroups lower than minGroups "
        "is not "
        "allowed",
        "spec.placement.spreadConstraints[2].maxGroups: Invalid value: -1: maxGroups lower than 0 is not "
        "allowed",
        'spec.placement.spreadConstraints[2].spreadByField: Invalid value: "zone": multiple zone spread '
        "constraints are not allowed",
        "spec.placement.spreadConstraints: Required value: the cluster spread constraint must be enabled "
        "in one "
        "of the constraints in case of SpreadByField is enabled",
    ]


def test_label_spread_alone_needs_no_cluster_constraint() -> None:
    """The cluster constraint is required only beside field-based ones."""
    assert errors(policy(placement={"spreadConstraints": [{"spreadByLabel": "rack"}]})) == []


def test_tolerations_follow_kube_rules_and_refuse_lt_gt() -> None:
    """Cluster tolerations are pod tolerations: Exists without key, NoExecute for seconds, no Lt/Gt."""
    obj = policy(
        placement={
            "clusterTolerations": [
                {"key": "a", "operator": "Lt", "value": "5"},
                {"operator": "Equal", "value": "x"},
                {"key": "b", "operator": "Exists", "effect": "NoSchedule", "tolerationSeconds": 5},
            ]
        }
    )
    assert errors(obj) == [
        'spec.placement.clusterTolerations[0].operator: Unsupported value: "Lt": supported values: "Equal", '
        '"Exists"',
        'spec.placement.clusterTolerations[1].operator: Invalid value: "Equal": operator must be Exists when '
        '`key` is empty, which means "match all values and all keys"',
        'spec.placement.clusterTolerations[2].effect: Invalid value: "NoSchedule": effect must be '
        "'NoExecute' "
        "when `tolerationSeconds` is set",
    ]


def test_application_failover_rules() -> None:
    """propagateDeps required; toleration not negative; grace period only (and positive) when graceful."""
    obj = policy(
        failover={
            "application": {
                "decisionConditions": {"tolerationSeconds": -1},
                "purgeMode": "Never",
                "gracePeriodSeconds": 5,
            }
        }
    )
    assert errors(obj) == [
        "spec.propagateDeps: Invalid value: false: application failover is set, propagateDeps must be true",
        "spec.failover.application.decisionConditions.tolerationSeconds: Invalid value: -1: must be "
        "greater than "
        "or equal to 0",
        "spec.failover.application.gracePeriodSeconds: Invalid value: 5: only takes effect when purgeMode is "
        "Gracefully",
    ]
    graceful = policy(
        propagateDeps=True,
        failover={
            "application": {"decisionConditions": {}, "purgeMode": "Gracefully", "gracePeriodSeconds": 0}
        },
    )
    assert errors(graceful) == [
        "spec.failover.application.gracePeriodSeconds: Invalid value: 0: must be greater than 0"
    ]


def test_cluster_failover_purges_directly_or_gracefully() -> None:
    """Never is an application failover mode only."""
    assert errors(policy(failover={"cluster": {"purgeMode": "Never"}})) == [
        'spec.failover.cluster.purgeMode: Unsupported value: "Never": supported values: "Directly", '
        '"Gracefully"'
    ]


def test_preemption_always_requires_named_selectors() -> None:
    """A policy that preempts must say exactly which resources."""
    obj = policy(preemption="Always", resourceSelectors=[{"apiVersion": "apps/v1", "kind": "Deployment"}])
    assert errors(obj) == [
        'spec.resourceSelectors[0].name: Invalid value: "": name cannot be empty if preemption is Always, '
        "the "
        "empty name may cause unexpected resources preemption"
    ]


def test_suspending_all_and_some_clusters_are_exclusive() -> None:
    """dispatching: true already suspends every cluster."""
    suspension = {"dispatching": True, "dispatchingOnClusters": {"clusterNames": ["a"]}}
    found = errors(policy(suspension=suspension))
    assert len(found) == 1
    assert found[0].startswith("spec.suspension: Invalid value: ")
    assert found[0].endswith("suspension dispatching cannot co-exist with dispatchingOnClusters.clusterNames")
    assert (
        errors(policy(suspension={"dispatching": False, "dispatchingOnClusters": {"clusterNames": ["a"]}}))
        == []
    )


def test_workload_affinity_groups_by_a_label_key() -> None:
    """The group key must be a label key."""
    obj = policy(
        placement={"workloadAffinity": {"affinity": {"groupByLabelKey": "bad key"}, "antiAffinity": {}}}
    )
    found = errors(obj)
    assert len(found) == 1
    assert found[0].startswith(
        'spec.placement.workloadAffinity.affinity.groupByLabelKey: Invalid value: "bad key"'
    )


def test_workload_affinity_and_anti_affinity_group_by_different_keys() -> None:
    """One label key cannot both gather a group into a cluster and keep it out (Karmada's webhook)."""
    same = {"groupByLabelKey": "app.group"}
    found = errors(policy(placement={"workloadAffinity": {"affinity": same, "antiAffinity": same}}))
    assert found == [
        'spec.placement.workloadAffinity.antiAffinity.groupByLabelKey: Invalid value: "app.group": '
        "affinity and antiAffinity must not use the same groupByLabelKey"
    ]
    different = {"affinity": same, "antiAffinity": {"groupByLabelKey": "app.spread"}}
    assert errors(policy(placement={"workloadAffinity": different})) == []


def test_scheduler_name_cannot_change() -> None:
    """Karmada pins a policy to the scheduler it was created for."""
    old = policy()
    defaults.default_propagation_policy(old)
    new = policy(schedulerName="other-scheduler")
    defaults.default_propagation_policy(new)
    assert [str(e) for e in validation.validate_propagation_policy_update(new, old)] == [
        "spec.schedulerName: Forbidden: the schedulerName should not be updated"
    ]
    assert validation.validate_propagation_policy_update(fresh(old), old) == []


@pytest.mark.parametrize("value", ["10m", "1h30m", "3s", "0"])
def test_a_failback_after_go_duration_is_accepted(value: str) -> None:
    obj = policy()
    obj["metadata"]["annotations"] = {"failover.flotilla.io/failback-after": value}
    assert errors(obj) == []


@pytest.mark.parametrize("value", ["10", "-5m", "soon", ""])
def test_a_failback_after_that_is_no_duration_is_refused_at_the_annotation(value: str) -> None:
    """On both kinds of policy, at `metadata.annotations[failover.flotilla.io/failback-after]`."""
    obj = policy()
    obj["metadata"]["annotations"] = {"failover.flotilla.io/failback-after": value}
    [found] = validation.validate_propagation_policy(obj)
    assert found.field == "metadata.annotations[failover.flotilla.io/failback-after]"
    assert str(found).endswith("must be a Go duration that is not negative, such as 10m")
    cluster_policy = {**obj, "metadata": {"name": "c", "annotations": obj["metadata"]["annotations"]}}
    [found] = validation.validate_cluster_propagation_policy(cluster_policy)
    assert found.field == "metadata.annotations[failover.flotilla.io/failback-after]"
