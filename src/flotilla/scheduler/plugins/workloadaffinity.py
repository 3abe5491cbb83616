"""WorkloadAffinity: workloads of one affinity group go where the group already is.

A binding with `spec.workloadAffinityGroups.affinityGroup` may only go to a cluster that every
placed peer of its group (same group string, same namespace: `core.workloadgroups`) has in its
result. The first workload of a group placed is free, and decides where the others go; a peer with
no result yet blocks nothing, so a new group never deadlocks. Clusters already in the binding's own
result pass: this filter never pulls a placed workload. As Karmada's plugin of the same name
(v1.17, alpha), with its message.
"""

from __future__ import annotations

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import Result

NAME = "WorkloadAffinity"
REASON = "ResourceBinding with the same affinity group does not target this cluster"


class WorkloadAffinity:
    name = NAME

    def filter(self, binding: BindingInfo, cluster: ClusterInfo) -> Result:
        groups = binding.workload_groups
        if not groups.affinity_group or binding.targets(cluster.name):
            return Result.success()
        if groups.apart_from(cluster.name):
            return Result.unschedulable(REASON)
        return Result.success()


def new() -> WorkloadAffinity:
    return WorkloadAffinity()
