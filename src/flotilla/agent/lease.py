"""The agent's heartbeat: its Lease `karmada-cluster/<cluster>` on the hub, renewed every few seconds.

The hub cannot probe a Pull member, so it judges the agent by its Lease: the cluster controller
marks the cluster `Ready=Unknown` once the Lease has not been renewed for its grace period (40 s
by default, `controllers/cluster/lease.py`). The agent renews every `--lease-seconds` (10 s), and
declares a lease duration of four renewals, as Karmada's 40 s lease renewed every quarter.

The agent creates the Lease when it is missing — owned by its Cluster, so the hub's garbage
collector removes it with the Cluster — and from then on updates its own last copy with that
copy's resourceVersion: a renewal never overwrites a change it has not seen (a Conflict, or a
Lease deleted meanwhile, makes it read the Lease again and retry once). A renewal that fails is
logged and tried again at the next tick; the hub's grace period covers a few missed beats.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import datetime
from typing import Any

import structlog

from flotilla.api.karmada import constants
from flotilla.api.times import format_micro_time
from flotilla.client import AlreadyExists, Conflict, NotFound
from flotilla.client.interfaces import ReadWriter
from flotilla.controllers.cluster.lease import LEASE
from flotilla.runtime.clock import Clock
from flotilla.runtime.periodic import PeriodicTask

log = structlog.get_logger("flotilla.agent")

RENEWALS_PER_DURATION = 4

Object = dict[str, Any]


def lease_duration_seconds(renew_seconds: float) -> int:
    return max(1, round(renew_seconds * RENEWALS_PER_DURATION))


def new_lease(cluster_name: str, cluster: Object | None, now: datetime, duration: int) -> Object:
    """The Lease of a cluster's agent, renewed `now`, owned by the Cluster when it is known."""
    metadata: Object = {"name": cluster_name, "namespace": constants.KARMADA_CLUSTER_NAMESPACE}
    uid = ((cluster or {}).get("metadata") or {}).get("uid")
    if uid:
        metadata["ownerReferences"] = [
            {
                "apiVersion": constants.CLUSTER.api_version,
                "kind": constants.CLUSTER.kind,
                "name": cluster_name,
                "uid": uid,
            }
        ]
    return {
        "apiVersion": LEASE.api_version,
        "kind": LEASE.kind,
        "metadata": metadata,
        "spec": {
            "holderIdentity": cluster_name,
            "leaseDurationSeconds": duration,
            "renewTime": format_micro_time(now),
        },
    }


def renewed_lease(lease: Object, cluster_name: str, now: datetime, duration: int) -> Object:
    """`lease` renewed `now` by the agent of `cluster_name` (its resourceVersion kept as a precondition)."""
    renewed = copy.deepcopy(lease)
    spec = renewed.setdefault("spec", {})
    spec.update(holderIdentity=cluster_name, leaseDurationSeconds=duration, renewTime=format_micro_time(now))
    return renewed


class LeaseRenewer:
    def __init__(
        self,
        hub: ReadWriter,
        cluster_name: str,
        cluster: Callable[[], Object | None],
        clock: Clock,
        *,
        interval: float,
    ) -> None:
        self._hub = hub
        self._cluster_name = cluster_name
        self._cluster = cluster
        self._clock = clock
        self._interval = interval
        self._duration = lease_duration_seconds(interval)
        self._lease: Object | None = None
        self._timer = PeriodicTask("agent.lease_renewal", self.renew, interval, first_delay=0.0)
        self.renewed_at: datetime | None = None

    def start(self) -> None:
        self._timer.start()

    async def stop(self) -> None:
        await self._timer.stop()

    async def renew(self) -> None:
        """Renew the Lease once (creating it when missing)."""
        try:
            await self._renew_once()
        except (Conflict, NotFound):
            # Someone else changed or deleted the Lease since the last renewal: start from the hub's.
            self._lease = None
            await self._renew_once()
        self.renewed_at = self._clock.now()

    async def _renew_once(self) -> None:
        now = self._clock.now()
        if self._lease is None:
            self._lease = await self._hub.get_or_none(
                LEASE, self._cluster_name, namespace=constants.KARMADA_CLUSTER_NAMESPACE
            )
        if self._lease is None:
            try:
                self._lease = await self._hub.create(
                    new_lease(self._cluster_name, self._cluster(), now, self._duration)
                )
            except AlreadyExists as exc:
                raise Conflict(409, exc.status) from exc
            log.info("agent.lease_created", cluster=self._cluster_name)
            return
        self._lease = await self._hub.update(
            renewed_lease(self._lease, self._cluster_name, now, self._duration)
        )
