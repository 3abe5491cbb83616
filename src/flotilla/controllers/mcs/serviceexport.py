"""The serviceExport controller: ServiceExports in members → ServiceImports and EndpointSlices in members.

Keys are a service's `ObjectKey` (namespace, name) across the clusterset, and `("Cluster", name)`
for a Cluster whose readiness or endpoint changed. A service's reconcile reads, from the member
informers (`memberwatch`), every Ready Push member's ServiceExport, Service, EndpointSlices,
namespace and ServiceImport of that name, merges the valid exports (`exports.merge_exports`), then:

1. in every Ready member (the importing clusters) where the namespace exists, server-side applies
   the ServiceImport (spec without `ips`, which the member's allocator owns; exported labels and
   annotations; status clusters and Ready) and the EndpointSlices of every exporting cluster
   (`slices.mcs_slice`), deleting copies of slices that are gone — or, when nothing is exported any
   more, deletes the ServiceImport it wrote and its slices;
2. writes each ServiceExport's Valid, Ready and Conflict conditions (`conditions`) into its status.

Where the specification wants a cluster id (`status.clusters`, the `source-cluster` label) a member
is named by its `cluster.clusterset.k8s.io` ClusterProperty (ClusterId KEP), else its Cluster name.

A member that is not Ready (its health probes fail, or a Pull member's lease expired) neither
exports nor imports: its slices leave every other member at the next reconcile, which its Cluster's
change triggers. Pull members are reached through the hub's cluster proxy (the tunnel their agent
holds open), so they export and import like the others; writes happen only when what is there
differs, so reconciles are idempotent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import structlog

from flotilla.api import multicluster
from flotilla.api.karmada import constants
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.client import Client
from flotilla.client.errors import NotFound
from flotilla.client.informer import Informer
from flotilla.controllers.mcs.conditions import (
    export_conditions,
    import_conditions,
    same_conditions,
    stamped,
)
from flotilla.controllers.mcs.exports import ClusterExport, MergedImport, merge_exports, validity
from flotilla.controllers.mcs.memberwatch import MemberWatches, cluster_ready, reaches
from flotilla.controllers.mcs.slices import differs, labels_of, mcs_slice, source_slices
from flotilla.runtime.hubcontroller import ControllerContext, HubController
from flotilla.runtime.members import MemberCredentialsError

log = structlog.get_logger("flotilla.controllers.mcs")

FIELD_MANAGER = "flotilla-mcs-controller"
CLUSTER = "Cluster"
INFORMER_WAIT = 0.5
"""Seconds before looking again at a service whose member informers have not listed yet."""
NOT_SERVED_RETRY = 30.0
"""Seconds before asking again whether a member without the MCS API serves it now."""
ALWAYS_WATCHED = (multicluster.SERVICE_EXPORT, multicluster.SERVICE_IMPORT)
"""Watched in every Ready Push member: what turns multi-cluster services on, and what they leave behind."""
WATCHED_IN_USE = (multicluster.SERVICE, multicluster.ENDPOINT_SLICE, multicluster.NAMESPACE)
"""Watched in every Ready Push member once any service is exported."""


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def _alive(obj: Mapping[str, Any] | None) -> bool:
    return obj is not None and not (obj.get("metadata") or {}).get("deletionTimestamp")


def managed_import(service_import: Mapping[str, Any] | None) -> bool:
    return (
        service_import is not None
        and labels_of(service_import).get(multicluster.IMPORT_MANAGED_BY_LABEL) == multicluster.MCS_CONTROLLER
    )


class ServiceExportController(HubController):
    NAME = "serviceExport"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._watches = MemberWatches(ctx.members, self._on_member_event)
        self._not_served: dict[str, float] = {}
        self._has_identity: dict[str, bool] = {}
        self._identity_checked: dict[str, float] = {}

    def setup(self) -> None:
        self._clusters.add_handler(self._on_cluster)

    async def stop(self) -> None:
        await super().stop()
        await self._watches.stop()

    # -- events ---------------------------------------------------------------------------------

    def _on_cluster(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        unchanged = new is not None and old is not None and cluster_ready(new) == cluster_ready(old)
        if unchanged and (new or {}).get("spec") == (old or {}).get("spec"):
            return
        self.enqueue((CLUSTER, _name(new or old or {})))

    def _known(self, key: ObjectKey) -> bool:
        """Whether any member exports or imports the service of `key`."""
        for cluster in self._watches.clusters():
            for gvk in ALWAYS_WATCHED:
                informer = self._watches.running(cluster, gvk)
                if informer is not None and informer.get(key.name, namespace=key.namespace) is not None:
                    return True
        return False

    def _known_in_namespace(self, namespace: str) -> set[ObjectKey]:
        found: set[ObjectKey] = set()
        for cluster in self._watches.clusters():
            for gvk in ALWAYS_WATCHED:
                informer = self._watches.running(cluster, gvk)
                if informer is not None:
                    found.update(ObjectKey.of(obj) for obj in informer.list(namespace=namespace))
        return found

    def _on_member_event(
        self, cluster: str, gvk: GroupVersionKind, new: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> None:
        obj = new if new is not None else old or {}
        if gvk in ALWAYS_WATCHED:
            self.enqueue(ObjectKey.of(obj))
        elif gvk == multicluster.CLUSTER_PROPERTY:
            if _name(obj) == multicluster.CLUSTER_ID_PROPERTY:
                for key in self._known_in_namespace_all():
                    self.enqueue(key)
        elif gvk == multicluster.NAMESPACE:
            for key in self._known_in_namespace(_name(obj)):
                self.enqueue(key)
        else:
            namespace = str((obj.get("metadata") or {}).get("namespace") or "")
            name = _name(obj)
            if gvk == multicluster.ENDPOINT_SLICE:
                labels = labels_of(obj)
                name = labels.get(multicluster.KUBE_SERVICE_NAME_LABEL) or labels.get(
                    multicluster.SERVICE_NAME_LABEL, ""
                )
            key = ObjectKey(namespace, name)
            if name and self._known(key):
                self.enqueue(key)

    # -- reconcile ------------------------------------------------------------------------------

    async def _members(self) -> list[dict[str, Any]]:
        """The Ready members this process reaches and that serve the MCS API, by name.

        A member without the `multicluster.x-k8s.io` CRDs takes no part (looked at again after
        `NOT_SERVED_RETRY` seconds): it could neither export nor import."""
        found = []
        now = self.ctx.clock.now().timestamp()
        for cluster in sorted(self._clusters.list(), key=_name):
            if not reaches(self.ctx, cluster) or not cluster_ready(cluster):
                continue
            name = _name(cluster)
            if now < self._not_served.get(name, 0.0):
                continue
            try:
                client = await self.ctx.members.client_for(cluster, pull_through_proxy=True)
                await client.resource(multicluster.SERVICE_EXPORT)
            except MemberCredentialsError as exc:
                raise RuntimeError(f"no client for cluster {name}: {exc}") from exc
            except NotFound:
                log.warning("mcs.api_not_served", cluster=name, retry_in=NOT_SERVED_RETRY)
                self._not_served[name] = now + NOT_SERVED_RETRY
                continue
            if now >= self._identity_checked.get(name, 0.0):
                # Asked again now and then: a member without the ClusterProperty CRD would otherwise
                # cost a discovery round trip at every reconcile.
                try:
                    await client.resource(multicluster.CLUSTER_PROPERTY)
                    self._has_identity[name] = True
                except NotFound:
                    self._has_identity[name] = False
                self._identity_checked[name] = now + NOT_SERVED_RETRY
            found.append(cluster)
        return found

    async def _cluster_ids(self, members: list[dict[str, Any]]) -> dict[str, str] | None:
        """Each member's cluster id (ClusterId KEP): its `cluster.clusterset.k8s.io` ClusterProperty,
        or its Cluster name when it has none; None while a member's properties have not listed yet."""
        ids = {}
        for cluster in members:
            name = _name(cluster)
            ids[name] = name
            if not self._has_identity.get(name):
                continue
            informer = await self._watches.informer(cluster, multicluster.CLUSTER_PROPERTY)
            if not informer.synced:
                return None
            found = informer.get(multicluster.CLUSTER_ID_PROPERTY)
            value = str(((found or {}).get("spec") or {}).get("value") or "")
            if value:
                ids[name] = value
        return ids

    async def reconcile(self, key: Any) -> float | None:
        if isinstance(key, tuple):
            return await self._reconcile_cluster(key[1])
        return await self._reconcile_service(key)

    async def _reconcile_cluster(self, name: str) -> float | None:
        cluster = self._clusters.get(name)
        if cluster is None or not reaches(self.ctx, cluster):
            await self._watches.forget(name)
        elif cluster_ready(cluster) and cluster in await self._members():
            await self._informers([cluster], ALWAYS_WATCHED)
        # Readiness moves exports and endpoints in and out of every service.
        for key in self._known_in_namespace_all():
            self.enqueue(key)
        return None

    def _known_in_namespace_all(self) -> set[ObjectKey]:
        found: set[ObjectKey] = set()
        for cluster in self._watches.clusters():
            for gvk in ALWAYS_WATCHED:
                informer = self._watches.running(cluster, gvk)
                if informer is not None:
                    found.update(ObjectKey.of(obj) for obj in informer.list())
        return found

    async def _informers(
        self, clusters: list[dict[str, Any]], kinds: tuple[GroupVersionKind, ...]
    ) -> dict[tuple[str, GroupVersionKind], Informer] | None:
        """The synced informers of `kinds` in each of `clusters`; None while one has not listed yet."""
        found = {}
        for cluster in clusters:
            for gvk in kinds:
                try:
                    informer = await self._watches.informer(cluster, gvk)
                except MemberCredentialsError as exc:
                    raise RuntimeError(f"no client for cluster {_name(cluster)}: {exc}") from exc
                if not informer.synced:
                    return None
                found[(_name(cluster), gvk)] = informer
        return found

    async def _reconcile_service(self, key: ObjectKey) -> float | None:
        namespace, name = key.namespace, key.name
        members = await self._members()
        informers = await self._informers(members, ALWAYS_WATCHED)
        if informers is None:
            return INFORMER_WAIT
        exports: dict[str, dict[str, Any]] = {}
        for cluster in members:
            export = informers[(_name(cluster), multicluster.SERVICE_EXPORT)].get(name, namespace=namespace)
            if export is not None and _alive(export):
                exports[_name(cluster)] = export
        if exports:
            more = await self._informers(members, WATCHED_IN_USE)
            if more is None:
                return INFORMER_WAIT
            informers.update(more)
        cluster_exports = [
            ClusterExport(
                cluster,
                export,
                informers[(cluster, multicluster.SERVICE)].get(name, namespace=namespace),
            )
            for cluster, export in exports.items()
        ]
        merged = merge_exports(cluster_exports)
        ids = await self._cluster_ids(members)
        if ids is None:
            return INFORMER_WAIT
        sources = {
            cluster: source_slices(
                informers[(cluster, multicluster.ENDPOINT_SLICE)].list(namespace=namespace), name
            )
            for cluster in (merged.clusters if merged is not None else ())
        }
        imported = True
        for cluster in members:
            cluster_name = _name(cluster)
            client = await self.ctx.members.client_for(cluster, pull_through_proxy=True)
            existing = informers[(cluster_name, multicluster.SERVICE_IMPORT)].get(name, namespace=namespace)
            namespace_there = merged is not None and _alive(
                informers[(cluster_name, multicluster.NAMESPACE)].get(namespace)
            )
            if merged is None or not namespace_there:
                if managed_import(existing):
                    await self._remove_import(client, cluster_name, namespace, name)
                continue
            try:
                service_import = await self._apply_import(client, existing, merged, ids, namespace, name)
                await self._sync_slices(
                    client,
                    informers[(cluster_name, multicluster.ENDPOINT_SLICE)],
                    service_import,
                    {ids[source]: found for source, found in sources.items()},
                    namespace,
                    name,
                )
            except NotFound:
                imported = False  # the namespace went meanwhile; its event brings the service back
        for cluster_export in cluster_exports:
            await self._write_export_status(cluster_export, merged, imported)
        return None

    # -- writes ---------------------------------------------------------------------------------

    async def _apply_import(
        self,
        client: Client,
        existing: dict[str, Any] | None,
        merged: MergedImport,
        ids: Mapping[str, str],
        namespace: str,
        name: str,
    ) -> dict[str, Any]:
        labels = {**merged.labels, multicluster.IMPORT_MANAGED_BY_LABEL: multicluster.MCS_CONTROLLER}
        status = {"clusters": [{"cluster": cluster} for cluster in sorted(ids[c] for c in merged.clusters)]}
        current = existing or {}
        meta = current.get("metadata") or {}
        current_spec = {k: v for k, v in (current.get("spec") or {}).items() if k != "ips"}
        service_import = current
        if (
            existing is None
            or current_spec != merged.spec
            or (meta.get("labels") or {}) != labels
            or (meta.get("annotations") or {}) != merged.annotations
        ):
            body = {
                "apiVersion": multicluster.SERVICE_IMPORT.api_version,
                "kind": multicluster.SERVICE_IMPORT.kind,
                "metadata": {
                    "name": name,
                    "namespace": namespace,
                    "labels": labels,
                    "annotations": merged.annotations,
                },
                "spec": merged.spec,
            }
            service_import = await client.apply(body, field_manager=FIELD_MANAGER, force=True)
            log.info("mcs.import_applied", namespace=namespace, name=name, clusters=list(merged.clusters))
        current_status = current.get("status") or {}
        wanted_conditions = import_conditions()
        if current_status.get("clusters") != status["clusters"] or not same_conditions(
            wanted_conditions, current_status.get("conditions")
        ):
            now = format_time(self.ctx.clock.now())
            status["conditions"] = stamped(wanted_conditions, current_status.get("conditions"), now)
            await client.apply_status(
                {
                    "apiVersion": multicluster.SERVICE_IMPORT.api_version,
                    "kind": multicluster.SERVICE_IMPORT.kind,
                    "metadata": {"name": name, "namespace": namespace},
                    "status": status,
                },
                field_manager=FIELD_MANAGER,
                force=True,
            )
        return service_import

    async def _sync_slices(
        self,
        client: Client,
        slice_informer: Informer,
        service_import: Mapping[str, Any],
        sources: Mapping[str, list[Mapping[str, Any]]],
        namespace: str,
        name: str,
    ) -> None:
        wanted = {
            _name(copy): copy
            for cluster, found in sources.items()
            for source in found
            for copy in [mcs_slice(source, cluster, service_import, namespace=namespace, service_name=name)]
        }
        existing = {
            _name(obj): obj
            for obj in slice_informer.list(namespace=namespace)
            if labels_of(obj).get(multicluster.SERVICE_NAME_LABEL) == name
            and labels_of(obj).get(multicluster.MANAGED_BY_LABEL) == multicluster.MCS_ENDPOINT_SLICE_MANAGER
        }
        for slice_name, copy in wanted.items():
            if differs(copy, existing.get(slice_name)):
                await client.apply(copy, field_manager=FIELD_MANAGER, force=True)
        for slice_name in existing.keys() - wanted.keys():
            await client.delete(multicluster.ENDPOINT_SLICE, slice_name, namespace=namespace)

    async def _remove_import(self, client: Client, cluster: str, namespace: str, name: str) -> None:
        informer = self._watches.running(cluster, multicluster.ENDPOINT_SLICE)
        for obj in informer.list(namespace=namespace) if informer is not None else []:
            labels = labels_of(obj)
            if (
                labels.get(multicluster.SERVICE_NAME_LABEL) == name
                and labels.get(multicluster.MANAGED_BY_LABEL) == multicluster.MCS_ENDPOINT_SLICE_MANAGER
            ):
                await client.delete(multicluster.ENDPOINT_SLICE, _name(obj), namespace=namespace)
        await client.delete(multicluster.SERVICE_IMPORT, name, namespace=namespace)
        log.info("mcs.import_deleted", cluster=cluster, namespace=namespace, name=name)

    async def _write_export_status(
        self, export: ClusterExport, merged: MergedImport | None, imported: bool
    ) -> None:
        meta = export.export.get("metadata") or {}
        wanted = export_conditions(
            validity(export.service),
            merged,
            export.cluster,
            imported=imported and merged is not None and export.cluster in merged.clusters,
            generation=int(meta.get("generation") or 0),
        )
        existing = (export.export.get("status") or {}).get("conditions")
        if same_conditions(wanted, existing):
            return
        cluster = self._clusters.get(export.cluster)
        if cluster is None:
            return
        client = await self.ctx.members.client_for(cluster, pull_through_proxy=True)
        now = format_time(self.ctx.clock.now())
        try:
            await client.apply_status(
                {
                    "apiVersion": multicluster.SERVICE_EXPORT.api_version,
                    "kind": multicluster.SERVICE_EXPORT.kind,
                    "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace")},
                    "status": {"conditions": stamped(wanted, existing, now)},
                },
                field_manager=FIELD_MANAGER,
                force=True,
            )
        except NotFound:
            return  # unexported meanwhile
