"""TaintToleration: a cluster's NoSchedule and NoExecute taints keep out bindings that do not tolerate them.

The placement's `clusterTolerations` are matched against `spec.taints` with kube's rules
(`flotilla.api.tolerations`): an empty toleration key (with `Exists`) tolerates every key, an empty
effect every effect, `Exists` any value and `Equal` (or no operator) only the same value.
PreferNoSchedule taints are ignored. Clusters already in the binding's result pass: evicting from a
newly tainted cluster is the taint manager's decision, made with its grace periods, not the
scheduler's.
"""

from __future__ import annotations

from flotilla.api.tolerations import untolerated_taint
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import Result

NAME = "TaintToleration"


class TaintToleration:
    name = NAME

    def filter(self, binding: BindingInfo, cluster: ClusterInfo) -> Result:
        if not cluster.taints or binding.targets(cluster.name):
            return Result.success()
        taint = untolerated_taint(cluster.taints, binding.placement.cluster_tolerations)
        if taint is None:
            return Result.success()
        return Result.unschedulable(f"cluster(s) had untolerated taint {{{taint}}}")


def new() -> TaintToleration:
    return TaintToleration()
