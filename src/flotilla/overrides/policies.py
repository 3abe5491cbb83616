"""Which override policies shape a manifest for one cluster, in which order, and the result.

For each (manifest, cluster) the binding controller renders, the applicable rules are found and
applied the way Karmada's override manager does:

1. ClusterOverridePolicies first, then, for a namespaced manifest, the OverridePolicies of its
   namespace (OverridePolicies never touch cluster-scoped objects).
2. Within each kind, the policies whose `resourceSelectors` match the manifest (no selectors
   matches everything), sorted by how specifically they match, least specific first (everything,
   then label selector, then name), then by policy name. Later policies win because they apply last.
3. Within a policy, every rule of `overrideRules` whose `targetCluster` matches the cluster (no
   `targetCluster` matches every cluster), in order; a policy written with the deprecated
   `targetCluster` + `overriders` pair is one such rule.

A resource selector matches when `apiVersion` and `kind` are equal, the namespace (if set) is the
manifest's, and then the `name` if set (the label selector is ignored then), or else the label
selector if set, or else anything.

`apply_override_policies` returns the overridden manifest and the applied-overrides annotations
(see `flotilla.overrides.applied`); a rule that fails raises `OverrideError` naming the policy,
the rule and the overrider.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flotilla.api.objects import copy_object
from flotilla.api.selectors import SelectorError, label_selector_from_object
from flotilla.interpreter import kinds
from flotilla.overrides.applied import (
    APPLIED_CLUSTER_OVERRIDES_ANNOTATION,
    APPLIED_OVERRIDES_ANNOTATION,
    applied_overrides_value,
)
from flotilla.overrides.clusteraffinity import cluster_matches
from flotilla.overrides.overriders import OverrideError, apply_overriders_in_place

CLUSTER_OVERRIDE_POLICY = "ClusterOverridePolicy"
OVERRIDE_POLICY = "OverridePolicy"


class ImplicitPriority(enum.IntEnum):
    """How specifically a resource selector matches a resource; higher is more specific."""

    MISMATCH = 0
    MATCH_ALL = 1
    MATCH_LABEL_SELECTOR = 2
    MATCH_NAME = 3


def resource_selector_priority(manifest: Mapping[str, Any], selector: Mapping[str, Any]) -> ImplicitPriority:
    """How one `resourceSelectors[]` entry matches the manifest."""
    metadata = kinds.nested_mapping(manifest, "metadata")
    if manifest.get("apiVersion") != selector.get("apiVersion") or manifest.get("kind") != selector.get(
        "kind"
    ):
        return ImplicitPriority.MISMATCH
    namespace = selector.get("namespace")
    if namespace and metadata.get("namespace") != namespace:
        return ImplicitPriority.MISMATCH
    name = selector.get("name")
    if name:
        return ImplicitPriority.MATCH_NAME if metadata.get("name") == name else ImplicitPriority.MISMATCH
    label_selector = selector.get("labelSelector")
    if label_selector is None:
        return ImplicitPriority.MATCH_ALL
    try:
        matches = label_selector_from_object(label_selector).matches(kinds.nested_mapping(metadata, "labels"))
    except SelectorError:
        return ImplicitPriority.MISMATCH
    return ImplicitPriority.MATCH_LABEL_SELECTOR if matches else ImplicitPriority.MISMATCH


def policy_priority(manifest: Mapping[str, Any], policy: Mapping[str, Any]) -> ImplicitPriority:
    """The best match among a policy's resource selectors; a policy without selectors matches all."""
    selectors = kinds.nested_list(policy, "spec", "resourceSelectors")
    if not selectors:
        return ImplicitPriority.MATCH_ALL
    return max(
        (
            resource_selector_priority(manifest, selector)
            for selector in selectors
            if isinstance(selector, Mapping)
        ),
        default=ImplicitPriority.MISMATCH,
    )


@dataclass(frozen=True, slots=True)
class MatchedRule:
    """One override rule that applies to the manifest in the cluster."""

    policy_kind: str
    policy_namespace: str
    policy_name: str
    rule: str
    """Where the rule sits in its policy: `spec.overrideRules[1]`, or `spec.overriders` (deprecated form)."""
    overriders: Mapping[str, Any]

    def describe(self) -> str:
        """The policy and rule, as an error message names them."""
        policy = f"{self.policy_namespace}/{self.policy_name}" if self.policy_namespace else self.policy_name
        return f"{self.policy_kind} {policy} ({self.rule})"


