"""What a Cluster's taints become under the ClusterTaintPolicies: Karmada's reconcile, as a function.

Policies are taken in creation order (then by name), as Karmada sorts them, so two policies that
disagree settle the same way on every pass instead of flapping. Each policy that selects the
cluster first adds its taints if its add conditions hold, then removes them if its remove
conditions hold, each step on the list the previous step left. Matching and stamping are
`flotilla.api.karmada.clustertaints` (key and effect; `timeAdded` on what is added).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from flotilla.api.karmada.cluster import Cluster
from flotilla.api.karmada.clustertaints import updated_taints
from flotilla.api.karmada.model import Taint
from flotilla.api.karmada.taintpolicy import ClusterTaintPolicy, conditions_match
from flotilla.overrides import cluster_matches


def ordered_policies(objects: Iterable[Mapping[str, Any]]) -> list[ClusterTaintPolicy]:
    """The policies in the order they apply: oldest first, then by name."""
    policies = [ClusterTaintPolicy.from_object(obj) for obj in objects]
    return sorted(policies, key=lambda p: (p.metadata.creation_timestamp or "", p.metadata.name))


def selects(policy: ClusterTaintPolicy, cluster: Mapping[str, Any]) -> bool:
    """Whether the policy looks at this Cluster (no `targetClusters`: every cluster)."""
    target = policy.spec.target_clusters
    return target is None or cluster_matches(cluster, target.to_object())


def policy_taints(
    cluster: Mapping[str, Any], policies: Sequence[ClusterTaintPolicy], now: datetime
) -> list[Taint] | None:
    """The Cluster's taints after every policy had its say; None when they stay as they are."""
    model = Cluster.from_object(cluster)
    conditions = model.status.conditions
    current = list(model.spec.taints)
    taints = current
    for policy in policies:
        if not selects(policy, cluster):
            continue
        wanted = policy.cluster_taints
        if conditions_match(conditions, policy.spec.add_on_conditions):
            taints = _changed(taints, updated_taints(taints, wanted, [], now))
        if conditions_match(conditions, policy.spec.remove_on_conditions):
            taints = _changed(taints, updated_taints(taints, [], wanted, now))
    return None if _same(taints, current) else taints


def _changed(taints: list[Taint], updated: list[Taint] | None) -> list[Taint]:
    """The list after a step (`updated_taints` answers None when the step changes nothing)."""
    return taints if updated is None else updated


def _same(taints: Sequence[Taint], other: Sequence[Taint]) -> bool:
    return [t.to_object() for t in taints] == [t.to_object() for t in other]
