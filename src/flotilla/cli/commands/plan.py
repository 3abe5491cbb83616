"""`flotilla plan -f MANIFESTS`: where workloads would land, and why other clusters would not take them.

The preview changes nothing on the hub. It reads:

- the manifests (`-f` files, directories, `-`, read as `apply` reads them: `arguments/manifests.py`), each
  passed through a server-side dry-run apply so it carries the hub's defaults (a Deployment's
  `replicas: 1`, Karmada's policy defaults) and is validated as the real apply would validate it;
  an object the hub would refuse stops the plan with exit code 1. When the dry run cannot be done
  (a namespace that does not exist yet, a kind the hub does not serve yet, no permission), the
  object is planned as written, with a note;
- the live Clusters (labels, taints, region and zones, API enablements, resource summaries), the
  PropagationPolicies and ClusterPropagationPolicies (the manifests' replacing those of the same
  namespace and name), and each template's current binding, for existing workloads;
- the hub's templates that a policy in the manifests selects, so a policy change shows the
  workloads it would move;
- when a policy groups workloads (`workloadAffinity`), the hub's ResourceBindings, for where each
  group already runs; the manifests' templates are planned in order, each counting for its group
  in its planned place;
- whether each template exists: a dry-run create makes up a uid, which is dropped, since replica
  ties are broken by the uid the template has (an existing one's is used);
- the nodes and unfinished pods of every Push member, through the member's credentials on the
  hub, so workloads are sized as the scheduler's accurate estimator sizes them (its nodes, not
  only its resource summary). A member that cannot be read within a few seconds is sized by its
  summary alone, with a note; Pull members are, as the scheduler sizes them.

Then, per template, `planning.workloads` runs the detector's matching and binding and the
scheduler's preview, and `planning.report` prints the result. Scheduling errors are part of the
plan (exit code 0); unreadable manifests and an unreachable hub are errors (exit code 1).

With `--taint CLUSTER=KEY[=VALUE]:EFFECT` the question becomes what those taints would move: the
same reading, plus every ResourceBinding and ClusterResourceBinding on the hub; the taints are laid
on copies of the Clusters (`planning.taints`), each binding is settled by the taint manager's and
the scheduler's decisions with and without them (`planning.evictions`), and `planning.taintreport`
prints the bindings affected. A bad `--taint` or one on a cluster the hub does not have is an error
(exit code 1). Nothing is written either way.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import click

from flotilla.cli.hub.connection import HubTarget, hub_options, run
from flotilla.cli.planning.report import OUTPUT_FORMATS

if TYPE_CHECKING:
    from datetime import datetime

    from flotilla.api.objectkeys import ObjectKey
    from flotilla.api.scheme import GroupVersionKind
    from flotilla.cli.arguments.manifests import Manifest
    from flotilla.cli.planning.evictions import TaintPlan
    from flotilla.cli.planning.taints import ClusterTaint
    from flotilla.cli.planning.workloads import PolicySet, WorkloadPlan
    from flotilla.client import Client
    from flotilla.controllers.detector.matching import Policy
    from flotilla.scheduler.core.estimation import ReplicaEstimator
    from flotilla.scheduler.core.noderesources import NodeRoom
    from flotilla.scheduler.core.workloadgroups import GroupMember

FIELD_MANAGER = "flotilla-plan"
MEMBER_READ_SECONDS = 5.0
"""How long a member's node and pod lists may take before it is sized by its summary alone."""
SELECTED_ON_HUB = "on the hub, selected by a policy in the manifests"
_SERVER_FIELDS = ("managedFields", "resourceVersion", "uid", "creationTimestamp", "generation")
"""Metadata the server writes; a manifest saved from `kubectl get -o yaml` carries them, an apply must not."""


