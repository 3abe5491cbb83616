"""SpreadConstraint: a cluster must carry the property the placement spreads by.

Spreading by provider, region or zone groups clusters by that property, so a cluster without it
could not be counted in any group and is rejected (`cluster(s) didn't have region property`).
"""

from __future__ import annotations

from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo
from flotilla.scheduler.framework import Result

NAME = "SpreadConstraint"


class SpreadConstraint:
    name = NAME

    def filter(self, binding: BindingInfo, cluster: ClusterInfo) -> Result:
        for constraint in binding.placement.spread_constraints:
            field = constraint.spread_by_field
            if field == "provider" and not cluster.provider:
                return Result.unschedulable("cluster(s) didn't have provider property")
            if field == "region" and not cluster.region:
                return Result.unschedulable("cluster(s) didn't have region property")
            if field == "zone" and not cluster.zones:
                return Result.unschedulable("cluster(s) didn't have zone property")
        return Result.success()


def new() -> SpreadConstraint:
    return SpreadConstraint()
