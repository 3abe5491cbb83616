"""ClusterTaintPolicy: the model round-trips Karmada's manifests, and its condition tests are Karmada's."""

from __future__ import annotations

import pytest

from flotilla.api.karmada.model import Condition, Taint
from flotilla.api.karmada.taintpolicy import ClusterTaintPolicy, MatchCondition, conditions_match
from tests.unit.api.karmada.manifests import CLUSTER_TAINT_POLICY, fresh


def ready(status: str) -> Condition:
    return Condition(type="Ready", status=status, reason="R", message="m")


def test_the_documented_policy_round_trips_unchanged() -> None:
    """Every field is declared or kept: the JSON out equals the JSON in."""
    assert ClusterTaintPolicy.from_object(fresh(CLUSTER_TAINT_POLICY)).to_object() == CLUSTER_TAINT_POLICY


def test_the_policy_reads_as_typed_tests_and_cluster_taints() -> None:
    """Targets, condition tests and taints are typed; a taint's empty value stays unset."""
    policy = ClusterTaintPolicy.from_object(CLUSTER_TAINT_POLICY)
    target = policy.spec.target_clusters
    assert target is not None and target.cluster_names == ["member1", "member2"]
    first = policy.spec.add_on_conditions[0]
    assert (first.condition_type, first.operator, first.status_values) == ("Ready", "NotIn", ["True"])
    assert policy.cluster_taints == [
        Taint(key="cluster.karmada.io/not-ready", effect="NoSchedule"),
        Taint(key="cluster.karmada.io/not-ready", effect="NoExecute", value="true"),
    ]


@pytest.mark.parametrize(
    ("operator", "values", "status", "holds"),
    [
        ("In", ["False", "Unknown"], "False", True),
        ("In", ["False", "Unknown"], "True", False),
        ("NotIn", ["True"], "Unknown", True),
        ("NotIn", ["True"], "True", False),
        ("In", [], "True", False),
        ("NotIn", [], "True", True),
        ("Exists", ["True"], "True", False),
    ],
)
def test_a_test_compares_the_conditions_status(
    operator: str, values: list[str], status: str, holds: bool
) -> None:
    """In and NotIn test the status against the values; an unknown operator never holds."""
    test = MatchCondition(condition_type="Ready", operator=operator, status_values=values)
    assert test.holds([ready(status)]) is holds


def test_a_missing_condition_fails_in_and_not_in_alike() -> None:
    """A cluster without the condition matches neither operator (Karmada finds nothing to match)."""
    for operator in ("In", "NotIn"):
        test = MatchCondition(condition_type="NetworkAvailable", operator=operator, status_values=["True"])
        assert not test.holds([ready("True")])


def test_tests_are_anded_and_an_empty_list_never_matches() -> None:
    """Every test must hold; no tests at all is no match (a policy without add conditions never adds)."""
    not_ready = MatchCondition(condition_type="Ready", operator="NotIn", status_values=["True"])
    unknown = MatchCondition(condition_type="Ready", operator="In", status_values=["Unknown"])
    assert conditions_match([ready("Unknown")], [not_ready, unknown])
    assert not conditions_match([ready("False")], [not_ready, unknown])
    assert not conditions_match([ready("False")], [])
