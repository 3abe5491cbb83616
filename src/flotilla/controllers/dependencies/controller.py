"""The dependencies distributor: ConfigMaps, Secrets and others follow the workloads that use them.

Two kinds of queue keys, both level-based:

* a *referrer* (an independent ResourceBinding with `propagateDeps`, once scheduled, as Karmada
  waits for it too): its template is read, the interpreter lists what it depends on, and the
  list is recorded on the binding as the `resourcebinding.karmada.io/dependencies` annotation (a
  merge patch, field manager `flotilla-dependencies`). Changing the annotation is itself a binding
  event, which enqueues the dependencies it lists, before and after.
* a *dependency* (one object a referrer lists): every live referrer in its namespace that lists it
  is found in the binding cache, and its attached binding is made to say so (`attached`): created
  or updated with server-side apply, trimmed on a binding a policy placed, deleted when nothing
  needs it any more (unless a policy placed it). A dependency that is gone needs nothing: its
  attached binding goes with it through the ownerReference.

Binding events enqueue the referrer and every dependency it lists (old and new); events of the
dependency kinds (ConfigMap, Secret, ServiceAccount, PersistentVolumeClaim, Service,
EndpointSlice) enqueue the object, so a dependency created after its workload, or edited, is
picked up and its attached binding carries its current resourceVersion.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import structlog

from flotilla.api.karmada import constants, names
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.objects import metadata_of, spec_of
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import NotFound
from flotilla.client.client import MERGE_PATCH
from flotilla.client.informer import Informer
from flotilla.controllers.dependencies.attached import (
    DEPENDENCIES_ANNOTATION,
    attached_binding,
    attached_up_to_date,
    dependencies_annotation,
    is_placed,
    needs_attachment_cleanup,
    propagates_dependencies,
    recorded_dependencies,
    referrer_index_values,
    referrer_lookups,
    refers_to,
    requires,
)
from flotilla.interpreter import InterpreterError
from flotilla.interpreter.lua import Operation
from flotilla.runtime.controller import TerminalError
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.dependencies")

FIELD_MANAGER = "flotilla-dependencies"
REFERRERS_INDEX = "dependencies.referrers"
"""The binding informer's index of independent bindings by what they depend on."""
DEPENDENCY_KINDS = (
    GroupVersionKind("", "v1", "ConfigMap"),
    GroupVersionKind("", "v1", "Secret"),
    GroupVersionKind("", "v1", "ServiceAccount"),
    GroupVersionKind("", "v1", "PersistentVolumeClaim"),
    GroupVersionKind("", "v1", "Service"),
    GroupVersionKind("discovery.k8s.io", "v1", "EndpointSlice"),
)
"""The kinds the built-in interpreter names as dependencies; each gets an informer."""

Handler = Callable[[str, dict[str, Any] | None, dict[str, Any] | None], None]


@dataclass(frozen=True, slots=True)
class ReferrerKey:
    """An independent ResourceBinding whose dependencies are to be recorded."""

    namespace: str
    name: str


@dataclass(frozen=True, slots=True)
class DependencyKey:
    """One dependency object whose attached binding is to be kept."""

    gvk: GroupVersionKind
    namespace: str
    name: str


class WaitingForGarbageCollection(Exception):
    """The attached binding's name is held by a binding of an older object of the same name."""


