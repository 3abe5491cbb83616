"""The multiclusterservice controller: Karmada's MultiClusterService (CrossCluster) on member clusters.

Keys are a MultiClusterService's `ObjectKey` on the hub, and `("Cluster", name)` for a Cluster
whose readiness changed. A reconcile, as Karmada's controllers do between them:

1. puts the `karmada.io/multiclusterservice-controller` finalizer on a live MultiClusterService;
2. when the hub has the Service of the same name, server-side applies the Service's own
   ResourceBinding (`dispatch.service_binding`: providers and consumers together, Overwrite) — the scheduler,
   binding and execution controllers then put the Service in those members;
3. copies every Ready provider's EndpointSlices of the Service (`slices.source_slices`, copies left
   out) into every Ready consumer but the provider itself (`slices.dispatched_slice`), and deletes
   dispatched copies that no longer have a source — also from clusters that stopped being
   consumers or providers, or stopped being Ready;
4. on deletion (or without the CrossCluster type), removes every dispatched copy, releases the
   Service's binding (its managed-by label goes) and then the finalizer; the binding itself stays,
   as in Karmada, so deleting the MultiClusterService does not pull the Service out of members.

Karmada routes the slices through Works on the hub (endpointslice-collect, then -dispatch); here
they go member to member through the same member clients and watches as the MCS API's controller
(`serviceexport`), which keeps the slices' contents identical and the path one hop shorter. The
status gets `ServiceApplied` and `EndpointSliceDispatched`. Pull members are reached through the
hub's cluster proxy. Off unless the `MultiClusterService` feature gate is on, as in Karmada.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import structlog

from flotilla.api import multicluster
from flotilla.api.karmada import constants, names
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.client.errors import NotFound
from flotilla.controllers.mcs.conditions import same_conditions, stamped
from flotilla.controllers.mcs.dispatch import (
    binding_up_to_date,
    cross_cluster,
    dispatch_plan,
    service_binding,
)
from flotilla.controllers.mcs.memberwatch import MemberWatches, cluster_ready, reaches
from flotilla.controllers.mcs.slices import differs, dispatched_slice, labels_of, source_slices
from flotilla.runtime.hubcontroller import ControllerContext, HubController
from flotilla.runtime.members import MemberCredentialsError

log = structlog.get_logger("flotilla.controllers.mcs")

FIELD_MANAGER = "flotilla-multiclusterservice"
CLUSTER = "Cluster"
INFORMER_WAIT = 0.5
SERVICE_APPLIED = "ServiceApplied"
ENDPOINT_SLICE_DISPATCHED = "EndpointSliceDispatched"


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def dispatched_copies(slices: list[dict[str, Any]], service_name: str) -> dict[str, dict[str, Any]]:
    return {
        _name(obj): obj
        for obj in slices
        if labels_of(obj).get(multicluster.KUBE_SERVICE_NAME_LABEL) == service_name
        and labels_of(obj).get(multicluster.MANAGED_BY_LABEL) == constants.ENDPOINT_SLICE_DISPATCH_MANAGER
    }


class MultiClusterServiceController(HubController):
    NAME = "multiclusterservice"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._services = ctx.informers.get(constants.MULTI_CLUSTER_SERVICE)
        self._hub_services = ctx.informers.get(multicluster.SERVICE)
        self._bindings = ctx.informers.get(constants.RESOURCE_BINDING)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._watches = MemberWatches(ctx.members, self._on_member_event)

    def setup(self) -> None:
        self._services.add_handler(self._on_own)
        self._hub_services.add_handler(self._on_own)
        self._clusters.add_handler(self._on_cluster)

    async def stop(self) -> None:
        await super().stop()
        await self._watches.stop()

    # -- events ---------------------------------------------------------------------------------

    def _on_own(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        key = ObjectKey.of(new if new is not None else old or {})
        if self._services.get(key.name, namespace=key.namespace) is not None:
            self.enqueue(key)

    def _on_cluster(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is not None and old is not None and cluster_ready(new) == cluster_ready(old):
            return
        self.enqueue((CLUSTER, _name(new or old or {})))

    def _on_member_event(
        self, cluster: str, gvk: GroupVersionKind, new: dict[str, Any] | None, old: dict[str, Any] | None
    ) -> None:
        obj = new if new is not None else old or {}
        service_name = labels_of(obj).get(multicluster.KUBE_SERVICE_NAME_LABEL, "")
        namespace = str((obj.get("metadata") or {}).get("namespace") or "")
        if service_name and self._services.get(service_name, namespace=namespace) is not None:
            self.enqueue(ObjectKey(namespace, service_name))

    # -- reconcile ------------------------------------------------------------------------------

    async def reconcile(self, key: Any) -> float | None:
        if isinstance(key, tuple):
            cluster = self._clusters.get(key[1])
            if cluster is None or not reaches(self.ctx, cluster):
                await self._watches.forget(key[1])
            for listed in self._services.list():
                self.enqueue(ObjectKey.of(listed))
            return None
        service = self._services.get(key.name, namespace=key.namespace)
        if service is None:
            return None
        # A MultiClusterService without CrossCluster is not acted on (Karmada's controller lets go of it).
        active = cross_cluster(service) and not (service.get("metadata") or {}).get("deletionTimestamp")
        if active and not await self._ensure_finalizer(service):
            return None
        members = {_name(c): c for c in self._clusters.list() if reaches(self.ctx, c) and cluster_ready(c)}
        slice_informers = {}
        for name, cluster in sorted(members.items()):
            try:
                informer = await self._watches.informer(cluster, multicluster.ENDPOINT_SLICE)
            except MemberCredentialsError as exc:
                raise RuntimeError(f"no client for cluster {name}: {exc}") from exc
            if not informer.synced:
                return INFORMER_WAIT
            slice_informers[name] = informer
        plan = dispatch_plan(service, sorted(members)) if active else {}
        for consumer, informer in slice_informers.items():
            await self._dispatch(
                consumer, members[consumer], informer, plan.get(consumer, []), slice_informers, key
            )
        if not active:
            await self._release_binding(key)
            await self._remove_finalizer(service)
            return None
        applied = await self._apply_binding(service, key)
        await self._write_status(service, applied, sum(len(p) for p in plan.values()))
        return None

    async def _ensure_finalizer(self, service: dict[str, Any]) -> bool:
        finalizers = list((service.get("metadata") or {}).get("finalizers") or [])
        if constants.MULTI_CLUSTER_SERVICE_FINALIZER in finalizers:
            return True
        meta = service["metadata"]
        try:
            await self.ctx.hub.patch(
                constants.MULTI_CLUSTER_SERVICE,
                meta["name"],
                {
                    "metadata": {
                        "finalizers": [*finalizers, constants.MULTI_CLUSTER_SERVICE_FINALIZER],
                        "resourceVersion": meta.get("resourceVersion"),
                    }
                },
                namespace=meta["namespace"],
                patch_type="application/merge-patch+json",
                field_manager=FIELD_MANAGER,
            )
        except NotFound:
            return False
        return True

    async def _release_binding(self, key: ObjectKey) -> None:
        """Leave the Service's binding in place but no longer ours (Karmada keeps it, for stability)."""
        binding_name = names.binding_name("Service", key.name)
        binding = self._bindings.get(binding_name, namespace=key.namespace)
        labels = ((binding or {}).get("metadata") or {}).get("labels") or {}
        if constants.BINDING_MANAGED_BY_LABEL not in labels:
            return
        try:
            await self.ctx.hub.patch(
                constants.RESOURCE_BINDING,
                binding_name,
                {"metadata": {"labels": {constants.BINDING_MANAGED_BY_LABEL: None}}},
                namespace=key.namespace,
                patch_type="application/merge-patch+json",
                field_manager=FIELD_MANAGER,
            )
        except NotFound:
            return

    async def _remove_finalizer(self, service: dict[str, Any]) -> None:
        meta = service["metadata"]
        if constants.MULTI_CLUSTER_SERVICE_FINALIZER not in (meta.get("finalizers") or []):
            return
        finalizers = [
            f for f in meta.get("finalizers") or [] if f != constants.MULTI_CLUSTER_SERVICE_FINALIZER
        ]
        try:
            await self.ctx.hub.patch(
                constants.MULTI_CLUSTER_SERVICE,
                meta["name"],
                {
                    "metadata": {
                        "finalizers": finalizers or None,
                        "resourceVersion": meta.get("resourceVersion"),
                    }
                },
                namespace=meta["namespace"],
                patch_type="application/merge-patch+json",
                field_manager=FIELD_MANAGER,
            )
        except NotFound:
            return

    async def _dispatch(
        self,
        consumer: str,
        cluster: dict[str, Any],
        informer: Any,
        providers: list[str],
        slice_informers: Mapping[str, Any],
        key: ObjectKey,
    ) -> None:
        namespace, name = key.namespace, key.name
        wanted = {
            _name(copy): copy
            for provider in providers
            for source in source_slices(slice_informers[provider].list(namespace=namespace), name)
            for copy in [dispatched_slice(source, provider, namespace=namespace, service_name=name)]
        }
        existing = dispatched_copies(informer.list(namespace=namespace), name)
        if not wanted and not existing:
            return
        client = await self.ctx.members.client_for(cluster, pull_through_proxy=True)
        for slice_name, copy in wanted.items():
            if differs(copy, existing.get(slice_name)):
                try:
                    await client.apply(copy, field_manager=FIELD_MANAGER, force=True)
                except NotFound:
                    return  # no such namespace there (yet): the Service's binding brings it
        for slice_name in existing.keys() - wanted.keys():
            await client.delete(multicluster.ENDPOINT_SLICE, slice_name, namespace=namespace)
        log.debug("multiclusterservice.dispatched", cluster=consumer, namespace=namespace, name=name)

    async def _apply_binding(self, service: dict[str, Any], key: ObjectKey) -> bool:
        template = self._hub_services.get(key.name, namespace=key.namespace)
        if template is None:
            return False
        wanted = service_binding(service, template)
        existing = self._bindings.get(names.binding_name("Service", key.name), namespace=key.namespace)
        if not binding_up_to_date(existing, wanted):
            await self.ctx.hub.apply(wanted, field_manager=FIELD_MANAGER, force=True)
            log.info("multiclusterservice.binding_applied", namespace=key.namespace, name=key.name)
        return True

    async def _write_status(self, service: dict[str, Any], applied: bool, dispatched: int) -> None:
        meta = service["metadata"]
        generation = int(meta.get("generation") or 0)
        wanted: list[dict[str, Any]] = [
            {
                "type": SERVICE_APPLIED,
                "status": "True" if applied else "False",
                "reason": "ServiceAppliedSucceed" if applied else "ServiceNotFound",
                "message": "the Service is propagated to providers and consumers"
                if applied
                else "no Service of this name on the hub",
                "observedGeneration": generation,
            },
            {
                "type": ENDPOINT_SLICE_DISPATCHED,
                "status": "True",
                "reason": "EndpointSliceDispatchedSucceed",
                "message": f"{dispatched} provider-to-consumer copies kept",
                "observedGeneration": generation,
            },
        ]
        existing = (service.get("status") or {}).get("conditions")
        if same_conditions(wanted, existing):
            return
        await self.ctx.hub.apply_status(
            {
                "apiVersion": constants.MULTI_CLUSTER_SERVICE.api_version,
                "kind": constants.MULTI_CLUSTER_SERVICE.kind,
                "metadata": {"name": meta["name"], "namespace": meta["namespace"]},
                "status": {"conditions": stamped(wanted, existing, format_time(self.ctx.clock.now()))},
            },
            field_manager=FIELD_MANAGER,
            force=True,
        )
