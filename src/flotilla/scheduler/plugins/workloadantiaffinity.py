"""WorkloadAntiAffinity: workloads of one anti-affinity group never share a cluster.

A binding with `spec.workloadAffinityGroups.antiAffinityGroup` may not go to a cluster that any
peer of its group (same group string, same namespace: `core.workloadgroups`) has in its result —
the way to run duplicate pipelines for high availability. Clusters already in the binding's own
result pass: this filter never pulls a placed workload. As Karmada's plugin of the same name
(v1.17, alpha), with its message.
"""

from __future__ import annotations

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import Result

NAME = "WorkloadAntiAffinity"
REASON = "cluster already has workload with the same anti-affinity group"


class WorkloadAntiAffinity:
    name = NAME

    def filter(self, binding: BindingInfo, cluster: ClusterInfo) -> Result:
        groups = binding.workload_groups
        if not groups.anti_affinity_group or binding.targets(cluster.name):
            return Result.success()
        if groups.alongside(cluster.name):
            return Result.unschedulable(REASON)
        return Result.success()


def new() -> WorkloadAntiAffinity:
    return WorkloadAntiAffinity()
