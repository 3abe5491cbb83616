"""The in-tree scheduler plugins, one module each, and the registry that lists them in run order."""

from __future__ import annotations

from flotilla.scheduler.framework import PluginFactory, Registry
from flotilla.scheduler.plugins import (
    apienablement,
    clusteraffinity,
    clustereviction,
    clusterlocality,
    spreadconstraint,
    tainttoleration,
    workloadaffinity,
    workloadantiaffinity,
)

WORKLOAD_AFFINITY_PLUGINS = (workloadantiaffinity.NAME, workloadaffinity.NAME)
"""The plugins Karmada registers only with its `WorkloadAffinity` feature gate on."""


def in_tree_registry(*, workload_affinity: bool = True) -> Registry:
    """Every in-tree plugin, in Karmada's registry order (filters run in this order).

    `workload_affinity` is the `WorkloadAffinity` feature gate: on by default here (alpha and off in
    Karmada), since a policy's `workloadAffinity` is accepted and should mean what it says.
    """
    plugins: list[tuple[str, PluginFactory]] = [
        (apienablement.NAME, apienablement.new),
        (tainttoleration.NAME, tainttoleration.new),
        (clusteraffinity.NAME, clusteraffinity.new),
        (spreadconstraint.NAME, spreadconstraint.new),
        (clusterlocality.NAME, clusterlocality.new),
        (clustereviction.NAME, clustereviction.new),
    ]
    if workload_affinity:
        plugins.append((workloadantiaffinity.NAME, workloadantiaffinity.new))
        plugins.append((workloadaffinity.NAME, workloadaffinity.new))
    return Registry(plugins)
