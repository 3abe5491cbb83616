"""The resource detector: claims templates for propagation policies and keeps their bindings.

It watches every kind the hub serves (`watched.template_kinds`, one shared informer per kind,
re-read from discovery every 30 seconds, and a second after any CustomResourceDefinition event, so
kinds defined later are picked up) plus the PropagationPolicies and ClusterPropagationPolicies,
which it files in a `PolicyIndex` as they arrive. Template events enqueue the template; policy
events enqueue every template the policy selects or selected before the change. The queue key of
a template is its kind, namespace and name; a sentinel key runs discovery and requeues itself.

Reconciling a template, from the informer caches (level-based, nothing remembered from events):

1. skip it if it is gone, being deleted, or in a reserved or `kube-*` namespace;
2. choose its policy (`matching.choose_policy`: a live claim sticks unless preempted);
3. no policy: release it — the claim comes off the binding, then off the template; the binding
   itself stays, so workloads keep running where they are (Karmada's behaviour);
4. a policy: wait for the OverridePolicies it names in `dependentOverrides`, put its claim on the
   template (a merge patch of labels and annotations), then server-side apply the binding
   (`binding.build_binding`) as `flotilla-detector`, unless it is already up to date. A binding
   controlled by another object of the same name (an older template) is left to the garbage
   collector and retried. With `activationPreference: Lazy`, a binding that already reflects the
   current template is not refreshed for a policy change. A binding the hub refuses as it is (400,
   413, 422) is not retried: a Warning Event `ApplyPolicyFailed` on the template says why (Karmada's
   reason and wording), and the next change of the template or the policy tries again.

A policy being deleted keeps its finalizer until the detector has released every template it
claimed (`policydeletion`): its queue key is the policy's own, and reconciling it takes the claim
off each such template and its binding, requeues the template so another policy may claim it, and
then removes the finalizer.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Final

import structlog
from pydantic import ValidationError

from flotilla.api.karmada import constants
from flotilla.api.karmada.names import new_permanent_id
from flotilla.api.karmada.policy import ClusterPropagationPolicy, PropagationPolicy
from flotilla.api.objectkeys import KindKey
from flotilla.api.objects import metadata_of
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.client import APIStatusError, NotFound
from flotilla.client.client import JSON_PATCH, MERGE_PATCH
from flotilla.client.errors import is_rejected_request
from flotilla.client.informer import Informer
from flotilla.controllers.detector import watched
from flotilla.controllers.detector.binding import (
    binding_kind,
    binding_name_of,
    binding_up_to_date,
    build_binding,
    controller_uid,
    spec_of,
)
from flotilla.controllers.detector.claims import claim_patch, is_claimed
from flotilla.controllers.detector.index import IndexedPolicy, PolicyIndex
from flotilla.controllers.detector.matching import Policy, choose_policy
from flotilla.controllers.detector.policydeletion import (
    PolicyKey,
    awaits_cleanup,
    finalizer_removal,
    permanent_id,
    policy_key,
    release_patch,
    selected_kinds,
)
from flotilla.interpreter.lua import Operation
from flotilla.runtime.controller import TerminalError
from flotilla.runtime.events import WARNING, object_event, record_event
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.detector")

Handler = Callable[[str, dict[str, Any] | None, dict[str, Any] | None], None]

FIELD_MANAGER = "flotilla-detector"
EVENT_COMPONENT = "resource-detector"
"""Who reports the detector's Events (Karmada's name for it)."""
EVENT_APPLY_POLICY_FAILED = "ApplyPolicyFailed"
PRIORITY_CLASS = GroupVersionKind("scheduling.k8s.io", "v1", "PriorityClass")
DISCOVERY_INTERVAL = 30.0
"""Seconds between discovery reads (Karmada's detector uses the same period)."""
CRD_DISCOVERY_DELAY = 1.0
"""Seconds after a CustomResourceDefinition event before discovery is read again."""
CUSTOM_RESOURCE_DEFINITION_GROUP = "apiextensions.k8s.io"
CUSTOM_RESOURCE_DEFINITION_KIND = "CustomResourceDefinition"
DISCOVER_KINDS: Final = "discover-kinds"
"""The queue key that reads discovery and starts informers for new kinds."""
DISCOVERY_WAIT = 0.5
"""Seconds before a policy's cleanup looks again when discovery has not been read yet."""
TEMPLATE_SYNC_TIMEOUT = 30.0
"""Seconds a policy's cleanup waits for a template kind's informer to list it."""


@dataclass(frozen=True, slots=True)
class TemplateKey(KindKey):
    """The queue key of one resource template."""


class WaitingForGarbageCollection(Exception):
    """The binding's name is held by a binding of an older template; the garbage collector frees it."""


class WaitingForDependentOverrides(Exception):
    """A policy names OverridePolicies in `dependentOverrides` that do not exist yet."""


def _policy_changed(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    """A policy update that can change what it claims: spec, permanent id or deletion."""
    new_meta, old_meta = metadata_of(new), metadata_of(old)
    return any(
        new_meta.get(field) != old_meta.get(field) for field in ("generation", "labels", "deletionTimestamp")
    )


class DetectorController(HubController):
    NAME = "detector"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        informers = ctx.informers
        self._templates: dict[GroupVersionKind, Informer] = {}
        self._policy_index = PolicyIndex(self._parser(PropagationPolicy), namespaced=True)
        self._cluster_policy_index = PolicyIndex(self._parser(ClusterPropagationPolicy), namespaced=False)
        self._propagation_policies = informers.get(constants.PROPAGATION_POLICY)
        self._interpretation = ctx.interpretation()
        self._cluster_propagation_policies = informers.get(constants.CLUSTER_PROPAGATION_POLICY)
        self._bindings = {
            constants.RESOURCE_BINDING: informers.get(constants.RESOURCE_BINDING),
            constants.CLUSTER_RESOURCE_BINDING: informers.get(constants.CLUSTER_RESOURCE_BINDING),
        }
        self._override_policies = informers.get(constants.OVERRIDE_POLICY)
        self._cluster_override_policies = informers.get(constants.CLUSTER_OVERRIDE_POLICY)
        self._discovered = False

    # -- wiring -------------------------------------------------------------------------------------

    def setup(self) -> None:
        for gvk, informer, index in (
            (constants.PROPAGATION_POLICY, self._propagation_policies, self._policy_index),
            (
                constants.CLUSTER_PROPAGATION_POLICY,
                self._cluster_propagation_policies,
                self._cluster_policy_index,
            ),
        ):
            informer.add_handler(self._on_policy(gvk, index))
            for obj in informer.list():  # an informer another controller already started
                index.upsert(obj)
                if awaits_cleanup(gvk, obj):
                    self.enqueue(policy_key(gvk, obj))
        self.enqueue(DISCOVER_KINDS)

    def _on_template(self, gvk: GroupVersionKind) -> Handler:
        def handle(event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
            if gvk.group == CUSTOM_RESOURCE_DEFINITION_GROUP and gvk.kind == CUSTOM_RESOURCE_DEFINITION_KIND:
                # A CRD came or went: read discovery soon rather than at the next period.
                self.loop.enqueue_after(DISCOVER_KINDS, CRD_DISCOVERY_DELAY)
            if watched.enqueue_worthy(event, new, old):
                assert new is not None
                metadata = metadata_of(new)
                self.enqueue(TemplateKey(gvk, str(metadata.get("namespace") or ""), str(metadata["name"])))

        return handle

    def _on_policy(self, gvk: GroupVersionKind, index: PolicyIndex[Any]) -> Handler:
        def handle(event: str, new: dict[str, Any] | None, old: dict[str, Any] | None) -> None:
            if new is not None:
                index.upsert(new)
                if awaits_cleanup(gvk, new):
                    self.enqueue(policy_key(gvk, new))
            elif old is not None:
                index.remove(old)
            if event == "MODIFIED" and new is not None and old is not None and not _policy_changed(new, old):
                return
            for policy in (new, old):
                if policy is not None:
                    for key in self._selected_templates(policy):
                        self.enqueue(key)

        return handle

    def _selected_templates(self, policy: Mapping[str, Any]) -> Iterator[TemplateKey]:
        """Templates a policy object's selectors may select (names exactly, otherwise whole kinds)."""
        policy_namespace = metadata_of(policy).get("namespace") or None
        for selector in spec_of(policy).get("resourceSelectors") or ():
            if not isinstance(selector, Mapping):
                continue
            gvk = GroupVersionKind.of(selector)
            informer = self._templates.get(gvk)
            if informer is None:
                continue
            namespace = policy_namespace or selector.get("namespace") or None
            name = selector.get("name")
            if name and namespace is not None:
                found = informer.get(str(name), namespace=str(namespace))
                candidates = [found] if found is not None else []
            else:
                candidates = informer.list(namespace=namespace)
            for obj in candidates:
                metadata = metadata_of(obj)
                if name and metadata.get("name") != name:
                    continue
                yield TemplateKey(gvk, str(metadata.get("namespace") or ""), str(metadata.get("name")))

    # -- reconcile ----------------------------------------------------------------------------------

    async def reconcile(self, key: Any) -> float | None:
        if key == DISCOVER_KINDS:
            return await self._discover_kinds()
        if isinstance(key, PolicyKey):
            return await self._finish_policy_deletion(key)
        assert isinstance(key, TemplateKey)
        await self._reconcile_template(key)
        return None

    async def _discover_kinds(self) -> float:
        mapper = await self.ctx.hub.discover(force=True)
        added = []
        for info in watched.template_kinds(mapper):
            if info.gvk in self._templates:
                continue
            informer = self.ctx.informers.get(info.gvk)
            informer.add_handler(self._on_template(info.gvk))
            self._templates[info.gvk] = informer
            added.append(str(info.gvk))
            # Another controller may have started this informer already: its cache has no events
            # left to give us, so its objects are enqueued here.
            for obj in informer.list():
                if watched.is_template(obj):
                    metadata = metadata_of(obj)
                    self.enqueue(
                        TemplateKey(info.gvk, str(metadata.get("namespace") or ""), str(metadata["name"]))
                    )
        if added:
            log.info("detector.kinds_watched", controller=self.NAME, added=added, total=len(self._templates))
        self._discovered = True
        return DISCOVERY_INTERVAL

    async def _reconcile_template(self, key: TemplateKey) -> None:
        informer = self._templates.get(key.gvk)
        template = informer.get(key.name, namespace=key.namespace) if informer is not None else None
        if (
            template is None
            or metadata_of(template).get("deletionTimestamp")
            or not watched.is_template(template)
        ):
            return
        policy = choose_policy(
            template,
            self._policy_index.candidates(template),
            self._cluster_policy_index.candidates(template),
        )
        if policy is None:
            await self._release(key, template)
            return
        self._require_dependent_overrides(policy)
        claimed = await self._claim(key, template, policy)
        if claimed is not None:
            await self._apply_binding(key, claimed, policy)

    # -- policies -----------------------------------------------------------------------------------

    @staticmethod
    def _parser(model: type[IndexedPolicy]) -> Callable[[Mapping[str, Any]], IndexedPolicy | None]:
        """Parse a policy object into its typed model; one that does not parse is logged and skipped."""

        def parse(obj: Mapping[str, Any]) -> IndexedPolicy | None:
            try:
                return model.from_object(obj)
            except ValidationError as exc:
                metadata = metadata_of(obj)
                log.warning(
                    "detector.policy_unreadable",
                    controller=DetectorController.NAME,
                    kind=model.__name__,
                    namespace=metadata.get("namespace"),
                    name=metadata.get("name"),
                    error=str(exc),
                )
                return None

        return parse

    def _require_dependent_overrides(self, policy: Policy) -> None:
        if isinstance(policy, PropagationPolicy):
            namespace = policy.metadata.namespace or ""
            missing = [
                name
                for name in policy.spec.dependent_overrides
                if self._override_policies.get(name, namespace=namespace) is None
            ]
        else:
            missing = [
                name
                for name in policy.spec.dependent_overrides
                if self._cluster_override_policies.get(name) is None
            ]
        if missing:
            raise WaitingForDependentOverrides(
                f"{policy.kind} {policy.metadata.name} waits for its dependent overrides: "
                + ", ".join(missing)
            )

    async def _schedule_priority(self, policy: Policy) -> int | None:
        """The value of the PriorityClass the policy names, None when it names none."""
        source = policy.spec.schedule_priority
        if source is None or not source.priority_class_name:
            return None
        if source.priority_class_source not in (None, constants.PriorityClassSource.KUBE_PRIORITY_CLASS):
            raise TerminalError(
                f"{policy.kind} {policy.metadata.name}: priority class source "
                f"{source.priority_class_source} is not supported (only KubePriorityClass is)"
            )
        priority_class = await self.ctx.hub.get_or_none(PRIORITY_CLASS, source.priority_class_name)
        if priority_class is None:
            raise LookupError(f"PriorityClass {source.priority_class_name} not found")
        value = priority_class.get("value")
        return value if isinstance(value, int) else 0

    # -- writes -------------------------------------------------------------------------------------

    async def _claim(
        self, key: TemplateKey, template: dict[str, Any], policy: Policy
    ) -> dict[str, Any] | None:
        """The template with the policy's claim on it (patched when needed); None if it is gone."""
        patch = claim_patch(template, policy)
        if patch is None:
            return template
        try:
            claimed = await self.ctx.hub.patch(
                key.gvk,
                key.name,
                patch,
                namespace=key.namespace,
                patch_type=MERGE_PATCH,
                field_manager=FIELD_MANAGER,
            )
        except NotFound:
            return None
        log.info(
            "detector.claimed",
            controller=self.NAME,
            kind=key.gvk.kind,
            namespace=key.namespace,
            name=key.name,
            policy_kind=policy.kind,
            policy=policy.metadata.name,
        )
        return claimed

    async def _apply_binding(self, key: TemplateKey, template: dict[str, Any], policy: Policy) -> None:
        gvk = binding_kind(template)
        name = binding_name_of(template)
        existing = self._bindings[gvk].get(name, namespace=key.namespace)
        template_uid = str(metadata_of(template).get("uid") or "")
        if existing is not None:
            owner = controller_uid(existing)
            if owner is not None and owner != template_uid:
                raise WaitingForGarbageCollection(
                    f"{gvk.kind} {name} belongs to another object (uid {owner}); "
                    "waiting for its garbage collection"
                )
            if self._lazy_and_current(existing, template, policy):
                return
        labels = metadata_of(existing or {}).get("labels") or {}
        id_label = (
            constants.RESOURCE_BINDING_PERMANENT_ID_LABEL
            if gvk == constants.RESOURCE_BINDING
            else constants.CLUSTER_RESOURCE_BINDING_PERMANENT_ID_LABEL
        )
        permanent_id = str(labels.get(id_label) or new_permanent_id())
        interpreter = self._interpretation.interpreter()
        build = partial(
            build_binding,
            template,
            policy,
            permanent_id=permanent_id,
            schedule_priority=await self._schedule_priority(policy),
            interpreter=interpreter,
        )
        customized = interpreter.customizes(template, Operation.INTERPRET_REPLICA)
        desired = await self._interpretation.off_loop(build, customized=customized)
        await self._interpretation.report_failures(self.ctx.hub, interpreter, controller=self.NAME)
        if existing is not None and binding_up_to_date(existing, desired):
            return
        try:
            await self.ctx.hub.apply(desired, field_manager=FIELD_MANAGER, force=True)
        except APIStatusError as exc:
            if not is_rejected_request(exc):
                raise
            await self._report_apply_failure(template, policy, exc.message)
            raise TerminalError(f"{gvk.kind} {name} refused: {exc.message}") from exc
        log.info(
            "detector.binding_applied",
            controller=self.NAME,
            kind=key.gvk.kind,
            namespace=key.namespace,
            name=key.name,
            binding_kind=gvk.kind,
            binding=name,
            created=existing is None,
        )

    async def _report_apply_failure(self, template: Mapping[str, Any], policy: Policy, why: str) -> None:
        """A Warning Event on the template, worded as Karmada's detector words it."""
        if isinstance(policy, PropagationPolicy):
            applying = f"Apply policy({policy.metadata.namespace}/{policy.metadata.name})"
        else:
            applying = f"Apply cluster policy({policy.metadata.name})"
        event = object_event(
            template,
            WARNING,
            EVENT_APPLY_POLICY_FAILED,
            f"{applying} failed: {why}",
            component=EVENT_COMPONENT,
            now=format_time(self.ctx.clock.now()),
        )
        await record_event(self.ctx.hub, event, controller=self.NAME, field_manager=FIELD_MANAGER)

    @staticmethod
    def _lazy_and_current(existing: Mapping[str, Any], template: Mapping[str, Any], policy: Policy) -> bool:
        """Lazy activation: the binding already reflects this template version for this policy."""
        if policy.spec.activation_preference != constants.ActivationPreference.LAZY:
            return False
        if claim_patch(existing, policy) is not None:
            return False
        resource = spec_of(existing).get("resource")
        if not isinstance(resource, Mapping):
            return False
        return bool(resource.get("resourceVersion")) and resource.get("resourceVersion") == metadata_of(
            template
        ).get("resourceVersion")

    # -- deleted policies ---------------------------------------------------------------------------

    async def _finish_policy_deletion(self, key: PolicyKey) -> float | None:
        """Release what a deleted policy claimed, then remove its finalizer (the API server deletes it)."""
        informer = (
            self._propagation_policies
            if key.gvk == constants.PROPAGATION_POLICY
            else self._cluster_propagation_policies
        )
        policy = informer.get(key.name, namespace=key.namespace)
        if policy is None or not awaits_cleanup(key.gvk, policy):
            return None
        if not self._discovered:
            return DISCOVERY_WAIT  # which kinds are templates is not known yet
        policy_id = permanent_id(key.gvk, policy)
        released = 0
        for gvk, namespace in selected_kinds(policy):
            templates = self._templates.get(gvk)
            if templates is None or not policy_id:
                continue  # not a kind the hub serves as templates: nothing of it was claimed
            await templates.wait_synced(TEMPLATE_SYNC_TIMEOUT)
            for template in templates.list(namespace=namespace):
                if permanent_id(key.gvk, template) == policy_id:
                    await self._release_claim(gvk, template, key.gvk, policy_id)
                    released += 1
        operations = finalizer_removal(key.gvk, policy)
        if operations is not None:
            with contextlib.suppress(NotFound):
                await self.ctx.hub.patch(
                    key.gvk,
                    key.name,
                    operations,
                    namespace=key.namespace,
                    patch_type=JSON_PATCH,
                    field_manager=FIELD_MANAGER,
                )
        log.info(
            "detector.policy_released",
            controller=self.NAME,
            kind=key.gvk.kind,
            namespace=key.namespace,
            name=key.name,
            templates=released,
        )
        return None

    async def _release_claim(
        self, gvk: GroupVersionKind, template: dict[str, Any], policy_gvk: GroupVersionKind, policy_id: str
    ) -> None:
        """Take a deleted policy's claim off the template's binding, then off the template (Karmada's
        order: a template released first would not be found again to release its binding), each
        patch conditional on the version read; the template is then matched afresh."""
        metadata = metadata_of(template)
        key = TemplateKey(gvk, str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
        binding_gvk = binding_kind(template)
        binding_name = binding_name_of(template)
        binding = self._bindings[binding_gvk].get(binding_name, namespace=key.namespace)
        if (
            binding is not None
            and controller_uid(binding) in (None, metadata.get("uid"))
            and permanent_id(policy_gvk, binding) == policy_id
        ):
            await self._patch_unless_gone(binding_gvk, binding_name, key.namespace, release_patch(binding))
        await self._patch_unless_gone(gvk, key.name, key.namespace, release_patch(template))
        self.enqueue(key)

    async def _patch_unless_gone(
        self, gvk: GroupVersionKind, name: str, namespace: str, patch: dict[str, Any] | None
    ) -> None:
        if patch is None:
            return
        with contextlib.suppress(NotFound):
            await self.ctx.hub.patch(
                gvk, name, patch, namespace=namespace, patch_type=MERGE_PATCH, field_manager=FIELD_MANAGER
            )

    async def _release(self, key: TemplateKey, template: dict[str, Any]) -> None:
        """No policy selects the template: take the claim off its binding, then off the template."""
        if not is_claimed(template):
            return
        gvk = binding_kind(template)
        name = binding_name_of(template)
        existing = self._bindings[gvk].get(name, namespace=key.namespace)
        if existing is not None and controller_uid(existing) in (None, metadata_of(template).get("uid")):
            patch = claim_patch(existing, None)
            if patch is not None:
                with contextlib.suppress(NotFound):
                    await self.ctx.hub.patch(
                        gvk,
                        name,
                        patch,
                        namespace=key.namespace,
                        patch_type=MERGE_PATCH,
                        field_manager=FIELD_MANAGER,
                    )
        patch = claim_patch(template, None)
        if patch is None:
            return
        try:
            await self.ctx.hub.patch(
                key.gvk,
                key.name,
                patch,
                namespace=key.namespace,
                patch_type=MERGE_PATCH,
                field_manager=FIELD_MANAGER,
            )
        except NotFound:
            return
        log.info(
            "detector.released",
            controller=self.NAME,
            kind=key.gvk.kind,
            namespace=key.namespace,
            name=key.name,
        )
