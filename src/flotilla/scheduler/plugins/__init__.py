"""The in-tree scheduler plugins, one module each, and the registry that lists them in run order."""

from __future__ import annotations

from flotilla.scheduler.framework import Registry
from flotilla.scheduler.plugins import (
    apienablement,
    clusteraffinity,
    clustereviction,
    clusterlocality,
    spreadconstraint,
    tainttoleration,
)


def in_tree_registry() -> Registry:
    """Every in-tree plugin, in Karmada's registry order (filters run in this order)."""
    return Registry(
        [
            (apienablement.NAME, apienablement.new),
            (tainttoleration.NAME, tainttoleration.new),
            (clusteraffinity.NAME, clusteraffinity.new),
            (spreadconstraint.NAME, spreadconstraint.new),
            (clusterlocality.NAME, clusterlocality.new),
            (clustereviction.NAME, clustereviction.new),
        ]
    )
