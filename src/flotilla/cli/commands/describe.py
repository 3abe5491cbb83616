"""`flotilla describe`: one object in detail, on the hub or a member, like karmadactl describe.

The command resolves the type against the target's discovery (the client's REST mapper), reads
the objects (by name; by name prefix when no object has the exact name, as kubectl does; or every
object of the type), and renders each one (`output/descriptions.py`): the generic kubectl layout,
the Events whose `involvedObject` is the object, and the Karmada sections
(`output/karmadadescriptions.py`) — for a template on the hub, where its ResourceBinding
scheduled it and what each cluster reported; for a Cluster, its status summarised.

`--operation-scope members --cluster NAME` describes the object as that member has it, reached
with the credentials the hub holds for the member (karmadactl's flags; `--cluster` alone implies
the members scope).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from flotilla.api.karmada import constants as karmada
from flotilla.api.karmada import templates
from flotilla.api.karmada.names import binding_name
from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.arguments.resources import ArgumentError, ResourceRequest, parse_arguments, resource_path
from flotilla.cli.hub.connection import HubTarget, hub_options, member_client, run
from flotilla.cli.hub.operationscope import OperationScope
from flotilla.cli.output.descriptions import Description, body, events_section, header
from flotilla.cli.output.karmadadescriptions import (
    CLUSTER_HIDDEN_FIELDS,
    cluster_section,
    propagation_section,
)
from flotilla.cli.output.kubectlerrors import Failure, KubectlError, failure_of
from flotilla.client import APIStatusError, Client, ClientError, NotFound
from flotilla.client.discovery import ResourceInfo, UnknownResourceType
from flotilla.runtime.members import MemberCredentialsError

EVENT = GroupVersionKind("", "v1", "Event")


@dataclass(frozen=True, slots=True)
class DescribeSettings:
    requests: tuple[ResourceRequest, ...]
    namespace: str | None
    all_namespaces: bool = False
    label_selector: str = ""
    cluster: str | None = None
    """A member to describe from; None: the hub."""
    show_events: bool = True


def is_template(resource: ResourceInfo, obj: Mapping[str, Any]) -> bool:
    """Whether the hub's detector treats `obj` as a resource template (so it may have a binding)."""
    typed = {"apiVersion": resource.api_version, "kind": resource.kind, **obj}
    return templates.is_template_kind(resource.group, resource.kind) and templates.is_template(typed)


async def _binding(
    hub: Client, resource: ResourceInfo, obj: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, str]:
    """The template's ResourceBinding (ClusterResourceBinding if cluster-scoped) and its name."""
    metadata = obj.get("metadata") or {}
    name = binding_name(resource.kind, str(metadata.get("name") or ""))
    namespace = str(metadata.get("namespace") or "")
    kind = karmada.RESOURCE_BINDING if resource.namespaced else karmada.CLUSTER_RESOURCE_BINDING
    label = f"{namespace}/{name}" if namespace else name
    try:
        return await hub.get_or_none(kind, name, namespace=namespace), label
    except APIStatusError:  # the hub serves no Karmada API (or hides it): nothing to show
        return None, label


