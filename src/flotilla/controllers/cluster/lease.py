"""A Pull cluster's heartbeat: when the hub stops hearing from its agent, Ready turns Unknown.

The hub cannot reach a Pull member, so it cannot probe it: the member's agent reports the status,
and proves it is alive by renewing its Lease `karmada-cluster/<cluster>` every few seconds. The
cluster controller watches those Leases and, as Karmada's does (`tryUpdateClusterHealth`), marks a
cluster whose agent has fallen silent for longer than the grace period:

- a Cluster that has a Ready condition gets `Ready=Unknown`, reason `ClusterStatusUnknown`;
- one the agent never reported on gets `Ready=Unknown`, reason `ClusterStatusNeverUpdated`;

and the health taints then follow Unknown with `cluster.karmada.io/unreachable` (`taints.py`).

"Silent" is measured on the hub's own clock, from when the controller last saw the Lease's
`renewTime` change — not by comparing `renewTime` with the hub's clock — so a member whose clock
runs ahead or behind is judged fairly. The price, as in Karmada: after the controller restarts,
a silent agent gets one full grace period again before its cluster is marked.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from flotilla.api.karmada.constants import CLUSTER_CONDITION_READY
from flotilla.api.karmada.model import Condition
from flotilla.api.scheme import GroupVersionKind

LEASE = GroupVersionKind("coordination.k8s.io", "v1", "Lease")

REASON_STATUS_UNKNOWN = "ClusterStatusUnknown"
MESSAGE_STATUS_UNKNOWN = "Cluster status controller stopped posting cluster status."
REASON_NEVER_UPDATED = "ClusterStatusNeverUpdated"
MESSAGE_NEVER_UPDATED = "Cluster status controller never posted cluster status."


@dataclass(frozen=True, slots=True)
class LeaseObservation:
    """The Lease's `renewTime` as last seen ("" without a Lease), and since when the hub has seen it."""

    renew_time: str
    since: datetime


def renew_time(lease: dict[str, Any] | None) -> str:
    """The Lease's `spec.renewTime` ("" when there is no Lease or it was never renewed)."""
    return str(((lease or {}).get("spec") or {}).get("renewTime") or "")


def observe_lease(previous: LeaseObservation | None, renewed: str, now: datetime) -> LeaseObservation:
    """The observation after seeing the Lease renewed at `renewed`: a renewal restarts the clock."""
    if previous is None or previous.renew_time != renewed:
        return LeaseObservation(renewed, now)
    return previous


def silence_left(observation: LeaseObservation, now: datetime, grace: float) -> float:
    """Seconds until the agent has been silent for `grace` (0 or less: it has been)."""
    return (observation.since + timedelta(seconds=grace) - now).total_seconds()


def lease_expired_condition(current: Condition | None) -> Condition | None:
    """The Ready condition for a cluster whose agent fell silent; None when it already says Unknown."""
    if current is None:
        return Condition(
            type=CLUSTER_CONDITION_READY,
            status="Unknown",
            reason=REASON_NEVER_UPDATED,
            message=MESSAGE_NEVER_UPDATED,
        )
    if current.status == "Unknown":
        return None
    return Condition(
        type=CLUSTER_CONDITION_READY,
        status="Unknown",
        reason=REASON_STATUS_UNKNOWN,
        message=MESSAGE_STATUS_UNKNOWN,
    )
