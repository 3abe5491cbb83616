"""From templates and policies to a plan per workload: the detector's decisions, then the scheduler's.

For each template this does, without any I/O, what the controllers would do once it is applied:

1. The detector's choice of policy (`matching.choose_policy`: PropagationPolicies of the template's
   namespace first, explicit priority, selector specificity, name, claims and preemption), over
   the hub's policies with the manifests' ones in place of those of the same kind, namespace and
   name. A policy from the manifests keeps the permanent id of the hub policy it replaces (an
   apply keeps that label), so existing claims still hold.
2. The detector's binding for it (`binding.build_binding`: placement, replicas and replica
   requirements through the resource interpreter), laid over the binding the hub already has, so
   the scheduler sees the current result, status and applied placement as it will.
3. The scheduler's filter (`is_responsible`) and its preview (`scheduler.preview`), with the
   estimators the scheduler would consult beside the general one (the accurate estimator over the
   members' nodes, when the command could read them), and — for a binding in a workload
   (anti-)affinity group — where its peers are: the hub's ResourceBindings of the group, with
   those of templates planned before it in their planned place (`planned_member`), so the
   manifests are planned as if applied in their order.

A template no policy selects gets no preview and says why; one that already has a binding keeps
its placement (Karmada releases the binding, it does not remove the workload).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from flotilla.api.karmada import constants, templates
from flotilla.api.karmada.policy import ClusterPropagationPolicy, PropagationPolicy
from flotilla.api.objects import metadata_of
from flotilla.controllers.detector.binding import (
    DETECTOR_SPEC_FIELDS,
    build_binding,
    controller_uid,
)
from flotilla.controllers.detector.matching import ImplicitPriority, Policy, choose_policy, implicit_priority
from flotilla.interpreter import InterpreterError, get_replicas
from flotilla.scheduler.core.estimation import ReplicaEstimator
from flotilla.scheduler.core.inputs import BindingInfo, ClusterInfo, TargetCluster
from flotilla.scheduler.core.placement import Placement
from flotilla.scheduler.core.workloadgroups import GroupMember
from flotilla.scheduler.framework import Registry
from flotilla.scheduler.preview import PlacementPreview, preview_placement
from flotilla.scheduler.scheduler import is_responsible

NO_POLICY = "no policy matches: would not be propagated"
NO_POLICY_RELEASED = "no policy matches: the binding would be released and the workload stays where it runs"
NAMESPACE_AUTO_PROPAGATED = "no policy matches: the namespace controller creates namespaces on every cluster"
SKIPPED_NAMESPACE = "in a namespace Flotilla never propagates"
PLANNED_PERMANENT_ID = "planned"
"""Stands in for the permanent id a new policy or binding receives when it is created."""

_POLICY_KINDS: dict[tuple[str, str], type[PropagationPolicy] | type[ClusterPropagationPolicy]] = {
    (constants.PROPAGATION_POLICY.api_version, constants.PROPAGATION_POLICY.kind): PropagationPolicy,
    (
        constants.CLUSTER_PROPAGATION_POLICY.api_version,
        constants.CLUSTER_PROPAGATION_POLICY.kind,
    ): ClusterPropagationPolicy,
}
_ID_LABELS = {
    constants.PROPAGATION_POLICY.kind: constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL,
    constants.CLUSTER_PROPAGATION_POLICY.kind: constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL,
}
_BINDING_ID_LABELS = (
    constants.RESOURCE_BINDING_PERMANENT_ID_LABEL,
    constants.CLUSTER_RESOURCE_BINDING_PERMANENT_ID_LABEL,
)


class PlanInputError(Exception):
    """A policy in the manifests that cannot be read as one."""


PolicyKey = tuple[str, str, str]
"""(kind, namespace, name) of a policy; the namespace is empty for ClusterPropagationPolicies."""


@dataclass(frozen=True, slots=True)
class PolicyRef:
    """Which policy a workload matched, and whether it came from the manifests or the hub."""

    kind: str
    name: str
    namespace: str = ""
    from_manifests: bool = False

    def __str__(self) -> str:
        where = f"{self.namespace}/{self.name}" if self.namespace else self.name
        return f"{self.kind} {where}"


@dataclass(frozen=True, slots=True)
class PolicySet:
    """The policies a plan matches against: the hub's, with the manifests' in place of theirs."""

    propagation_policies: tuple[PropagationPolicy, ...] = ()
    cluster_propagation_policies: tuple[ClusterPropagationPolicy, ...] = ()
    from_manifests: frozenset[PolicyKey] = frozenset()

    def in_namespace(self, namespace: str) -> list[PropagationPolicy]:
        if not namespace:
            return []
        return [policy for policy in self.propagation_policies if policy.metadata.namespace == namespace]

    def manifest_policies(self) -> list[Policy]:
        """The policies that came from the manifests."""
        every: list[Policy] = [*self.propagation_policies, *self.cluster_propagation_policies]
        return [policy for policy in every if _key_of(policy) in self.from_manifests]

    def ref(self, policy: Policy) -> PolicyRef:
        key = _key_of(policy)
        return PolicyRef(key[0], key[2], key[1], key in self.from_manifests)


@dataclass(frozen=True, slots=True)
class WorkloadPlan:
    """The plan for one template: its policy, its replicas and the scheduler's preview.

    `replicas` is None for objects that are not workloads (placed whole); `current` is the hub
    binding's result, None when the template has no binding yet; `unplanned` says why there is
    no preview (no policy matches, scheduling suspended…), empty when there is one. `binding` is
    the binding as it will be once the detector has applied the template (None when no policy
    claims it): `plan --taint` settles it again with tainted clusters.
    """

    api_version: str
    kind: str
    namespace: str
    name: str
    policy: PolicyRef | None = None
    replicas: int | None = None
    placement: Placement | None = None
    preview: PlacementPreview | None = None
    current: tuple[TargetCluster, ...] | None = None
    unplanned: str = ""
    notes: tuple[str, ...] = ()
    binding: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)

    @property
    def resource(self) -> str:
        """kubectl's `kind.group/name` form, e.g. `deployment.apps/nginx`."""
        group = self.api_version.rpartition("/")[0]
        kind = f"{self.kind.lower()}.{group}" if group else self.kind.lower()
        return f"{kind}/{self.name}"


