"""What a replica estimator answers, and the contract every estimator keeps.

Karmada sizes a cluster for a binding with several estimators and takes, per cluster, the smallest
answer (`availability.available_estimates`): the general estimator reads the Cluster's resource
summary and is always on; the accurate estimator (`noderesources`) reads the member's nodes and
pods when they are known. An estimator that cannot answer for a cluster says so with
`UNAUTHENTIC` (Karmada's `UnauthenticReplica`, -1), and that answer is left out of the minimum
rather than read as "no room".

An answer also says what bounded it (`limited_by`: a resource name such as `cpu`, `pods` or
`nvidia.com/gpu`; or, when no resource did, a `reason` such as "no nodes"), so `flotilla plan`
can explain each cluster's share instead of printing a bare number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from flotilla.scheduler.core.inputs import ClusterInfo, ReplicaRequirements

UNAUTHENTIC = -1
"""An estimator's "I cannot tell for this cluster": ignored when the answers are combined."""
MAX_INT32 = 2**31 - 1
"""No bound at all (Karmada's `math.MaxInt32`), replaced by the binding's replicas in the end."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """How many more replicas one cluster takes by one estimator's reckoning, and what bounds it."""

    replicas: int
    limited_by: str = ""
    """The resource that bounded the count (`cpu`, `memory`, `pods`…)."""
    estimator: str = ""
    """The estimator that gave this answer (`general`, `accurate`)."""
    reason: str = ""
    """Why nothing fits when no resource says so (`no nodes`, `no resource summary`…)."""

    @property
    def authentic(self) -> bool:
        return self.replicas >= 0


class ReplicaEstimator(Protocol):
    """One way of sizing clusters (Karmada's `ReplicaEstimator` interface), for one cluster at a time."""

    @property
    def name(self) -> str: ...

    def estimate(self, cluster: ClusterInfo, requirements: ReplicaRequirements | None) -> Estimate:
        """The replicas `cluster` can still take; `replicas == UNAUTHENTIC` when this estimator
        knows nothing of it."""
        ...
