"""Joining a member cluster to the hub in Push mode, and removing it: `flotilla join` as a library.

Join reads the member's kubeconfig, checks the member answers, stores its endpoint credentials in a
Secret in `karmada-cluster` on the hub and creates the `Cluster` object (syncMode Push) — Karmada's
`karmadactl join`, without installing anything in the member. Unjoin deletes the Cluster; the
cluster controller then removes what was propagated there (unless kept) and lets the Cluster go.
With `force` an unreachable member does not block: its finalizers are removed after the wait.
`flotilla join` / `unjoin` call these, and so does `flotilla up` for its simulated members.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.client import AlreadyExists, Client, ClientError, load_kubeconfig

CLUSTER_NAMESPACE = "karmada-cluster"
"""Where the members' credentials Secrets live on the hub, as in Karmada."""


def _b64(data: bytes | None) -> str | None:
    return base64.b64encode(data).decode() if data else None


async def join_cluster(
    name: str,
    kubeconfig: Path | None,
    context: str | None,
    member_kubeconfig: Path,
    member_context: str | None,
    provider: str,
    region: str,
    zones: list[str],
    dry_run: bool,
    *,
    hub_endpoints: Sequence[str] = (),
) -> dict[str, Any]:
    """Join member `name` in Push mode: its credentials Secret, then its Cluster (returned as created).

    The member must answer (`/version`, and `kube-system` for the Cluster's `spec.id`). With
    `dry_run` nothing is written and the Cluster that would be created is returned. RuntimeError
    when the member does not answer or the hub already has a Cluster of that name.
    """
    member = load_kubeconfig(member_kubeconfig, member_context)
    async with Client(member, timeout=10) as member_client:
        try:
            await member_client.request("GET", "/version")
            system = await member_client.get(GroupVersionKind("", "v1", "Namespace"), "kube-system")
        except ClientError as exc:
            raise RuntimeError(f"the member cluster at {member.server} does not answer: {exc}") from exc
    cluster: dict[str, Any] = {
        "apiVersion": "cluster.karmada.io/v1alpha1",
        "kind": "Cluster",
        "metadata": {"name": name},
        "spec": {
            "id": (system.get("metadata") or {}).get("uid", ""),
            "syncMode": "Push",
            "apiEndpoint": member.server,
            "secretRef": {"namespace": CLUSTER_NAMESPACE, "name": name},
            "insecureSkipTLSVerification": member.insecure_skip_tls_verify,
        },
    }
    for key, value in (("provider", provider), ("region", region), ("zones", zones)):
        if value:
            cluster["spec"][key] = value
    if dry_run:
        return cluster
    data = {
        key: value
        for key, value in (
            ("caBundle", _b64(member.ca_pem)),
            ("token", _b64(member.token.encode()) if member.token else None),
            ("tls.crt", _b64(member.client_cert_pem)),
            ("tls.key", _b64(member.client_key_pem)),
        )
        if value
    }
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": name, "namespace": CLUSTER_NAMESPACE},
        "type": "Opaque",
        "data": data,
    }
    hub_config = load_kubeconfig(kubeconfig, context).with_endpoints(hub_endpoints)
    async with Client(hub_config, field_manager="flotilla-join") as hub:
        existing = await hub.get_or_none(GroupVersionKind("cluster.karmada.io", "v1alpha1", "Cluster"), name)
        if existing is not None:
            raise RuntimeError(
                f"cluster {name} is already joined (its API endpoint: "
                f"{(existing.get('spec') or {}).get('apiEndpoint')}); unjoin it first"
            )
        with contextlib.suppress(AlreadyExists):
            await hub.create(
                {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": CLUSTER_NAMESPACE}}
            )
        await hub.apply(secret)
        created: dict[str, Any] = await hub.create(cluster)
        return created


async def unjoin_cluster(
    name: str,
    kubeconfig: Path | None,
    context: str | None,
    wait_seconds: float,
    force: bool,
    *,
    hub_endpoints: Sequence[str] = (),
) -> str:
    """Delete Cluster `name`, wait up to `wait_seconds` for its cleanup, then its Secret; what happened.

    With `force`, a Cluster still there after the wait loses its finalizers (the member's objects may
    remain). RuntimeError when the cluster is not joined, or is still being cleaned up without `force`.
    """
    cluster_kind = GroupVersionKind("cluster.karmada.io", "v1alpha1", "Cluster")
    hub_config = load_kubeconfig(kubeconfig, context).with_endpoints(hub_endpoints)
    async with Client(hub_config, field_manager="flotilla-unjoin") as hub:
        if await hub.get_or_none(cluster_kind, name) is None:
            raise RuntimeError(f"cluster {name} is not joined")
        await hub.delete(cluster_kind, name)
        deadline = time.monotonic() + wait_seconds
        while time.monotonic() < deadline:
            if await hub.get_or_none(cluster_kind, name) is None:
                await hub.delete(GroupVersionKind("", "v1", "Secret"), name, namespace=CLUSTER_NAMESPACE)
                return f"cluster({name}) is unjoined successfully"
            await asyncio.sleep(0.5)
        if not force:
            raise RuntimeError(
                f"cluster {name} is still being cleaned up after {wait_seconds:.0f}s "
                "(is the member reachable?); re-run with --force to remove it anyway"
            )
        await hub.patch(cluster_kind, name, {"metadata": {"finalizers": None}})
        await hub.delete(GroupVersionKind("", "v1", "Secret"), name, namespace=CLUSTER_NAMESPACE)
        return f"cluster({name}) is unjoined (forced: the member's resources may remain)"