def is_policy(obj: Mapping[str, Any]) -> bool:
    """A PropagationPolicy or ClusterPropagationPolicy."""
    return (obj.get("apiVersion"), obj.get("kind")) in _POLICY_KINDS


def is_karmada_object(obj: Mapping[str, Any]) -> bool:
    """An object of a Karmada API group (policies, overrides, clusters…): never a template."""
    group = str(obj.get("apiVersion") or "").rpartition("/")[0]
    return templates.is_karmada_group(group)


def merge_policies(hub: Iterable[Mapping[str, Any]], manifests: Iterable[Mapping[str, Any]]) -> PolicySet:
    """The hub's policies with the manifests' replacing those of the same kind, namespace and name.

    A hub policy that does not parse is skipped, as the detector skips it; one in the manifests
    is a `PlanInputError`. A policy without a permanent id (one not created yet) gets the id of
    the hub policy it replaces, or a stand-in: the hub gives every policy one on creation.
    """
    chosen: dict[PolicyKey, Policy] = {}
    for obj in hub:
        try:
            policy = _parse_policy(obj)
        except ValidationError:
            continue
        chosen[_key_of(policy)] = _with_permanent_id(policy, None)
    from_manifests: set[PolicyKey] = set()
    for obj in manifests:
        try:
            policy = _parse_policy(obj)
        except ValidationError as error:
            name = metadata_of(obj).get("name")
            first = error.errors()[0] if error.errors() else {"loc": (), "msg": str(error)}
            where = ".".join(str(part) for part in first["loc"])
            raise PlanInputError(f"{obj.get('kind')} {name}: {where}: {first['msg']}") from error
        key = _key_of(policy)
        chosen[key] = _with_permanent_id(policy, chosen.get(key))
        from_manifests.add(key)
    ordered = [chosen[key] for key in sorted(chosen)]
    return PolicySet(
        tuple(policy for policy in ordered if isinstance(policy, PropagationPolicy)),
        tuple(policy for policy in ordered if isinstance(policy, ClusterPropagationPolicy)),
        frozenset(from_manifests),
    )


def _with_permanent_id(policy: Policy, replaced: Policy | None) -> Policy:
    label = _ID_LABELS[policy.kind]
    if not policy.metadata.labels.get(label):
        inherited = replaced.metadata.labels.get(label) if replaced is not None else None
        policy.metadata.labels = {**policy.metadata.labels, label: inherited or PLANNED_PERMANENT_ID}
    return policy


def selects(policy: Policy, template: Mapping[str, Any]) -> bool:
    """Does one of the policy's resource selectors select the template?"""
    if isinstance(policy, PropagationPolicy) and metadata_of(template).get("namespace") != (
        policy.metadata.namespace or ""
    ):
        return False
    return implicit_priority(template, policy) is not ImplicitPriority.MISMATCH


