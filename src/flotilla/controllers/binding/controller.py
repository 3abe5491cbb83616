"""The binding controller: one Work per target cluster for every ResourceBinding and ClusterResourceBinding.

A binding names a resource template and, once scheduled, its target clusters. For each target the
controller renders the template for that cluster (`render.render_manifest`: replicas revised,
overrides applied, Karmada's labels and annotations, server-owned fields stripped) and writes the
Work `work_name(kind, name, namespace)` into the cluster's execution namespace `karmada-es-<cluster>`
with server-side apply (field manager `flotilla-binding-controller`) — only when it differs from
the Work the informer holds. Works of clusters the binding no longer targets are deleted — except
the Work of a cluster a graceful eviction task still names (purge mode other than `Directly`):
that one is kept as it is, neither deleted nor rendered again, until the task is dropped
(`works.clusters_keeping_works`), so the old copy serves while the workload starts elsewhere.

A Work the hub refuses as it is (400, 413, 422), like a template that cannot be rendered, is not
retried until the binding, its template or a policy changes; a Warning Event `SyncWorkFailed` on
the binding and on the template says why, as Karmada's binding controller reports it.

A binding carries the finalizer `karmada.io/binding-controller` (ClusterResourceBindings
`karmada.io/cluster-resource-binding-controller`) while it has Works; when it is deleted — the
garbage collector does so when its template goes — its Works are deleted and the finalizer
removed. The Works' own finalizer lets the execution controller clean the members first.

Events that can change a Work enqueue its binding, keyed `(kind, namespace, name)`: the binding's
spec, its template (not the template's status), override policies selecting the template, a
target Cluster's labels, and a Work changed or deleted behind the controller's back. The template
of each kind is read from the shared informer of that kind, created on first use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from functools import partial
from typing import Any

import structlog

from flotilla.api.karmada import constants, names
from flotilla.api.karmada.work import ClusterResourceBinding, ResourceBinding, ResourceBindingSpec
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersion, GroupVersionKind
from flotilla.api.times import format_time
from flotilla.client import APIStatusError
from flotilla.client.client import MERGE_PATCH
from flotilla.client.errors import is_rejected_request
from flotilla.client.informer import Informer
from flotilla.controllers.binding import triggers
from flotilla.controllers.binding.render import (
    BindingReference,
    job_completions,
    render_manifest,
    suspends_dispatching,
    target_clusters,
)
from flotilla.controllers.binding.works import (
    BindingKey,
    WorksByBinding,
    WrittenWorks,
    binding_key_of_work,
    clusters_keeping_works,
    work_object,
    work_up_to_date,
)
from flotilla.interpreter import InterpreterError
from flotilla.interpreter.lua import Operation
from flotilla.overrides import OverrideError
from flotilla.overrides.policies import ImplicitPriority, policy_priority
from flotilla.runtime.controller import TerminalError
from flotilla.runtime.events import WARNING, object_event, record_event
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.binding")

FIELD_MANAGER = "flotilla-binding-controller"
EVENT_COMPONENT = "binding-controller"
"""Who reports the controller's Events (Karmada's name for it)."""
EVENT_SYNC_WORK_FAILED = "SyncWorkFailed"
TEMPLATE_SYNC_TIMEOUT = 10.0
"""Seconds to wait for a template kind's informer to list before retrying the binding later."""

FINALIZERS = {
    constants.RESOURCE_BINDING.kind: constants.BINDING_CONTROLLER_FINALIZER,
    constants.CLUSTER_RESOURCE_BINDING.kind: constants.CLUSTER_RESOURCE_BINDING_CONTROLLER_FINALIZER,
}
GVKS = {
    constants.RESOURCE_BINDING.kind: constants.RESOURCE_BINDING,
    constants.CLUSTER_RESOURCE_BINDING.kind: constants.CLUSTER_RESOURCE_BINDING,
}


class RenderError(TerminalError):
    """A template or override rule that cannot be rendered; tried again when a policy or template changes."""


class WorkRefused(TerminalError):
    """The hub refused a Work as it is; tried again when the binding, template or a policy changes."""


def template_gvk(api_version: str, kind: str) -> GroupVersionKind:
    group_version = GroupVersion.parse(api_version)
    return GroupVersionKind(group_version.group, group_version.version, kind)


