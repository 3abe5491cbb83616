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

What the namespace holds counts each template at the larger of its ask and its binding's usage, so a
template admitted but not yet scheduled already holds its share (else 20 creates in a row would all
see an empty namespace).

Concurrent growing writes must not both pass (Karmada's webhook has the same race, closed by its
reservation). Two layers, one per reach:

- *Within this API server process*, a growing write takes its namespace's lock before it reads the
  usage and keeps it until the store has committed it (`QuotaGuardedStore` releases it when the
  commit returns; the store waits for its cache to hold the write, so the next holder reads it).
  Writes that do not grow a counted resource, dry runs, and namespaces without quotas never wait.
- *Across processes* (`--workers`, several servers on one etcd), each admitted write first reserves
  its growth in every affected quota's `status.overallUsed`, written guarded by the quota's revision;
  the check counts the larger of the cache's usage and that status. A reservation that loses the
  race to another reservation re-reads the quota and checks again. The FederatedResourceQuota
  controller rewrites `overallUsed` from the bindings at its next pass, so a reservation for a write
  that was then refused or never committed does not last (no drift).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Mapping
from typing import Any

from flotilla.api.karmada import constants, names
from flotilla.api.karmada.constants import ReplicaSchedulingType
from flotilla.api.karmada.federatedquota import (
    FEDERATED_RESOURCE_QUOTA,
    FEDERATED_RESOURCE_QUOTAS,
    QUOTA_EXCEEDED_REASON,
    ResourceAmounts,
    add,
    at_least,
    binding_usage,
    counted,
    exceeded,
    reserved,
    resource_amounts,
    workload_usage,
    written,
)
from flotilla.api.objects import copy_object
from flotilla.api.quantities import ZERO
from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.admission import Admission, AdmissionAttributes
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.store.cachedobjects import CachedObject
from flotilla.apiserver.store.conversion import for_storage
from flotilla.apiserver.store.objectstore import ObjectStore, StaleRevision
from flotilla.interpreter.kinds import GroupKind, InterpreterError
from flotilla.interpreter.replicas import REPLICA_KINDS, get_replicas

Object = dict[str, Any]
CHECKED_SUBRESOURCES = ("", "scale")
"""A status write never changes what a workload asks for."""


class QuotaExceededError(errors.Forbidden):
    """403 with Karmada's reason, so a client can tell a quota refusal from an RBAC one."""

    reason = QUOTA_EXCEEDED_REASON


class NamespaceWriteLocks:
    """One lock per namespace, each held by one write's task from its quota check to its commit.

    A task holds at most one (a write re-checked after losing a race keeps it). Besides the store's
    release after the commit, a task that ends still holding one (a later admission refused the
    write) releases it then.
    """

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._held: dict[asyncio.Task[Any], asyncio.Lock] = {}
        self._watched: weakref.WeakSet[asyncio.Task[Any]] = weakref.WeakSet()

    async def hold(self, namespace: str) -> None:
        task = asyncio.current_task()
        if task is None or task in self._held:
            return
        lock = self._locks.setdefault(namespace, asyncio.Lock())
        await lock.acquire()
        self._held[task] = lock
        if task not in self._watched:
            self._watched.add(task)
            task.add_done_callback(self._release)

    def release(self) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._release(task)

    def _release(self, task: asyncio.Task[Any]) -> None:
        lock = self._held.pop(task, None)
        if lock is not None:
            lock.release()


