"""ClusterEviction: a cluster the binding is being evicted from cannot take it back meanwhile.

Clusters named as `fromCluster` in the binding's `gracefulEvictionTasks` are rejected until the
graceful eviction controller has finished with them.
"""

from __future__ import annotations

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import Result

NAME = "ClusterEviction"
REASON = "cluster(s) is in the process of eviction"


class ClusterEviction:
    name = NAME

    def filter(self, binding: BindingInfo, cluster: ClusterInfo) -> Result:
        if cluster.name in binding.graceful_eviction_clusters:
            return Result.unschedulable(REASON)
        return Result.success()


def new() -> ClusterEviction:
    return ClusterEviction()
