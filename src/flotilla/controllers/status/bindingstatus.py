"""The binding-status controller: Works → the binding's status → the template's own status.

For a binding it reads the Work of each target cluster from the informer and builds the
binding's `status.aggregatedStatus` and `FullyApplied` condition (`aggregation`), written with
server-side apply (field manager `flotilla-binding-status`; conditions are a list-map keyed by
type, so the scheduler's `Scheduled` condition beside it stays the scheduler's). Then the
template's own status is folded from the items by the resource interpreter
(`interpreter.aggregate_status`: replica counters summed, `observedGeneration` raised only when
every member runs the current template, a Deployment's Available and Progressing and a Job's
Complete or Failed conditions from every scheduled copy — a target cluster without a Work yet
counts as a copy not applied) and written to the template's `status` subresource as a
merge patch of what changed (`templatestatus`) — only when it changed, so `kubectl get deploy
nginx` on the hub shows `READY 2/2` once both members run their replica.

Keys are `(kind, namespace, name)` of bindings; Work status changes, binding changes and template
changes enqueue them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import structlog

from flotilla.api.karmada import constants, names
from flotilla.api.karmada.work import ClusterResourceBinding, ResourceBinding, ResourceBindingSpec
from flotilla.api.scheme import GroupVersion, GroupVersionKind
from flotilla.client.client import MERGE_PATCH
from flotilla.controllers.status.aggregation import (
    aggregated_status,
    fully_applied_condition,
    scheduled_items,
)
from flotilla.controllers.status.templatestatus import status_patch
from flotilla.interpreter import InterpreterError
from flotilla.interpreter.lua import Operation
from flotilla.runtime.controller import TerminalError
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.status")

FIELD_MANAGER = "flotilla-binding-status"
TEMPLATE_SYNC_TIMEOUT = 10.0
COALESCE_SECONDS = 0.1
"""How long Work status changes of one binding are gathered before its status is written."""

BindingKey = tuple[str, str, str]
GVKS = {
    constants.RESOURCE_BINDING.kind: constants.RESOURCE_BINDING,
    constants.CLUSTER_RESOURCE_BINDING.kind: constants.CLUSTER_RESOURCE_BINDING,
}


def object_key(kind: str, obj: Mapping[str, Any]) -> BindingKey:
    metadata = obj.get("metadata") or {}
    return (kind, str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))


def binding_of_work(work: Mapping[str, Any]) -> BindingKey | None:
    """The binding a Work was rendered from, by the annotations the binding controller writes."""
    annotations = (work.get("metadata") or {}).get("annotations") or {}
    if annotations.get(constants.RESOURCE_BINDING_NAME_ANNOTATION):
        return (
            constants.RESOURCE_BINDING.kind,
            str(annotations.get(constants.RESOURCE_BINDING_NAMESPACE_ANNOTATION) or ""),
            str(annotations[constants.RESOURCE_BINDING_NAME_ANNOTATION]),
        )
    if annotations.get(constants.CLUSTER_RESOURCE_BINDING_NAME_ANNOTATION):
        return (
            constants.CLUSTER_RESOURCE_BINDING.kind,
            "",
            str(annotations[constants.CLUSTER_RESOURCE_BINDING_NAME_ANNOTATION]),
        )
    return None


def binding_of_template(template: Mapping[str, Any]) -> BindingKey:
    _, namespace, name = object_key("", template)
    binding = names.binding_name(str(template.get("kind") or ""), name)
    if namespace:
        return (constants.RESOURCE_BINDING.kind, namespace, binding)
    return (constants.CLUSTER_RESOURCE_BINDING.kind, "", binding)


def fully_applied_of(binding: Mapping[str, Any]) -> Mapping[str, Any] | None:
    conditions = (binding.get("status") or {}).get("conditions") or []
    return next((c for c in conditions if c.get("type") == constants.CONDITION_FULLY_APPLIED), None)


def target_cluster_names(spec: ResourceBindingSpec) -> list[str]:
    """Scheduled clusters, then the clusters dependents need (as the binding controller delivers)."""
    found = [target.name for target in spec.clusters]
    for snapshot in spec.required_by:
        found += [target.name for target in snapshot.clusters if target.name not in found]
    return list(dict.fromkeys(found))


class BindingStatusController(HubController):
    NAME = "bindingStatus"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        self._bindings = {kind: ctx.informers.get(gvk) for kind, gvk in GVKS.items()}
        self._works = ctx.informers.get(constants.WORK)
        self._interpretation = ctx.interpretation()
        self._template_kinds: set[GroupVersionKind] = set()
        self._written: dict[BindingKey, dict[str, Any]] = {}
        """The template status last written, by binding, until the template shows another one."""

    def setup(self) -> None:
        for kind, informer in self._bindings.items():
            informer.add_handler(self._binding_handler(kind))
        self._works.add_handler(self._on_work)

    # -- events ---------------------------------------------------------------------------------

    def _binding_handler(self, kind: str) -> Any:
        def on_binding(event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
            if new is None:
                return
            # Our own status writes need no look; new targets, or a lost condition, do.
            if old is not None and old.get("spec") == new.get("spec") and fully_applied_of(new) is not None:
                return
            self.enqueue(object_key(kind, new))

        return on_binding

    def _on_work(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is not None and old is not None:
            new_metadata, old_metadata = new.get("metadata") or {}, old.get("metadata") or {}
            if new.get("status") == old.get("status") and new_metadata.get(
                "deletionTimestamp"
            ) == old_metadata.get("deletionTimestamp"):
                return
        binding = binding_of_work(new if new is not None else old or {})
        if binding is not None:
            # The Works of a binding report at about the same time: fold them in one write.
            self.loop.enqueue_after(binding, COALESCE_SECONDS)

    def _on_template(self, event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
        if new is None:
            if old is not None:
                self._written.pop(binding_of_template(old), None)
            return
        key = binding_of_template(new)
        status = new.get("status") or {}
        if old is not None and status != (old.get("status") or {}) and self._written.get(key) != status:
            # Another writer's status, or an older write of ours: look again from what it shows.
            self._written.pop(key, None)
            self.enqueue(key)
            return
        if old is not None and (old.get("metadata") or {}).get("generation") == (
            new.get("metadata") or {}
        ).get("generation"):
            return  # only a new generation changes what the status should say (observedGeneration)
        self.enqueue(key)

    # -- reconcile ------------------------------------------------------------------------------

    async def reconcile(self, key: BindingKey) -> float | None:
        kind, namespace, name = key
        obj = self._bindings[kind].get(name, namespace=namespace)
        if obj is None or (obj.get("metadata") or {}).get("deletionTimestamp"):
            return None
        model: ResourceBinding | ClusterResourceBinding = (
            ResourceBinding.from_object(obj)
            if kind == constants.RESOURCE_BINDING.kind
            else ClusterResourceBinding.from_object(obj)
        )
        template = await self._template(model.spec)
        if template is None:
            return None
        targets = target_cluster_names(model.spec)
        template_metadata = template.get("metadata") or {}
        work_name = names.work_name(
            str(template.get("kind") or ""),
            str(template_metadata.get("name") or ""),
            str(template_metadata.get("namespace") or ""),
        )
        works = {
            cluster: self._works.get(work_name, namespace=names.execution_namespace(cluster))
            for cluster in targets
        }
        items = aggregated_status(works, template)
        now = self.ctx.clock.now()
        await self._write_binding_status(kind, obj, items, fully_applied_condition(obj, targets, items, now))
        interpreter = self._interpretation.interpreter()
        if interpreter.aggregates_status(template):
            try:
                scheduled = scheduled_items(targets, items)
                aggregated = await self._interpretation.off_loop(
                    lambda: interpreter.aggregate_status(template, scheduled, now=now),
                    customized=interpreter.customizes(template, Operation.AGGREGATE_STATUS),
                )
            except InterpreterError as exc:
                raise TerminalError(
                    f"cannot aggregate the status of {kind} {namespace}/{name}: {exc}"
                ) from exc
            finally:
                await self._interpretation.report_failures(self.ctx.hub, interpreter, controller=self.NAME)
            patch = status_patch(template, aggregated, self._written.get(key))
            if patch is not None:
                _, template_namespace, template_name = object_key("", template)
                await self.ctx.hub.patch_status(
                    self._template_gvk(model.spec),
                    template_name,
                    patch,
                    namespace=template_namespace,
                    patch_type=MERGE_PATCH,
                    field_manager=FIELD_MANAGER,
                )
                self._written[key] = aggregated.get("status") or {}
                log.debug("binding_status.template_updated", kind=template.get("kind"), name=template_name)
        return None

    async def _write_binding_status(
        self, kind: str, obj: Mapping[str, Any], items: list[dict[str, Any]], condition: dict[str, Any]
    ) -> None:
        status = obj.get("status") or {}
        current = next(
            (c for c in status.get("conditions") or [] if c.get("type") == condition["type"]), None
        )
        if (status.get("aggregatedStatus") or []) == items and current == condition:
            return
        metadata = obj.get("metadata") or {}
        # Conditions are a list-map keyed by type: the scheduler's Scheduled condition stays its own.
        await self.ctx.hub.apply_status(
            {
                "apiVersion": GVKS[kind].api_version,
                "kind": kind,
                "metadata": {"name": metadata.get("name"), "namespace": metadata.get("namespace")},
                "status": {"aggregatedStatus": items, "conditions": [condition]},
            },
            field_manager=FIELD_MANAGER,
            force=True,
        )

    @staticmethod
    def _template_gvk(spec: ResourceBindingSpec) -> GroupVersionKind:
        group_version = GroupVersion.parse(spec.resource.api_version)
        return GroupVersionKind(group_version.group, group_version.version, spec.resource.kind)

    async def _template(self, spec: ResourceBindingSpec) -> dict[str, Any] | None:
        gvk = self._template_gvk(spec)
        informer = self.ctx.informers.get(gvk)
        if gvk not in self._template_kinds:
            self._template_kinds.add(gvk)
            informer.add_handler(self._on_template)
        if not informer.synced:
            await informer.wait_synced(TEMPLATE_SYNC_TIMEOUT)
        return informer.get(spec.resource.name, namespace=spec.resource.namespace or "")
