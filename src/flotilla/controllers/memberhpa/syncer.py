"""The deploymentReplicasSyncer controller: a marked Deployment's template says what its members run.

The queue key is a Deployment's `ObjectKey` on the hub. Its events enqueue it when it is marked
`retain-replicas` and its mark, `spec.replicas` or `status.replicas` changed; its
ResourceBinding's events enqueue it when the binding's spec, generation or aggregated status
changed (a member's HPA scaled its copy; the scheduler caught up). A reconcile reads both from the
informers and asks `replicasum.decide`; on `Sync(total)` it writes `spec.replicas = total` to the
template with a JSON merge patch carrying the template's resourceVersion (field manager
`flotilla-deployment-replicas-syncer`), so a template changed since it was read is read again
(409: retried with backoff). Karmada updates the whole Deployment; only the one field is written
here. A decision that waits is taken again at the next event of either object, so nothing polls.

The detector then gives the binding the new total and the scheduler divides it again; the Works
change, but each member keeps its own replicas (the retain step), so nothing moves in the members.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import structlog

from flotilla.api.karmada import constants, names
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import metadata_of, spec_of
from flotilla.client import NotFound
from flotilla.client.client import MERGE_PATCH
from flotilla.controllers.memberhpa.marker import DEPLOYMENT
from flotilla.controllers.memberhpa.replicasum import Sync, Wait, decide
from flotilla.controllers.memberhpa.targets import is_marked
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.memberhpa")

FIELD_MANAGER = "flotilla-deployment-replicas-syncer"

Object = dict[str, Any]


def _replicas(obj: Mapping[str, Any]) -> tuple[Any, Any]:
    return spec_of(obj).get("replicas"), (obj.get("status") or {}).get("replicas")


class ReplicasSyncerController(HubController):
    """Karmada's `deployment-replicas-syncer`, enabled as `deploymentReplicasSyncer` (on by default here)."""

    NAME: ClassVar[str] = "deploymentReplicasSyncer"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._deployments = ctx.informers.get(DEPLOYMENT)
        self._bindings = ctx.informers.get(constants.RESOURCE_BINDING)

    def setup(self) -> None:
        self._deployments.add_handler(self._on_deployment)
        self._bindings.add_handler(self._on_binding)

    def _on_deployment(self, event: str, new: Object | None, old: Object | None) -> None:
        if new is None or not is_marked(new):
            return
        if old is not None and is_marked(old) and _replicas(old) == _replicas(new):
            return
        self.enqueue(ObjectKey.of(new))

    def _on_binding(self, event: str, new: Object | None, old: Object | None) -> None:
        if new is None:
            return
        resource = spec_of(new).get("resource")
        if not isinstance(resource, Mapping) or (resource.get("apiVersion"), resource.get("kind")) != (
            DEPLOYMENT.api_version,
            DEPLOYMENT.kind,
        ):
            return
        if old is not None and not _binding_moved(old, new):
            return
        key = ObjectKey(str(metadata_of(new).get("namespace") or ""), str(resource.get("name") or ""))
        template = self._deployments.get(key.name, namespace=key.namespace)
        if template is not None and is_marked(template):
            self.enqueue(key)

    # -- reconcile ----------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> float | None:
        template = self._deployments.get(key.name, namespace=key.namespace)
        if template is None:
            return None
        binding_name = names.binding_name(DEPLOYMENT.kind, key.name)
        binding = self._bindings.get(binding_name, namespace=key.namespace)
        decision = decide(template, binding)
        if isinstance(decision, Wait):
            log.debug(
                "memberhpa.sync_waiting",
                controller=self.NAME,
                namespace=key.namespace,
                name=key.name,
                waiting_for=decision.reason,
            )
        if not isinstance(decision, Sync):
            return None
        metadata = metadata_of(template)
        patch = {
            "metadata": {"resourceVersion": metadata.get("resourceVersion")},
            "spec": {"replicas": decision.replicas},
        }
        try:
            await self.ctx.hub.patch(
                DEPLOYMENT,
                key.name,
                patch,
                namespace=key.namespace,
                patch_type=MERGE_PATCH,
                field_manager=FIELD_MANAGER,
            )
        except NotFound:
            return None
        log.info(
            "memberhpa.replicas_synced",
            controller=self.NAME,
            namespace=key.namespace,
            name=key.name,
            old_replicas=spec_of(template).get("replicas"),
            new_replicas=decision.replicas,
        )
        return None


def _binding_moved(old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
    """A binding change the decision reads: its spec, generation, or status (aggregated, scheduler's)."""
    return (
        old.get("spec") != new.get("spec")
        or old.get("status") != new.get("status")
        or metadata_of(old).get("generation") != metadata_of(new).get("generation")
    )
