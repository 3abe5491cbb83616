"""Binding a pod to a node (`pods/binding`): the only way to set `spec.nodeName` once a pod exists.

A pod's spec is otherwise immutable; a Binding sets `spec.nodeName` and the `PodScheduled=True`
condition in one write, and is refused with 409 when the pod is already assigned or being deleted.
Schedulers reach it over HTTP (`http/handlers/binding.py`), simulated ones in process.
"""

from __future__ import annotations

from typing import Any

from flotilla.api.conditions import set_status_condition
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.writes.pipeline import WriteOptions, update_flow

POD = GroupVersionKind("", "v1", "Pod")
_SCHEDULED = {"type": "PodScheduled", "status": "True", "lastProbeTime": None}


async def bind_pod(
    ctx: APIContext, namespace: str, name: str, node: str, options: WriteOptions
) -> CachedObject:
    served = ctx.registry.by_kind(POD)
    assert served is not None
    resource = served.type.group_resource
    stamp = format_time(ctx.clock())

    def compute(current: CachedObject) -> dict[str, Any]:
        if current.metadata.get("deletionTimestamp"):
            raise errors.conflict(
                resource, name, f"pod {name} is being deleted, cannot be assigned to a host"
            )
        assigned = (current.obj.get("spec") or {}).get("nodeName")
        if assigned:
            raise errors.conflict(resource, name, f'pod {name} is already assigned to node "{assigned}"')
        pod = current.copy()
        pod["metadata"].pop("resourceVersion", None)
        pod["spec"]["nodeName"] = node
        status = pod.setdefault("status", {})
        # kube's `podutil.UpdatePodCondition` with {PodScheduled, True}: the condition is replaced.
        status["conditions"] = set_status_condition(status.get("conditions"), _SCHEDULED, stamp)
        return pod

    info = RequestInfo("", "v1", namespace, "pods", name, "binding", "create")
    return await update_flow(ctx, served, info, options, compute, subresource="binding")
