"""One workload's page: the chain template → ResourceBinding → Works → member objects → pods.

Everything is read as the signed-in user. The hub gives the binding, the template, the Works (found
by the binding's permanent-id label) and the template's Events; each Work's `manifestStatuses`
give the member object's status without member access. The member's own object and its pods are
read through the hub's cluster proxy, where the member's RBAC decides for that user (as Karmada's
proxy does); a member that refuses or does not answer is shown with its error, the rest still
renders. Secret values are never rendered.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web

from flotilla.api.karmada import constants
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import APIStatusError, Client
from flotilla.dashboard import timeline, workloads
from flotilla.dashboard.state import user_client
from flotilla.runtime.members import proxied_config

EVENT = GroupVersionKind("", "v1", "Event")
POD = GroupVersionKind("", "v1", "Pod")
MAX_PODS = 100


async def workload_detail(request: web.Request) -> web.Response:
    """The chain of one workload: template → binding → Works → member objects → pods, and its events."""
    namespace = request.match_info["namespace"]
    name = request.match_info["binding"]
    client = user_client(request)
    binding = await client.get(constants.RESOURCE_BINDING, name, namespace=namespace)
    resource = (binding.get("spec") or {}).get("resource") or {}
    template_gvk = _gvk_of(resource)
    template = await _read_or_note(client, template_gvk, str(resource.get("name", "")), namespace)
    permanent_id = ((binding.get("metadata") or {}).get("labels") or {}).get(
        constants.RESOURCE_BINDING_PERMANENT_ID_LABEL, ""
    )
    works: list[dict[str, Any]] = []
    if permanent_id:
        selector = f"{constants.RESOURCE_BINDING_PERMANENT_ID_LABEL}={permanent_id}"
        works, _ = await client.list(constants.WORK, label_selector=selector)
    members = await asyncio.gather(
        *(
            _member_view(client, target.get("name", ""), template_gvk, resource, works)
            for target in (binding.get("spec") or {}).get("clusters") or []
        )
    )
    hub_events, _ = await client.list(
        EVENT, namespace=namespace, field_selector=f"involvedObject.name={resource.get('name', '')}"
    )
    return web.json_response(
        {
            "workload": workloads.workload_row(binding),
            "template": _redacted(template),
            "binding": {
                "name": name,
                "namespace": namespace,
                "conditions": (binding.get("status") or {}).get("conditions") or [],
                "clusters": (binding.get("spec") or {}).get("clusters") or [],
                "gracefulEvictionTasks": (binding.get("spec") or {}).get("gracefulEvictionTasks") or [],
                "aggregatedStatus": (binding.get("status") or {}).get("aggregatedStatus") or [],
            },
            "works": [
                {
                    "name": (work.get("metadata") or {}).get("name"),
                    "namespace": (work.get("metadata") or {}).get("namespace"),
                    "conditions": (work.get("status") or {}).get("conditions") or [],
                }
                for work in works
            ],
            "members": members,
            "events": [timeline.event_entry(event) for event in hub_events][-100:],
        }
    )


def _gvk_of(resource: dict[str, Any]) -> GroupVersionKind:
    api_version = str(resource.get("apiVersion", "v1"))
    group, _, version = api_version.rpartition("/")
    return GroupVersionKind(group, version, str(resource.get("kind", "")))


async def _read_or_note(client: Client, gvk: GroupVersionKind, name: str, namespace: str) -> dict[str, Any]:
    try:
        return await client.get(gvk, name, namespace=namespace)
    except APIStatusError as error:
        return {"error": error.message}


def _redacted(obj: dict[str, Any]) -> dict[str, Any]:
    """Never render a Secret's values (the keys stay, so the user sees what it holds)."""
    if obj.get("kind") == "Secret":
        return {
            **obj,
            "data": dict.fromkeys(obj.get("data") or {}, "(hidden)"),
            "stringData": dict.fromkeys(obj.get("stringData") or {}, "(hidden)"),
        }
    return obj


def _reported_status(
    works: list[dict[str, Any]], cluster: str, resource: dict[str, Any]
) -> dict[str, Any] | None:
    """The member object's status as its Work reports it to the hub (no member access needed)."""
    namespace = constants.EXECUTION_NAMESPACE_PREFIX + cluster
    for work in works:
        if (work.get("metadata") or {}).get("namespace") != namespace:
            continue
        for item in (work.get("status") or {}).get("manifestStatuses") or []:
            identifier = item.get("identifier") or {}
            if identifier.get("kind") == resource.get("kind") and identifier.get("name") == resource.get(
                "name"
            ):
                status = item.get("status") or {}
                return {
                    "kind": identifier.get("kind"),
                    "name": identifier.get("name"),
                    "health": item.get("health", ""),
                    "replicas": status.get("replicas"),
                    "readyReplicas": status.get("readyReplicas"),
                    "availableReplicas": status.get("availableReplicas"),
                }
    return None


async def _member_view(
    hub: Client, cluster: str, gvk: GroupVersionKind, resource: dict[str, Any], works: list[dict[str, Any]]
) -> dict[str, Any]:
    """The member's copy of the template (as its Work reports it) and its pods, read through the hub's
    cluster proxy as the user: the member's RBAC decides, as for `karmadactl get --operation-scope`."""
    view: dict[str, Any] = {
        "cluster": cluster,
        "object": _reported_status(works, cluster, resource),
        "pods": [],
        "error": "",
    }
    async with Client(proxied_config(hub.config, cluster), timeout=5.0) as member:
        try:
            obj = await member.get(
                gvk, str(resource.get("name", "")), namespace=str(resource.get("namespace", ""))
            )
            labels = (((obj.get("spec") or {}).get("selector") or {}).get("matchLabels")) or {}
            pods: list[dict[str, Any]] = []
            if labels:
                selector = ",".join(f"{key}={value}" for key, value in sorted(labels.items()))
                pods, _ = await member.list(
                    POD,
                    namespace=str(resource.get("namespace", "")),
                    label_selector=selector,
                    limit=MAX_PODS,
                )
        except Exception as error:  # an unreachable or refusing member is shown, not raised
            view["error"] = str(error)
            return view
    view["pods"] = [
        {
            "name": (pod.get("metadata") or {}).get("name"),
            "phase": (pod.get("status") or {}).get("phase"),
            "node": (pod.get("spec") or {}).get("nodeName", ""),
        }
        for pod in pods[:MAX_PODS]
    ]
    return view