@click.command()
@click.option(
    "-f",
    "--filename",
    "filenames",
    multiple=True,
    help="Manifests to plan: a file, a directory of .yaml/.yml/.json files, or - for standard input "
    "(optional with --taint).",
)
@click.option(
    "--taint",
    "taint_arguments",
    multiple=True,
    metavar="CLUSTER=KEY[=VALUE]:EFFECT",
    help="What if CLUSTER had this taint (kubectl taint's syntax; EFFECT is NoSchedule, PreferNoSchedule "
    "or NoExecute)? Shows, for every binding on the hub and in the manifests it affects, which clusters "
    "it would be evicted from and when, and the placement after. Repeatable.",
)
@click.option(
    "-o",
    "--output",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "-n",
    "--namespace",
    default=None,
    help="Namespace of manifests that name none (default: the kubeconfig context's, else default).",
)
@click.option(
    "--enable-scheduler-estimator",
    "estimator",
    type=bool,
    default=True,
    is_flag=False,
    flag_value=True,
    show_default=True,
    help="Size Push members by their nodes and pods as well as their resource summaries, as the "
    "scheduler does with the same flag (--enable-scheduler-estimator=false: summaries alone).",
)
@hub_options
def plan(
    filenames: tuple[str, ...],
    taint_arguments: tuple[str, ...],
    output: str,
    namespace: str | None,
    estimator: bool,
    kubeconfig: Path | None,
    context: str | None,
) -> None:
    """Preview where workloads would be placed, without changing anything.

    Reads resource templates and (Cluster)PropagationPolicies from the manifests, matches them
    with the policies and Clusters on the hub, and prints for every workload the policy that
    would claim it, the clusters it would land on with the replica split, and for every cluster
    left out the scheduler plugin and the reason that excluded it, and each cluster's room
    for more replicas with the resource that bounds it. When replicas tie, it says which
    cluster got the tied replica and why (Karmada's rule: the parity of the FNV-1a hash of the
    template's uid). For workloads that already exist, the current placement and the change are
    shown too.

    \b
    Examples:
      # Where would this Deployment and its policy go?
      flotilla plan -f nginx.yaml --kubeconfig .flotilla/hub.kubeconfig
    \b
      # Every manifest of a directory, as JSON
      flotilla plan -f manifests/ -o json
    \b
      # What would a changed policy do to the workloads it selects?
      kubectl get pp nginx -o yaml | sed 's/maxGroups: 2/maxGroups: 1/' | flotilla plan -f -
    \b
      # What would a NoExecute taint on member2 move (now, or after a toleration)?
      flotilla plan --taint member2=maintenance:NoExecute
    \b
      # ... with these manifests applied too, as JSON
      flotilla plan -f nginx.yaml --taint member2=maintenance:NoExecute -o json
    """
    from datetime import UTC, datetime

    from flotilla.cli.arguments.manifests import read_manifests
    from flotilla.cli.planning.report import render
    from flotilla.cli.planning.taintreport import render_taint_plan
    from flotilla.cli.planning.taints import TaintArgumentError, parse_cluster_taints
    from flotilla.cli.planning.workloads import PlanInputError

    if not filenames and not taint_arguments:
        raise click.UsageError("give the manifests to plan with -f/--filename, or a what-if with --taint")
    try:
        taints = parse_cluster_taints(taint_arguments)
    except TaintArgumentError as error:
        raise click.ClickException(str(error)) from error
    read = read_manifests(filenames, recursive=False, stdin=sys.stdin)
    manifests = read.manifests
    problems = [*read.errors, *(_unnamed(manifest) for manifest in manifests if not manifest.name)]
    if problems:
        raise click.ClickException("\n".join(problems))
    target = HubTarget(kubeconfig, context)
    now = datetime.now(UTC)
    try:
        if taints:
            what_if = run(_what_if(target, manifests, namespace, taints, now, estimator=estimator))
            click.echo(render_taint_plan(what_if, output), nl=False)
            return
        plans = run(_plan(target, manifests, namespace, now, estimator=estimator))
    except (PlanInputError, TaintArgumentError) as error:
        raise click.ClickException(str(error)) from error
    click.echo(render(plans, output), nl=False)


def _unnamed(manifest: Manifest) -> str:
    """A plan needs every object's name: it is planned under it, and compared with the hub's."""
    return f'unable to plan "{manifest.source}": a {manifest.kind or "manifest"} has no metadata.name'


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A manifest as the hub would store it (or as written, with a note saying why)."""

    obj: dict[str, Any]
    notes: tuple[str, ...] = ()


async def _plan(
    target: HubTarget, manifests: Sequence[Manifest], namespace: str | None, now: datetime, *, estimator: bool
) -> list[WorkloadPlan]:
    async with target.client(field_manager=FIELD_MANAGER) as hub:
        return (await _plan_on(hub, manifests, namespace, now, estimator=estimator)).plans


@dataclass(frozen=True, slots=True)
class _HubPlan:
    """The manifests' plans, with what they were made from that a what-if needs again."""

    plans: list[WorkloadPlan]
    cluster_objects: list[dict[str, Any]]
    estimators: tuple[ReplicaEstimator, ...]
    unread: tuple[str, ...]
    """A note per member whose nodes could not be read."""