def _rules(policy: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any] | None, Mapping[str, Any]]]:
    """Each rule of a policy as (location, target cluster affinity, overriders)."""
    rules = kinds.nested_list(policy, "spec", "overrideRules")
    if not rules:
        target = kinds.nested(policy, "spec", "targetCluster")
        overriders = kinds.nested_mapping(policy, "spec", "overriders")
        return [("spec.overriders", target if isinstance(target, Mapping) else None, overriders)]
    return [
        (
            f"spec.overrideRules[{index}]",
            rule.get("targetCluster") if isinstance(rule.get("targetCluster"), Mapping) else None,
            kinds.nested_mapping(rule, "overriders"),
        )
        for index, rule in enumerate(rules)
        if isinstance(rule, Mapping)
    ]


def matching_rules(
    manifest: Mapping[str, Any],
    cluster: Mapping[str, Any],
    policies: Iterable[Mapping[str, Any]],
    policy_kind: str,
) -> list[MatchedRule]:
    """The rules of `policies` (all of one kind) that apply to the manifest in the cluster, in order."""
    ranked = []
    for policy in policies:
        priority = policy_priority(manifest, policy)
        if priority is not ImplicitPriority.MISMATCH:
            ranked.append((priority, str(kinds.nested(policy, "metadata", "name") or ""), policy))
    ranked.sort(key=lambda entry: (entry[0], entry[1]))
    matched = []
    for _, name, policy in ranked:
        namespace = kinds.nested(policy, "metadata", "namespace")
        for location, target_cluster, overriders in _rules(policy):
            if cluster_matches(cluster, target_cluster):
                matched.append(MatchedRule(policy_kind, str(namespace or ""), name, location, overriders))
    return matched


@dataclass(frozen=True, slots=True)
class OverrideResult:
    """The manifest as it goes to one cluster, and which rules made it so."""

    manifest: dict[str, Any]
    applied_cluster_overrides: tuple[MatchedRule, ...] = ()
    applied_overrides: tuple[MatchedRule, ...] = ()
    annotations: dict[str, str] = field(default_factory=dict)
    """`policy.karmada.io/applied-cluster-overrides` and `…/applied-overrides`, when any rule applied."""


def _apply(manifest: dict[str, Any], rules: Iterable[MatchedRule], cluster_name: str) -> None:
    for rule in rules:
        try:
            apply_overriders_in_place(manifest, rule.overriders)
        except OverrideError as error:
            raise OverrideError(
                f"failed to apply {rule.describe()} for cluster {cluster_name}: {error}"
            ) from error


def apply_override_policies(
    manifest: Mapping[str, Any],
    cluster: Mapping[str, Any],
    *,
    cluster_override_policies: Iterable[Mapping[str, Any]] = (),
    override_policies: Iterable[Mapping[str, Any]] = (),
) -> OverrideResult:
    """The manifest with every applicable ClusterOverridePolicy and OverridePolicy rule applied.

    `override_policies` may hold policies of any namespace; only those of the manifest's namespace
    are considered.
    """
    cluster_name = str(kinds.nested(cluster, "metadata", "name") or "")
    namespace = kinds.nested(manifest, "metadata", "namespace")
    cluster_rules = tuple(
        matching_rules(manifest, cluster, cluster_override_policies, CLUSTER_OVERRIDE_POLICY)
    )
    namespaced_rules: tuple[MatchedRule, ...] = ()
    if namespace:
        same_namespace = (
            policy
            for policy in override_policies
            if kinds.nested(policy, "metadata", "namespace") == namespace
        )
        namespaced_rules = tuple(matching_rules(manifest, cluster, same_namespace, OVERRIDE_POLICY))
    overridden = copy_object(dict(manifest))
    _apply(overridden, cluster_rules + namespaced_rules, cluster_name)
    annotations = {}
    for key, rules in (
        (APPLIED_CLUSTER_OVERRIDES_ANNOTATION, cluster_rules),
        (APPLIED_OVERRIDES_ANNOTATION, namespaced_rules),
    ):
        value = applied_overrides_value((rule.policy_name, rule.overriders) for rule in rules)
        if value is not None:
            annotations[key] = value
    return OverrideResult(overridden, cluster_rules, namespaced_rules, annotations)