def _binding_changed(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """A binding update that can change dependencies: spec, labels, annotations or deletion."""
    new_meta, old_meta = metadata_of(new), metadata_of(old)
    return any(
        new_meta.get(field) != old_meta.get(field)
        for field in ("generation", "labels", "annotations", "deletionTimestamp")
    )


def _controller_uid(obj: Mapping[str, Any]) -> str | None:
    for reference in metadata_of(obj).get("ownerReferences") or ():
        if isinstance(reference, Mapping) and reference.get("controller"):
            return str(reference.get("uid") or "")
    return None


class DependenciesController(HubController):
    NAME = "dependencies"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._bindings = ctx.informers.get(constants.RESOURCE_BINDING)
        self._interpretation = ctx.interpretation()
        self._dependencies: dict[GroupVersionKind, Informer] = {
            gvk: ctx.informers.get(gvk) for gvk in DEPENDENCY_KINDS
        }

    # -- wiring -------------------------------------------------------------------------------------

    def setup(self) -> None:
        self._bindings.add_index(REFERRERS_INDEX, referrer_index_values)
        self._bindings.add_handler(self._on_binding)
        for gvk, informer in self._dependencies.items():
            informer.add_handler(self._on_dependency(gvk))

    def _on_binding(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if event == "MODIFIED" and new is not None and old is not None and not _binding_changed(new, old):
            return
        for binding in (new, old):
            if binding is None:
                continue
            metadata = metadata_of(binding)
            namespace, name = str(metadata.get("namespace") or ""), str(metadata.get("name") or "")
            if spec_of(binding).get("propagateDeps"):
                self.enqueue(ReferrerKey(namespace, name))
            for dependency in recorded_dependencies(binding):
                for key in self._dependency_keys(dependency):
                    self.enqueue(key)
            if needs_attachment_cleanup(binding):
                resource = spec_of(binding).get("resource")
                if isinstance(resource, Mapping):
                    gvk = GroupVersionKind.of(resource)
                    self.enqueue(DependencyKey(gvk, namespace, str(resource.get("name") or "")))

    def _dependency_keys(self, dependency: Mapping[str, Any]) -> Iterator[DependencyKey]:
        gvk = GroupVersionKind.of(dependency)
        namespace = str(dependency.get("namespace") or "")
        if dependency.get("name"):
            yield DependencyKey(gvk, namespace, str(dependency["name"]))
            return
        informer = self._dependencies.get(gvk)
        for obj in informer.list(namespace=namespace) if informer is not None else ():
            if refers_to(dependency, obj):
                yield DependencyKey(gvk, namespace, str(metadata_of(obj).get("name") or ""))

    def _on_dependency(self, gvk: GroupVersionKind) -> Handler:
        def handle(event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
            obj = new if new is not None else old
            if obj is None:
                return
            metadata = metadata_of(obj)
            namespace = str(metadata.get("namespace") or "")
            if not namespace or names.is_reserved_namespace(namespace):
                return
            self.enqueue(DependencyKey(gvk, namespace, str(metadata.get("name") or "")))

        return handle

    # -- reconcile ----------------------------------------------------------------------------------

    async def reconcile(self, key: Any) -> float | None:
        if isinstance(key, ReferrerKey):
            await self._record_dependencies(key)
        else:
            assert isinstance(key, DependencyKey)
            await self._sync_attached_binding(key)
        return None

    async def _record_dependencies(self, key: ReferrerKey) -> None:
        """Write the referrer's current dependencies into its annotation."""
        binding = self._bindings.get(key.name, namespace=key.namespace)
        if binding is None or not propagates_dependencies(binding):
            return
        if not spec_of(binding).get("clusters"):
            # As Karmada's distributor: not scheduled yet, nothing to follow it anywhere. Its
            # dependencies are recorded once the scheduler placed it (a new generation), so their
            # attached bindings are written once, with clusters, not once empty and again.
            return
        resource = spec_of(binding).get("resource")
        if not isinstance(resource, Mapping):
            return
        gvk = GroupVersionKind.of(resource)
        template = await self.ctx.hub.get_or_none(
            gvk, str(resource.get("name") or ""), namespace=key.namespace
        )
        if template is None:
            return
        interpreter = self._interpretation.interpreter()
        try:
            found = await self._interpretation.off_loop(
                partial(interpreter.get_dependencies, template),
                customized=interpreter.customizes(template, Operation.INTERPRET_DEPENDENCY),
            )
        except InterpreterError as exc:
            raise TerminalError(f"dependencies of {gvk.kind} {resource.get('name')}: {exc}") from exc
        finally:
            await self._interpretation.report_failures(self.ctx.hub, interpreter, controller=self.NAME)
        dependencies = [d for d in found if (d.get("namespace") or "") == key.namespace]
        wanted = dependencies_annotation(dependencies) if dependencies else None
        annotations = metadata_of(binding).get("annotations") or {}
        if annotations.get(DEPENDENCIES_ANNOTATION) == wanted:
            return
        patch = {"metadata": {"annotations": {DEPENDENCIES_ANNOTATION: wanted}}}
        try:
            await self.ctx.hub.patch(
                constants.RESOURCE_BINDING,
                key.name,
                patch,
                namespace=key.namespace,
                patch_type=MERGE_PATCH,
                field_manager=FIELD_MANAGER,
            )
        except NotFound:
            return
        log.info(
            "dependencies.recorded",
            controller=self.NAME,
            namespace=key.namespace,
            binding=key.name,
            dependencies=len(dependencies),
        )

    async def _dependency(self, key: DependencyKey) -> dict[str, Any] | None:
        informer = self._dependencies.get(key.gvk)
        if informer is not None:
            return informer.get(key.name, namespace=key.namespace)
        return await self.ctx.hub.get_or_none(key.gvk, key.name, namespace=key.namespace)

    async def _sync_attached_binding(self, key: DependencyKey) -> None:
        obj = await self._dependency(key)
        if obj is None or metadata_of(obj).get("deletionTimestamp"):
            return
        binding_name = names.binding_name(key.gvk.kind, key.name)
        existing = self._bindings.get(binding_name, namespace=key.namespace)
        referrers = self._referrers(obj)
        uid = str(metadata_of(obj).get("uid") or "")
        if existing is not None and not is_placed(existing) and _controller_uid(existing) not in (None, uid):
            raise WaitingForGarbageCollection(
                f"ResourceBinding {key.namespace}/{binding_name} belongs to another object; "
                "waiting for its garbage collection"
            )
        if not referrers:
            await self._detach(key, binding_name, obj, existing)
            return
        desired = attached_binding(obj, referrers, existing)
        if existing is not None and attached_up_to_date(existing, desired):
            return
        await self.ctx.hub.apply(desired, field_manager=FIELD_MANAGER, force=True)
        log.info(
            "dependencies.attached",
            controller=self.NAME,
            kind=key.gvk.kind,
            namespace=key.namespace,
            name=key.name,
            binding=binding_name,
            required_by=len(referrers),
        )

    def _referrers(self, obj: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The live independent bindings that need `obj`, from the index (no scan of every binding)."""
        by_name, by_selector = referrer_lookups(obj)
        candidates = {
            ObjectKey.of(binding): binding
            for value in (by_name, by_selector)
            for binding in self._bindings.indexed(REFERRERS_INDEX, value)
        }
        return [binding for binding in candidates.values() if requires(binding, obj)]

    async def _detach(
        self,
        key: DependencyKey,
        binding_name: str,
        obj: Mapping[str, Any],
        existing: Mapping[str, Any] | None,
    ) -> None:
        """Nothing needs the object: delete its attached binding, or trim one a policy placed."""
        if existing is None or not needs_attachment_cleanup(existing):
            return
        if is_placed(existing):
            await self.ctx.hub.apply(
                attached_binding(obj, [], existing), field_manager=FIELD_MANAGER, force=True
            )
        else:
            await self.ctx.hub.delete(
                constants.RESOURCE_BINDING,
                binding_name,
                namespace=key.namespace,
                uid=str(metadata_of(existing).get("uid") or ""),
            )
        log.info(
            "dependencies.detached",
            controller=self.NAME,
            kind=key.gvk.kind,
            namespace=key.namespace,
            name=key.name,
            binding=binding_name,
        )