def binding_key_of_template(kind: str, name: str, namespace: str) -> BindingKey:
    """The binding the detector creates for a template (namespaced → ResourceBinding)."""
    if namespace:
        return (constants.RESOURCE_BINDING.kind, namespace, names.binding_name(kind, name))
    return (constants.CLUSTER_RESOURCE_BINDING.kind, "", names.binding_name(kind, name))


def object_key(kind: str, obj: Mapping[str, Any]) -> BindingKey:
    """`(kind, namespace, name)` of an object."""
    metadata = obj.get("metadata") or {}
    return (kind, str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))


def finalizer_patch(obj: Mapping[str, Any], finalizer: str, *, present: bool) -> dict[str, Any] | None:
    """A merge patch adding or removing `finalizer`; None when there is nothing to do.

    Removal is pinned to the object's resourceVersion: a deleting binding may meanwhile have gained
    the garbage collector's `foregroundDeletion`, which a stale list would drop. Adding is not: it
    happens only to live bindings, which nobody else gives finalizers, and pinning it would make it
    lose the race with the scheduler's writes to every new binding.
    """
    metadata = obj.get("metadata") or {}
    finalizers = list(metadata.get("finalizers") or [])
    if (finalizer in finalizers) == present:
        return None
    if present:
        return {"metadata": {"finalizers": [*finalizers, finalizer]}}
    changed = [f for f in finalizers if f != finalizer]
    return {"metadata": {"resourceVersion": metadata.get("resourceVersion"), "finalizers": changed}}