async def _events(client: Client, resource: ResourceInfo, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The events about `obj` (same kind, name, namespace and uid); none if they cannot be read."""
    metadata = obj.get("metadata") or {}
    selectors = {
        "involvedObject.name": metadata.get("name"),
        "involvedObject.namespace": metadata.get("namespace"),
        "involvedObject.kind": resource.kind,
        "involvedObject.uid": metadata.get("uid"),
    }
    field_selector = ",".join(f"{key}={value}" for key, value in selectors.items() if value)
    try:
        events, _ = await client.list(
            EVENT, namespace=str(metadata.get("namespace") or ""), field_selector=field_selector
        )
    except ClientError:
        return []  # kubectl describes the object even when its events cannot be listed
    uid = metadata.get("uid")
    return [
        event for event in events if not uid or (event.get("involvedObject") or {}).get("uid") in (uid, None)
    ]


async def _objects(
    client: Client,
    resource: ResourceInfo,
    request: ResourceRequest,
    settings: DescribeSettings,
    namespace: str,
) -> tuple[list[dict[str, Any]], list[Failure]]:
    """The objects `request` names (exact name, else name prefix), or every object of the type."""
    listing_path = resource_path(resource, namespace)
    query = {"labelSelector": settings.label_selector}
    if not request.names:
        return list((await client.request("GET", listing_path, query=query)).get("items") or []), []
    found: list[dict[str, Any]] = []
    failures: list[Failure] = []
    for name in request.names:
        try:
            found.append(await client.request("GET", resource_path(resource, namespace, name)))
        except NotFound as error:
            everything = (await client.request("GET", listing_path, query=query)).get("items") or []
            prefixed = [
                obj for obj in everything if str((obj.get("metadata") or {}).get("name", "")).startswith(name)
            ]
            if not prefixed:
                failures.append(failure_of(error))
            found.extend(prefixed)
    return found, failures


@dataclass(frozen=True, slots=True)
class Related:
    """What a description shows besides the object: its binding (templates on the hub), its events."""

    binding_label: str | None = None
    """The binding's `namespace/name` for a template on the hub; None: no Propagation section."""
    binding: Mapping[str, Any] | None = None
    events: list[dict[str, Any]] | None = None
    """None: events not shown (`--no-show-events`)."""


def render_description(
    resource: ResourceInfo, obj: Mapping[str, Any], related: Related, now: datetime
) -> str:
    """The description of `obj`: kubectl's generic layout, then the Karmada sections, then Events."""
    typed = {"apiVersion": resource.api_version, "kind": resource.kind, **obj}
    description = Description()
    header(description, typed)
    if resource.group == karmada.CLUSTER.group and resource.kind == karmada.CLUSTER.kind:
        body(description, typed, now, hide=CLUSTER_HIDDEN_FIELDS)
        cluster_section(description, typed, now)
    else:
        body(description, typed, now)
    if related.binding_label is not None:
        propagation_section(description, related.binding, related.binding_label, now)
    if related.events is not None:
        events_section(description, related.events, now)
    return description.render()


async def _description(
    client: Client, resource: ResourceInfo, obj: dict[str, Any], settings: DescribeSettings, now: datetime
) -> str:
    binding_label: str | None = None
    binding = None
    if settings.cluster is None and is_template(resource, obj):
        binding, binding_label = await _binding(client, resource, obj)
    events = await _events(client, resource, obj) if settings.show_events else None
    return render_description(resource, obj, Related(binding_label, binding, events), now)


async def _describe_on(
    client: Client, settings: DescribeSettings, namespace: str
) -> tuple[list[str], list[Failure], bool]:
    """Descriptions of everything asked, the failures, and whether every type was namespaced."""
    now = datetime.now(UTC)
    mapper = await client.discover()
    texts: list[str] = []
    failures: list[Failure] = []
    namespaced = True
    for request in settings.requests:
        try:
            resources = mapper.resources_for(request.type_argument)
        except UnknownResourceType as error:
            failures.append(Failure(str(error)))
            continue
        for resource in resources:
            namespaced = namespaced and resource.namespaced
            try:
                objects, missing = await _objects(client, resource, request, settings, namespace)
            except APIStatusError as error:
                failures.append(failure_of(error))
                continue
            failures.extend(missing)
            texts.extend(
                await asyncio.gather(*(_description(client, resource, obj, settings, now) for obj in objects))
            )
    return texts, failures, namespaced


async def _describe(hub_target: HubTarget, settings: DescribeSettings) -> None:
    hub = hub_target.client()
    member: Client | None = None
    try:
        namespace = "" if settings.all_namespaces else settings.namespace or hub.config.namespace
        if settings.cluster is not None:
            member = await member_client(hub, settings.cluster)
        texts, failures, namespaced = await _describe_on(member or hub, settings, namespace)
    except NotFound as error:
        if member is None and settings.cluster is not None:
            raise KubectlError(Failure(f"cluster {settings.cluster} not found")) from error
        raise KubectlError(failure_of(error)) from error
    except ClientError as error:
        raise KubectlError(failure_of(error)) from error
    except MemberCredentialsError as error:
        raise KubectlError(Failure(str(error))) from error
    finally:
        if member is not None:
            await member.close()
        await hub.close()
    if texts:
        click.echo("\n\n".join(texts), nl=False)
    elif not failures:
        where = f" in {namespace} namespace." if namespaced and namespace else ""
        click.echo(f"No resources found{where}", err=True)
    if failures:
        raise KubectlError(*failures)


@click.command()
@click.argument("arguments", nargs=-1, metavar="(TYPE [NAME_PREFIX...] | TYPE/NAME...)")
@click.option(
    "-n",
    "--namespace",
    default=None,
    help="The namespace to read (default: the kubeconfig context's, else default).",
)
@click.option("-A", "--all-namespaces", is_flag=True, help="Describe matching objects of every namespace.")
@click.option("-l", "--selector", "label_selector", default="", help="Label selector, e.g. -l app=nginx.")
@click.option(
    "-s",
    "--operation-scope",
    type=click.Choice([OperationScope.KARMADA.value, OperationScope.MEMBERS.value]),
    default=None,
    help="Describe on the hub (karmada, the default) or on the member given by --cluster (members).",
)
@click.option(
    "--cluster", default=None, help="The member cluster to describe from (with --operation-scope members)."
)
@click.option(
    "--show-events/--no-show-events", default=True, show_default=True, help="List the object's events."
)
@hub_options
def describe(
    arguments: tuple[str, ...],
    namespace: str | None,
    all_namespaces: bool,
    label_selector: str,
    operation_scope: str | None,
    cluster: str | None,
    show_events: bool,
    kubeconfig: Path | None,
    context: str | None,
) -> None:
    """Show details of resources on the hub or on a member cluster.

    TYPE is a resource name as kubectl takes it (deploy, deployments.apps, clusters, pp). A NAME
    that matches no object exactly describes every object whose name starts with it. On the hub,
    a resource template also shows its Propagation: the binding, the policy, and each target
    cluster's replicas and reported status; a Cluster shows its conditions and resources.

    \b
    Examples:
      flotilla describe deployment nginx -n web
      flotilla describe cluster member1
      flotilla describe pp nginx-propagation
      flotilla describe pods nginx --operation-scope members --cluster member1
    """
    scope = OperationScope(operation_scope) if operation_scope else None
    if scope is OperationScope.MEMBERS and not cluster:
        raise click.UsageError("--operation-scope members needs --cluster NAME: the member to describe from")
    if scope is OperationScope.KARMADA and cluster:
        raise click.UsageError("--cluster only applies with --operation-scope members")
    if not arguments:
        raise click.UsageError(
            "you must specify the type of resource to describe, e.g. `flotilla describe clusters`"
        )
    try:
        requests = parse_arguments(arguments)
    except ArgumentError as error:
        raise KubectlError(Failure(str(error))) from error
    settings = DescribeSettings(
        requests=tuple(requests),
        namespace=namespace,
        all_namespaces=all_namespaces,
        label_selector=label_selector,
        cluster=cluster,
        show_events=show_events,
    )
    run(_describe(HubTarget(kubeconfig, context), settings))
