"""The cluster controller: each Cluster's finalizer, execution namespace, status, taints and removal.

One reconcile of a Cluster, level-based from the informers' copies:

1. A Cluster being deleted is taken apart in the contract's order: it gets the terminating taint,
   the Works in `karmada-es-<name>` are deleted (the execution controller removes what they put on
   the member, or drops its finalizer when the member cannot be reached and the Cluster is gone),
   then the namespace is deleted; a Pull cluster's agent loses its RBAC objects and its Lease
   (`agentgrants.py`); and when all that is gone the finalizer `karmada.io/cluster-controller` is
   removed so the Cluster can go. Work and namespace deletions bring the Cluster back here.
2. Otherwise the finalizer is added, the execution namespace is created when missing, and — for a
   Push cluster whose status interval has passed — the member is probed and read, and the status
   is applied (`collection.py`). A Pull cluster's agent reports its status itself; the hub never
   reaches a Pull member, it watches the agent's Lease and marks the cluster `Ready=Unknown`
   when the agent falls silent for `cluster_lease_grace` seconds (`lease.py`).
3. The `not-ready` / `unreachable` NoSchedule taints are set to follow the Ready condition
   (`taints.py`), written against the resourceVersion they were computed from.

The reconcile returns the seconds until the next probe (or lease check) is due, so each cluster is
looked at once per `cluster_status_interval` however many events arrive in between. Per-cluster
memory (the Ready history, the last probe time, when the Lease last changed) lives on the
controller and is only a damping aid: after a restart it starts again from the Cluster's status.

A Cluster that no longer exists leaves nothing behind: a leftover execution namespace (after
`flotilla unjoin --force` removed the finalizer) is deleted.
"""

from __future__ import annotations

import contextlib
from typing import Any

import structlog

from flotilla.api.karmada import constants
from flotilla.api.karmada.cluster import Cluster
from flotilla.api.karmada.constants import CLUSTER_CONTROLLER_FINALIZER, ClusterSyncMode
from flotilla.api.karmada.model import Taint
from flotilla.api.karmada.names import cluster_of_execution_namespace, execution_namespace
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import AlreadyExists, Conflict
from flotilla.controllers.cluster.agentgrants import remove_agent_grants
from flotilla.controllers.cluster.collection import StatusCollection, apply_status
from flotilla.controllers.cluster.health import ready_condition, set_condition
from flotilla.controllers.cluster.lease import (
    LEASE,
    LeaseObservation,
    lease_expired_condition,
    observe_lease,
    renew_time,
    silence_left,
)
from flotilla.controllers.cluster.taints import health_taints, terminating_taints
from flotilla.runtime.hubcontroller import ControllerContext, HubController, cluster_sync_mode
from flotilla.runtime.members import SECRET

log = structlog.get_logger("flotilla.controllers.cluster")

FIELD_MANAGER = "flotilla-cluster-controller"
NAMESPACE = GroupVersionKind("", "v1", "Namespace")

Object = dict[str, Any]


