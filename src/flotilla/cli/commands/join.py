"""`flotilla join` / `flotilla unjoin`: register a member cluster in Push mode, or remove it.

Join reads the member's kubeconfig, checks the member answers, stores its endpoint credentials in a
Secret in `karmada-cluster` on the hub and creates the `Cluster` object (syncMode Push) — Karmada's
`karmadactl join`, without installing anything in the member. Unjoin deletes the Cluster; the
cluster controller then removes what was propagated there (unless kept) and lets the Cluster go.
With `--force` an unreachable member does not block: its finalizers are removed after `--wait`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import click

from flotilla.cli.hub.connection import command_hub_endpoints, hub_options


@click.command()
@click.argument("name")
@hub_options
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
    from flotilla.cli.membership.joining import join_cluster

    problems = dns1123_label_errors(name)
    if problems:
        raise click.UsageError(f"cluster name {name!r}: {'; '.join(problems)}")
    zones = [z for z in cluster_zones.split(",") if z]
    try:
        cluster = asyncio.run(
            join_cluster(
                name,
                kubeconfig,
                context,
                cluster_kubeconfig,
                cluster_context,
                cluster_provider,
                cluster_region,
                zones,
                dry_run,
                hub_endpoints=command_hub_endpoints(),
            )
        )
    except Exception as exc:
        raise click.ClickException(str(exc)) from exc
    if dry_run:
        import yaml

        click.echo(yaml.safe_dump(cluster, sort_keys=False))
    else:
        click.echo(f"cluster({name}) is joined successfully")


@click.command()
@click.argument("name")
@hub_options
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
    from flotilla.cli.membership.joining import unjoin_cluster

    try:
        message = asyncio.run(
            unjoin_cluster(
                name, kubeconfig, context, wait_seconds, force, hub_endpoints=command_hub_endpoints()
            )
        )
    except Exception as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(message)
