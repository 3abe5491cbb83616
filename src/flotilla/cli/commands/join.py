"""`flotilla join` / `flotilla unjoin`: register a member cluster in Push mode, or remove it.

Join reads the member's kubeconfig, checks the member answers, stores its endpoint credentials in a
Secret in `karmada-cluster` on the hub and creates the `Cluster` object (syncMode Push) — Karmada's
`karmadactl join`, without installing anything in the member. Unjoin deletes the Cluster; the
cluster controller then removes what was propagated there (unless kept) and lets the Cluster go.
With `--force` an unreachable member does not block: its finalizers are removed after `--wait`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import time
from pathlib import Path
from typing import Any

import click

CLUSTER_NAMESPACE = "karmada-cluster"


def _b64(data: bytes | None) -> str | None:
    return base64.b64encode(data).decode() if data else None


@click.command()
@click.argument("name")
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="KUBECONFIG",
    help="Kubeconfig of the hub (default: $KUBECONFIG or ~/.kube/config).",
)
@click.option("--context", default=None, help="Context of the hub in --kubeconfig.")
@click.option(
    "--cluster-kubeconfig",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    required=True,
    help="Kubeconfig of the member cluster to join.",
)
@click.option("--cluster-context", default=None, help="Context of the member in --cluster-kubeconfig.")
@click.option(
    "--cluster-provider", default="", help="Provider recorded on the Cluster (placement by fieldSelector)."
)
@click.option("--cluster-region", default="", help="Region recorded on the Cluster.")
@click.option("--cluster-zones", default="", help="Comma-separated zones recorded on the Cluster.")
@click.option(
    "--dry-run", is_flag=True, help="Check the member and print the Cluster without creating anything."
)
def join(
    name: str,
    kubeconfig: Path | None,
    context: str | None,
    cluster_kubeconfig: Path,
    cluster_context: str | None,
    cluster_provider: str,
    cluster_region: str,
    cluster_zones: str,
    dry_run: bool,
) -> None:
    """Register a member cluster with the hub in Push mode.

    \b
    Example:
      flotilla join member1 --kubeconfig .flotilla/hub.kubeconfig \\
          --cluster-kubeconfig .flotilla/members/member1.kubeconfig --cluster-region region-a
    """
    from flotilla.api.names import dns1123_label_errors

    problems = dns1123_label_errors(name)
    if problems:
        raise click.UsageError(f"cluster name {name!r}: {'; '.join(problems)}")
    zones = [z for z in cluster_zones.split(",") if z]
    try:
        cluster = asyncio.run(
            _join(
                name,
                kubeconfig,
                context,
                cluster_kubeconfig,
                cluster_context,
                cluster_provider,
                cluster_region,
                zones,
                dry_run,
            )
        )
    except Exception as exc:
        raise click.ClickException(str(exc)) from exc
    if dry_run:
        import yaml

        click.echo(yaml.safe_dump(cluster, sort_keys=False))
    else:
        click.echo(f"cluster({name}) is joined successfully")


async def _join(
    name: str,
    kubeconfig: Path | None,
    context: str | None,
    member_kubeconfig: Path,
    member_context: str | None,
    provider: str,
    region: str,
    zones: list[str],
    dry_run: bool,
) -> dict[str, Any]:
    from flotilla.api.scheme import GroupVersionKind
    from flotilla.client import AlreadyExists, Client, ClientError, load_kubeconfig

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
    async with Client(load_kubeconfig(kubeconfig, context), field_manager="flotilla-join") as hub:
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


@click.command()
@click.argument("name")
@click.option(
    "--kubeconfig",
    type=click.Path(dir_okay=False, path_type=Path),
    envvar="KUBECONFIG",
    help="Kubeconfig of the hub.",
)
@click.option("--context", default=None)
@click.option(
    "--wait",
    "wait_seconds",
    type=float,
    default=60.0,
    show_default=True,
    help="Seconds to wait for the member's resources to be cleaned up.",
)
@click.option(
    "--force",
    is_flag=True,
    help="If cleanup does not finish in --wait (e.g. the member is unreachable), remove the Cluster anyway.",
)
def unjoin(name: str, kubeconfig: Path | None, context: str | None, wait_seconds: float, force: bool) -> None:
    """Remove a member cluster from the hub (and what Flotilla propagated to it).

    \b
    Example:
      flotilla unjoin member1 --kubeconfig .flotilla/hub.kubeconfig --force
    """
    try:
        message = asyncio.run(_unjoin(name, kubeconfig, context, wait_seconds, force))
    except Exception as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(message)


async def _unjoin(
    name: str, kubeconfig: Path | None, context: str | None, wait_seconds: float, force: bool
) -> str:
    from flotilla.api.scheme import GroupVersionKind
    from flotilla.client import Client, load_kubeconfig

    cluster_kind = GroupVersionKind("cluster.karmada.io", "v1alpha1", "Cluster")
    async with Client(load_kubeconfig(kubeconfig, context), field_manager="flotilla-unjoin") as hub:
        if await hub.get_or_none(cluster_kind, name) is None:
            raise RuntimeError(f"cluster {name} is not joined")
        await hub.delete(cluster_kind, name)
        deadline = time.monotonic() + wait_seconds
        while time.monotonic() < deadline:
            if await hub.get_or_none(cluster_kind, name) is None:
                await hub.delete(GroupVersionKind("", "v1", "Secret"), name, CLUSTER_NAMESPACE)
                return f"cluster({name}) is unjoined successfully"
            await asyncio.sleep(0.5)
        if not force:
            raise RuntimeError(
                f"cluster {name} is still being cleaned up after {wait_seconds:.0f}s "
                "(is the member reachable?); re-run with --force to remove it anyway"
            )
        await hub.patch(cluster_kind, name, {"metadata": {"finalizers": None}})
        await hub.delete(GroupVersionKind("", "v1", "Secret"), name, CLUSTER_NAMESPACE)
        return f"cluster({name}) is unjoined (forced: the member's resources may remain)"
