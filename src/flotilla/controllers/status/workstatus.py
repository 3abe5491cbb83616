"""The work-status controller: member objects' status → `Work.status.manifestStatuses`.

For each Work it looks up, in the member informer of each manifest's kind (the process's shared
`ControllerContext.member_informers`, one label-selected watch per cluster and kind), the object
the Work delivered, and writes what the resource interpreter reflects of its status and health
into the Work's status with server-side apply (field manager `flotilla-work-status`, which owns
`manifestStatuses`) — only when that changes. Member object events enqueue the Work named in
the object's annotations, so a Deployment turning ready on a member reaches its Work within one
watch event.

Keys are `("Work", ObjectKey(namespace, name))`, and `("Cluster", ObjectKey("", name))` for
dropping the informers of a deleted Cluster. Works of clusters that are not Ready are left until
the cluster turns Ready.

It runs in the controller manager for Push clusters and in a Pull cluster's agent for that one
(`ControllerContext.sync_mode`); the Works of the other mode's clusters are left to their owner.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import structlog

from flotilla.api.karmada import constants, names
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersion, GroupVersionKind
from flotilla.controllers.status.manifeststatus import (
    delivered_by,
    manifest_status,
    same_statuses,
    statuses_of,
    work_of_member_object,
)
from flotilla.interpreter.lua import Operation
from flotilla.runtime.hubcontroller import ControllerContext, HubController
from flotilla.runtime.members import MemberCredentialsError

log = structlog.get_logger("flotilla.controllers.status")

FIELD_MANAGER = "flotilla-work-status"
WORK = "Work"
CLUSTER = "Cluster"
COALESCE_SECONDS = 0.1
"""How long member events for one Work are gathered before its status is written."""
INFORMER_WAIT = 1.0
"""Seconds before looking again at a Work whose member informer has not listed yet."""

Key = tuple[str, ObjectKey]
"""(`Work` or `Cluster`, the object's key)."""


def cluster_ready(cluster: dict[str, Any]) -> bool:
    conditions = (cluster.get("status") or {}).get("conditions") or []
    return any(
        c.get("type") == constants.CLUSTER_CONDITION_READY and c.get("status") == "True" for c in conditions
    )


def manifest_gvk(manifest: dict[str, Any]) -> GroupVersionKind:
    group_version = GroupVersion.parse(str(manifest.get("apiVersion") or ""))
    return GroupVersionKind(group_version.group, group_version.version, str(manifest.get("kind") or ""))


class WorkStatusController(HubController):
    NAME = "workStatus"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._works = ctx.informers.get(constants.WORK)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._members = ctx.member_informers
        self._interpretation = ctx.interpretation()

    def setup(self) -> None:
        self._works.add_handler(self._on_work)
        self._clusters.add_handler(self._on_cluster)
        self._members.add_handler(self._on_member_object)

    async def stop(self) -> None:
        await super().stop()
        await self._members.stop()

    # -- events ---------------------------------------------------------------------------------

    def _on_member_object(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        work = work_of_member_object(new if new is not None else old or {})
        if work is not None:
            # A rollout changes a member's status several times in a row: report the burst once.
            self.loop.enqueue_after((WORK, work), COALESCE_SECONDS)

    def _on_work(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is None:
            return
        metadata = new.get("metadata") or {}
        old_metadata = (old or {}).get("metadata") or {}
        if old is None or metadata.get("generation") != old_metadata.get("generation"):
            self.enqueue((WORK, ObjectKey.of(new)))

    def _on_cluster(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is None:
            if old is not None:
                self.enqueue((CLUSTER, ObjectKey.of(old)))
            return
        if (
            old is not None
            and cluster_ready(old) == cluster_ready(new)
            and old.get("spec") == new.get("spec")
        ):
            return
        namespace = names.execution_namespace(str((new.get("metadata") or {}).get("name") or ""))
        for work in self._works.list(namespace=namespace):
            self.enqueue((WORK, ObjectKey.of(work)))

    # -- reconcile ------------------------------------------------------------------------------

    async def reconcile(self, key: Key) -> float | None:
        kind, target = key
        namespace, name = target.namespace, target.name
        if kind == CLUSTER:
            if self._clusters.get(name) is None:
                await self._members.forget(name)
            return None
        work = self._works.get(name, namespace=namespace)
        cluster_name = names.cluster_of_execution_namespace(namespace)
        if work is None or cluster_name is None or (work.get("metadata") or {}).get("deletionTimestamp"):
            return None
        cluster = self._clusters.get(cluster_name)
        if cluster is None or not self.ctx.reaches(cluster) or not cluster_ready(cluster):
            return None
        manifests = ((work.get("spec") or {}).get("workload") or {}).get("manifests") or []
        statuses = []
        interpreter = self._interpretation.interpreter()
        for ordinal, manifest in enumerate(manifests):
            gvk = manifest_gvk(manifest)
            try:
                informer = await self._members.informer(cluster, gvk)
                member = await self.ctx.members.client_for(cluster)
            except MemberCredentialsError as exc:
                # Retried with backoff: the credentials' informer may not have listed yet.
                raise RuntimeError(f"no client for cluster {cluster_name}: {exc}") from exc
            if not informer.synced:
                # Writing now would drop entries that are only not listed yet.
                return INFORMER_WAIT
            metadata = manifest.get("metadata") or {}
            observed = informer.get(
                str(metadata.get("name") or ""), namespace=str(metadata.get("namespace") or "")
            )
            if observed is None or not delivered_by(observed, namespace, name):
                continue
            resource = (await member.resource(gvk)).plural
            entry = partial(manifest_status, ordinal, manifest, observed, resource, interpreter)
            customized = interpreter.customizes(
                observed, Operation.INTERPRET_STATUS
            ) or interpreter.customizes(observed, Operation.INTERPRET_HEALTH)
            statuses.append(await self._interpretation.off_loop(entry, customized=customized))
        await self._interpretation.report_failures(self.ctx.hub, interpreter, controller=self.NAME)
        if not same_statuses(statuses_of(work), statuses):
            await self.ctx.hub.apply_status(
                {
                    "apiVersion": constants.WORK.api_version,
                    "kind": constants.WORK.kind,
                    "metadata": {"name": name, "namespace": namespace},
                    "status": {"manifestStatuses": statuses},
                },
                field_manager=FIELD_MANAGER,
                force=True,
            )
            log.debug("work_status.updated", namespace=namespace, work=name, cluster=cluster_name)
        return None
