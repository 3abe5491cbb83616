"""Reading a member cluster over its API: the health probe, then version, APIs, nodes and pods.

This is the cluster controller's only member-facing I/O, kept apart from the reconciler so that
what is asked of a member is visible in one place:

- the probe is `GET /readyz`, or `GET /healthz` when the member does not serve `/readyz` (404) —
  the endpoints every kube-apiserver serves without authorization; any answer means reachable, 200
  means healthy, no answer (refused, timed out) means unreachable;
- a Ready member is then read in parallel: `GET /version` for its Kubernetes version, discovery
  for its APIs, and its nodes and unfinished pods for the summaries.

Nodes and pods are not listed on every probe: as Karmada's cluster-status controller does, they
are read from informers on the member (the process's `MemberInformers.cache`, one watch of all
nodes and one of the pods whose phase is neither Succeeded nor Failed), so a member with thousands
of pods is decoded once and then followed by its changes. The first read of a member waits for
those informers' first list (as long as one list could take, `sync_timeout`); if they have not
listed by then, the summaries are unknown this time and the Cluster keeps its previous ones.

Each read that fails is logged and reported as unknown (None) rather than failing the others, so
one slow read does not hide the version or the APIs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import structlog

from flotilla.api.karmada.cluster import APIEnablement, NodeSummary, ResourceSummary
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client, ClientError
from flotilla.controllers.cluster.apienablements import api_enablements
from flotilla.controllers.cluster.health import Probe
from flotilla.controllers.cluster.status import MemberStatus
from flotilla.controllers.cluster.summary import node_summary, resource_summary
from flotilla.runtime.hubcontroller import MemberInformers
from flotilla.runtime.members import MemberCredentialsError

log = structlog.get_logger("flotilla.controllers.cluster")

NODE = GroupVersionKind("", "v1", "Node")
POD = GroupVersionKind("", "v1", "Pod")
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


async def read_member(
    cluster: Mapping[str, Any], member: Client, informers: MemberInformers, *, sync_timeout: float
) -> MemberStatus:
    """Version, APIs and summaries of a Ready member; the parts that could not be read are None."""
    name = str((cluster.get("metadata") or {}).get("name") or "")
    async with asyncio.TaskGroup() as group:
        version = group.create_task(_kubernetes_version(name, member))
        enablements = group.create_task(_api_enablements(name, member))
        summaries = group.create_task(_summaries(cluster, informers, sync_timeout))
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


async def _summaries(
    cluster: Mapping[str, Any], informers: MemberInformers, sync_timeout: float
) -> tuple[NodeSummary, ResourceSummary] | None:
    name = str((cluster.get("metadata") or {}).get("name") or "")
    try:
        nodes = await informers.cache(cluster, NODE)
        pods = await informers.cache(cluster, POD, field_selector=UNFINISHED_PODS)
    except MemberCredentialsError as exc:
        log.warning("cluster.collect_failed", cluster=name, part="summaries", error=str(exc))
        return None
    if not (nodes.synced and pods.synced):
        try:
            async with asyncio.timeout(sync_timeout):
                await asyncio.gather(nodes.wait_synced(), pods.wait_synced())
        except TimeoutError:
            log.warning(
                "cluster.collect_failed",
                cluster=name,
                part="summaries",
                error=f"nodes and pods not listed within {sync_timeout:g}s",
            )
            return None
    listed_nodes = nodes.list()
    return node_summary(listed_nodes), resource_summary(listed_nodes, pods.list())
