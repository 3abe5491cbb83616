"""`flotilla cordon` / `uncordon` / `taint`: change the taints of member clusters on the hub.

Cordon adds `cluster.karmada.io/unschedulable:NoSchedule` (karmadactl's cordon taint), uncordon
removes it, and `taint clusters NAME… key=value:Effect… [key:Effect-]` edits taints with kubectl
taint's rules (`membership/taints.py`). The scheduler keeps new work off a cluster with a NoSchedule taint its
policies do not tolerate; what already runs there stays.

`spec.taints` is one list shared with the cluster controller (which keeps the not-ready /
unreachable taints) and other users, so every write is a merge patch carrying the
resourceVersion the new list was computed from: if the Cluster changed in between the hub answers
409 Conflict, and the Cluster is read again and the change recomputed, a few times at most.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from flotilla.cli.hub.connection import HubTarget, hub_options, run

if TYPE_CHECKING:
    from flotilla.cli.membership.taints import TaintChanges
    from flotilla.client import Client

ATTEMPTS = 5
"""How many times a change is recomputed when the Cluster keeps changing under it."""

Compute = Callable[[list[dict[str, Any]]], tuple[list[dict[str, Any]] | None, str]]
"""From the Cluster's current taints: the new list (None: nothing to write) and the word to print."""


@click.command()
@click.argument("cluster")
@click.option("--dry-run", is_flag=True, help="Print what would change, change nothing.")
@hub_options
def cordon(cluster: str, dry_run: bool, kubeconfig: Path | None, context: str | None) -> None:
    """Mark CLUSTER unschedulable: new workloads are not scheduled to it.

    Adds the taint cluster.karmada.io/unschedulable:NoSchedule. Workloads already there stay.

    \b
    Examples:
      flotilla cordon member1
      flotilla cordon member1 --dry-run
    """
    _cordon_or_uncordon(HubTarget(kubeconfig, context), cluster, cordon=True, dry_run=dry_run)


@click.command()
@click.argument("cluster")
@click.option("--dry-run", is_flag=True, help="Print what would change, change nothing.")
@hub_options
def uncordon(cluster: str, dry_run: bool, kubeconfig: Path | None, context: str | None) -> None:
    """Mark CLUSTER schedulable again (removes the cordon taint).

    \b
    Examples:
      flotilla uncordon member1
    """
    _cordon_or_uncordon(HubTarget(kubeconfig, context), cluster, cordon=False, dry_run=dry_run)


@click.command()
@click.argument("arguments", nargs=-1, required=True, metavar="clusters NAME... KEY[=VALUE]:EFFECT...")
@click.option(
    "--overwrite", is_flag=True, help="Replace the value of a taint that already exists with the same effect."
)
@click.option("--dry-run", is_flag=True, help="Print what would change, change nothing.")
@hub_options
def taint(
    arguments: tuple[str, ...], overwrite: bool, dry_run: bool, kubeconfig: Path | None, context: str | None
) -> None:
    """Update the taints of one or more clusters.

    A taint is KEY=VALUE:EFFECT (or KEY:EFFECT); EFFECT is NoSchedule, PreferNoSchedule or
    NoExecute. A trailing - removes: KEY:EFFECT- removes that taint, KEY- every taint with KEY.
    A new taint with the key and effect of an existing one needs --overwrite.

    \b
    Examples:
      flotilla taint clusters member1 dedicated=special-user:NoSchedule
      flotilla taint clusters member1 dedicated:NoSchedule-     # remove that taint
      flotilla taint clusters member1 dedicated-                # remove every 'dedicated' taint
      flotilla taint clusters member1 member2 maintenance:NoExecute
    """
    from flotilla.cli.membership.taints import (
        CLUSTER_RESOURCE_NAMES,
        TaintError,
        parse_taint_specs,
        split_taint_arguments,
    )

    try:
        resources, taint_arguments = split_taint_arguments(arguments)
        if not taint_arguments:
            raise click.UsageError("at least one taint update is required")
        changes = parse_taint_specs(taint_arguments)
    except TaintError as exc:
        raise click.ClickException(str(exc)) from exc
    if not resources:
        raise click.UsageError("one or more resources must be specified as <resource> <name>")
    if resources[0].lower() not in CLUSTER_RESOURCE_NAMES:
        raise click.UsageError(
            f'invalid resource type {resources[0]}, only ["cluster" "clusters"] are supported'
        )
    names = resources[1:]
    if not names:
        raise click.UsageError("at least one resource name must be specified")
    failed = run(_taint_clusters(HubTarget(kubeconfig, context), names, changes, overwrite, dry_run))
    if failed:
        raise SystemExit(1)


