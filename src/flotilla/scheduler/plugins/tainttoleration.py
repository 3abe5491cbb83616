"""TaintToleration: a cluster's NoSchedule and NoExecute taints keep out bindings that do not tolerate them.

The placement's `clusterTolerations` are matched against `spec.taints` with kube's rules: an
empty toleration key (with `Exists`) tolerates every key, an empty effect every effect, `Exists`
any value and `Equal` (or no operator) only the same value. PreferNoSchedule taints are ignored.
Clusters already in the binding's result pass: evicting from a newly tainted cluster is the
taint manager's decision, made with its grace periods, not the scheduler's.
"""

from __future__ import annotations

from collections.abc import Iterable

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, Taint
from flotilla.scheduler.core.placement import Toleration
from flotilla.scheduler.framework import Result

NAME = "TaintToleration"
_FILTERED_EFFECTS = ("NoSchedule", "NoExecute")


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """kube's `Toleration.ToleratesTaint`."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    if toleration.operator in ("", "Equal"):
        return toleration.value == taint.value
    return toleration.operator == "Exists"


def untolerated_taint(taints: Iterable[Taint], tolerations: tuple[Toleration, ...]) -> Taint | None:
    """The first NoSchedule/NoExecute taint no toleration tolerates, if any."""
    for taint in taints:
        if taint.effect not in _FILTERED_EFFECTS:
            continue
        if not any(tolerates(toleration, taint) for toleration in tolerations):
            return taint
    return None


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
