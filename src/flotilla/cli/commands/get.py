"""`flotilla get`: list or fetch resources on the hub and its member clusters, like karmadactl get.

The command resolves each type argument against every target cluster's own discovery (the
client's REST mapper), asks each target for what the user wants — a server-side `Table` for human
output, whole objects for `-o name|yaml|json` — and prints it as kubectl and karmadactl do
(`output/printers.py`). Targets are read concurrently; one that fails (an unreachable member, a name
that does not exist there) is reported on stderr in kubectl's words (`output/kubectlerrors.py`) while
the others are still printed, and the exit code is then 1.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from flotilla.api.scheme import GroupResource
from flotilla.cli.arguments.resources import ArgumentError, ResourceRequest, parse_arguments, resource_path
from flotilla.cli.hub.connection import HubTarget, gather_by_cluster, hub_options, run
from flotilla.cli.hub.operationscope import OperationScope, Target, open_targets, split_cluster_names
from flotilla.cli.output.kubectlerrors import Failure, KubectlError, failure_of
from flotilla.cli.output.printers import (
    TABLE_ACCEPT,
    ClusterTable,
    TableOptions,
    as_list,
    dump_json,
    dump_yaml,
    from_cluster,
    object_name,
    parse_table,
    render_tables,
    with_type,
    without_managed_fields,
)
from flotilla.client import APIStatusError, Client, ClientError
from flotilla.client.client import JSON
from flotilla.client.discovery import ResourceInfo, UnknownResourceType

CHUNK_SIZE = 500
"""Objects per list request, as kubectl's `--chunk-size` default."""
HUMAN_OUTPUTS = ("", "wide")


@dataclass(frozen=True, slots=True)
class GetSettings:
    requests: tuple[ResourceRequest, ...]
    namespace: str | None
    """None: the namespace of the kubeconfig context."""
    all_namespaces: bool = False
    label_selector: str = ""
    field_selector: str = ""
    output: str = ""
    scope: OperationScope = OperationScope.KARMADA
    clusters: tuple[str, ...] = ()
    no_headers: bool = False
    ignore_not_found: bool = False
    show_managed_fields: bool = False

    @property
    def human(self) -> bool:
        return self.output in HUMAN_OUTPUTS

    @property
    def single_item_implied(self) -> bool:
        """One type and one name: kubectl then prints the object itself rather than a List."""
        return len(self.requests) == 1 and len(self.requests[0].names) == 1


@dataclass(slots=True)
class Found:
    """What one target answered for one resource."""

    resource: ResourceInfo
    table: ClusterTable | None = None
    objects: list[dict[str, Any]] = field(default_factory=list)


@dataclass(slots=True)
class Fetched:
    """Everything one target answered, and what failed there."""

    cluster: str
    is_hub: bool
    found: list[Found] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)


# --- reading --------------------------------------------------------------------------------------


async def _pages(
    client: Client, path: str, settings: GetSettings, accept: str
) -> AsyncIterator[dict[str, Any]]:
    """Every page of a list, in chunks as kubectl reads them, following `continue` tokens."""
    token = ""
    while True:
        query = {
            "labelSelector": settings.label_selector,
            "fieldSelector": settings.field_selector,
            "limit": CHUNK_SIZE,
            "continue": token,
        }
        page: dict[str, Any] = await client.request("GET", path, query=query, accept=accept)
        yield page
        token = str((page.get("metadata") or {}).get("continue") or "")
        if not token:
            return


def _merged(cluster: str, tables: list[ClusterTable]) -> ClusterTable:
    """Several Tables of one resource (pages, or one per name) as one, with the first one's columns."""
    columns = next((table.columns for table in tables if table.columns), ())
    return ClusterTable(cluster, columns, tuple(row for table in tables for row in table.rows))


async def _read_resource(
    client: Client,
    cluster: str,
    resource: ResourceInfo,
    request: ResourceRequest,
    settings: GetSettings,
    namespace: str,
) -> tuple[Found, list[Failure]]:
    """One resource of one cluster: its Table (human output) or its objects, and the names not found."""
    found = Found(resource)
    failures: list[Failure] = []
    tables: list[ClusterTable] = []
    accept = TABLE_ACCEPT if settings.human else JSON
    if not request.names:
        async for page in _pages(client, resource_path(resource, namespace), settings, accept):
            if settings.human:
                tables.append(parse_table(cluster, page))
            else:
                found.objects.extend(with_type(resource, item) for item in page.get("items") or [])
    for name in request.names:
        try:
            answer = await client.request("GET", resource_path(resource, namespace, name), accept=accept)
        except APIStatusError as error:
            failures.append(failure_of(error))
            continue
        if settings.human:
            tables.append(parse_table(cluster, answer))
        else:
            found.objects.append(with_type(resource, answer))
    if settings.human:
        found.table = _merged(cluster, tables)
    return found, failures


