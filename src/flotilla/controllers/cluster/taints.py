"""The taints the cluster controller keeps on a Cluster, beside the ones users put there.

The scheduler keeps new work off a cluster that is not Ready through `NoSchedule` taints, which the
cluster controller adds and removes as the Ready condition changes, following Karmada's rule:

| Ready condition | add                                  | remove                               |
|-----------------|--------------------------------------|--------------------------------------|
| none yet        | `cluster.karmada.io/not-ready`       | —                                    |
| False           | `cluster.karmada.io/not-ready`       | `cluster.karmada.io/unreachable`     |
| Unknown         | `cluster.karmada.io/unreachable`     | `cluster.karmada.io/not-ready`       |
| True            | —                                    | both                                 |

(all with effect NoSchedule). A deleting cluster gets `cluster.karmada.io/terminating:NoExecute`.
`NoExecute` health taints are not added: since Karmada v1.14 that is ClusterTaintPolicy's job.

`spec.taints` is one list shared with users and the ClusterTaintPolicy controller, so the
controller never owns it: `flotilla.api.karmada.clustertaints` computes the new list from the
current one — dropping only its own taints it wants gone and appending only missing ones (matched
by key and effect, value ignored), each stamped with `timeAdded` — and the caller writes that list
with the resourceVersion it was computed from, so a concurrent edit is never overwritten.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from flotilla.api.karmada.clustertaints import updated_taints
from flotilla.api.karmada.constants import (
    TAINT_CLUSTER_NOT_READY,
    TAINT_CLUSTER_TERMINATING,
    TAINT_CLUSTER_UNREACHABLE,
)
from flotilla.api.karmada.model import Condition, Taint

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"

NOT_READY = Taint(key=TAINT_CLUSTER_NOT_READY, effect=NO_SCHEDULE)
UNREACHABLE = Taint(key=TAINT_CLUSTER_UNREACHABLE, effect=NO_SCHEDULE)
TERMINATING = Taint(key=TAINT_CLUSTER_TERMINATING, effect=NO_EXECUTE)


def health_taint_changes(ready: Condition | None) -> tuple[list[Taint], list[Taint]]:
    """The taints to add and to remove for a Ready condition (Karmada's table above)."""
    if ready is None:
        return [NOT_READY], []
    if ready.status == "False":
        return [NOT_READY], [UNREACHABLE]
    if ready.status == "Unknown":
        return [UNREACHABLE], [NOT_READY]
    if ready.status == "True":
        return [], [NOT_READY, UNREACHABLE]
    return [], []


def health_taints(current: Sequence[Taint], ready: Condition | None, now: datetime) -> list[Taint] | None:
    """The Cluster's new taints for its Ready condition; None when they are already right."""
    add, remove = health_taint_changes(ready)
    return updated_taints(current, add, remove, now)


def terminating_taints(current: Sequence[Taint], now: datetime) -> list[Taint] | None:
    """The taints of a Cluster being deleted; None when it already carries the terminating taint."""
    return updated_taints(current, [TERMINATING], [], now)
