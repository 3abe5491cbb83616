"""`flotilla apply`: apply manifests to the hub, and with `--all-clusters` propagate each of them.

The command reads `-f` (files, directories, `-`; `arguments/manifests.py`), applies every object in order with
server-side apply (`propagation/applier.py`) and prints kubectl's line per object. `--all-clusters` or
`--cluster a,b` adds, as `karmadactl apply` does, a generated PropagationPolicy per object
(`propagation/policies.py`). Unreadable sources and failing objects are reported and the rest is applied;
the exit code is 1 if anything failed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from flotilla.cli.hub.connection import HubTarget, hub_options, run

if TYPE_CHECKING:
    from flotilla.cli.arguments.manifests import Manifest
    from flotilla.cli.propagation.applier import ApplySettings

DRY_RUN_MODES = ("none", "server", "client")


@click.command()
@click.option(
    "-f",
    "--filename",
    "filenames",
    multiple=True,
    required=True,
    help="A manifest file, a directory of them, or - for standard input (repeatable).",
)
@click.option("-R", "--recursive", is_flag=True, help="Read the directories of -f recursively.")
@click.option("-n", "--namespace", default=None, help="Namespace of namespaced objects that name none.")
@click.option("--all-clusters", is_flag=True, help="Also propagate every object to all member clusters.")
@click.option(
    "-C",
    "--cluster",
    "clusters",
    multiple=True,
    help="Also propagate every object to these member clusters (comma-separated or repeated).",
)
@click.option(
    "--dry-run",
    type=click.Choice(DRY_RUN_MODES),
    default="none",
    is_flag=False,
    flag_value="client",
    show_default=True,
    help="server: the hub checks everything and stores nothing; client: nothing is written.",
)
@click.option(
    "-o", "--output", type=click.Choice(["name", "yaml", "json"]), default=None, help="Output format."
)
@click.option("--force-conflicts", is_flag=True, help="Take over fields that other field managers own.")
@click.option(
    "--field-manager", default="flotilla", show_default=True, help="The field manager of the apply."
)
@click.option(
    "--validate",
    type=click.Choice(["strict", "warn", "ignore"]),
    default="strict",
    show_default=True,
    help="How the hub treats unknown or duplicate fields.",
)
@hub_options
def apply(
    filenames: tuple[str, ...],
    recursive: bool,
    namespace: str | None,
    all_clusters: bool,
    clusters: tuple[str, ...],
    dry_run: str,
    output: str | None,
    force_conflicts: bool,
    field_manager: str,
    validate: str,
    kubeconfig: Path | None,
    context: str | None,
) -> None:
    """Apply manifests to the hub with server-side apply; optionally propagate them to members.

    Without --all-clusters or --cluster this is `kubectl apply --server-side`: the objects become
    resource templates on the hub, propagated by whatever policies select them. With either, each
    object also gets a PropagationPolicy (a ClusterPropagationPolicy if cluster-scoped) of its own,
    named as karmadactl names it.

    \b
    Examples:
      flotilla apply -f nginx.yaml                    # templates and policies, as written
      flotilla apply -f manifests/ --all-clusters     # and propagate each object everywhere
      flotilla apply -f app.yaml --cluster member1,member2
      cat app.yaml | flotilla apply -f - -n demo --dry-run=server
    """
    from flotilla.cli.arguments.manifests import read_manifests
    from flotilla.cli.propagation.applier import ApplySettings

    cluster_names = [name for value in clusters for name in value.split(",") if name]
    if all_clusters and cluster_names:
        raise click.UsageError("--all-clusters and --cluster cannot be used together")
    read = read_manifests(filenames, recursive, sys.stdin)
    for problem in read.errors:
        click.echo(f"error: {problem}", err=True)
    if not read.manifests:
        if not read.errors:
            click.echo("error: no objects passed to apply", err=True)
        sys.exit(1)
    settings = ApplySettings(
        namespace=namespace or "",
        namespace_enforced=namespace is not None,
        dry_run=dry_run,
        force_conflicts=force_conflicts,
        field_manager=field_manager,
        validation=validate.capitalize(),
        propagate=all_clusters or bool(cluster_names),
        cluster_names=cluster_names or None,
    )
    results, failures = run(_apply(HubTarget(kubeconfig, context), read.manifests, settings, output))
    if output in ("yaml", "json") and results:
        _print_document(results, output)
    if failures or read.errors:
        sys.exit(1)


async def _apply(
    target: HubTarget, manifests: list[Manifest], settings: ApplySettings, output: str | None
) -> tuple[list[dict[str, Any]], int]:
    import dataclasses

    from flotilla.cli.propagation.applier import Applier

    def echo(printed: str, outcome: str) -> None:
        if output is None:
            click.echo(f"{printed} {outcome}")
        elif output == "name":
            click.echo(printed)

    async with target.client(field_manager=settings.field_manager) as hub:
        if not settings.namespace:
            settings = dataclasses.replace(settings, namespace=hub.config.namespace or "default")
        applier = Applier(hub, settings, echo)
        if settings.cluster_names:
            await applier.check_clusters(settings.cluster_names)
        for manifest in manifests:
            await applier.apply_manifest(manifest)
        return applier.results, applier.failures


def _print_document(results: list[dict[str, Any]], output: str) -> None:
    from flotilla.cli.propagation.applier import output_document

    document = output_document(results)
    if output == "json":
        import json

        click.echo(json.dumps(document, indent=4))
    else:
        import yaml

        click.echo(yaml.safe_dump(document, sort_keys=False), nl=False)
