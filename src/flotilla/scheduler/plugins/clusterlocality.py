"""ClusterLocality: prefer the clusters that already run the workload.

A cluster in the binding's current result scores 100, every other 0, so rescheduling (after a
label change, a new cluster, a spread constraint edit) moves as little as it can. A result that
places no replicas anywhere prefers nothing.
"""

from __future__ import annotations

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import MAX_CLUSTER_SCORE, MIN_CLUSTER_SCORE

NAME = "ClusterLocality"


class ClusterLocality:
    name = NAME

    def score(self, binding: BindingInfo, cluster: ClusterInfo) -> int:
        if sum(target.replicas for target in binding.clusters) <= 0:
            return MIN_CLUSTER_SCORE
        return MAX_CLUSTER_SCORE if binding.targets(cluster.name) else MIN_CLUSTER_SCORE


def new() -> ClusterLocality:
    return ClusterLocality()
