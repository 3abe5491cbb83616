"""Does a cluster match a ClusterAffinity, and which affinity tier of a binding does it fall in?

`cluster_matches` is Karmada's `ClusterMatches`: an `exclude`d name never matches; otherwise every
part that is set must match — the label selector against the cluster's labels, the field
selector against `provider`/`region` (node selector requirements, `flotilla.api.nodeaffinity`)
and `zone` (against the cluster's whole `zones` list), and `clusterNames`. Nothing set matches
every cluster. A field expression kube would refuse (an unknown operator, `In` without values)
matches nothing, as in Karmada.

A binding's affinity comes as one `clusterAffinity`, or as ordered `clusterAffinities` terms of
which the scheduler uses the one it currently observes (`status.schedulerObservingAffinityName`).
That term may carry `overflowAffinities`: extra tiers that only dynamically divided workloads
spill into, tier 0 being the term itself. `affinity_tier` says which tier admits a cluster (the
first one, when several do), and `None` when none does.
"""

from __future__ import annotations

from collections.abc import Sequence

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.core.placement import (
    ClusterAffinity,
    ClusterAffinityTerm,
    FieldRequirement,
    Placement,
    Strategy,
)

PROVIDER_FIELD = "provider"
REGION_FIELD = "region"
ZONE_FIELD = "zone"

_OVERFLOW_STRATEGIES = (Strategy.DYNAMIC_WEIGHT, Strategy.AGGREGATED)


def cluster_matches(cluster: ClusterInfo, affinity: ClusterAffinity) -> bool:
    """True when `affinity` selects `cluster`."""
    if cluster.name in affinity.exclude:
        return False
    if affinity.label_selector is not None and not affinity.label_selector.matches(cluster.labels):
        return False
    if affinity.field_selector and not all(_field_matches(cluster, item) for item in affinity.field_selector):
        return False
    return not affinity.cluster_names or cluster.name in affinity.cluster_names


def observed_term(placement: Placement, observed_name: str) -> ClusterAffinityTerm | None:
    """The `clusterAffinities` term named `observed_name`, if there is one."""
    for term in placement.cluster_affinities:
        if term.name == observed_name:
            return term
    return None


def affinity_tiers(binding: BindingInfo) -> Sequence[ClusterAffinity] | None:
    """The affinities a binding accepts clusters by, in tier order; `None` when it accepts any cluster.

    With `clusterAffinities` and no observed term yet, the first term is meant, as the scheduler
    always starts there.
    """
    placement = binding.placement
    if placement.cluster_affinity is not None:
        return (placement.cluster_affinity,)
    if not placement.cluster_affinities:
        return None
    term = observed_term(placement, binding.scheduler_observed_affinity_name)
    if term is None:
        term = placement.cluster_affinities[0]
    if term.overflow and binding.replicas > 0 and placement.strategy in _OVERFLOW_STRATEGIES:
        return (term.affinity, *(tier.affinity for tier in term.overflow))
    return (term.affinity,)


def affinity_tier(binding: BindingInfo, cluster: ClusterInfo) -> int | None:
    """The first tier whose affinity selects `cluster` (0 without any affinity), or `None`."""
    tiers = affinity_tiers(binding)
    if tiers is None:
        return 0
    for index, affinity in enumerate(tiers):
        if cluster_matches(cluster, affinity):
            return index
    return None


def _field_matches(cluster: ClusterInfo, requirement: FieldRequirement) -> bool:
    if requirement.key == ZONE_FIELD:
        return _zones_match(requirement, cluster.zones)
    if requirement.key == PROVIDER_FIELD:
        return requirement.matches(cluster.provider)
    if requirement.key == REGION_FIELD:
        return requirement.matches(cluster.region)
    return requirement.matches("")


def _zones_match(requirement: FieldRequirement, zones: Sequence[str]) -> bool:
    """`In` needs every zone of the cluster listed, `NotIn` none of them (Karmada's `matchZones`)."""
    operator, values = requirement.operator, requirement.values
    if operator == "In":
        return bool(zones) and all(zone in values for zone in zones)
    if operator == "NotIn":
        return not any(zone in values for zone in zones)
    if operator == "Exists":
        return bool(zones)
    if operator == "DoesNotExist":
        return not zones
    return False