class BindingController(HubController):
    NAME = "binding"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._bindings = {kind: ctx.informers.get(gvk) for kind, gvk in GVKS.items()}
        self._works = ctx.informers.get(constants.WORK)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._override_policies = ctx.informers.get(constants.OVERRIDE_POLICY)
        self._cluster_override_policies = ctx.informers.get(constants.CLUSTER_OVERRIDE_POLICY)
        self._interpretation = ctx.interpretation()
        self._index = WorksByBinding()
        self._written = WrittenWorks()
        self._template_kinds: set[GroupVersionKind] = set()

    # -- events ---------------------------------------------------------------------------------

    def setup(self) -> None:
        for kind, informer in self._bindings.items():
            informer.add_handler(self._binding_handler(kind))
        self._works.add_handler(self._on_work)
        self._override_policies.add_handler(self._on_override_policy)
        self._cluster_override_policies.add_handler(self._on_override_policy)
        self._clusters.add_handler(self._on_cluster)

    def _binding_handler(self, kind: str) -> Any:
        def on_binding(event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
            if new is not None and old is not None and not triggers.binding_changed(old, new):
                return
            obj = new if new is not None else old
            if obj is not None:
                self.enqueue(object_key(kind, obj))

        return on_binding

    def _on_work(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        self._index.observe(event, new, old)
        self._written.observe(event, new, old)
        if event == "ADDED":
            # A Work whose binding is gone (e.g. deleted while the manager was down) is an orphan.
            owner = binding_key_of_work(new or {})
            if owner is not None and self._bindings[owner[0]].get(owner[2], namespace=owner[1]) is None:
                self.enqueue(owner)
            return
        if new is not None and old is not None and not triggers.work_spec_changed(old, new):
            return
        owner = binding_key_of_work(new if new is not None else old or {})
        if owner is not None:
            self.enqueue(owner)

    def _on_template(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if event == "DELETED" or new is None:
            return  # the garbage collector deletes the binding; its deletion is handled then
        if event == "MODIFIED" and old is not None and not triggers.template_changed(old, new):
            return
        kind, namespace, name = object_key(str(new.get("kind") or ""), new)
        self.enqueue(binding_key_of_template(kind, name, namespace))

    def _on_override_policy(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        for policy in (new, old):
            if policy is not None:
                for key in self._bindings_selected_by(policy):
                    self.enqueue(key)

    def _on_cluster(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is None or (old is not None and not triggers.cluster_identity_changed(old, new)):
            return
        cluster = (new.get("metadata") or {}).get("name")
        for kind, informer in self._bindings.items():
            for binding in informer.list():
                targets = (binding.get("spec") or {}).get("clusters") or []
                if any(isinstance(t, Mapping) and t.get("name") == cluster for t in targets):
                    self.enqueue(object_key(kind, binding))

    def _bindings_selected_by(self, policy: Mapping[str, Any]) -> Iterable[BindingKey]:
        """Bindings whose template the override policy selects (by the template, when it is cached)."""
        namespace = (policy.get("metadata") or {}).get("namespace") or None
        kinds = [constants.RESOURCE_BINDING.kind] if namespace else list(self._bindings)
        for kind in kinds:
            for binding in self._bindings[kind].list(namespace=namespace):
                resource = (binding.get("spec") or {}).get("resource") or {}
                template = self._cached_template(resource) or {
                    "apiVersion": resource.get("apiVersion"),
                    "kind": resource.get("kind"),
                    "metadata": {"name": resource.get("name"), "namespace": resource.get("namespace")},
                }
                if policy_priority(template, policy) is not ImplicitPriority.MISMATCH:
                    yield object_key(kind, binding)

    def _cached_template(self, resource: Mapping[str, Any]) -> dict[str, Any] | None:
        gvk = template_gvk(str(resource.get("apiVersion") or ""), str(resource.get("kind") or ""))
        if gvk not in self._template_kinds:
            return None
        _, namespace, name = object_key(gvk.kind, {"metadata": resource})
        return self.ctx.informers.get(gvk).get(name, namespace=namespace)

    # -- reconcile ------------------------------------------------------------------------------

    async def reconcile(self, key: BindingKey) -> float | None:
        kind, namespace, name = key
        obj = self._bindings[kind].get(name, namespace=namespace)
        if obj is None:
            # Gone without our finalizer's flow (never reached us): its Works are orphans.
            await self._delete_works(self._index.works_of(key))
            return None
        model: ResourceBinding | ClusterResourceBinding = (
            ResourceBinding.from_object(obj)
            if kind == constants.RESOURCE_BINDING.kind
            else ClusterResourceBinding.from_object(obj)
        )
        if model.metadata.deletion_timestamp:
            await self._delete_works(self._index.works_of(key))
            await self._set_finalizer(kind, obj, present=False)
            log.info("binding.finalized", kind=kind, namespace=namespace, name=name)
            return None
        template = await self._template(model.spec)
        if template is None:
            return None  # the template is gone; the garbage collector deletes the binding next
        await self._set_finalizer(kind, obj, present=True)
        reference = BindingReference(kind, namespace, name, model.permanent_id)
        targets = target_clusters(model.spec)
        wanted = {names.execution_namespace(target.name) for target in targets}
        kept = {names.execution_namespace(cluster) for cluster in clusters_keeping_works(model.spec)}
        await self._delete_works(
            work for work in self._index.works_of(key) if work.namespace not in wanted | kept
        )
        work_name = names.work_name(
            str(template.get("kind") or ""),
            str((template.get("metadata") or {}).get("name") or ""),
            str((template.get("metadata") or {}).get("namespace") or ""),
        )
        template_uid = str((template.get("metadata") or {}).get("uid") or "")
        completions = job_completions(template, targets, template_uid)
        results = await asyncio.gather(
            *(
                self._ensure_work(
                    reference, model.spec, template, target.name, target.replicas, completions, work_name
                )
                for target in targets
            ),
            return_exceptions=True,
        )
        failures = [result for result in results if isinstance(result, BaseException)]
        # Retryable failures first: a terminal one is reported once the others have gone.
        terminal = [f for f in failures if isinstance(f, RenderError | WorkRefused)]
        others = [f for f in failures if not isinstance(f, RenderError | WorkRefused)]
        if others:
            raise others[0]
        if terminal:
            await self._report_sync_failure(obj, template, str(terminal[0]))
            raise terminal[0]
        return None

    async def _report_sync_failure(
        self, binding: Mapping[str, Any], template: Mapping[str, Any], why: str
    ) -> None:
        """Warning Events on the binding and its template (Karmada reports on both)."""
        now = format_time(self.ctx.clock.now())
        for regarding in (binding, template):
            event = object_event(
                regarding, WARNING, EVENT_SYNC_WORK_FAILED, why, component=EVENT_COMPONENT, now=now
            )
            await record_event(self.ctx.hub, event, controller=self.NAME, field_manager=FIELD_MANAGER)

    async def _ensure_work(
        self,
        binding: BindingReference,
        spec: ResourceBindingSpec,
        template: Mapping[str, Any],
        cluster_name: str,
        replicas: int | None,
        completions: dict[str, int] | None,
        work_name: str,
    ) -> None:
        cluster = self._clusters.get(cluster_name)
        if cluster is None:
            log.info(
                "binding.cluster_unknown",
                binding=binding.name,
                namespace=binding.namespace,
                cluster=cluster_name,
            )
            return
        work_namespace = names.execution_namespace(cluster_name)
        template_namespace = str((template.get("metadata") or {}).get("namespace") or "")
        interpreter = self._interpretation.interpreter()
        try:
            render = partial(
                render_manifest,
                template,
                binding=binding,
                spec=spec,
                cluster=cluster,
                replicas=replicas,
                completions=None if completions is None else completions.get(cluster_name, 0),
                work_name=work_name,
                work_namespace=work_namespace,
                cluster_override_policies=self._cluster_override_policies.list(),
                override_policies=self._override_policies.list(namespace=template_namespace)
                if template_namespace
                else (),
                interpreter=interpreter,
            )
            customized = interpreter.customizes(template, Operation.REVISE_REPLICA)
            rendered = await self._interpretation.off_loop(render, customized=customized)
        except (InterpreterError, OverrideError) as exc:
            raise RenderError(
                f"cannot render {binding.kind} {binding.namespace}/{binding.name} for {cluster_name}: {exc}"
            ) from exc
        finally:
            await self._interpretation.report_failures(self.ctx.hub, interpreter, controller=self.NAME)
        desired = work_object(
            rendered,
            binding=binding,
            name=work_name,
            namespace=work_namespace,
            suspend_dispatching=suspends_dispatching(spec, cluster_name),
            preserve_resources_on_deletion=bool(spec.preserve_resources_on_deletion),
        )
        existing = self._works.get(work_name, namespace=work_namespace)
        if existing is not None:
            if (existing.get("metadata") or {}).get("deletionTimestamp"):
                return  # re-created once its deletion completes (the DELETED event enqueues us)
            if work_up_to_date(existing, desired):
                return
        key = ObjectKey(work_namespace, work_name)
        if self._written.already_written(key, desired):
            return
        try:
            written = await self.ctx.hub.apply(desired, field_manager=FIELD_MANAGER, force=True)
        except APIStatusError as exc:
            if not is_rejected_request(exc):
                raise
            raise WorkRefused(
                f"Work {work_namespace}/{work_name} for cluster {cluster_name} refused: {exc.message}"
            ) from exc
        self._written.remember(key, desired, written)
        log.info(
            "binding.work_applied",
            binding=binding.name,
            namespace=binding.namespace,
            cluster=cluster_name,
            work=work_name,
            created=existing is None,
        )

    async def _template(self, spec: ResourceBindingSpec) -> dict[str, Any] | None:
        resource = spec.resource
        gvk = template_gvk(resource.api_version, resource.kind)
        informer: Informer = self.ctx.informers.get(gvk)
        if gvk not in self._template_kinds:
            self._template_kinds.add(gvk)
            informer.add_handler(self._on_template)
        if not informer.synced:
            try:
                await informer.wait_synced(TEMPLATE_SYNC_TIMEOUT)
            except TimeoutError as exc:
                raise TimeoutError(f"the informer of {gvk} has not listed yet") from exc
        return informer.get(resource.name, namespace=resource.namespace or "")

    async def _delete_works(self, works: Iterable[ObjectKey]) -> None:
        for key in works:
            work = self._works.get(key.name, namespace=key.namespace)
            if work is not None and (work.get("metadata") or {}).get("deletionTimestamp"):
                continue
            await self.ctx.hub.delete(constants.WORK, key.name, namespace=key.namespace)
            log.info("binding.work_deleted", namespace=key.namespace, work=key.name)

    async def _set_finalizer(self, kind: str, obj: Mapping[str, Any], *, present: bool) -> None:
        patch = finalizer_patch(obj, FINALIZERS[kind], present=present)
        if patch is None:
            return
        metadata = obj.get("metadata") or {}
        await self.ctx.hub.patch(
            GVKS[kind],
            str(metadata.get("name") or ""),
            patch,
            namespace=str(metadata.get("namespace") or ""),
            patch_type=MERGE_PATCH,
            field_manager=FIELD_MANAGER,
        )