def _cordon_or_uncordon(target: HubTarget, cluster: str, *, cordon: bool, dry_run: bool) -> None:
    from flotilla.cli.membership.taints import cordon_taints

    verb = "cordoned" if cordon else "uncordoned"

    def compute(taints: list[dict[str, Any]]) -> tuple[list[dict[str, Any]] | None, str]:
        changed = cordon_taints(taints, cordon)
        return changed, (f"already {verb}" if changed is None else verb)

    word = run(_update_taints(target, cluster, compute, dry_run))
    click.echo(f"cluster/{cluster} {word}{_suffix(dry_run, word)}")


async def _taint_clusters(
    target: HubTarget, names: Sequence[str], changes: TaintChanges, overwrite: bool, dry_run: bool
) -> int:
    """Apply `changes` to each cluster in turn; the number that failed (each reported on stderr)."""
    from flotilla.cli.membership.taints import TaintError, existing_keys, reorganize_taints
    from flotilla.client import NotFound

    failed = 0
    async with target.client() as hub:
        for name in names:

            def compute(taints: list[dict[str, Any]], name: str = name) -> tuple[list[dict[str, Any]], str]:
                if not overwrite:
                    keys = existing_keys(taints, changes.add)
                    if keys:
                        raise TaintError(
                            f"cluster {name} already has {','.join(keys)} taint(s) with same effect(s) "
                            "and --overwrite is false"
                        )
                operation, new_taints = reorganize_taints(taints, changes, overwrite)
                return new_taints, operation

            try:
                word = await update_cluster_taints(hub, name, compute, dry_run)
            except TaintError as exc:
                click.echo(f"error: {exc}", err=True)
                failed += 1
                continue
            except NotFound:
                click.echo(
                    f'Error from server (NotFound): clusters.cluster.karmada.io "{name}" not found', err=True
                )
                failed += 1
                continue
            click.echo(f"cluster.cluster.karmada.io/{name} {word}{_suffix(dry_run, word)}")
    return failed


async def _update_taints(target: HubTarget, cluster: str, compute: Compute, dry_run: bool) -> str:
    async with target.client() as hub:
        return await update_cluster_taints(hub, cluster, compute, dry_run)


async def update_cluster_taints(hub: Client, cluster: str, compute: Compute, dry_run: bool) -> str:
    """Read the Cluster, compute its new taints, write them guarded by resourceVersion; retry on Conflict."""
    from flotilla.api.karmada import constants
    from flotilla.client import Conflict

    for _ in range(ATTEMPTS):
        current = await hub.get(constants.CLUSTER, cluster)
        taints = list(_spec(current).get("taints") or [])
        new_taints, word = compute(taints)
        if new_taints is None or dry_run:
            return word
        patch = {
            "metadata": {"resourceVersion": current["metadata"]["resourceVersion"]},
            "spec": {"taints": new_taints or None},
        }
        try:
            await hub.patch(constants.CLUSTER, cluster, patch)
        except Conflict:
            continue
        return word
    raise click.ClickException(f"cluster {cluster} kept changing while its taints were updated; try again")


def _spec(cluster: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = cluster.get("spec")
    return spec if isinstance(spec, Mapping) else {}


def _suffix(dry_run: bool, word: str) -> str:
    return " (dry run)" if dry_run and not word.startswith("already") else ""
