"""Install (or bring up to date) the Karmada CRDs on a hub, and wait until they are served.

A hub also gets the Multi-Cluster Services API (`multicluster.x-k8s.io`), which Karmada's own
install puts on its control plane, so ServiceExports can be propagated by policy. A member of a
clusterset (the simulated ones) gets the MCS API and ClusterProperty the same way
(`install_member_crds`): a real member has them from whoever installs its MCS implementation.

Runs at hub start, after the embedded API is up and before the listener opens, so the first
client already finds `kubectl get pp` working. Each CRD goes through the in-process write
pipeline like any client's: created when missing, otherwise its spec is replaced by ours — an
update that changes nothing writes nothing, so restarts are free, and an API server losing the
race to create it (several starting at once on one etcd) updates it instead. The CRD controller
then serves each version; we wait until the registry serves exactly the stored schemas.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import structlog

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.housekeeping.federatedquotas import install_federated_quota_admission
from flotilla.apiserver.housekeeping.interpretercustomizations import install_customization_admission
from flotilla.apiserver.localclient import LocalClient
from flotilla.apiserver.registry.karmada import karmada_crds
from flotilla.apiserver.registry.multicluster import member_crds, multicluster_service_crds

log = structlog.get_logger("flotilla.apiserver.registry.karmada")

MANAGER = "flotilla-karmada"
CRD = GroupVersionKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition")
POLL_SECONDS = 0.01


async def install_karmada_crds(ctx: APIContext, *, timeout: float = 30.0) -> None:
    """Create or update every Karmada CRD (and the MCS API's), then wait (up to `timeout` s) until all
    are served; then install the admission that keeps one customization per target and operation,
    and the one that keeps namespaces within their FederatedResourceQuotas."""
    await install_crds(ctx, [*karmada_crds(), *multicluster_service_crds()], timeout=timeout)
    install_federated_quota_admission(ctx)
    install_customization_admission(ctx)


async def install_member_crds(ctx: APIContext, *, timeout: float = 30.0) -> None:
    """Create or update what a clusterset member serves: the MCS API and ClusterProperty."""
    await install_crds(ctx, member_crds(), timeout=timeout)


async def install_crds(ctx: APIContext, crds: list[dict[str, Any]], *, timeout: float = 30.0) -> None:
    """Create or update each of `crds`, then wait (up to `timeout` s) until all are served."""
    client = LocalClient(ctx, MANAGER)
    stored: list[dict[str, Any]] = []
    for crd in crds:
        name = crd["metadata"]["name"]
        if client.peek(CRD, name) is None:
            try:
                stored.append(await client.create(CRD, crd))
                log.info("karmada.crd_created", crd=name)
                continue
            except errors.AlreadyExists:
                pass  # another API server on the same etcd, starting at the same time, created it first

        def replace_spec(current: dict[str, Any], spec: dict[str, Any] = crd["spec"]) -> None:
            current["spec"] = spec

        stored.append(await client.mutate(CRD, name, replace_spec))
    await _wait_served(ctx, stored, timeout)


async def _wait_served(ctx: APIContext, crds: list[dict[str, Any]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    pending = _expected(crds)
    while pending:
        pending = [item for item in pending if not _serves(ctx, *item)]
        if not pending:
            return
        if time.monotonic() > deadline:
            kinds = ", ".join(str(gvk) for gvk, _ in pending)
            raise TimeoutError(f"CRDs not served after {timeout}s: {kinds}")
        await asyncio.sleep(POLL_SECONDS)


def _expected(crds: list[dict[str, Any]]) -> list[tuple[GroupVersionKind, Any]]:
    """(kind, schema) of every served version, as stored (defaults included)."""
    expected = []
    for crd in crds:
        spec = crd["spec"]
        for version in spec["versions"]:
            gvk = GroupVersionKind(spec["group"], version["name"], spec["names"]["kind"])
            expected.append((gvk, (version.get("schema") or {}).get("openAPIV3Schema")))
    return expected


def _serves(ctx: APIContext, gvk: GroupVersionKind, schema: Any) -> bool:
    served = ctx.registry.by_kind(gvk)
    return served is not None and served.custom is not None and served.custom.raw_schema == schema
