"""Reading a member cluster over its API: the health probe, then version, APIs, nodes and pods.

This is the cluster controller's only member-facing I/O, kept apart from the reconciler so that
what is asked of a member is visible in one place:

- the probe is `GET /readyz`, or `GET /healthz` when the member does not serve `/readyz` (404) —
  the endpoints every kube-apiserver serves without authorization; any answer means reachable, 200
  means healthy, no answer (refused, timed out) means unreachable;
- a Ready member is then read in parallel: `GET /version` for its Kubernetes version, discovery
  for its APIs, and a list of its nodes and of its unfinished pods for the summaries.

Each read that fails is logged and reported as unknown (None) rather than failing the others, so
one slow list does not hide the version or the APIs. Lists are paged, so a large member is read
in bounded responses.
"""

from __future__ import annotations

import asyncio
from typing import Any

import structlog

from flotilla.api.karmada.cluster import APIEnablement, NodeSummary, ResourceSummary
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client, ClientError
from flotilla.controllers.cluster.apienablements import api_enablements
from flotilla.controllers.cluster.health import Probe
from flotilla.controllers.cluster.status import MemberStatus
from flotilla.controllers.cluster.summary import node_summary, resource_summary

log = structlog.get_logger("flotilla.controllers.cluster")

NODE = GroupVersionKind("", "v1", "Node")
POD = GroupVersionKind("", "v1", "Pod")
PAGE_SIZE = 500
UNFINISHED_PODS = "status.phase!=Succeeded,status.phase!=Failed"


async def probe_health(member: Client) -> Probe:
    """What the member's health endpoint says: healthy, unhealthy, or no answer at all."""
    try:
        code, _ = await member.text("/readyz")
        if code == 404:
            code, _ = await member.text("/healthz")
    except ClientError:
        return "unreachable"
    return "healthy" if code == 200 else "unhealthy"


async def read_member(cluster: str, member: Client) -> MemberStatus:
    """Version, APIs and summaries of a Ready member; the parts that could not be read are None."""
    async with asyncio.TaskGroup() as group:
        version = group.create_task(_kubernetes_version(cluster, member))
        enablements = group.create_task(_api_enablements(cluster, member))
        summaries = group.create_task(_summaries(cluster, member))
    nodes, resources = summaries.result() or (None, None)
    return MemberStatus(
        kubernetes_version=version.result(),
        api_enablements=enablements.result(),
        node_summary=nodes,
        resource_summary=resources,
    )


async def _kubernetes_version(cluster: str, member: Client) -> str | None:
    try:
        answer = await member.request("GET", "/version")
    except ClientError as exc:
        log.warning("cluster.collect_failed", cluster=cluster, part="version", error=str(exc))
        return None
    version = answer.get("gitVersion") if isinstance(answer, dict) else None
    return str(version) if version else None


async def _api_enablements(cluster: str, member: Client) -> list[APIEnablement] | None:
    try:
        mapper = await member.discover(force=True)
    except ClientError as exc:
        log.warning("cluster.collect_failed", cluster=cluster, part="apiEnablements", error=str(exc))
        return None
    return api_enablements(mapper.kinds())


async def _summaries(cluster: str, member: Client) -> tuple[NodeSummary, ResourceSummary] | None:
    try:
        nodes: list[dict[str, Any]]
        pods: list[dict[str, Any]]
        nodes, _ = await member.list(NODE, limit=PAGE_SIZE)
        pods, _ = await member.list(POD, field_selector=UNFINISHED_PODS, limit=PAGE_SIZE)
    except ClientError as exc:
        log.warning("cluster.collect_failed", cluster=cluster, part="summaries", error=str(exc))
        return None
    return node_summary(nodes), resource_summary(nodes, pods)