class QuotaGuardedStore(ObjectStore):
    """The object store, releasing the writing task's namespace quota lock once its write returns.

    The pipeline calls the store right after validating admission, with no await in between, so the
    lock covers check and commit. A create that met an existing generated name keeps the lock: the
    pipeline retries it under a new name without admitting it again.
    """

    def __init__(self, store: ObjectStore, locks: NamespaceWriteLocks) -> None:
        super().__init__(store.backend, store.cache)
        self.locks = locks

    async def create(self, served: ServedResource, obj: dict[str, Any]) -> CachedObject:
        try:
            found = await super().create(served, obj)
        except errors.AlreadyExists:
            raise  # a retry under a new name may follow; the task's end releases otherwise
        except BaseException:
            self.locks.release()
            raise
        self.locks.release()
        return found

    async def update(self, served: ServedResource, obj: dict[str, Any], expected: int) -> CachedObject:
        try:
            return await super().update(served, obj, expected)
        finally:
            self.locks.release()

    async def delete(self, served: ServedResource, current: CachedObject) -> CachedObject:
        try:
            return await super().delete(served, current)
        finally:
            self.locks.release()

    async def reserve(self, served: ServedResource, quota: dict[str, Any], expected: int) -> None:
        """Write a quota's reservation, guarded by its revision, keeping the lock of the write it admits."""
        await super().update(served, for_storage(served, quota), expected)


