"""Filtering: which clusters may take a binding, and why the others may not.

Every filter plugin runs on every cluster, in registry order, stopping at the first rejection;
that rejection's reasons become the cluster's entry in the diagnosis, which a `FitError` turns
into the `0/N clusters are available` histogram. Clusters being deleted are skipped without a
diagnosis entry (their results are being cleaned up). Unhealthy clusters are not skipped here:
health reaches scheduling only through taints, which users can tolerate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import FilterPlugin, Result


@dataclass(frozen=True, slots=True)
class FilterOutcome:
    """The clusters that fit, in input order, and each rejected cluster's result by name."""

    feasible: tuple[ClusterInfo, ...]
    diagnosis: dict[str, Result] = field(default_factory=dict)


def run_filter_plugins(plugins: Sequence[FilterPlugin], binding: BindingInfo, cluster: ClusterInfo) -> Result:
    """The first unsuccessful plugin result for `cluster`, or success."""
    for plugin in plugins:
        result = plugin.filter(binding, cluster)
        if not result.is_success:
            return result
    return Result.success()


def find_clusters_that_fit(
    plugins: Sequence[FilterPlugin], binding: BindingInfo, clusters: Sequence[ClusterInfo]
) -> FilterOutcome:
    """Run the filters over every cluster that is not being deleted."""
    feasible: list[ClusterInfo] = []
    diagnosis: dict[str, Result] = {}
    for cluster in clusters:
        if cluster.deleting:
            continue
        result = run_filter_plugins(plugins, binding, cluster)
        if result.is_success:
            feasible.append(cluster)
        else:
            diagnosis[cluster.name] = result
    return FilterOutcome(tuple(feasible), diagnosis)
