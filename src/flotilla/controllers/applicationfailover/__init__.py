"""Application failover (Karmada's `pkg/controllers/applicationfailover`): a workload copy that stays
unhealthy on a member cluster for longer than its policy's `failover.application.decisionConditions.
tolerationSeconds` is evicted from that cluster with a graceful eviction task, and the scheduler
places it elsewhere. The health is the resource interpreter's, reported per cluster in the binding's
`status.aggregatedStatus`; the task carries the policy's purge mode and, with `statePreservation`,
the values its JSONPath rules read from the failed copy's status, which the binding controller hands
to the copy that takes over as labels. Unlike Karmada, the toleration timers live on the binding, so
a restarted or newly elected controller manager carries on where the last one stood; the
`decision`, `eviction`, `statepreservation` and `jsonpath` modules are pure, `controller` is the
reconciler, and `docs/design/application-failover.md` says how the pieces fit.
"""

from flotilla.controllers.applicationfailover.controller import ApplicationFailoverController

__all__ = ["ApplicationFailoverController"]
