"""The WorkloadRebalancer controller: ask the scheduler to place the named workloads afresh, once.

For each workload a WorkloadRebalancer names, the controller sets `spec.rescheduleTriggeredAt` of
its ResourceBinding (ClusterResourceBinding when the reference has no namespace) to the
rebalancer's creationTimestamp, unless the binding already carries that time or a later one; the
scheduler, seeing a request newer than its last schedule, reschedules from scratch (Fresh mode).
It records each workload's result in the status (`Successful`, or `Failed` with
`ReferencedBindingNotFound`), sets `finishTime` once every workload has one, and deletes the
rebalancer `ttlSecondsAfterFinished` later (0: at once; unset: never). Results are kept, so a
rebalancer acts once per generation: re-applying it unchanged does nothing, a changed spec adds
the new workloads (`status.py`, pure; `controller.py`, the reconciler). Karmada's
`workload-rebalancer` controller, enabled as `workloadRebalancer`.
"""

from flotilla.controllers.rebalancer.controller import WorkloadRebalancerController

__all__ = ["WorkloadRebalancerController"]
