"""kube-scheduler's default score for the simulation: NodeResourcesFit's LeastAllocated.

A feasible node scores, for cpu and memory alike (weight 1 each), the share of its allocatable left
free once the pod is added, 0 to 100, counting kube's non-zero defaults for containers that request
nothing; the score is the mean of the two. The other default scores (balanced allocation, image
locality, spreading) would not change a choice among identical simulated nodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.sim.kubescheduler.resources import NodeUsage, PodRequest, allocatable

MAX_NODE_SCORE = 100


def least_allocated_score(request: PodRequest, node: Mapping[str, Any], usage: NodeUsage) -> int:
    """NodeResourcesFit's LeastAllocated score over cpu and memory (weight 1 each), 0…100."""
    capacity, _ = allocatable(node)
    total = 0
    for requested, have in (
        (usage.non_zero_milli_cpu + request.non_zero_milli_cpu, capacity.milli_cpu),
        (usage.non_zero_memory + request.non_zero_memory, capacity.memory),
    ):
        if have > 0 and requested <= have:
            total += (have - requested) * MAX_NODE_SCORE // have
    return total // 2
