"""ClusterTaintPolicies follow Karmada's webhook rules and documented ones; NoExecute per setting."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation import karmada as validation
from tests.unit.api.karmada.manifests import CLUSTER_TAINT_POLICY, fresh

NOT_READY = {"key": "cluster.karmada.io/not-ready", "effect": "NoSchedule"}
NO_EXECUTE = {"key": "cluster.karmada.io/not-ready", "effect": "NoExecute"}
FORBIDDEN = (
    "Forbidden: Configuring taint with NoExecute effect is not allowed, this capability must be "
    "explicitly enabled by administrators through command-line flags"
)


def policy(**spec: Any) -> dict[str, Any]:
    return {"metadata": {"name": "p"}, "spec": {"taints": [NOT_READY], **spec}}


def errors(obj: dict[str, Any], *, allow_no_execute: bool = True) -> list[str]:
    return [str(e) for e in validation.validate_cluster_taint_policy(obj, allow_no_execute=allow_no_execute)]


def test_the_documented_policy_is_valid_where_no_execute_is_allowed() -> None:
    """Karmada's example, NoExecute taint included, under Flotilla's default."""
    assert errors(fresh(CLUSTER_TAINT_POLICY)) == []


def test_no_execute_is_forbidden_unless_the_server_allows_it() -> None:
    """Karmada's webhook wording, at the taint, once per NoExecute taint; updates alike."""
    assert errors(policy(taints=[NOT_READY, NO_EXECUTE]), allow_no_execute=False) == [
        f"spec.taints[1]: {FORBIDDEN}"
    ]
    found = validation.validate_cluster_taint_policy_update(
        policy(taints=[NO_EXECUTE]), policy(), allow_no_execute=False
    )
    assert [e.field for e in found] == ["spec.taints[0]"]


def test_taints_are_required_and_unique_by_key_and_effect() -> None:
    """At least one taint; a duplicate is reported once, at the first of the pair, in Karmada's words."""
    assert errors({"spec": {}}) == ["spec.taints: Required value"]
    assert errors(policy(taints=[])) == ["spec.taints: Invalid value: 0: should have at least 1 items"]
    duplicate = {**NOT_READY, "value": "other"}
    assert errors(policy(taints=[NOT_READY, NO_EXECUTE, duplicate])) == [
        'spec.taints[0]: Duplicate value: "Duplicate taint with the same key(cluster.karmada.io/not-ready) '
        'and effect(NoSchedule) is not allowed"'
    ]


def test_taints_follow_the_clusters_own_taint_rules() -> None:
    """What a policy adds the Cluster must accept: qualified key, label value, a known effect."""
    found = errors(policy(taints=[{"key": "bad key!", "effect": "Sometimes", "value": "x" * 64}]))
    assert [line.split(":")[0] for line in found] == [
        "spec.taints[0].key",
        "spec.taints[0].value",
        "spec.taints[0].effect",
    ]
    assert 'Unsupported value: "Sometimes"' in found[2]


def test_condition_tests_name_a_type_a_known_operator_and_statuses() -> None:
    """In or NotIn, statuses True, False or Unknown, all three fields given."""
    tests = [
        {"conditionType": "Ready", "operator": "Exists", "statusValues": ["true"]},
        {"operator": "In"},
    ]
    assert errors(policy(addOnConditions=tests, removeOnConditions=[{"conditionType": "Ready"}])) == [
        'spec.addOnConditions[0].operator: Unsupported value: "Exists": supported values: "In", "NotIn"',
        'spec.addOnConditions[0].statusValues[0]: Unsupported value: "true": '
        'supported values: "True", "False", "Unknown"',
        "spec.addOnConditions[1].conditionType: Required value",
        "spec.addOnConditions[1].statusValues: Required value",
        "spec.removeOnConditions[0].operator: Required value",
        "spec.removeOnConditions[0].statusValues: Required value",
    ]


def test_target_clusters_is_a_valid_cluster_affinity() -> None:
    """Field selectors on provider, region or zone with In or NotIn; label selectors well formed."""
    target = {"fieldSelector": {"matchExpressions": [{"key": "color", "operator": "In", "values": ["x"]}]}}
    assert errors(policy(targetClusters=target)) == [
        'spec.targetClusters.fieldSelector.matchExpressions[0].key: Unsupported value: "color": '
        'supported values: "provider", "region", "zone"'
    ]