async def _plan_on(
    hub: Client,
    manifests: Sequence[Manifest],
    namespace: str | None,
    now: datetime,
    *,
    estimator: bool,
    taints: Sequence[ClusterTaint] = (),
) -> _HubPlan:
    """The plan of every template of the manifests (and those their policies select on the hub), as
    the scheduler would place them at `now`."""
    from flotilla.api.karmada import constants
    from flotilla.cli.planning.taints import check_clusters
    from flotilla.cli.planning.workloads import is_karmada_object, is_policy, merge_policies, plan_workload
    from flotilla.scheduler.core.inputs import clusters_from_objects

    default_namespace = namespace or hub.config.namespace or "default"
    prepared = _last_of_each([await _prepare(hub, item, default_namespace) for item in manifests])
    cluster_objects, _ = await hub.list(constants.CLUSTER)
    check_clusters(taints, map(_name_of, cluster_objects))
    clusters = clusters_from_objects(sorted(cluster_objects, key=_name_of))
    hub_policies = [
        *(await hub.list(constants.PROPAGATION_POLICY))[0],
        *(await hub.list(constants.CLUSTER_PROPAGATION_POLICY))[0],
    ]
    policies = merge_policies(hub_policies, [item.obj for item in prepared if is_policy(item.obj)])
    templates = [item for item in prepared if not is_policy(item.obj) and not is_karmada_object(item.obj)]
    templates.extend(await _selected_on_hub(hub, policies, [item.obj for item in templates]))
    estimators, unread = await _node_estimators(hub, cluster_objects) if estimator else ((), [])
    members = await _group_members(hub, policies)
    plans = []
    for item in templates:
        binding = await _binding_of(hub, item.obj)
        notes = (*item.notes, *unread) if _is_workload(item.obj) else item.notes
        plan = plan_workload(
            item.obj,
            policies,
            clusters,
            binding,
            notes=notes,
            estimators=estimators,
            now=now,
            peers=list(members.values()),
        )
        plans.append(plan)
        _place_member(members, plan)
    return _HubPlan(plans, cluster_objects, tuple(estimators), tuple(unread))


async def _group_members(hub: Client, policies: PolicySet) -> dict[ObjectKey, GroupMember]:
    """The hub's ResourceBindings in a workload (anti-)affinity group, when a policy groups any."""
    from flotilla.api.karmada import constants
    from flotilla.api.objectkeys import ObjectKey
    from flotilla.scheduler.core.workloadgroups import GroupMember

    every: list[Policy] = [*policies.propagation_policies, *policies.cluster_propagation_policies]
    if not any(policy.spec.placement.workload_affinity is not None for policy in every):
        return {}
    bindings, _ = await hub.list(constants.RESOURCE_BINDING)
    members = {ObjectKey.of(binding): GroupMember.of_binding(binding) for binding in bindings}
    return {key: member for key, member in members.items() if member is not None}


def _place_member(members: dict[ObjectKey, GroupMember], plan: WorkloadPlan) -> None:
    """Count the planned binding where the plan puts it, for the templates planned after it."""
    from flotilla.api.objectkeys import ObjectKey
    from flotilla.cli.planning.workloads import planned_member

    if plan.binding is None:
        return
    key = ObjectKey.of(plan.binding)
    members.pop(key, None)
    member = planned_member(plan)
    if member is not None:
        members[key] = member


async def _what_if(
    target: HubTarget,
    manifests: Sequence[Manifest],
    namespace: str | None,
    taints: Sequence[ClusterTaint],
    now: datetime,
    *,
    estimator: bool,
) -> TaintPlan:
    """What `taints` would move: the manifests' bindings as they would be, and every other on the hub."""
    from flotilla.api.karmada import constants
    from flotilla.cli.planning.evictions import BindingSubject, taint_plan
    from flotilla.cli.planning.taints import tainted_clusters

    async with target.client(field_manager=FIELD_MANAGER) as hub:
        planned = await _plan_on(hub, manifests, namespace, now, estimator=estimator, taints=taints)
        subjects = [BindingSubject(plan.binding, True) for plan in planned.plans if plan.binding is not None]
        covered = {_binding_identity(subject.binding) for subject in subjects}
        for gvk in (constants.RESOURCE_BINDING, constants.CLUSTER_RESOURCE_BINDING):
            bindings, _ = await hub.list(gvk)
            subjects.extend(
                BindingSubject(binding)
                for binding in sorted(bindings, key=_binding_identity)
                if _binding_identity(binding) not in covered
            )
    tainted, laid = tainted_clusters(planned.cluster_objects, taints, now)
    what_if = taint_plan(subjects, planned.cluster_objects, tainted, laid, now, estimators=planned.estimators)
    return replace(what_if, notes=planned.unread)


