"""Why a filter plugin rejected a cluster, in more words than the plugin's own.

A plugin's reason is Karmada's fixed sentence, because the scheduler counts reasons into the
`0/N clusters are available: …` histogram and equal sentences must add up. A preview (`flotilla
plan`) explains one cluster at a time and can say more: which part of a cluster affinity left it
out (`exclude`, the label selector, a field expression, `clusterNames`), and which peers of a
workload (anti-)affinity group decided (the peers placed elsewhere, or the ones on this cluster).
"""

from __future__ import annotations

from collections.abc import Sequence

from flotilla.scheduler.core.affinity import affinity_tiers, cluster_matches
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.core.placement import ClusterAffinity, FieldRequirement
from flotilla.scheduler.plugins import clusteraffinity, workloadaffinity, workloadantiaffinity


def rejection_detail(plugin: str, binding: BindingInfo, cluster: ClusterInfo) -> str:
    """What in the binding made `plugin` reject `cluster`, beyond the plugin's own words."""
    if plugin == clusteraffinity.NAME:
        return affinity_mismatch(binding, cluster)
    groups = binding.workload_groups
    if plugin == workloadaffinity.NAME:
        apart = ", ".join(
            f"{peer.name} on {', '.join(sorted(peer.clusters))}" for peer in groups.apart_from(cluster.name)
        )
        return f"affinity group {groups.affinity_group} is placed elsewhere: {apart}" if apart else ""
    if plugin == workloadantiaffinity.NAME:
        here = ", ".join(peer.name for peer in groups.alongside(cluster.name))
        return f"anti-affinity group {groups.anti_affinity_group} runs here: {here}" if here else ""
    return ""


def affinity_mismatch(binding: BindingInfo, cluster: ClusterInfo) -> str:
    """Which part of the binding's (first-tier) cluster affinity leaves `cluster` out; "" if none does."""
    tiers = affinity_tiers(binding)
    if not tiers:
        return ""
    affinity = tiers[0]
    term = binding.scheduler_observed_affinity_name or (
        binding.placement.cluster_affinities[0].name if binding.placement.cluster_affinities else ""
    )
    prefix = f"affinity term {term}: " if binding.placement.cluster_affinities else ""
    if cluster.name in affinity.exclude:
        return f"{prefix}cluster is in exclude"
    selector = affinity.label_selector
    if selector is not None and not cluster_matches(cluster, ClusterAffinity(label_selector=selector)):
        return f"{prefix}cluster labels do not match labelSelector {_selector_text(selector.requirements)}"
    for requirement in affinity.field_selector:
        if not cluster_matches(cluster, ClusterAffinity(field_selector=(requirement,))):
            actual = _field_value(cluster, requirement.key)
            return f"{prefix}fieldSelector {_requirement_text(requirement)} does not match {actual}"
    if affinity.cluster_names and cluster.name not in affinity.cluster_names:
        return f"{prefix}cluster is not in clusterNames [{', '.join(affinity.cluster_names)}]"
    return ""


def _selector_text(requirements: Sequence[object]) -> str:
    text = ",".join(str(requirement) for requirement in requirements)
    return text or "<nothing>"


def _requirement_text(requirement: FieldRequirement) -> str:
    values = f" [{', '.join(requirement.values)}]" if requirement.values else ""
    return f"{requirement.key} {requirement.operator}{values}"


def _field_value(cluster: ClusterInfo, key: str) -> str:
    if key == "zone":
        return f"zones [{', '.join(cluster.zones)}]" if cluster.zones else "zones <none>"
    value = {"provider": cluster.provider, "region": cluster.region}.get(key, "")
    return f"{key} {value or '<none>'}"
