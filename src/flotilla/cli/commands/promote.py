"""`flotilla promote`: let the hub take over an object that already runs in a member cluster.

As `karmadactl promote`: the object is read from the member (reached with the credentials the hub
stores for it, or `--cluster-kubeconfig`), created on the hub as a resource template
(`propagation/promotion.py`: server fields stripped, `conflict-resolution: overwrite`), and a
PropagationPolicy (ClusterPropagationPolicy for a cluster-scoped object) places it on that member
only, with `conflictResolution: Overwrite` (`propagation/policies.py`). The execution controller then
applies the template over the member object in place: the UID stays, nothing restarts, and the
object is labelled as managed. A namespace missing on the hub is created first.

Nothing is written if the object already exists on the hub, or the policy's name is taken: those
are errors, since the existing template or policy decides the placement. `--dry-run` prints what
would be written; `-o yaml|json` prints the objects themselves, without writing either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.hub.connection import HubTarget, hub_options, run
from flotilla.client import Client

NAMESPACE = GroupVersionKind("", "v1", "Namespace")


@dataclass(frozen=True)
class PromoteRequest:
    """The command line of one promotion."""

    resource: str
    name: str
    cluster: str
    namespace: str | None
    dependencies: bool
    auto_create_policy: bool
    policy_name: str
    cluster_kubeconfig: Path | None
    cluster_context: str | None


@dataclass
class PromotionPlan:
    """What a promotion writes on the hub, in order, and what it prints besides."""

    templates: list[dict[str, Any]] = field(default_factory=list)
    policy: dict[str, Any] | None = None
    namespace: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


@click.command()
@click.argument("resource")
@click.argument("name")
@click.option("-C", "--cluster", required=True, help="The member cluster the object runs in.")
@click.option("-n", "--namespace", default=None, help="Namespace of the object (default: the context's).")
@click.option(
    "-d", "--dependencies", is_flag=True, help="Also promote the ConfigMaps, Secrets… the workload uses."
)
@click.option(
    "--auto-create-policy/--no-auto-create-policy",
    default=True,
    show_default=True,
    help="Create the (Cluster)PropagationPolicy that keeps the object on its cluster.",
)
@click.option("--policy-name", default="", help="Name of that policy (default: karmadactl's generated name).")
@click.option(
    "--cluster-kubeconfig",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help="Reach the member with this kubeconfig instead of the credentials the hub stores.",
)
@click.option("--cluster-context", default=None, help="Context of --cluster-kubeconfig.")
@click.option("--dry-run", is_flag=True, help="Print what would be written, write nothing.")
@click.option(
    "-o",
    "--output",
    type=click.Choice(["yaml", "json"]),
    default=None,
    help="Print the objects, write nothing.",
)
@hub_options
def promote(
    resource: str,
    name: str,
    cluster: str,
    namespace: str | None,
    dependencies: bool,
    auto_create_policy: bool,
    policy_name: str,
    cluster_kubeconfig: Path | None,
    cluster_context: str | None,
    dry_run: bool,
    output: str | None,
    kubeconfig: Path | None,
    context: str | None,
) -> None:
    """Adopt RESOURCE NAME, which already runs in member --cluster, as a template on the hub.

    The member object is taken over in place (same UID, no restart) and stays on that cluster,
    placed there by a generated PropagationPolicy with conflictResolution Overwrite.

    \b
    Examples:
      flotilla promote deployment nginx -n default --cluster member1
      flotilla promote deploy nginx -n default -C member1 --dependencies
      flotilla promote clusterrole viewer -C member1 -o yaml      # print, write nothing
    """
    request = PromoteRequest(
        resource,
        name,
        cluster,
        namespace,
        dependencies,
        auto_create_policy,
        policy_name,
        cluster_kubeconfig,
        cluster_context,
    )
    plan = run(_plan(HubTarget(kubeconfig, context), request, write=not (dry_run or output)))
    for note in plan.notes:
        click.echo(note, err=True)
    if output:
        _print_objects(plan, output)
        return
    suffix = " (dry run)" if dry_run else ""
    _print_lines(plan, cluster, suffix)


def _print_lines(plan: PromotionPlan, cluster: str, suffix: str) -> None:
    from flotilla.cli.output.names import printed_object_name

    if plan.namespace is not None:
        click.echo(f"{printed_object_name(plan.namespace)} created{suffix}")
    for template in plan.templates:
        click.echo(f"{printed_object_name(template)} promoted from cluster {cluster}{suffix}")
    if plan.policy is not None:
        click.echo(f"{printed_object_name(plan.policy)} created{suffix}")


def _print_objects(plan: PromotionPlan, output: str) -> None:
    import json

    import yaml

    objects = [*plan.templates, *([plan.policy] if plan.policy is not None else [])]
    if output == "json":
        for obj in objects:
            click.echo(json.dumps(obj, indent=4))
    else:
        click.echo(yaml.safe_dump_all(objects, sort_keys=False), nl=False)


async def _plan(target: HubTarget, request: PromoteRequest, *, write: bool) -> PromotionPlan:
    import contextlib

    from flotilla.cli.hub.connection import member_client
    from flotilla.client import Client, load_kubeconfig

    async with contextlib.AsyncExitStack() as stack:
        hub = await stack.enter_async_context(target.client())
        if request.cluster_kubeconfig is not None:
            config = load_kubeconfig(request.cluster_kubeconfig, request.cluster_context)
            member = Client(config, timeout=15.0)
        else:
            member = await member_client(hub, request.cluster)
        stack.push_async_callback(member.close)
        promoter = Promoter(hub, member, request)
        plan = await promoter.plan()
        if write:
            await promoter.write(plan)
        return plan


class Promoter:
    """Reads the member and the hub, decides the plan, and writes it (the I/O around `promotion.py`)."""

    def __init__(self, hub: Client, member: Client, request: PromoteRequest) -> None:
        self.hub = hub
        self.member = member
        self.request = request

    async def plan(self) -> PromotionPlan:
        from flotilla.cli.propagation.policies import promotion_policy
        from flotilla.cli.propagation.promotion import promoted_template
        from flotilla.client.discovery import UnknownResourceType

        request = self.request
        try:
            resource = (await self.member.discover()).resource_for(request.resource)
        except UnknownResourceType as exc:
            raise click.ClickException(f"{exc} in cluster {request.cluster}") from exc
        namespace = (
            (request.namespace or self.hub.config.namespace or "default") if resource.namespaced else ""
        )
        found = await self.member.get_or_none(resource.gvk, request.name, namespace=namespace)
        where = f" in namespace {namespace}" if namespace else ""
        if found is None:
            raise click.ClickException(
                f'{resource.group_resource} "{request.name}" not found{where} in cluster {request.cluster}'
            )
        member_object = {"apiVersion": resource.gvk.api_version, "kind": resource.kind, **found}
        await self._check_hub_serves(resource.gvk)
        if await self.hub.get_or_none(resource.gvk, request.name, namespace=namespace) is not None:
            raise click.ClickException(
                f'{resource.group_resource} "{request.name}" already exists on the hub{where}; edit the '
                "PropagationPolicy and OverridePolicies that select it to propagate it instead"
            )
        plan = PromotionPlan()
        if request.auto_create_policy:
            plan.policy = promotion_policy(
                resource.gvk,
                request.name,
                namespace,
                request.cluster,
                policy=request.policy_name,
                dependencies=request.dependencies,
            )
            await self._check_policy_free(plan.policy)
        if namespace and await self.hub.get_or_none(NAMESPACE, namespace) is None:
            plan.namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
        if request.dependencies:
            await self._plan_dependencies(member_object, plan)
        plan.templates.append(promoted_template(member_object))
        return plan

    async def _plan_dependencies(self, member_object: dict[str, Any], plan: PromotionPlan) -> None:
        from flotilla.cli.output.names import printed_name
        from flotilla.cli.propagation.promotion import dependency_references, promoted_template

        for reference in dependency_references(member_object):
            printed = printed_name(reference.gvk.kind, reference.gvk.group, reference.name)
            found = await self.member.get_or_none(
                reference.gvk, reference.name, namespace=reference.namespace
            )
            if found is None:
                plan.notes.append(f"warning: {printed} not found in cluster {self.request.cluster}; skipped")
            elif (
                await self.hub.get_or_none(reference.gvk, reference.name, namespace=reference.namespace)
                is not None
            ):
                plan.notes.append(f"{printed} already exists on the hub; left as it is")
            else:
                dependency = {"apiVersion": reference.gvk.api_version, "kind": reference.gvk.kind, **found}
                plan.templates.append(promoted_template(dependency))

    async def _check_hub_serves(self, gvk: GroupVersionKind) -> None:
        from flotilla.client import NotFound

        try:
            await self.hub.resource(gvk)
        except NotFound as exc:
            raise click.ClickException(
                f"the hub does not serve {gvk.kind} in {gvk.api_version}; install its "
                "CustomResourceDefinition on the hub first"
            ) from exc

    async def _check_policy_free(self, policy: dict[str, Any]) -> None:

        metadata = policy["metadata"]
        namespace = metadata.get("namespace", "")
        if (
            await self.hub.get_or_none(GroupVersionKind.of(policy), metadata["name"], namespace=namespace)
            is not None
        ):
            shown = f"{namespace}/{metadata['name']}" if namespace else metadata["name"]
            raise click.ClickException(
                f"the {policy['kind']} {shown} already exists on the hub; edit it to propagate the "
                "resource, or choose another name with --policy-name"
            )

    async def write(self, plan: PromotionPlan) -> None:
        from flotilla.client import AlreadyExists

        if plan.namespace is not None:
            try:
                await self.hub.create(plan.namespace)
            except AlreadyExists:
                plan.namespace = None
        for template in plan.templates:
            await self.hub.create(template)
        if plan.policy is not None:
            await self.hub.create(plan.policy)
