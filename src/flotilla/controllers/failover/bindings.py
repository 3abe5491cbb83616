"""What both failover controllers do with a binding: name it in a queue, write its spec, tell about it.

A queue key is a `BindingKey` (kind, namespace, name): ResourceBindings and ClusterResourceBindings
share one queue per controller. Writes are merge patches of `spec` fields carrying the
resourceVersion they were computed from, so a decision made on a stale copy is refused (409) rather
than written over the scheduler's or a person's change. Events go on the binding and on the resource
template it stands for (named by `spec.resource`, so the template need not be read), as Karmada
reports evictions on both.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.client.client import MERGE_PATCH
from flotilla.client.interfaces import Writer
from flotilla.runtime.events import object_event, record_event

Object = Mapping[str, Any]

GVKS: Mapping[str, GroupVersionKind] = {
    constants.RESOURCE_BINDING.kind: constants.RESOURCE_BINDING,
    constants.CLUSTER_RESOURCE_BINDING.kind: constants.CLUSTER_RESOURCE_BINDING,
}


@dataclass(frozen=True, slots=True, order=True)
class BindingKey:
    kind: str
    """`ResourceBinding` or `ClusterResourceBinding`."""
    namespace: str
    name: str

    @classmethod
    def of(cls, kind: str, binding: Object) -> BindingKey:
        metadata = binding.get("metadata") or {}
        return cls(kind, str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))

    @property
    def gvk(self) -> GroupVersionKind:
        return GVKS[self.kind]

    def __str__(self) -> str:
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}"


def deleting(obj: Object) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp"))


def target_names(binding: Object) -> list[str]:
    """The clusters of `spec.clusters`."""
    return [str(t.get("name") or "") for t in (binding.get("spec") or {}).get("clusters") or []]


def template_of(binding: Object) -> dict[str, Any]:
    """The resource template as an Event's `involvedObject` needs it, from `spec.resource`."""
    resource = (binding.get("spec") or {}).get("resource") or {}
    metadata = {key: resource.get(key) for key in ("name", "namespace", "uid") if resource.get(key)}
    return {"apiVersion": resource.get("apiVersion"), "kind": resource.get("kind"), "metadata": metadata}


async def patch_spec(
    hub: Writer,
    key: BindingKey,
    binding: Object,
    spec: Mapping[str, Any],
    *,
    field_manager: str,
    annotations: Mapping[str, str | None] | None = None,
) -> dict[str, Any]:
    """Merge `spec` (and `annotations`, None removing one) into the binding, refused with 409 if it
    changed since `binding` was read."""
    metadata: dict[str, Any] = {"resourceVersion": (binding.get("metadata") or {}).get("resourceVersion")}
    if annotations:
        metadata["annotations"] = dict(annotations)
    return await hub.patch(
        key.gvk,
        key.name,
        {"metadata": metadata, "spec": dict(spec)},
        namespace=key.namespace,
        patch_type=MERGE_PATCH,
        field_manager=field_manager,
    )


async def tell(
    hub: Writer,
    binding: Object,
    event_type: str,
    reason: str,
    message: str,
    *,
    now: str,
    component: str,
    controller: str,
    field_manager: str,
) -> None:
    """The same Event on the binding and on its template (best effort, as every Event)."""
    await asyncio.gather(
        *(
            record_event(
                hub,
                object_event(regarding, event_type, reason, message, component=component, now=now),
                controller=controller,
                field_manager=field_manager,
            )
            for regarding in (binding, template_of(binding))
        )
    )