class FederatedQuotaAdmission:
    """Refuses templates and ResourceBindings whose growth passes a FederatedResourceQuota's overall."""

    def __init__(self, ctx: APIContext, inner: Admission, store: QuotaGuardedStore) -> None:
        self.ctx = ctx
        self.inner = inner
        self.store = store

    async def mutate(self, attributes: AdmissionAttributes, obj: Object, old: Object | None) -> list[str]:
        return await self.inner.mutate(attributes, obj, old)

    async def validate(
        self, attributes: AdmissionAttributes, obj: Object | None, old: Object | None
    ) -> list[str]:
        # The other admissions first: once this one passes it holds the namespace until the commit.
        warnings = await self.inner.validate(attributes, obj, old)
        if (
            obj is not None
            and attributes.operation in ("CREATE", "UPDATE")
            and attributes.subresource in CHECKED_SUBRESOURCES
            and attributes.namespace
        ):
            await self._admit(attributes, obj, old)
        return warnings

    async def _admit(self, attributes: AdmissionAttributes, obj: Object, old: Object | None) -> None:
        if not self._list(FEDERATED_RESOURCE_QUOTA, attributes.namespace):
            return
        found = self._usage_change(attributes, obj, old)
        if found is None:
            return
        before, after = found
        if not any(quantity > before.get(name, ZERO) for name, quantity in after.items()):
            return  # nothing asked grows: scale-downs and unrelated changes pass at once
        if attributes.dry_run:
            self._check(attributes, before, after)
            return
        await self.store.locks.hold(attributes.namespace)
        try:
            admitted = await self._reserve_within_retries(attributes, before, after)
        except BaseException:
            self.store.locks.release()
            raise
        if not admitted:
            self.store.locks.release()
            raise errors.conflict(
                FEDERATED_RESOURCE_QUOTAS, attributes.namespace, "too many concurrent quota reservations"
            )

    async def _reserve_within_retries(
        self, attributes: AdmissionAttributes, before: ResourceAmounts, after: ResourceAmounts
    ) -> bool:
        for _ in range(self.ctx.settings.max_retries):
            if await self._check_and_reserve(attributes, before, after):
                return True
        return False

    def _usage_change(
        self, attributes: AdmissionAttributes, obj: Object, old: Object | None
    ) -> tuple[ResourceAmounts, ResourceAmounts] | None:
        """What the written object's workload holds before the write and asks after it (None: not counted)."""
        served = attributes.resource.type
        if served.gvk == constants.RESOURCE_BINDING:
            # Before a binding exists its template already holds its ask: creating it grows nothing.
            template = self._template_of(obj)
            return _workload_holds(template, old), _workload_holds(template, obj)
        if GroupKind(served.group, served.kind) in REPLICA_KINDS:
            return self._template_usage(attributes, obj, old)
        return None

    def _check(
        self, attributes: AdmissionAttributes, before: ResourceAmounts, after: ResourceAmounts
    ) -> list[tuple[Object, ResourceAmounts]]:
        """Raise when a quota refuses; else each quota with what it holds now (reservations included)."""
        used = self._namespace_usage(attributes.namespace)
        held: list[tuple[Object, ResourceAmounts]] = []
        for quota in sorted(self._list(FEDERATED_RESOURCE_QUOTA, attributes.namespace), key=_name):
            overall = resource_amounts((quota.get("spec") or {}).get("overall"))
            reservations = resource_amounts((quota.get("status") or {}).get("overallUsed"))
            quota_used = at_least(counted(used, overall), reservations)
            refusal = exceeded(_name(quota), overall, quota_used, before, after)
            if refusal is not None:
                resource = attributes.resource.type.group_resource
                raise QuotaExceededError(
                    f'{resource} "{attributes.name}" is forbidden: {refusal.message}',
                    name=attributes.name,
                    group=resource.group,
                    kind=resource.resource,
                )
            held.append((quota, quota_used))
        return held

    async def _check_and_reserve(
        self, attributes: AdmissionAttributes, before: ResourceAmounts, after: ResourceAmounts
    ) -> bool:
        """Check, then reserve the growth in each quota; False when a reservation lost a race."""
        served = self.ctx.registry.by_kind(FEDERATED_RESOURCE_QUOTA)
        if served is None:
            return True
        for quota, quota_used in self._check(attributes, before, after):
            overall = resource_amounts((quota.get("spec") or {}).get("overall"))
            reservation = reserved(overall, quota_used, before, after)
            if reservation is None:
                continue
            updated = copy_object(dict(quota))
            updated.setdefault("status", {})["overallUsed"] = written(reservation)
            revision = int(updated["metadata"]["resourceVersion"])
            try:
                await self.store.reserve(served, updated, revision)
            except StaleRevision:
                return False  # the store's cache now holds the winner: read and check again
        return True

    def _namespace_usage(self, namespace: str) -> ResourceAmounts:
        """What the namespace's workloads hold: each template the larger of its ask and its binding's
        usage, each binding of another kind its usage."""
        bindings = {_name(binding): binding for binding in self._list(constants.RESOURCE_BINDING, namespace)}
        used: ResourceAmounts = {}
        for served in self._template_resources():
            for item in self.ctx.cache.list(served.storage_prefix, namespace):
                binding = bindings.pop(names.binding_name(served.type.kind, item.name), None)
                add(used, _workload_holds(item.obj, binding))
        for binding in bindings.values():
            add(used, binding_usage(binding))
        return used

    def _template_resources(self) -> list[ServedResource]:
        """One served version of each kind whose replicas the interpreter reads."""
        found: dict[str, ServedResource] = {}
        for served in self.ctx.registry.all():
            if GroupKind(served.type.group, served.type.kind) in REPLICA_KINDS:
                found.setdefault(served.storage_prefix, served)
        return list(found.values())

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
        return at_least(before, previous or {}), after

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

    def _template_of(self, binding: Object) -> Object | None:
        resource = (binding.get("spec") or {}).get("resource") or {}
        kind, name = resource.get("kind"), resource.get("name")
        for served in self._template_resources():
            if served.type.kind == kind and isinstance(name, str):
                found = self.ctx.cache.get(served.key(_namespace(binding), name))
                if found is not None:
                    return found.obj
        return None


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


def _workload_holds(template: Mapping[str, Any] | None, binding: Mapping[str, Any] | None) -> ResourceAmounts:
    """What one workload holds: the larger of its template's ask and its binding's usage, so a
    template admitted but not yet scheduled already holds its share."""
    held = binding_usage(binding) if binding is not None else {}
    if template is None:
        return held
    try:
        asks = template_usage(template, duplicated_copies(binding))
    except InterpreterError:
        asks = None
    return at_least(held, asks or {})


def _namespace(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("namespace") or "")


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def install_federated_quota_admission(ctx: APIContext) -> None:
    """Wrap the context's admission with the FederatedResourceQuota check, unless it already has it,
    and its store with the one that releases the check's namespace lock at the commit."""
    admission: object = ctx.admission
    while admission is not None:
        if isinstance(admission, FederatedQuotaAdmission):
            return
        admission = getattr(admission, "inner", None)
    store = QuotaGuardedStore(ctx.store, NamespaceWriteLocks())
    ctx.store = store
    ctx.admission = FederatedQuotaAdmission(ctx, ctx.admission, store)
