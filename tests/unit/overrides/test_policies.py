"""Which override policies apply to a manifest in a cluster, in which order, and what they record."""

from __future__ import annotations

import json
from typing import Any

import pytest

from flotilla.overrides import (
    APPLIED_CLUSTER_OVERRIDES_ANNOTATION,
    APPLIED_OVERRIDES_ANNOTATION,
    OverrideError,
    apply_override_policies,
    matching_rules,
)
from tests.unit.interpreter.samples import web_deployment

EU = {"metadata": {"name": "member-eu", "labels": {"geo": "eu"}}, "spec": {"region": "eu-west-1"}}
US = {"metadata": {"name": "member-us", "labels": {"geo": "us"}}, "spec": {"region": "us-east1"}}


def _policy(
    kind: str,
    name: str,
    selectors: list[dict[str, Any]] | None,
    rules: list[dict[str, Any]],
    namespace: str = "shop",
) -> dict[str, Any]:
    metadata = {"name": name, **({"namespace": namespace} if kind == "OverridePolicy" else {})}
    spec: dict[str, Any] = {"overrideRules": rules}
    if selectors is not None:
        spec["resourceSelectors"] = selectors
    return {"apiVersion": "policy.karmada.io/v1alpha1", "kind": kind, "metadata": metadata, "spec": spec}


def _label_rule(key: str, value: str, target: dict[str, Any] | None = None) -> dict[str, Any]:
    rule: dict[str, Any] = {"overriders": {"labelsOverrider": [{"operator": "add", "value": {key: value}}]}}
    if target is not None:
        rule["targetCluster"] = target
    return rule


BY_NAME = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
BY_LABEL = {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": {"app": "web"}}}
BY_KIND = {"apiVersion": "apps/v1", "kind": "Deployment"}


def test_more_specific_policies_apply_later_and_win() -> None:
    """Kind-only or selector-less policies first, then label selectors, then names; ties by policy name."""
    policies = [
        _policy("OverridePolicy", "a-by-name", [BY_NAME], [_label_rule("owner", "by-name")]),
        _policy("OverridePolicy", "b-by-label", [BY_LABEL], [_label_rule("owner", "by-label")]),
        _policy("OverridePolicy", "z-by-kind", [BY_KIND], [_label_rule("owner", "by-kind")]),
        _policy(
            "OverridePolicy",
            "c-by-kind",
            [BY_KIND, {**BY_NAME, "name": "other"}],
            [_label_rule("owner", "c")],
        ),
        _policy("OverridePolicy", "everything", None, [_label_rule("owner", "all")]),
    ]
    rules = matching_rules(web_deployment(), EU, policies, "OverridePolicy")
    assert [rule.policy_name for rule in rules] == [
        "c-by-kind",
        "everything",
        "z-by-kind",
        "b-by-label",
        "a-by-name",
    ]
    result = apply_override_policies(web_deployment(), EU, override_policies=policies)
    assert result.manifest["metadata"]["labels"]["owner"] == "by-name"


def test_policies_that_select_other_resources_do_not_apply() -> None:
    """Another name, kind, namespace or label means the policy is not for this manifest."""
    policies = [
        _policy("OverridePolicy", "other-name", [{**BY_NAME, "name": "api"}], [_label_rule("x", "1")]),
        _policy(
            "OverridePolicy",
            "other-kind",
            [{"apiVersion": "apps/v1", "kind": "StatefulSet"}],
            [_label_rule("x", "2")],
        ),
        _policy("OverridePolicy", "other-ns", [{**BY_KIND, "namespace": "ops"}], [_label_rule("x", "3")]),
        _policy(
            "OverridePolicy",
            "other-labels",
            [{**BY_LABEL, "labelSelector": {"matchLabels": {"app": "api"}}}],
            [],
        ),
    ]
    assert matching_rules(web_deployment(), EU, policies, "OverridePolicy") == []


def test_rules_apply_only_to_their_target_clusters() -> None:
    """Each rule's targetCluster picks the clusters it shapes; no target means all clusters."""
    policy = _policy(
        "OverridePolicy",
        "regional",
        [BY_NAME],
        [
            _label_rule("region", "eu", {"clusterNames": ["member-eu"]}),
            _label_rule("region", "us", {"labelSelector": {"matchLabels": {"geo": "us"}}}),
            _label_rule("managed", "yes"),
        ],
    )
    eu = apply_override_policies(web_deployment(), EU, override_policies=[policy]).manifest["metadata"][
        "labels"
    ]
    us = apply_override_policies(web_deployment(), US, override_policies=[policy]).manifest["metadata"][
        "labels"
    ]
    assert (eu["region"], eu["managed"]) == ("eu", "yes")
    assert (us["region"], us["managed"]) == ("us", "yes")


def test_cluster_override_policies_apply_before_override_policies() -> None:
    """The namespace's OverridePolicy has the last word over a ClusterOverridePolicy."""
    cluster_policy = _policy(
        "ClusterOverridePolicy", "zz-global", [BY_NAME], [_label_rule("owner", "platform")]
    )
    policy = _policy("OverridePolicy", "aa-team", [BY_KIND], [_label_rule("owner", "team")])
    result = apply_override_policies(
        web_deployment(), EU, cluster_override_policies=[cluster_policy], override_policies=[policy]
    )
    assert result.manifest["metadata"]["labels"]["owner"] == "team"
    assert [rule.policy_name for rule in result.applied_cluster_overrides] == ["zz-global"]
    assert [rule.policy_name for rule in result.applied_overrides] == ["aa-team"]


def test_override_policies_of_other_namespaces_and_for_cluster_scoped_objects_are_ignored() -> None:
    """OverridePolicies only touch objects of their own namespace, never cluster-scoped ones."""
    elsewhere = _policy("OverridePolicy", "elsewhere", None, [_label_rule("x", "1")], namespace="ops")
    assert (
        apply_override_policies(web_deployment(), EU, override_policies=[elsewhere]).applied_overrides == ()
    )
    cluster_role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": {"name": "r"},
    }
    everything = _policy("OverridePolicy", "everything", None, [_label_rule("x", "1")])
    assert apply_override_policies(cluster_role, EU, override_policies=[everything]).manifest == cluster_role