async def _node_estimators(
    hub: Client, cluster_objects: Sequence[Mapping[str, Any]]
) -> tuple[tuple[ReplicaEstimator, ...], list[str]]:
    """The accurate estimator over the nodes of every Push member that could be read, and a note
    for each one that could not."""
    from flotilla.cli.hub.connection import gather_by_cluster
    from flotilla.scheduler.core.noderesources import NodeResourceEstimator

    names = [
        _name_of(cluster)
        for cluster in cluster_objects
        if (cluster.get("spec") or {}).get("syncMode") != "Pull"
        and not (cluster.get("metadata") or {}).get("deletionTimestamp")
    ]
    rooms, errors = await gather_by_cluster({name: _member_rooms(hub, name) for name in sorted(names)})
    notes = [
        f"the nodes of {name} could not be read ({error or 'timed out'}): sized by its resource summary alone"
        for name, error in sorted(errors.items())
    ]
    return (NodeResourceEstimator(rooms),), notes


async def _member_rooms(hub: Client, cluster_name: str) -> tuple[NodeRoom, ...]:
    """A member's nodes with what their pods take, as the scheduler's estimator reads them."""
    import asyncio

    from flotilla.cli.hub.connection import member_client
    from flotilla.scheduler.core.noderesources import node_rooms, pod_usage
    from flotilla.scheduler.nodesnapshots import NODE, POD, UNFINISHED_PODS

    member = await member_client(hub, cluster_name, FIELD_MANAGER)
    try:
        async with asyncio.timeout(MEMBER_READ_SECONDS):
            nodes, _ = await member.list(NODE)
            pods, _ = await member.list(POD, field_selector=UNFINISHED_PODS)
    finally:
        await member.close()
    return node_rooms(nodes, [usage for usage in map(pod_usage, pods) if usage is not None])


def _is_workload(template: Mapping[str, Any]) -> bool:
    from flotilla.interpreter import InterpreterError, get_replicas

    try:
        return get_replicas(template) is not None
    except InterpreterError:
        return False


async def _prepare(hub: Client, manifest: Manifest, default_namespace: str) -> _Prepared:
    """The manifest after a server-side dry-run apply: the hub's defaults in, nothing stored."""
    from flotilla.api.scheme import GroupVersionKind
    from flotilla.client import APIStatusError, Invalid, NotFound
    from flotilla.client.client import APPLY_PATCH

    obj = dict(manifest.object)
    try:
        info = await hub.resource(GroupVersionKind.parse(manifest.api_version, manifest.kind))
    except NotFound:
        return _Prepared(
            obj, (f"the hub does not serve {manifest.api_version} {manifest.kind}: planned as written",)
        )
    metadata = {key: value for key, value in (obj.get("metadata") or {}).items() if key not in _SERVER_FIELDS}
    if info.namespaced:
        metadata.setdefault("namespace", default_namespace)
        metadata["namespace"] = metadata["namespace"] or default_namespace
    else:
        metadata.pop("namespace", None)
    obj["metadata"] = metadata
    path = info.path(str(metadata.get("namespace") or ""), quote(manifest.name, safe=""))
    query = {"dryRun": "All", "fieldManager": FIELD_MANAGER, "force": "true"}
    try:
        answer = await hub.request("PATCH", path, query=query, body=obj, content_type=APPLY_PATCH)
    except Invalid as error:
        raise click.ClickException(
            f"{manifest.source}: {manifest.kind} {manifest.name} would be refused by the hub: {error.message}"
        ) from error
    except APIStatusError as error:
        live = await _live(hub, info.gvk, manifest.name, str(metadata.get("namespace") or ""))
        return _Prepared(
            _with_live_identity(obj, live),
            (f"planned as written, without the hub's defaults: {error.message}",),
        )
    if not isinstance(answer, dict):
        return _Prepared(obj)
    live = await _live(hub, info.gvk, manifest.name, str(metadata.get("namespace") or ""))
    return _Prepared(_with_live_uid(answer, live))


