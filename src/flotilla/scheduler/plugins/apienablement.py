"""APIEnablement: a cluster must serve the binding's kind (`status.apiEnablements`).

A cluster that does not list the resource's group/version and kind is rejected with Karmada's
`no such API resource`. Clusters already in the binding's result pass anyway: an API that
disappears from a member is a failure to report, not a reason to pull the workload.
"""

from __future__ import annotations

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import Result

NAME = "APIEnablement"
REASON = "no such API resource"


class APIEnablement:
    name = NAME

    def filter(self, binding: BindingInfo, cluster: ClusterInfo) -> Result:
        if (binding.api_version, binding.kind) in cluster.api_enablements or binding.targets(cluster.name):
            return Result.success()
        return Result.unschedulable(REASON)


def new() -> APIEnablement:
    return APIEnablement()