class ClusterController(HubController):
    NAME = "cluster"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._namespaces = ctx.informers.get(NAMESPACE)
        self._works = ctx.informers.get(constants.WORK)
        self._leases = ctx.informers.get(LEASE, constants.KARMADA_CLUSTER_NAMESPACE)
        # Join stores credentials here; listing it up front means the first probe finds them.
        ctx.informers.get(SECRET, constants.KARMADA_CLUSTER_NAMESPACE)
        self._collection = StatusCollection(ctx, field_manager=FIELD_MANAGER, controller=self.NAME)
        self._lease_observations: dict[str, LeaseObservation] = {}

    # -- events: enqueue the Cluster's name ----------------------------------------------------------

    def setup(self) -> None:
        self._clusters.add_handler(self._on_cluster)
        self._namespaces.add_handler(self._on_namespace)
        self._works.add_handler(self._on_work)
        self._leases.add_handler(self._on_lease)

    def _on_cluster(self, event: str, new: Object | None, old: Object | None) -> None:
        self.enqueue(_name(new or old or {}))

    def _on_namespace(self, event: str, new: Object | None, old: Object | None) -> None:
        cluster = cluster_of_execution_namespace(_name(new or old or {}))
        if cluster:
            self.enqueue(cluster)

    def _on_work(self, event: str, new: Object | None, old: Object | None) -> None:
        if event != "DELETED":
            return
        work = old or new or {}
        cluster = cluster_of_execution_namespace(str((work.get("metadata") or {}).get("namespace") or ""))
        found = self._clusters.get(cluster) if cluster else None
        if cluster and found is not None and _deleting(found):
            self.enqueue(cluster)

    def _on_lease(self, event: str, new: Object | None, old: Object | None) -> None:
        name = _name(new or old or {})
        cluster = self._clusters.get(name)
        if cluster is not None and cluster_sync_mode(cluster) == ClusterSyncMode.PULL:
            self.enqueue(name)

    # -- reconcile -----------------------------------------------------------------------------------

    async def reconcile(self, key: str) -> float | None:
        cluster = self._clusters.get(key)
        if cluster is None:
            await self._forget(key)
            return None
        try:
            return await self._sync(cluster)
        except Conflict:
            # The informer's copy is usually just behind this controller's own last write: start
            # once more from the live object rather than waiting out a backoff.
            live = await self.ctx.hub.get_or_none(constants.CLUSTER, key)
            return await self._sync(live) if live is not None else None

    async def _sync(self, cluster: Object) -> float | None:
        if _deleting(cluster):
            return await self._remove(cluster)
        cluster = await self._ensure_finalizer(cluster)
        await self._ensure_execution_namespace(_name(cluster))
        cluster, next_probe = await self._sync_status(cluster)
        await self._sync_health_taints(cluster)
        return next_probe

    async def _ensure_finalizer(self, cluster: Object) -> Object:
        meta = cluster["metadata"]
        finalizers = list(meta.get("finalizers") or [])
        if CLUSTER_CONTROLLER_FINALIZER in finalizers:
            return cluster
        patch = {"metadata": {"finalizers": [*finalizers, CLUSTER_CONTROLLER_FINALIZER]}}
        updated = await self._patch(cluster, patch)
        log.info("cluster.finalizer_added", controller=self.NAME, cluster=meta["name"])
        return updated

    async def _ensure_execution_namespace(self, name: str) -> None:
        namespace = execution_namespace(name)
        existing = self._namespaces.get(namespace)
        if existing is not None:
            if _deleting(existing):
                # Its DELETED event brings the Cluster back here to create it again.
                log.info("cluster.execution_namespace_terminating", cluster=name, namespace=namespace)
            return
        with contextlib.suppress(AlreadyExists):
            await self.ctx.hub.create(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
                field_manager=FIELD_MANAGER,
            )
            log.info("cluster.execution_namespace_created", cluster=name, namespace=namespace)

    # -- status --------------------------------------------------------------------------------------

    async def _sync_status(self, cluster: Object) -> tuple[Object, float | None]:
        """Collect a Push cluster's status, or watch a Pull cluster's Lease; the Cluster as it now is
        and the seconds until it is due again."""
        sync_mode = cluster_sync_mode(cluster)
        if sync_mode == ClusterSyncMode.PUSH:
            return await self._collection.sync(cluster)
        if sync_mode == ClusterSyncMode.PULL:
            # A Push cluster that turned Pull: its agent reports the status from now on.
            await self._collection.forget(_name(cluster))
            return await self._watch_lease(cluster)
        return cluster, None

    async def _watch_lease(self, cluster: Object) -> tuple[Object, float | None]:
        """Mark a Pull cluster Ready=Unknown once its agent has not renewed its Lease for the grace."""
        name = _name(cluster)
        now = self.ctx.clock.now()
        lease = self._leases.get(name, namespace=constants.KARMADA_CLUSTER_NAMESPACE)
        observation = observe_lease(self._lease_observations.get(name), renew_time(lease), now)
        self._lease_observations[name] = observation
        grace = self.ctx.settings.cluster_lease_grace
        left = silence_left(observation, now, grace)
        if left > 0:
            return cluster, left
        model = Cluster.from_object(cluster)
        current = ready_condition(model.status.conditions)
        condition = lease_expired_condition(current)
        if condition is None:
            return cluster, grace
        conditions = set_condition(model.status.conditions, condition, now)
        ready = [c.to_object() for c in conditions if c.type == constants.CLUSTER_CONDITION_READY]
        cluster = await apply_status(self.ctx, model, {"conditions": ready}, field_manager=FIELD_MANAGER)
        log.info(
            "cluster.lease_expired",
            controller=self.NAME,
            cluster=name,
            renew_time=observation.renew_time,
            reason=condition.reason,
        )
        return cluster, grace

    # -- taints --------------------------------------------------------------------------------------

    async def _sync_health_taints(self, cluster: Object) -> None:
        model = Cluster.from_object(cluster)
        ready = ready_condition(model.status.conditions)
        await self._write_taints(cluster, health_taints(model.spec.taints, ready, self.ctx.clock.now()))

    async def _write_taints(self, cluster: Object, taints: list[Taint] | None) -> Object:
        """Write the Cluster's new taints (None: nothing to change); the Cluster as it now is."""
        if taints is None:
            return cluster
        wire = [taint.to_object() for taint in taints]
        updated = await self._patch(cluster, {"spec": {"taints": wire or None}})
        log.info(
            "cluster.taints_updated",
            controller=self.NAME,
            cluster=_name(cluster),
            taints=[f"{t.key}:{t.effect}" for t in taints],
        )
        return updated

    # -- removal -------------------------------------------------------------------------------------

    async def _remove(self, cluster: Object) -> float | None:
        name = _name(cluster)
        current = Cluster.from_object(cluster).spec.taints
        cluster = await self._write_taints(cluster, terminating_taints(current, self.ctx.clock.now()))
        namespace = execution_namespace(name)
        works = self._works.list(namespace=namespace)
        if works:
            remaining = [work for work in works if not _deleting(work)]
            for work in remaining:
                await self.ctx.hub.delete(constants.WORK, _name(work), namespace=namespace)
            if remaining:
                log.info("cluster.works_deleted", controller=self.NAME, cluster=name, works=len(remaining))
            return self.ctx.settings.cluster_status_interval
        found = self._namespaces.get(namespace) or await self.ctx.hub.get_or_none(NAMESPACE, namespace)
        if found is not None:
            if not _deleting(found):
                await self.ctx.hub.delete(NAMESPACE, namespace)
                log.info("cluster.execution_namespace_deleting", controller=self.NAME, cluster=name)
            return self.ctx.settings.cluster_status_interval
        if cluster_sync_mode(cluster) == ClusterSyncMode.PULL:
            removed = await remove_agent_grants(self.ctx.hub, name)
            if removed:
                log.info("cluster.agent_grants_deleted", controller=self.NAME, cluster=name, objects=removed)
        finalizers = [
            f for f in cluster["metadata"].get("finalizers") or [] if f != CLUSTER_CONTROLLER_FINALIZER
        ]
        if len(finalizers) != len(cluster["metadata"].get("finalizers") or []):
            await self._patch(cluster, {"metadata": {"finalizers": finalizers or None}})
            log.info("cluster.finalizer_removed", controller=self.NAME, cluster=name)
        await self._drop_memory(name)
        return None

    async def _forget(self, name: str) -> None:
        """A Cluster that is gone: drop what is remembered of it, and delete a leftover namespace."""
        await self._drop_memory(name)
        namespace = self._namespaces.get(execution_namespace(name))
        if namespace is None or _deleting(namespace):
            return
        if await self.ctx.hub.get_or_none(constants.CLUSTER, name) is not None:
            return  # the informer is behind; the Cluster's ADDED event brings it back here
        await self.ctx.hub.delete(NAMESPACE, execution_namespace(name))
        log.info("cluster.orphaned_execution_namespace_deleted", controller=self.NAME, cluster=name)

    async def _drop_memory(self, name: str) -> None:
        await self._collection.forget(name)
        self._lease_observations.pop(name, None)
        await self.ctx.members.forget(name)

    async def _patch(self, cluster: Object, patch: Object) -> Object:
        """A merge patch that fails with Conflict if the Cluster changed since it was read."""
        meta = cluster["metadata"]
        patch.setdefault("metadata", {})["resourceVersion"] = meta["resourceVersion"]
        return await self.ctx.hub.patch(constants.CLUSTER, meta["name"], patch, field_manager=FIELD_MANAGER)


def _name(obj: Object) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def _deleting(obj: Object) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))
