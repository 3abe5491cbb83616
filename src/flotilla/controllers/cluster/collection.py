"""Status collection of one cluster: probe its member, read it, apply the status to its Cluster.

Whoever reaches a member reports its status: the cluster controller for Push clusters, a Pull
cluster's agent for its own. Both run this same collection, so a Pull cluster's status reads
exactly as a Push cluster's does:

1. at most once per `cluster_status_interval`, the member's health endpoint is probed
   (`probe.py`) and the observation damped by the success and failure thresholds (`health.py`);
2. a Ready member is read — version, API enablements, and node and resource summaries from the
   process's informers on the member's nodes and pods (`probe.py`);
3. the owned status fields (`status.py`) are applied with server-side apply, only when they change.

The per-cluster memory (Ready history, time of the last probe) is only a damping aid: after a
restart it starts again from the Cluster's status. `forget` drops it and stops the member's node
and pod informers, when the Cluster goes or this process no longer reaches its member.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import structlog

from flotilla.api.karmada import constants
from flotilla.api.karmada.cluster import Cluster
from flotilla.api.karmada.model import Condition
from flotilla.controllers.cluster.health import (
    ReadyHistory,
    observed_ready_condition,
    ready_condition,
    status_collection_failed,
    threshold_adjusted,
)
from flotilla.controllers.cluster.probe import probe_health, read_member
from flotilla.controllers.cluster.status import MemberStatus, desired_status, owned_fields, status_changed
from flotilla.runtime.hubcontroller import ControllerContext
from flotilla.runtime.members import SECRET, MemberCredentialsError

log = structlog.get_logger("flotilla.controllers.cluster")

Object = dict[str, Any]


class CredentialsNotSynced(Exception):
    """The Secret informer of a cluster's credentials has not listed yet; retried shortly."""


class StatusCollection:
    def __init__(self, ctx: ControllerContext, *, field_manager: str, controller: str) -> None:
        self.ctx = ctx
        self._field_manager = field_manager
        self._controller = controller
        self._histories: dict[str, ReadyHistory] = {}
        self._probed_at: dict[str, datetime] = {}

    async def sync(self, cluster: Object) -> tuple[Object, float]:
        """Probe and write the status when due; the Cluster as it now is and the seconds to the next probe."""
        name = str(cluster["metadata"]["name"])
        model = Cluster.from_object(cluster)
        interval = self.ctx.settings.cluster_status_interval
        now = self.ctx.clock.now()
        last = self._probed_at.get(name)
        if last is not None and (elapsed := (now - last).total_seconds()) < interval:
            return cluster, interval - elapsed
        ready, member = await self._observe(model, now)
        desired = desired_status(model.status, ready, member, now)
        if status_changed(model.status, desired):
            cluster = await apply_status(
                self.ctx, model, owned_fields(desired), field_manager=self._field_manager
            )
            log.info(
                "cluster.status_updated",
                controller=self._controller,
                cluster=name,
                ready=ready.status,
                reason=ready.reason,
            )
        self._probed_at[name] = now
        return cluster, interval

    async def forget(self, name: str) -> None:
        """Drop what is kept of a cluster whose status this process no longer collects."""
        self._histories.pop(name, None)
        self._probed_at.pop(name, None)
        await self.ctx.member_informers.forget(name, caches_only=True)

    async def _observe(self, cluster: Cluster, now: datetime) -> tuple[Condition, MemberStatus | None]:
        """The Ready condition to report, and the member's status when it is Ready and was read."""
        name = cluster.metadata.name
        ref = cluster.spec.secret_ref
        if ref is not None and ref.name and not self.ctx.informers.get(SECRET, ref.namespace).synced:
            raise CredentialsNotSynced(f"secret {ref.namespace}/{ref.name} not listed yet")
        cluster_object = cluster.to_object()
        try:
            member = await self.ctx.members.client_for(cluster_object)
        except MemberCredentialsError as exc:
            return status_collection_failed(f"failed to create a client: {exc}"), None
        probe = await probe_health(member)
        ready, self._histories[name] = threshold_adjusted(
            observed_ready_condition(probe),
            ready_condition(cluster.status.conditions),
            self._histories.get(name),
            now,
            success_threshold=self.ctx.settings.cluster_success_threshold,
            failure_threshold=self.ctx.settings.cluster_failure_threshold,
        )
        if probe == "healthy" and ready.status == "True":
            return ready, await read_member(
                cluster_object,
                member,
                self.ctx.member_informers,
                sync_timeout=self.ctx.settings.member_timeout,
            )
        return ready, None


async def apply_status(
    ctx: ControllerContext, cluster: Cluster, status: Object, *, field_manager: str
) -> Object:
    """Server-side apply of `status` to the Cluster's status subresource; the Cluster as it now is."""
    updated: Object = await ctx.hub.apply_status(
        {
            "apiVersion": constants.CLUSTER.api_version,
            "kind": constants.CLUSTER.kind,
            "metadata": {"name": cluster.metadata.name},
            # The status subresource ignores spec and gives no ownership of it; the hub checks an
            # apply body's required fields as if it were a whole object, and the Cluster schema
            # requires spec.syncMode. Drop once the hub no longer does.
            "spec": {"syncMode": cluster.spec.sync_mode},
            "status": status,
        },
        field_manager=field_manager,
    )
    return updated