async def _live(hub: Client, gvk: GroupVersionKind, name: str, namespace: str) -> dict[str, Any] | None:
    from flotilla.client import APIStatusError

    try:
        return await hub.get_or_none(gvk, name, namespace=namespace)
    except APIStatusError:
        return None


def _with_live_uid(answer: dict[str, Any], live: Mapping[str, Any] | None) -> dict[str, Any]:
    """A dry run's answer with the uid the template has: none for a new one (a dry-run create makes
    one up, and the real create will give it another — the uid that breaks replica ties)."""
    metadata = dict(answer.get("metadata") or {})
    uid = (live or {}).get("metadata", {}).get("uid")
    if uid:
        metadata["uid"] = uid
    else:
        metadata.pop("uid", None)
    return {**answer, "metadata": metadata}


def _with_live_identity(obj: dict[str, Any], live: Mapping[str, Any] | None) -> dict[str, Any]:
    """The manifest with the live object's uid and policy claim, which an apply would keep."""
    from flotilla.controllers.detector.claims import CLAIM_ANNOTATIONS, CLAIM_LABELS

    if live is None:
        return obj
    live_metadata = live.get("metadata") or {}
    metadata = dict(obj.get("metadata") or {})
    for field in ("uid", "resourceVersion"):
        if live_metadata.get(field):
            metadata[field] = live_metadata[field]
    for part, keys in (("labels", CLAIM_LABELS), ("annotations", CLAIM_ANNOTATIONS)):
        kept = {key: value for key, value in (live_metadata.get(part) or {}).items() if key in keys}
        if kept:
            metadata[part] = {**kept, **(metadata.get(part) or {})}
    return {**obj, "metadata": metadata}


async def _selected_on_hub(
    hub: Client, policies: PolicySet, known: Sequence[Mapping[str, Any]]
) -> list[_Prepared]:
    """Templates on the hub that a policy from the manifests selects and the manifests do not hold."""
    from flotilla.api.karmada import templates
    from flotilla.api.karmada.policy import PropagationPolicy
    from flotilla.api.scheme import GroupVersionKind
    from flotilla.cli.planning.workloads import selects
    from flotilla.client import NotFound

    seen = {_identity(obj) for obj in known}
    found: dict[tuple[str, str, str, str], dict[str, Any]] = {}
    for policy in policies.manifest_policies():
        policy_namespace = policy.metadata.namespace or "" if isinstance(policy, PropagationPolicy) else ""
        for selector in policy.spec.resource_selectors:
            gvk = GroupVersionKind.parse(selector.api_version, selector.kind)
            try:
                candidates, _ = await hub.list(gvk, namespace=policy_namespace or selector.namespace or "")
            except NotFound:
                continue
            for obj in candidates:
                key = _identity(obj)
                deleting = (obj.get("metadata") or {}).get("deletionTimestamp")
                if key in seen or deleting or not templates.is_template(obj) or not selects(policy, obj):
                    continue
                found[key] = obj
    return [_Prepared(found[key], (SELECTED_ON_HUB,)) for key in sorted(found)]


async def _binding_of(hub: Client, template: Mapping[str, Any]) -> dict[str, Any] | None:
    from flotilla.controllers.detector.binding import binding_kind, binding_name_of

    namespace = str((template.get("metadata") or {}).get("namespace") or "")
    return await hub.get_or_none(binding_kind(template), binding_name_of(template), namespace=namespace)


def _last_of_each(items: Iterable[_Prepared]) -> list[_Prepared]:
    """One entry per object, the last one given (as applying them in order would leave it)."""
    chosen: dict[tuple[str, str, str, str], _Prepared] = {}
    for item in items:
        key = _identity(item.obj)
        chosen.pop(key, None)
        chosen[key] = item
    return list(chosen.values())


def _binding_identity(binding: Mapping[str, Any]) -> tuple[str, str, str]:
    metadata = binding.get("metadata") or {}
    return (str(binding.get("kind") or ""), str(metadata.get("namespace") or ""), str(metadata.get("name")))


def _identity(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    metadata = obj.get("metadata") or {}
    group = str(obj.get("apiVersion") or "").rpartition("/")[0]
    return (
        group,
        str(obj.get("kind") or ""),
        str(metadata.get("namespace") or ""),
        str(metadata.get("name")),
    )


def _name_of(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")