def test_the_deprecated_single_rule_form_still_applies() -> None:
    """`spec.targetCluster` + `spec.overriders` is one rule."""
    policy = {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "OverridePolicy",
        "metadata": {"name": "legacy", "namespace": "shop"},
        "spec": {
            "resourceSelectors": [BY_NAME],
            "targetCluster": {"clusterNames": ["member-us"]},
            "overriders": {"plaintext": [{"path": "/spec/replicas", "operator": "replace", "value": 1}]},
        },
    }
    assert (
        apply_override_policies(web_deployment(), US, override_policies=[policy]).manifest["spec"]["replicas"]
        == 1
    )
    assert (
        apply_override_policies(web_deployment(), EU, override_policies=[policy]).manifest["spec"]["replicas"]
        == 4
    )
    assert matching_rules(web_deployment(), US, [policy], "OverridePolicy")[0].rule == "spec.overriders"


def test_applied_overrides_are_recorded_as_karmada_writes_them() -> None:
    """Each annotation lists the applied rules by policy name with their overriders in Go's field order."""
    image_rule = {
        "overriders": {
            "imageOverrider": [{"component": "Registry", "operator": "replace", "value": "mirror.example"}],
            "plaintext": [
                {"path": "/spec/replicas", "operator": "replace", "value": 2},
                {"path": "/metadata/annotations/team", "operator": "remove"},
            ],
        }
    }
    policies = [
        _policy("OverridePolicy", "b-images", [BY_NAME], [image_rule]),
        _policy("OverridePolicy", "a-labels", None, [_label_rule("region", "eu")]),
    ]
    result = apply_override_policies(web_deployment(), EU, override_policies=policies)
    assert result.annotations == {
        APPLIED_OVERRIDES_ANNOTATION: (
            '[{"policyName":"a-labels","overriders":{"labelsOverrider":[{"operator":"add","value":{"region":"eu"}}]}},'
            '{"policyName":"b-images","overriders":{"plaintext":[{"path":"/spec/replicas","operator":"replace","value":2},'
            '{"path":"/metadata/annotations/team","operator":"remove","value":null}],'
            '"imageOverrider":[{"component":"Registry","operator":"replace","value":"mirror.example"}]}}]'
        )
    }
    assert APPLIED_CLUSTER_OVERRIDES_ANNOTATION not in result.annotations
    assert json.loads(result.annotations[APPLIED_OVERRIDES_ANNOTATION])[1]["policyName"] == "b-images"


def test_without_applicable_policies_the_manifest_is_an_unannotated_copy() -> None:
    """No rule, no annotation; the result is still a copy the caller may change."""
    template = web_deployment()
    result = apply_override_policies(template, EU)
    assert (result.manifest, result.annotations) == (template, {})
    result.manifest["metadata"]["labels"]["x"] = "1"
    assert "x" not in template["metadata"]["labels"]


def test_a_failing_rule_names_the_policy_rule_and_cluster() -> None:
    """The Work fails with a message that says which override to fix."""
    broken = {
        "overriders": {"plaintext": [{"path": "/spec/missing/field", "operator": "replace", "value": 1}]}
    }
    policy = _policy("OverridePolicy", "broken", [BY_NAME], [_label_rule("ok", "1"), broken])
    expected = r"OverridePolicy shop/broken \(spec.overrideRules\[1\]\) for cluster member-eu: plaintext: "
    with pytest.raises(OverrideError, match=expected):
        apply_override_policies(web_deployment(), EU, override_policies=[policy])