async def _fetch(target: Target, settings: GetSettings, namespace: str) -> Fetched:
    """Everything `settings` asks of one target; failures are recorded, not raised."""
    fetched = Fetched(target.cluster, target.is_hub)
    if target.client is None:
        fetched.failures.append(target.failure or Failure("no client"))
        return fetched
    try:
        mapper = await target.client.discover()
        for request in settings.requests:
            try:
                resources = mapper.resources_for(request.type_argument)
            except UnknownResourceType as error:
                fetched.failures.append(Failure(str(error)))
                continue
            for resource in resources:
                scope_namespace = "" if settings.all_namespaces else namespace
                try:
                    found, failures = await _read_resource(
                        target.client, target.cluster, resource, request, settings, scope_namespace
                    )
                except APIStatusError as error:
                    fetched.failures.append(failure_of(error))
                    continue
                fetched.found.append(found)
                fetched.failures.extend(failures)
    except ClientError as error:
        fetched.failures.append(failure_of(error))
    return fetched


# --- printing -------------------------------------------------------------------------------------


def _sections(fetched: list[Fetched]) -> list[tuple[ResourceInfo, list[ClusterTable]]]:
    """One section per resource, in the order first seen (the hub first), every cluster's table in it."""
    sections: dict[GroupResource, tuple[ResourceInfo, list[ClusterTable]]] = {}
    for answer in fetched:
        for found in answer.found:
            if found.table is None:
                continue
            sections.setdefault(found.resource.group_resource, (found.resource, []))[1].append(found.table)
    return list(sections.values())


def human_output(fetched: list[Fetched], settings: GetSettings) -> str:
    """The tables of every target, as kubectl (one target: the hub) or karmadactl (across clusters)."""
    sections = _sections(fetched)
    options = TableOptions(
        wide=settings.output == "wide",
        all_namespaces=settings.all_namespaces,
        # kubectl prefixes names with their kind as soon as several resources answered, even empty.
        with_kind=len(sections) > 1,
        no_headers=settings.no_headers,
        across_clusters=settings.scope.includes_members,
    )
    return render_tables(sections, options)


def object_output(fetched: list[Fetched], settings: GetSettings, targets: int) -> str:
    """`-o name|yaml|json`: names, the one object asked for, or a v1 List of every object."""
    items: list[dict[str, Any]] = []
    names: list[str] = []
    for answer in fetched:
        for found in answer.found:
            for obj in found.objects:
                names.append(object_name(found.resource, obj))
                shown = obj if settings.show_managed_fields else without_managed_fields(obj)
                items.append(shown if answer.is_hub else from_cluster(shown, answer.cluster))
    if settings.output == "name":
        return "".join(f"{name}\n" for name in names)
    if settings.single_item_implied and targets == 1:
        if not items:
            return ""
        document: dict[str, Any] = items[0]
    else:
        document = as_list(items)
    return dump_json(document) if settings.output == "json" else dump_yaml(document)


def no_resources_message(fetched: list[Fetched], settings: GetSettings, namespace: str) -> str:
    """kubectl's stderr line when nothing was printed, naming the namespace if every type is namespaced."""
    resources = [found.resource for answer in fetched for found in answer.found]
    if not settings.all_namespaces and resources and all(resource.namespaced for resource in resources):
        return f"No resources found in {namespace} namespace."
    return "No resources found"


async def _get(hub_target: HubTarget, settings: GetSettings) -> None:
    hub = hub_target.client()
    try:
        namespace = settings.namespace or hub.config.namespace
        async with open_targets(hub, settings.scope, settings.clusters) as targets:
            if not targets:
                click.echo("No member clusters found", err=True)
                return
            results, errors = await gather_by_cluster(
                {target.cluster: _fetch(target, settings, namespace) for target in targets}
            )
    except ClientError as error:
        raise KubectlError(failure_of(error)) from error
    finally:
        await hub.close()
    fetched: list[Fetched] = []
    failures: list[Failure] = []
    for target in targets:
        cluster = None if target.is_hub else target.cluster
        if target.cluster not in results:
            failures.append(Failure(errors.get(target.cluster, "no answer")).on_cluster(cluster))
            continue
        answer = results[target.cluster]
        fetched.append(answer)
        failures.extend(
            failure.on_cluster(cluster)
            for failure in answer.failures
            if not (settings.ignore_not_found and failure.not_found)
        )
    text = (
        human_output(fetched, settings) if settings.human else object_output(fetched, settings, len(targets))
    )
    if text:
        click.echo(text, nl=False)
    elif settings.human and not failures and not settings.ignore_not_found:
        click.echo(no_resources_message(fetched, settings, namespace), err=True)
    if failures:
        raise KubectlError(*failures)