def plan_workload(
    template: Mapping[str, Any],
    policies: PolicySet,
    clusters: Sequence[ClusterInfo],
    existing_binding: Mapping[str, Any] | None = None,
    *,
    registry: Registry | None = None,
    notes: Sequence[str] = (),
    estimators: Sequence[ReplicaEstimator] = (),
    now: datetime | None = None,
    peers: Sequence[GroupMember] = (),
) -> WorkloadPlan:
    """The plan for `template` as it will be once applied; `existing_binding` is its binding on the hub.

    `now` is the moment the scheduler is imagined to run at (a NoExecute toleration that has run out
    by then no longer admits a new cluster); None runs no toleration out. `peers` are the grouped
    ResourceBindings a workload (anti-)affinity group is judged by."""
    metadata = metadata_of(template)
    namespace = str(metadata.get("namespace") or "")
    existing = _own_binding(template, existing_binding)
    plan = WorkloadPlan(
        api_version=str(template.get("apiVersion") or ""),
        kind=str(template.get("kind") or ""),
        namespace=namespace,
        name=str(metadata.get("name") or ""),
        current=BindingInfo.from_object(existing).clusters if existing is not None else None,
        notes=tuple(notes),
    )
    if not templates.is_template(template):
        return replace(plan, unplanned=SKIPPED_NAMESPACE)
    policy = choose_policy(template, policies.in_namespace(namespace), policies.cluster_propagation_policies)
    if policy is None:
        return replace(plan, unplanned=_unmatched(template, plan.current))
    plan = replace(plan, policy=policies.ref(policy))
    try:
        workload = get_replicas(template)
        desired = build_binding(template, policy, permanent_id=_binding_id(existing))
    except InterpreterError as error:
        return replace(plan, unplanned=f"the resource interpreter cannot read it: {error}")
    binding = _after_apply(desired, existing)
    info = BindingInfo.from_object(binding, now=now).with_group_peers(peers)
    plan = replace(
        plan,
        replicas=workload.replicas if workload is not None else None,
        placement=info.placement,
        binding=binding,
    )
    if not is_responsible(binding):
        return replace(plan, unplanned=_not_scheduled(binding))
    return replace(plan, preview=preview_placement(info, clusters, registry, estimators=estimators))


def planned_member(plan: WorkloadPlan) -> GroupMember | None:
    """The plan's binding as a peer of its workload (anti-)affinity groups, in its planned place;
    None when it is in no group or not placed by the plan."""
    if plan.binding is None:
        return None
    member = GroupMember.of_binding(plan.binding)
    if member is None:
        return None
    if plan.preview is None:
        return member
    return replace(member, clusters=frozenset(target.name for target in plan.preview.targets))


def _not_scheduled(binding: Mapping[str, Any]) -> str:
    scheduler = (binding.get("spec") or {}).get("schedulerName")
    if scheduler not in (None, "", constants.DEFAULT_SCHEDULER_NAME):
        return f"scheduled by {scheduler}, not by Flotilla's scheduler"
    return "scheduling is suspended by the policy"


def _parse_policy(obj: Mapping[str, Any]) -> Policy:
    model = _POLICY_KINDS[(str(obj.get("apiVersion")), str(obj.get("kind")))]
    return model.from_object(obj)


def _key_of(policy: Policy) -> PolicyKey:
    namespace = policy.metadata.namespace or "" if isinstance(policy, PropagationPolicy) else ""
    return (policy.kind, namespace, policy.metadata.name or "")


def _own_binding(template: Mapping[str, Any], binding: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The hub binding if it belongs to this template (a binding of an older, deleted one does not)."""
    if binding is None:
        return None
    template_uid = metadata_of(template).get("uid")
    if not template_uid:
        return None
    owner = controller_uid(binding)
    return binding if owner in (None, template_uid) else None


def _unmatched(template: Mapping[str, Any], current: Sequence[TargetCluster] | None) -> str:
    group = str(template.get("apiVersion") or "").rpartition("/")[0]
    if (group, template.get("kind")) == templates.NAMESPACE_KIND:
        return NAMESPACE_AUTO_PROPAGATED
    return NO_POLICY_RELEASED if current else NO_POLICY


def _binding_id(existing: Mapping[str, Any] | None) -> str:
    labels = metadata_of(existing or {}).get("labels")
    if isinstance(labels, Mapping):
        for label in _BINDING_ID_LABELS:
            if labels.get(label):
                return str(labels[label])
    return PLANNED_PERMANENT_ID


def _after_apply(desired: dict[str, Any], existing: Mapping[str, Any] | None) -> dict[str, Any]:
    """The binding once the detector has applied `desired` over `existing`.

    The detector owns the fields it sends (`DETECTOR_SPEC_FIELDS`, its labels and annotations);
    what others wrote (`spec.clusters` by the scheduler, eviction tasks, status) stays.
    """
    if existing is None:
        return desired
    merged = copy.deepcopy(dict(existing))
    spec = dict(merged.get("spec") or {})
    wanted = desired.get("spec") or {}
    for name in DETECTOR_SPEC_FIELDS:
        if name in wanted:
            spec[name] = wanted[name]
        else:
            spec.pop(name, None)
    merged["spec"] = spec
    metadata = dict(merged.get("metadata") or {})
    for part in ("labels", "annotations"):
        metadata[part] = {**(metadata.get(part) or {}), **(metadata_of(desired).get(part) or {})}
    merged["metadata"] = metadata
    return merged
