"""Scoring: how much each feasible cluster is preferred, as the sum of every score plugin's score.

Karmada's in-tree score plugins need no normalisation and carry no weights, so a cluster's score
is a plain sum (ClusterLocality's 100 for clusters already running the workload, in practice).
"""

from __future__ import annotations

from collections.abc import Sequence

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import ScorePlugin


def prioritize_clusters(
    plugins: Sequence[ScorePlugin], binding: BindingInfo, clusters: Sequence[ClusterInfo]
) -> dict[str, int]:
    """Each cluster's summed score, by cluster name."""
    return {cluster.name: sum(plugin.score(binding, cluster) for plugin in plugins) for cluster in clusters}
