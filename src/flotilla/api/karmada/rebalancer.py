"""apps.karmada.io/v1alpha1 WorkloadRebalancer: a one-shot request to schedule some workloads afresh.

Karmada's scheduler keeps a dynamically divided workload where it is when clusters change (Steady
mode), so replicas that moved away during an outage do not come back by themselves. A
WorkloadRebalancer names workloads (`spec.workloads[]`: apiVersion, kind, name, namespace — none
for a cluster-scoped one); its controller stamps each one's ResourceBinding (or
ClusterResourceBinding) with `spec.rescheduleTriggeredAt` = the rebalancer's creationTimestamp,
and the scheduler then places it from scratch (Fresh mode). The status records each workload's
result (`Successful`, or `Failed` with reason `ReferencedBindingNotFound`), the generation it
observed and when it finished; `ttlSecondsAfterFinished` deletes the rebalancer that long after
(0: at once, none: never). It acts once per generation: re-applying an unchanged object does
nothing, a changed spec re-syncs the list.

Field names and JSON keys are Karmada's (`pkg/apis/apps/v1alpha1/workloadrebalancer_types.go`).
"""

from __future__ import annotations

from pydantic import Field

from flotilla.api.karmada import constants
from flotilla.api.karmada.model import KarmadaModel, ObjectMeta


class WorkloadReference(KarmadaModel):
    """A resource template by apiVersion, kind, name and (for a namespaced one) namespace."""

    api_version: str = ""
    kind: str = ""
    name: str = ""
    namespace: str | None = None

    @property
    def namespaced(self) -> bool:
        return bool(self.namespace)

    def identity(self) -> tuple[str, str, str, str]:
        """What makes two references the same (Karmada compares them by value), in Karmada's
        order of `observedWorkloads`: apiVersion, kind, namespace, name."""
        return (self.api_version, self.kind, self.namespace or "", self.name)


class ObservedWorkload(KarmadaModel):
    workload: WorkloadReference = Field(default_factory=WorkloadReference)
    result: str | None = None
    """`Successful` or `Failed` (`constants.RebalanceResult`); none while still to be done."""
    reason: str | None = None
    """Why it failed: `ReferencedBindingNotFound` (`constants.RebalanceFailedReason`)."""


class WorkloadRebalancerSpec(KarmadaModel):
    workloads: list[WorkloadReference] = Field(default_factory=list)
    ttl_seconds_after_finished: int | None = None


class WorkloadRebalancerStatus(KarmadaModel):
    observed_workloads: list[ObservedWorkload] = Field(default_factory=list)
    observed_generation: int | None = None
    finish_time: str | None = None


class WorkloadRebalancer(KarmadaModel):
    api_version: str = constants.WORKLOAD_REBALANCER.api_version
    kind: str = constants.WORKLOAD_REBALANCER.kind
    metadata: ObjectMeta = Field(default_factory=ObjectMeta)
    spec: WorkloadRebalancerSpec = Field(default_factory=WorkloadRebalancerSpec)
    status: WorkloadRebalancerStatus = Field(default_factory=WorkloadRebalancerStatus)