@click.command()
@click.argument("arguments", nargs=-1, metavar="(TYPE[,TYPE...] [NAME...] | TYPE/NAME...)")
@click.option(
    "-n",
    "--namespace",
    default=None,
    help="The namespace to read (default: the kubeconfig context's, else default).",
)
@click.option("-A", "--all-namespaces", is_flag=True, help="List the objects of every namespace.")
@click.option(
    "-l",
    "--selector",
    "--labels",
    "label_selector",
    default="",
    help="Label selector to filter on, e.g. -l app=nginx,tier!=cache.",
)
@click.option("--field-selector", default="", help="Field selector to filter on, e.g. metadata.name=nginx.")
@click.option(
    "-o",
    "--output",
    type=click.Choice(["wide", "name", "yaml", "json"]),
    default=None,
    help="Output format: wide (more columns), name, yaml or json.",
)
@click.option(
    "-s",
    "--operation-scope",
    type=click.Choice([scope.value for scope in OperationScope]),
    default=OperationScope.KARMADA.value,
    show_default=True,
    help="Read the hub (karmada), the member clusters (members) or both (all).",
)
@click.option(
    "-C",
    "--clusters",
    multiple=True,
    help="Member clusters to read (comma-separated or repeated); default: every member. "
    "Only with --operation-scope members or all.",
)
@click.option("--no-headers", is_flag=True, help="Print tables without their header line.")
@click.option("--ignore-not-found", is_flag=True, help="Do not fail when a named object does not exist.")
@click.option("--show-managed-fields", is_flag=True, help="Keep metadata.managedFields in -o yaml|json.")
@hub_options
def get(
    arguments: tuple[str, ...],
    namespace: str | None,
    all_namespaces: bool,
    label_selector: str,
    field_selector: str,
    output: str | None,
    operation_scope: str,
    clusters: tuple[str, ...],
    no_headers: bool,
    ignore_not_found: bool,
    show_managed_fields: bool,
    kubeconfig: Path | None,
    context: str | None,
) -> None:
    """Display resources of the hub and of its member clusters.

    TYPE is a resource name as kubectl takes it — plural, singular, kind or short name, optionally
    with its group (deployments.apps) — or a category (all). Human output comes from the servers'
    own tables; across clusters a CLUSTER column follows NAME and ADOPTION tells whether a member
    object is managed by Flotilla (Y), not (N), or is the hub's own (-).

    \b
    Examples:
      flotilla get clusters                                  # NAME VERSION MODE READY AGE
      flotilla get clusters -o wide
      flotilla get deployments -n web
      flotilla get deploy nginx --operation-scope all        # the template and its copies in members
      flotilla get pods -A --operation-scope members --clusters member1,member2
      flotilla get pp,rb -o name
      kubectl flotilla get clusters                          # as a kubectl plugin
    """
    scope = OperationScope(operation_scope)
    cluster_names = split_cluster_names(clusters)
    if cluster_names and not scope.includes_members:
        raise click.UsageError("--clusters only applies with --operation-scope members or all")
    if not arguments:
        raise click.UsageError("you must specify the type of resource to get, e.g. `flotilla get clusters`")
    try:
        requests = parse_arguments(arguments)
    except ArgumentError as error:
        raise KubectlError(Failure(str(error))) from error
    if (label_selector or field_selector) and any(request.names for request in requests):
        raise KubectlError(
            Failure("selectors and the all flag cannot be used when passing resource/name arguments")
        )
    settings = GetSettings(
        requests=tuple(requests),
        namespace=namespace,
        all_namespaces=all_namespaces,
        label_selector=label_selector,
        field_selector=field_selector,
        output=output or "",
        scope=scope,
        clusters=tuple(cluster_names),
        no_headers=no_headers,
        ignore_not_found=ignore_not_found,
        show_managed_fields=show_managed_fields,
    )
    run(_get(HubTarget(kubeconfig, context), settings))
