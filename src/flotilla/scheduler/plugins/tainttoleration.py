"""TaintToleration: a cluster's NoSchedule and NoExecute taints keep out bindings that do not tolerate them.

The placement's `clusterTolerations` are matched against `spec.taints` with kube's rules
(`flotilla.api.tolerations`): an empty toleration key (with `Exists`) tolerates every key, an empty
effect every effect, `Exists` any value and `Equal` (or no operator) only the same value.
PreferNoSchedule taints are ignored. Clusters already in the binding's result pass: evicting from a
newly tainted cluster is the taint manager's decision, made with its grace periods, not the
scheduler's.

Beyond Karmada, a NoExecute toleration with `tolerationSeconds` tolerates only until those seconds
have passed since the taint's `timeAdded`, reckoned as the taint manager reckons it
(`flotilla.api.tolerations.expired_toleration`): once they have, a cluster not in the result counts
as untolerated. Karmada's filter ignores the seconds, so after the taint manager evicts a binding and
its eviction task is dropped, the scheduler places it straight back on the cluster, to be evicted
again, in a loop. A toleration whose seconds have not run out yet still admits the cluster (the
taint manager evicts when they do), and one without seconds admits it for as long as the taint
stays. The time is the round's (`BindingInfo.now`); without one, no toleration runs out.
"""

from __future__ import annotations

from flotilla.api.tolerations import expired_toleration, untolerated_taint
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import Result

NAME = "TaintToleration"


class TaintToleration:
    name = NAME

    def filter(self, binding: BindingInfo, cluster: ClusterInfo) -> Result:
        if not cluster.taints or binding.targets(cluster.name):
            return Result.success()
        tolerations = binding.placement.cluster_tolerations
        taint = untolerated_taint(cluster.taints, tolerations)
        if taint is not None:
            return Result.unschedulable(f"cluster(s) had untolerated taint {{{taint}}}")
        if binding.now is not None:
            ended = expired_toleration(cluster.taints, tolerations, binding.now)
            if ended is not None:
                return Result.unschedulable(
                    f"cluster(s) had taint {{{ended.taint}}} whose toleration ran out"
                )
        return Result.success()


def new() -> TaintToleration:
    return TaintToleration()
