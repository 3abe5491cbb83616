"""Which propagation policy claims a resource template: Karmada's matching, priority and preemption.

A policy selects a template when one of its `resourceSelectors` does: `apiVersion` and `kind` are
equal, the selector's `namespace` (if set) is the template's, and then the `name` if set (the label
selector is ignored then), else the label selector if set, else every template of the kind. How a
selector matched is the policy's *implicit* priority: name beats label selector beats kind only.

Among the policies that select a template, the winner has the highest explicit `spec.priority`
(default 0), then the highest implicit priority, then the lexicographically smallest name.
PropagationPolicies of the template's namespace are considered first; ClusterPropagationPolicies
only when none of them selects it.

A claim sticks (`choose_policy`): once a template carries a policy's permanent id, a later or
higher-priority policy takes it only by preemption (`preemption: Always`). A PropagationPolicy
preempts a lower-priority PropagationPolicy and any ClusterPropagationPolicy; a
ClusterPropagationPolicy preempts only a lower-priority ClusterPropagationPolicy. Karmada puts
preemption behind an alpha feature gate; Flotilla has no gates and always honours it.

Unlike Karmada, which remembers claims through events, the choice here is recomputed from the
current objects every time (level-based): a claim whose policy is gone, being deleted, or no
longer selects the template does not count, and the template is matched afresh.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeVar

from flotilla.api.karmada import constants
from flotilla.api.karmada.policy import ClusterPropagationPolicy, PropagationPolicy, ResourceSelector
from flotilla.api.objects import metadata_of
from flotilla.api.selectors import SelectorError, label_selector_from_object
from flotilla.overrides.policies import ImplicitPriority

Policy = PropagationPolicy | ClusterPropagationPolicy
AnyPolicy = TypeVar("AnyPolicy", PropagationPolicy, ClusterPropagationPolicy)
Template = Mapping[str, Any]

__all__ = [
    "ImplicitPriority",
    "Policy",
    "best_policy",
    "choose_policy",
    "claiming_policy",
    "explicit_priority",
    "implicit_priority",
    "selector_priority",
]


def selector_priority(template: Template, selector: ResourceSelector) -> ImplicitPriority:
    """How one resource selector selects the template (`MISMATCH` when it does not)."""
    metadata = metadata_of(template)
    if template.get("apiVersion") != selector.api_version or template.get("kind") != selector.kind:
        return ImplicitPriority.MISMATCH
    if selector.namespace and metadata.get("namespace") != selector.namespace:
        return ImplicitPriority.MISMATCH
    if selector.name:
        return (
            ImplicitPriority.MATCH_NAME
            if metadata.get("name") == selector.name
            else ImplicitPriority.MISMATCH
        )
    if selector.label_selector is None:
        return ImplicitPriority.MATCH_ALL
    labels = metadata.get("labels")
    try:
        matched = label_selector_from_object(selector.label_selector.to_object()).matches(
            labels if isinstance(labels, Mapping) else {}
        )
    except SelectorError:
        # Admission validates selectors; one that slipped through selects nothing, as in Karmada.
        return ImplicitPriority.MISMATCH
    return ImplicitPriority.MATCH_LABEL_SELECTOR if matched else ImplicitPriority.MISMATCH


def implicit_priority(template: Template, policy: Policy) -> ImplicitPriority:
    """The best match among the policy's selectors; a policy without selectors selects nothing."""
    # Runs for every policy of a namespace on every template change, so the cheap tests of
    # `selector_priority` are inlined and a name match, the best there is, ends the search.
    metadata = metadata_of(template)
    api_version, kind = template.get("apiVersion"), template.get("kind")
    name, namespace = metadata.get("name"), metadata.get("namespace")
    best = ImplicitPriority.MISMATCH
    for selector in policy.spec.resource_selectors:
        if selector.kind != kind or selector.api_version != api_version:
            continue
        if selector.namespace and selector.namespace != namespace:
            continue
        if selector.name:
            if selector.name == name:
                return ImplicitPriority.MATCH_NAME
            continue
        priority = selector_priority(template, selector)
        best = max(best, priority)
    return best


def explicit_priority(policy: Policy) -> int:
    """`spec.priority`, 0 when unset."""
    return policy.spec.priority or 0


def _live(policy: Policy) -> bool:
    return not policy.metadata.deletion_timestamp


def _preempts(policy: Policy) -> bool:
    return policy.spec.preemption == constants.PreemptionBehavior.ALWAYS


def best_policy(template: Template, policies: Iterable[AnyPolicy]) -> AnyPolicy | None:
    """The policy that wins the template among `policies` (all of one kind), None if none selects it.

    Policies being deleted never win.
    """
    best: AnyPolicy | None = None
    best_rank: tuple[int, int, str] | None = None
    for policy in policies:
        if not _live(policy):
            continue
        implicit = implicit_priority(template, policy)
        if implicit is ImplicitPriority.MISMATCH:
            continue
        rank = (-explicit_priority(policy), -int(implicit), policy.metadata.name)
        if best_rank is None or rank < best_rank:
            best, best_rank = policy, rank
    return best


def _claimed_by(template: Template, label: str, policies: Iterable[AnyPolicy]) -> AnyPolicy | None:
    labels = metadata_of(template).get("labels")
    claimed_id = labels.get(label) if isinstance(labels, Mapping) else None
    if not claimed_id:
        return None
    for policy in policies:
        if policy.permanent_id == claimed_id:
            if _live(policy) and implicit_priority(template, policy) is not ImplicitPriority.MISMATCH:
                return policy
            return None
    return None


def claiming_policy(
    template: Template,
    propagation_policies: Sequence[PropagationPolicy],
    cluster_propagation_policies: Sequence[ClusterPropagationPolicy],
) -> Policy | None:
    """The policy whose claim the template carries, if that policy exists, lives and still selects it."""
    claimed: Policy | None = _claimed_by(
        template, constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL, propagation_policies
    )
    if claimed is None:
        claimed = _claimed_by(
            template, constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL, cluster_propagation_policies
        )
    return claimed


def choose_policy(
    template: Template,
    propagation_policies: Sequence[PropagationPolicy],
    cluster_propagation_policies: Sequence[ClusterPropagationPolicy],
) -> Policy | None:
    """The policy that should claim the template now, None when no policy selects it.

    `propagation_policies` are those of the template's namespace (none for a cluster-scoped
    template); `cluster_propagation_policies` are all of them.
    """
    claimed = claiming_policy(template, propagation_policies, cluster_propagation_policies)
    if isinstance(claimed, PropagationPolicy):
        rivals = [
            policy
            for policy in propagation_policies
            if policy is not claimed
            and _preempts(policy)
            and explicit_priority(policy) > explicit_priority(claimed)
        ]
        return best_policy(template, rivals) or claimed
    if isinstance(claimed, ClusterPropagationPolicy):
        preempting = best_policy(template, [p for p in propagation_policies if _preempts(p)])
        if preempting is not None:
            return preempting
        cluster_rivals = [
            policy
            for policy in cluster_propagation_policies
            if policy is not claimed
            and _preempts(policy)
            and explicit_priority(policy) > explicit_priority(claimed)
        ]
        return best_policy(template, cluster_rivals) or claimed
    return best_policy(template, propagation_policies) or best_policy(template, cluster_propagation_policies)
