"""Admission against FederatedResourceQuotas: no write may raise a namespace's usage past its overall quota.

Karmada (gate `FederatedQuotaEnforcement`) checks in its ResourceBinding webhook: when a binding's
scheduled replicas or per-replica requests change, the growth is added to each quota's usage and
the write is refused with a 403 `QuotaExceeded` Status when a limit would be passed. The hub does
the same for ResourceBindings (which catches the scheduler placing a Duplicated workload on more
clusters) and, earlier, for the templates themselves, so `kubectl apply` or `kubectl scale` of a
Deployment over quota fails at once with a message naming the quota and the numbers, rather than a
binding that never schedules.

Usage is read, not remembered: what the namespace holds is the sum over its ResourceBindings in the
watch cache (`federatedquota.binding_usage`, the same arithmetic the controller writes into
`status.overallUsed`), so a stale status never decides. A template asks for its replicas times the
per-replica requests the interpreter reads from its pod template (`interpreter.replicas`), times the
clusters it is duplicated to when its binding already says so; what it asks is compared with what it
holds (its binding's usage, or what its previous spec asked): only growth is checked, so scale-downs
and unrelated updates always pass. Only kinds the built-in interpreter knows the replicas of are
checked at the template (Deployment, ReplicaSet, StatefulSet, Job, Pod); any kind is checked at its
binding. A namespace without FederatedResourceQuotas costs one cache lookup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.karmada import constants, names
from flotilla.api.karmada.constants import ReplicaSchedulingType
from flotilla.api.karmada.federatedquota import (
    FEDERATED_RESOURCE_QUOTA,
    QUOTA_EXCEEDED_REASON,
    ResourceAmounts,
    add,
    binding_usage,
    exceeded,
    resource_amounts,
    workload_usage,
)
from flotilla.api.quantities import ZERO
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.admission import Admission, AdmissionAttributes
from flotilla.apiserver.context import APIContext
from flotilla.interpreter.kinds import GroupKind, InterpreterError
from flotilla.interpreter.replicas import REPLICA_KINDS, get_replicas

Object = dict[str, Any]
CHECKED_SUBRESOURCES = ("", "scale")
"""A status write never changes what a workload asks for."""


class QuotaExceededError(errors.Forbidden):
    """403 with Karmada's reason, so a client can tell a quota refusal from an RBAC one."""

    reason = QUOTA_EXCEEDED_REASON


class FederatedQuotaAdmission:
    """Refuses templates and ResourceBindings whose growth passes a FederatedResourceQuota's overall."""

    def __init__(self, ctx: APIContext, inner: Admission) -> None:
        self.ctx = ctx
        self.inner = inner

    async def mutate(self, attributes: AdmissionAttributes, obj: Object, old: Object | None) -> list[str]:
        return await self.inner.mutate(attributes, obj, old)

    async def validate(
        self, attributes: AdmissionAttributes, obj: Object | None, old: Object | None
    ) -> list[str]:
        if (
            obj is not None
            and attributes.operation in ("CREATE", "UPDATE")
            and attributes.subresource in CHECKED_SUBRESOURCES
            and attributes.namespace
        ):
            self._check(attributes, obj, old)
        return await self.inner.validate(attributes, obj, old)

    def _check(self, attributes: AdmissionAttributes, obj: Object, old: Object | None) -> None:
        quotas = self._list(FEDERATED_RESOURCE_QUOTA, attributes.namespace)
        if not quotas:
            return
        served = attributes.resource.type
        if served.gvk == constants.RESOURCE_BINDING:
            before = binding_usage(old) if old is not None else {}
            after = binding_usage(obj)
        elif GroupKind(served.group, served.kind) in REPLICA_KINDS:
            found = self._template_usage(attributes, obj, old)
            if found is None:
                return
            before, after = found
        else:
            return
        if not any(quantity > before.get(name, ZERO) for name, quantity in after.items()):
            return  # nothing asked grows: scale-downs and unrelated changes pass at once
        used: ResourceAmounts = {}
        for binding in self._list(constants.RESOURCE_BINDING, attributes.namespace):
            add(used, binding_usage(binding))
        for quota in sorted(quotas, key=_name):
            overall = resource_amounts((quota.get("spec") or {}).get("overall"))
            refusal = exceeded(_name(quota), overall, used, before, after)
            if refusal is not None:
                resource = served.group_resource
                raise QuotaExceededError(
                    f'{resource} "{attributes.name}" is forbidden: {refusal.message}',
                    name=attributes.name,
                    group=resource.group,
                    kind=resource.resource,
                )

    def _template_usage(
        self, attributes: AdmissionAttributes, obj: Object, old: Object | None
    ) -> tuple[ResourceAmounts, ResourceAmounts] | None:
        """What the template holds before the write and asks for after it (None: not a workload)."""
        binding = self._get(
            constants.RESOURCE_BINDING,
            attributes.namespace,
            names.binding_name(attributes.resource.type.kind, attributes.name),
        )
        copies = duplicated_copies(binding)
        try:
            after = template_usage(obj, copies)
            previous = template_usage(old, copies) if old is not None else {}
        except InterpreterError:
            return None  # not readable as a workload: schema validation has the last word
        if after is None:
            return None
        before = binding_usage(binding) if binding is not None else {}
        for name, quantity in (previous or {}).items():
            if name not in before or before[name] < quantity:
                before[name] = quantity
        return before, after

    def _list(self, gvk: GroupVersionKind, namespace: str) -> list[Object]:
        served = self.ctx.registry.by_kind(gvk)
        if served is None:
            return []
        return [item.obj for item in self.ctx.cache.list(served.storage_prefix, namespace)]

    def _get(self, gvk: GroupVersionKind, namespace: str, name: str) -> Object | None:
        served = self.ctx.registry.by_kind(gvk)
        if served is None:
            return None
        found = self.ctx.cache.get(served.key(namespace, name))
        return found.obj if found is not None else None


def template_usage(template: Mapping[str, Any], copies: int) -> ResourceAmounts | None:
    """What a workload template asks for, `copies` times over (None: not a kind with replicas)."""
    replicas = get_replicas(template)
    if replicas is None:
        return None
    requirements = replicas.requirements or {}
    return workload_usage(replicas.replicas, requirements.get("resourceRequest"), copies)


def duplicated_copies(binding: Mapping[str, Any] | None) -> int:
    """How many times a template's replicas run: once per cluster when its binding duplicates them."""
    if binding is None:
        return 1
    spec = binding.get("spec") or {}
    clusters = spec.get("clusters") or []
    scheduling = ((spec.get("placement") or {}).get("replicaScheduling") or {}).get("replicaSchedulingType")
    duplicated = scheduling in (None, "", ReplicaSchedulingType.DUPLICATED)
    return max(len(clusters), 1) if duplicated else 1


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def install_federated_quota_admission(ctx: APIContext) -> None:
    """Wrap the context's admission with the FederatedResourceQuota check, unless it already has it."""
    admission: object = ctx.admission
    while admission is not None:
        if isinstance(admission, FederatedQuotaAdmission):
            return
        admission = getattr(admission, "inner", None)
    ctx.admission = FederatedQuotaAdmission(ctx, ctx.admission)
