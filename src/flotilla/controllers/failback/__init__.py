"""Failback (beyond Karmada): an opt-in way to move workloads back after a cluster they left recovers.

After a failover, Karmada leaves a Divided workload where the failover put it, even once the cluster
it left is healthy again — its users ask for the way back (karmada #1189, #7441, #6518), and a
WorkloadRebalancer written by hand is the only one. Moving back disrupts running replicas, and only
a workload's owner can judge whether that is worth it, so a policy asks for it and says how long a
cluster must have been healthy first: the annotation `failover.flotilla.io/failback-after: "10m"` on
a (Cluster)PropagationPolicy (a flag of the controller manager would decide for every workload at
once, and an annotation leaves Karmada's schemas as they are). The taint manager records each
eviction on the binding (`failover.flotilla.io/evicted-from`), application failover each failure
(`failover.flotilla.io/application-failed-on`); this controller (`controller`) reschedules the
binding from scratch, as a WorkloadRebalancer would, once such a cluster is due — healthy for that
long and no longer the subject of an eviction task (`decision`, pure) — and tells it with Events
(`reporting`). Without the annotation it does nothing, so it runs by default.
"""

from flotilla.controllers.failback.controller import FailbackController

__all__ = ["FailbackController"]
