"""The FederatedResourceQuota reconciler: Works for the static assignments, then the status.

The queue key is the quota's `ObjectKey`. A quota event enqueues it; a Work labelled with a
quota's namespace and name enqueues that quota (its member's ResourceQuota status changed, or
someone edited or deleted the Work); a ResourceBinding event enqueues every quota of its
namespace (its usage changed); a Cluster added enqueues every quota (an assignment may name it).

Reconciling reads everything from the informers. A quota gone or being deleted has the Works of
every cluster deleted (looked up by their one name per cluster, so no scan of all Works). Otherwise
each assigned cluster that exists gets its Work, server-side applied as `flotilla-federated-quota`
unless already up to date; a Work of a cluster no longer assigned is deleted; a cluster whose
execution namespace does not exist yet is retried with backoff. Then the status
(`status.quota_status`) is written when it differs, with the informer's resourceVersion (a 409
retries).
"""

from __future__ import annotations

from typing import Any

import structlog

from flotilla.api.karmada import constants, names
from flotilla.api.karmada.federatedquota import (
    FEDERATED_RESOURCE_QUOTA,
    QUOTA_NAME_LABEL,
    QUOTA_NAMESPACE_LABEL,
)
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import metadata_of
from flotilla.client import NotFound
from flotilla.controllers.federatedquota.status import quota_status
from flotilla.controllers.federatedquota.works import (
    assignments,
    is_quota_work,
    quota_work,
    quota_work_name,
    work_up_to_date,
)
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.federatedquota")

FIELD_MANAGER = "flotilla-federated-quota"

Object = dict[str, Any]


class ClustersNotReached(Exception):
    """Some assigned clusters' Works could not be written yet (no execution namespace)."""


class FederatedResourceQuotaController(HubController):
    NAME = "federatedResourceQuota"
    """One name for Karmada's federatedResourceQuotaSync, -Status and -Enforcement."""

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._quotas = ctx.informers.get(FEDERATED_RESOURCE_QUOTA)
        self._works = ctx.informers.get(constants.WORK)
        self._bindings = ctx.informers.get(constants.RESOURCE_BINDING)
        self._clusters = ctx.informers.get(constants.CLUSTER)

    # -- events: enqueue quota keys -------------------------------------------------------------------

    def setup(self) -> None:
        self._quotas.add_handler(self._on_quota)
        self._works.add_handler(self._on_work)
        self._bindings.add_handler(self._on_binding)
        self._clusters.add_handler(self._on_cluster)

    def _on_quota(self, event: str, new: Object | None, old: Object | None) -> None:
        self.enqueue(ObjectKey.of(new or old or {}))

    def _on_work(self, event: str, new: Object | None, old: Object | None) -> None:
        for work in (new, old):
            labels = metadata_of(work or {}).get("labels") or {}
            name = labels.get(QUOTA_NAME_LABEL)
            if name:
                self.enqueue(ObjectKey(str(labels.get(QUOTA_NAMESPACE_LABEL) or ""), str(name)))
                return

    def _on_binding(self, event: str, new: Object | None, old: Object | None) -> None:
        namespace = str(metadata_of(new or old or {}).get("namespace") or "")
        for quota in self._quotas.list(namespace=namespace):
            self.enqueue(ObjectKey.of(quota))

    def _on_cluster(self, event: str, new: Object | None, old: Object | None) -> None:
        if event == "ADDED":
            for quota in self._quotas.list():
                self.enqueue(ObjectKey.of(quota))

    # -- reconcile ----------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> float | None:
        quota = self._quotas.get(key.name, namespace=key.namespace)
        clusters = [str(metadata_of(c).get("name") or "") for c in self._clusters.list()]
        if quota is None or metadata_of(quota).get("deletionTimestamp"):
            await self._remove_works(key, clusters)
            return None
        missed = await self._sync_works(quota, clusters)
        await self._write_status(quota)
        if missed:
            raise ClustersNotReached(f"quota {key}: no execution namespace yet for {', '.join(missed)}")
        return None

    async def _sync_works(self, quota: Object, clusters: list[str]) -> list[str]:
        """Apply the Work of each assigned cluster, delete the others'; the clusters not reached yet."""
        key = ObjectKey.of(quota)
        assigned = assignments(quota)
        missed = []
        for cluster in clusters:
            hard = assigned.get(cluster)
            if hard is None:
                await self._remove_work(key, cluster)
                continue
            desired = quota_work(quota, cluster, hard)
            existing = self._work(key, cluster)
            if existing is not None and work_up_to_date(existing, desired):
                continue
            try:
                await self.ctx.hub.apply(desired, field_manager=FIELD_MANAGER, force=True, decode=False)
            except NotFound:
                missed.append(cluster)
                continue
            log.info(
                "federatedquota.work_applied",
                controller=self.NAME,
                namespace=key.namespace,
                name=key.name,
                cluster=cluster,
            )
        return missed

    async def _remove_works(self, key: ObjectKey, clusters: list[str]) -> None:
        for cluster in clusters:
            await self._remove_work(key, cluster)

    async def _remove_work(self, key: ObjectKey, cluster: str) -> None:
        existing = self._work(key, cluster)
        if (
            existing is None
            or not is_quota_work(existing, key.namespace, key.name)
            or metadata_of(existing).get("deletionTimestamp")
        ):
            return
        answer = await self.ctx.hub.delete(
            constants.WORK,
            quota_work_name(key.namespace, key.name),
            namespace=names.execution_namespace(cluster),
            uid=str(metadata_of(existing).get("uid") or ""),
        )
        if answer is not None:
            log.info(
                "federatedquota.work_deleted",
                controller=self.NAME,
                namespace=key.namespace,
                name=key.name,
                cluster=cluster,
            )

    def _work(self, key: ObjectKey, cluster: str) -> Object | None:
        """The informer's copy of quota `key`'s Work for `cluster`."""
        return self._works.get(
            quota_work_name(key.namespace, key.name), namespace=names.execution_namespace(cluster)
        )

    async def _write_status(self, quota: Object) -> None:
        key = ObjectKey.of(quota)
        works = [work for cluster in assignments(quota) if (work := self._work(key, cluster)) is not None]
        status = quota_status(quota, works, self._bindings.list(namespace=key.namespace))
        if (quota.get("status") or {}) == status:
            return
        await self.ctx.hub.update_status({**quota, "status": status}, field_manager=FIELD_MANAGER)
        log.info(
            "federatedquota.status_updated", controller=self.NAME, namespace=key.namespace, name=key.name
        )
