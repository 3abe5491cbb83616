"""Propagation and override policies from Karmada's documentation load into typed models and back."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.api.karmada.constants import ReplicaDivisionPreference, ReplicaSchedulingType, SpreadByField
from flotilla.api.karmada.policy import (
    ClusterOverridePolicy,
    ClusterPropagationPolicy,
    OverridePolicy,
    PropagationPolicy,
)
from tests.unit.api.karmada.manifests import (
    AFFINITIES_POLICY,
    LEGACY_OVERRIDE_POLICY,
    OVERRIDE_POLICY,
    SPREAD_POLICY,
    STATIC_WEIGHTS_POLICY,
    WALKTHROUGH_POLICY,
    fresh,
)


@pytest.mark.parametrize(
    ("model", "manifest"),
    [
        (PropagationPolicy, WALKTHROUGH_POLICY),
        (PropagationPolicy, STATIC_WEIGHTS_POLICY),
        (ClusterPropagationPolicy, SPREAD_POLICY),
        (PropagationPolicy, AFFINITIES_POLICY),
        (OverridePolicy, OVERRIDE_POLICY),
        (ClusterOverridePolicy, LEGACY_OVERRIDE_POLICY),
    ],
    ids=["walkthrough", "static-weights", "spread", "affinities", "overrides", "legacy-overrides"],
)
def test_policies_round_trip_unchanged(model: Any, manifest: dict[str, Any]) -> None:
    """Every field of these manifests is declared or kept: the JSON out equals the JSON in."""
    assert model.from_object(fresh(manifest)).to_object() == manifest


def test_walkthrough_policy_reads_as_divided_weighted_with_static_weights() -> None:
    """The getting-started policy: two clusters by name, weights 1 and 1."""
    policy = PropagationPolicy.from_object(WALKTHROUGH_POLICY)
    selector = policy.spec.resource_selectors[0]
    assert (selector.api_version, selector.kind, selector.name) == ("apps/v1", "Deployment", "nginx")
    affinity = policy.spec.placement.cluster_affinity
    assert affinity is not None and affinity.cluster_names == ["sz", "fz"]
    scheduling = policy.spec.placement.replica_scheduling
    assert scheduling is not None
    assert scheduling.replica_scheduling_type == ReplicaSchedulingType.DIVIDED
    assert scheduling.replica_division_preference == ReplicaDivisionPreference.WEIGHTED
    assert scheduling.weight_preference is not None
    weights = [
        (w.target_cluster.cluster_names, w.weight) for w in scheduling.weight_preference.static_weight_list
    ]
    assert weights == [(["sz"], 1), (["fz"], 1)]


def test_policy_knobs_are_typed() -> None:
    """Field selectors, tolerations, failover, suspension and priority read as typed values."""
    policy = PropagationPolicy.from_object(STATIC_WEIGHTS_POLICY)
    affinity = policy.spec.placement.cluster_affinity
    assert affinity is not None and affinity.field_selector is not None
    assert [(e.key, e.operator, e.values) for e in affinity.field_selector.match_expressions] == [
        ("provider", "In", ["aws"]),
        ("region", "NotIn", ["eu-west-3"]),
    ]
    assert affinity.exclude_clusters == ["member9"]
    assert policy.spec.placement.cluster_tolerations[0].toleration_seconds == 300
    failover = policy.spec.failover
    assert failover is not None and failover.application is not None and failover.cluster is not None
    assert failover.application.decision_conditions.toleration_seconds == 120
    assert failover.application.state_preservation is not None
    assert failover.application.state_preservation.rules[0].json_path == "{.checkpoint}"
    assert failover.cluster.purge_mode == "Directly"
    assert policy.spec.suspension is not None and policy.spec.suspension.dispatching_on_clusters is not None
    assert policy.spec.suspension.dispatching_on_clusters.cluster_names == ["member2"]
    assert (policy.spec.priority, policy.spec.preemption, policy.spec.propagate_deps) == (10, "Never", True)


def test_spread_constraints_and_affinity_tiers_are_typed() -> None:
    """Spread constraints by region and cluster; affinity groups with overflow tiers."""
    spread = ClusterPropagationPolicy.from_object(SPREAD_POLICY).spec.placement.spread_constraints
    assert [(c.spread_by_field, c.min_groups, c.max_groups) for c in spread] == [
        (SpreadByField.REGION, 2, 2),
        (SpreadByField.CLUSTER, 2, 4),
    ]
    terms = PropagationPolicy.from_object(AFFINITIES_POLICY).spec.placement.cluster_affinities
    assert [t.affinity_name for t in terms] == ["on-prem", "backup"]
    assert terms[0].overflow_affinities[0].cluster_names == ["cloud1", "cloud2"]
    assert terms[1].label_selector is not None and terms[1].label_selector.match_labels == {"role": "backup"}


def test_override_rules_carry_every_overrider_type() -> None:
    """Image, plaintext, command, args, labels, annotations and field overriders."""
    rules = OverridePolicy.from_object(OVERRIDE_POLICY).spec.rules()
    first = rules[0].overriders
    assert [(i.component, i.value) for i in first.image_overrider] == [
        ("Registry", "registry.sz.example.com"),
        ("Tag", "1.27"),
    ]
    assert first.image_overrider[1].predicate is not None
    assert first.plaintext[0].value == 3 and first.plaintext[1].operator == "remove"
    assert first.command_overrider[0].value == ["--zone=sz"]
    assert first.args_overrider[0].operator == "remove"
    assert first.labels_overrider[0].value == {"cluster": "sz"}
    assert first.annotations_overrider[0].value == {"example.com/owner": "team-a"}
    field = rules[1].overriders.field_overrider
    assert field[0].yaml_operations[0].value == "test-db.example.com"
    assert field[1].json_operations[0].value is True


def test_legacy_override_form_reads_as_one_rule() -> None:
    """Deprecated targetCluster + overriders become a single rule for whoever applies them."""
    rules = ClusterOverridePolicy.from_object(LEGACY_OVERRIDE_POLICY).spec.rules()
    assert len(rules) == 1
    assert rules[0].target_cluster is not None and rules[0].target_cluster.cluster_names == ["fz"]
    assert rules[0].overriders.labels_overrider[0].value == {"region": "fz"}


def test_permanent_id_reads_the_policy_label() -> None:
    """Empty until admission assigns one."""
    policy = PropagationPolicy.from_object(WALKTHROUGH_POLICY)
    assert policy.permanent_id == ""
    policy.metadata.labels["propagationpolicy.karmada.io/permanent-id"] = "id-1"
    assert policy.permanent_id == "id-1"
