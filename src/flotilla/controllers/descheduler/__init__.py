"""The descheduler: replicas a member has not been able to schedule for a while go back to the scheduler.

Karmada's `karmada-descheduler`, here a controller of the manager (`descheduler`, on by default),
with Karmada's rules: every `--descheduling-interval` (2m) it looks at the ResourceBindings of
`apps/v1` Deployments whose placement divides replicas dynamically (Divided with Aggregated or
DynamicWeight); on each target cluster with fewer replicas ready than its share, the pods of the
Deployment's newest ReplicaSet that have been `PodScheduled=False` (`Unschedulable`) for longer than
`--unschedulable-threshold` (5m) are taken back — the share shrinks by that many, never below the
cluster's ready replicas — and the scheduler places the difference where the estimators find room.
Karmada's descheduler is opt-in because it needs an estimator service in every member; here it
reads the member informers the process already keeps, and the accurate estimator (on by default)
keeps the scheduler from putting those replicas straight back, so it is on: a replica left Pending
for minutes is never what a user asked for. `--controllers '*,-descheduler'` turns it off.
`decision` is what it decides (pure), `unschedulable` counts a member's unschedulable replicas
(pure), and `controller` is the shell that reads the hub and the members and writes the binding.
"""

from flotilla.controllers.descheduler.controller import DeschedulerController

__all__ = ["DeschedulerController"]
