"""Accepting a Pull cluster's registration on the hub: the mode, and what accepting creates.

A member registers by asking, with a bootstrap token, for its agent's certificate (see
`flotilla.api.karmada.registration`). The hub runs in one of two acceptance modes, chosen with
`flotilla apiserver --cluster-acceptance`:

- `auto` (the default, Karmada's behaviour): the agent approver accepts a valid registration at once;
- `manual` (OCM's double handshake): registrations from bootstrap tokens wait, pending, until an
  operator runs `flotilla accept NAME`, which does over the API what `accept_registration` does here.

Accepting creates, in this order, the namespaces the agent's Roles live in, the Cluster (syncMode
Pull, bound to the registration's requester) unless it is there already — an existing one is bound
to the requester — and the agent's RBAC objects (`agent_rbac_objects`), so that when
the certificate is issued the agent's identity can already do its work. Every step is idempotent:
an interrupted acceptance is finished by the approver's retry.

The mode is the server's setting `APISettings.cluster_acceptance` (`auto` unless the command says).

A hub of a newer release may grant agents more than the one that accepted them (reading the hub's
interpreter customizations, say). `refresh_agent_grants` runs when a hub starts and brings the RBAC
objects of every agent already accepted to what this release grants — only objects that exist, so
it never grants a cluster that was not accepted, and a cluster being deleted is left to the cluster
controller's clean-up.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import structlog

from flotilla.api.karmada.agentrbac import agent_namespaces, agent_rbac_objects
from flotilla.api.karmada.constants import CLUSTER, ClusterSyncMode
from flotilla.api.karmada.registration import (
    REQUESTER_ANNOTATION,
    ClusterAcceptance,
    pull_cluster,
    recorded_requester,
)
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.localclient import LocalClient

log = structlog.get_logger("flotilla.apiserver.certificates")

MANAGER = "cluster-acceptance"


def acceptance_mode(ctx: APIContext) -> ClusterAcceptance:
    """The hub's acceptance mode (auto unless the command set manual)."""
    return ctx.settings.cluster_acceptance


def serves_clusters(ctx: APIContext) -> bool:
    """Whether this server is a hub (serves Karmada's Cluster): only a hub accepts registrations."""
    return ctx.registry.by_kind(CLUSTER) is not None


def existing_cluster(ctx: APIContext, name: str) -> dict[str, Any] | None:
    return LocalClient(ctx, MANAGER).peek(CLUSTER, name)


async def accept_registration(
    ctx: APIContext, name: str, annotations: Mapping[str, Any], requester: str
) -> None:
    """Create what the agent of cluster `name` needs on the hub: namespaces, its Cluster (bound to
    `requester`), its RBAC."""
    client = LocalClient(ctx, MANAGER)
    for namespace in agent_namespaces(name):
        with contextlib.suppress(errors.AlreadyExists):
            await client.create(GroupVersionKind("", "v1", "Namespace"), namespace)
    existing = client.peek(CLUSTER, name)
    if existing is None:
        await client.create(CLUSTER, pull_cluster(name, annotations, requester))
        log.info("certificates.registration.cluster_created", cluster=name, requester=requester)
    elif recorded_requester(existing) != requester:
        await client.mutate(CLUSTER, name, lambda obj: _bind(obj, requester))
        log.info("certificates.registration.cluster_bound", cluster=name, requester=requester)
    for obj in agent_rbac_objects(name):
        await _ensure(client, obj)


async def refresh_agent_grants(ctx: APIContext) -> None:
    """Make the existing RBAC objects of every accepted Pull cluster's agent grant what this
    release's `agent_rbac_objects` grants (a hub upgraded in place updates its agents' rights)."""
    client = LocalClient(ctx, MANAGER)
    for cluster in client.list(CLUSTER):
        metadata = cluster.get("metadata") or {}
        pull = (cluster.get("spec") or {}).get("syncMode") == ClusterSyncMode.PULL
        if not pull or metadata.get("deletionTimestamp"):
            continue
        for obj in agent_rbac_objects(str(metadata.get("name") or "")):
            await _ensure(client, obj, create=False)


def _bind(cluster: dict[str, Any], requester: str) -> None:
    """Record `requester` as the one the cluster's name belongs to."""
    metadata = cluster.setdefault("metadata", {})
    metadata["annotations"] = {**(metadata.get("annotations") or {}), REQUESTER_ANNOTATION: requester}


async def _ensure(client: LocalClient, wanted: dict[str, Any], *, create: bool = True) -> None:
    """Create an RBAC object (unless not `create`), or make an existing one's rules, subjects and
    labels the wanted ones."""
    api_version: str = wanted["apiVersion"]
    group, version = api_version.split("/")
    gvk = GroupVersionKind(group, version, wanted["kind"])
    meta = wanted["metadata"]
    namespace = meta.get("namespace", "")
    current = client.peek(gvk, meta["name"], namespace=namespace)
    if current is None:
        if not create:
            return
        with contextlib.suppress(errors.AlreadyExists):  # created meanwhile: the next pass checks it
            await client.create(gvk, wanted)
        return
    fields = [field for field in ("rules", "subjects") if field in wanted]
    labels = {**((current.get("metadata") or {}).get("labels") or {}), **(meta.get("labels") or {})}
    if all(current.get(field) == wanted[field] for field in fields) and labels == (
        (current.get("metadata") or {}).get("labels") or {}
    ):
        return

    def change(obj: dict[str, Any]) -> None:
        for field in fields:
            obj[field] = wanted[field]
        obj["metadata"]["labels"] = labels

    await client.mutate(gvk, meta["name"], change, namespace=namespace)
