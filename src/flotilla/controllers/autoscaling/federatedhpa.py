"""The FederatedHPA reconciler: read the target and its member copies, decide a size, write `/scale`.

The queue key is a FederatedHPA's `ObjectKey`; it is enqueued when created or its spec changes,
and requeued every sync period (`--horizontal-pod-autoscaler-sync-period`). One reconcile, from a
live read, as Karmada's `reconcileAutoscaler`:

1. the template named by `scaleTargetRef` and its ResourceBinding (`<name>-<kind>`); the target
   clusters are the binding's `spec.clusters` that are Ready; the template's `/scale` gives the
   current replicas (the hub's count, not the members' sum) and the pod selector;
2. the members' copies, pods and pod metrics (`observation`); no member replicas at all is an
   error (FailedGetScale), as in Karmada;
3. kube's decision, pure (`flotilla.autoscaling.decision`, the simulated members' HPA's too): outside
   [min, max] the count is brought back in bounds; a target at zero replicas is left alone
   (ScalingDisabled); otherwise the selector is checked, the metrics propose a count from what step 2
   read and the behaviour rules stabilize and limit it. The members are read only when the decision
   needs their pods (`screen`, then `conclude`);
4. a new count is written to the template's `/scale` — the scheduler divides it over the clusters
   and the binding controller scales the member copies — with a `SuccessfulRescale` Event
   ("New size: N; reason: …");
5. the status (currentReplicas, desiredReplicas, currentMetrics, lastScaleTime, conditions) is
   written when it changed.

Recommendations and scale events live in this process's memory (as in kube and Karmada): a new
leader starts with the current size as its only recommendation.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import structlog

from flotilla.api.karmada import constants, names
from flotilla.api.karmada.autoscaling import FEDERATED_HPA, HPAConditionType, HPAEventReason
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.times import format_time
from flotilla.autoscaling import behavior, metricspecs
from flotilla.autoscaling.conditions import set_condition
from flotilla.autoscaling.decision import Autoscaling, PodsToRead, rivals_of
from flotilla.autoscaling.replicas import ReplicaCalculator
from flotilla.client import Client, ClientError
from flotilla.controllers.autoscaling.observation import observe, read_scale
from flotilla.runtime.events import NORMAL, WARNING, object_event, record_event
from flotilla.runtime.hubcontroller import ControllerContext, HubController

log = structlog.get_logger("flotilla.controllers.autoscaling")

FIELD_MANAGER = "flotilla-federated-hpa"
COMPONENT = "federatedhpa-controller"
Object = dict[str, Any]


class TargetUnavailable(Exception):
    """The target, its binding, its clusters or its scale could not be read: AbleToScale=False."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class FederatedHPAController(HubController):
    NAME = "federatedHorizontalPodAutoscaler"

    def __init__(self, ctx: ControllerContext) -> None:
        super().__init__(ctx)
        settings = ctx.settings
        self._autoscalers = ctx.informers.get(FEDERATED_HPA)
        self._clusters = ctx.informers.get(constants.CLUSTER)
        self._autoscaling = Autoscaling(
            ReplicaCalculator(
                tolerance=settings.hpa_tolerance,
                cpu_initialization_period=timedelta(seconds=settings.hpa_cpu_initialization_period),
                initial_readiness_delay=timedelta(seconds=settings.hpa_initial_readiness_delay),
            ),
            timedelta(seconds=settings.hpa_downscale_stabilization),
        )
        self._histories: dict[ObjectKey, behavior.ScalingHistory] = {}
        # Warnings recorded in the last round, per autoscaler: a failure that persists is one Event,
        # not one every sync period (kube's recorder folds repeats into a count instead).
        self._warned: dict[ObjectKey, set[tuple[str, str]]] = {}

    def setup(self) -> None:
        self._autoscalers.add_handler(self._on_autoscaler)

    def _on_autoscaler(self, event: str, new: Object | None, old: Object | None) -> None:
        obj = new if new is not None else old
        if obj is None:
            return
        if event == "MODIFIED" and old is not None and new is not None and old.get("spec") == new.get("spec"):
            return  # our own status writes; the sync period brings the next look
        self.enqueue(ObjectKey.of(obj))

    # -- reconcile ----------------------------------------------------------------------------------

    async def reconcile(self, key: ObjectKey) -> float | None:
        found = await self.ctx.hub.get_or_none(FEDERATED_HPA, key.name, namespace=key.namespace)
        if found is None or (found.get("metadata") or {}).get("deletionTimestamp"):
            self._histories.pop(key, None)
            self._warned.pop(key, None)
            return None
        autoscaler = copy.deepcopy(found)
        status: Object = copy.deepcopy(found.get("status") or {})
        status.setdefault("conditions", [])
        warnings = _Warnings(self._warned.get(key, set()))
        try:
            await self._autoscale(key, autoscaler, status, warnings)
        except TargetUnavailable as problem:
            self._condition(status, HPAConditionType.ABLE_TO_SCALE, False, problem.reason, str(problem))
            await self._warn(found, warnings, problem.reason, str(problem))
            log.info(
                "federatedhpa.target_unavailable", controller=self.NAME, key=str(key), error=str(problem)
            )
        self._warned[key] = warnings.current
        await self._write_status(found, status)
        return self.ctx.settings.hpa_sync_period

    async def _autoscale(
        self, key: ObjectKey, autoscaler: Object, status: Object, warnings: _Warnings
    ) -> None:
        spec = autoscaler.get("spec") or {}
        reference = spec.get("scaleTargetRef") or {}
        try:
            gvk = GroupVersionKind.parse(
                str(reference.get("apiVersion") or ""), str(reference.get("kind") or "")
            )
        except ValueError as error:
            raise TargetUnavailable(
                "FailedGetScale", f"the HPA controller was unable to get the target's current scale: {error}"
            ) from error
        name, namespace = str(reference.get("name") or ""), key.namespace
        clusters = await self._target_clusters(gvk, name, namespace)
        hub = self._raw_hub()
        try:
            scale = await read_scale(hub, gvk, name, namespace)
        except ClientError as error:
            raise TargetUnavailable(
                "FailedGetScale", f"the HPA controller was unable to get the target's current scale: {error}"
            ) from error
        self._condition(
            status,
            HPAConditionType.ABLE_TO_SCALE,
            True,
            "SucceededGetScale",
            "the HPA controller was able to get the target's current scale",
        )
        history = self._histories.setdefault(key, behavior.ScalingHistory())
        now = self.ctx.clock.now()
        rivals = rivals_of(reference, namespace, self._autoscalers.list(namespace=namespace))
        step = self._autoscaling.screen(spec, scale, rivals, history, now)
        if isinstance(step, PodsToRead):
            samples = await self._member_samples(clusters, gvk, name, namespace, step.selector_text)
            verdict = self._autoscaling.conclude(step, samples, history, now)
        else:
            verdict = step
        for kind, value, reason, message in verdict.conditions:
            self._condition(status, kind, value, reason, message)
        for reason, message in verdict.warnings:
            await self._warn(autoscaler, warnings, reason, message)
        current, desired = verdict.current, verdict.current
        if verdict.failed:
            status.update(currentReplicas=current)
            return
        if verdict.rescale:
            desired = verdict.desired
            await self._rescale(autoscaler, gvk, name, namespace, current, desired, verdict.reason, status)
            history.record_scale(spec.get("behavior"), current, desired, now)
            status["lastScaleTime"] = format_time(now)
        metric_statuses = verdict.metric_statuses
        if metric_statuses is None:
            metric_statuses = status.get("currentMetrics") or []
        status.update(currentReplicas=current, desiredReplicas=desired, currentMetrics=metric_statuses)

    async def _member_samples(
        self, clusters: list[Object], gvk: GroupVersionKind, name: str, namespace: str, selector: str
    ) -> metricspecs.Samples:
        """The target's pods and their metrics in its members; none of its copies read is FailedGetScale."""
        observation = await observe(self.ctx.members, clusters, gvk, name, namespace, selector)
        if observation.spec_replicas == 0:
            raise TargetUnavailable(
                "FailedGetScale",
                "failed to get replicas in any of clusters, possibly because all of clusters are not ready",
            )
        return observation.samples

    async def _target_clusters(self, gvk: GroupVersionKind, name: str, namespace: str) -> list[Object]:
        binding_name = names.binding_name(gvk.kind, name)
        try:
            binding = await self.ctx.hub.get_or_none(
                constants.RESOURCE_BINDING, binding_name, namespace=namespace
            )
        except ClientError as error:
            raise TargetUnavailable(
                "FailedGetBinding",
                f"the HPA controller was unable to get the binding by scaleTargetRef: {error}",
            ) from error
        if binding is None:
            raise TargetUnavailable(
                "FailedGetBinding",
                "the HPA controller was unable to get the binding by scaleTargetRef: "
                f"resourcebinding {namespace}/{binding_name} not found",
            )
        scheduled = [str(c.get("name") or "") for c in (binding.get("spec") or {}).get("clusters") or []]
        ready = []
        for cluster_name in scheduled:
            cluster = self._clusters.get(cluster_name)
            if cluster is not None and _ready(cluster):
                ready.append(cluster)
        if not ready:
            raise TargetUnavailable(
                "FailedGetTargetClusters",
                "the HPA controller was unable to get the target clusters from binding: "
                f"no Ready cluster among {scheduled}",
            )
        return ready

    async def _rescale(
        self,
        autoscaler: Object,
        gvk: GroupVersionKind,
        name: str,
        namespace: str,
        current: int,
        desired: int,
        reason: str,
        status: Object,
    ) -> None:
        try:
            await self._raw_hub().patch(
                gvk,
                name,
                {"spec": {"replicas": desired}},
                namespace=namespace,
                subresource="scale",
                field_manager=FIELD_MANAGER,
            )
        except ClientError as error:
            message = f"New size: {desired}; reason: {reason}; error: {error}"
            await self._event(autoscaler, WARNING, HPAEventReason.FAILED_RESCALE, message)
            raise TargetUnavailable(
                "FailedUpdateScale", f"the HPA controller was unable to update the target scale: {error}"
            ) from error
        self._condition(
            status,
            HPAConditionType.ABLE_TO_SCALE,
            True,
            "SucceededRescale",
            f"the HPA controller was able to update the target scale to {desired}",
        )
        await self._event(
            autoscaler, NORMAL, HPAEventReason.SUCCESSFUL_RESCALE, f"New size: {desired}; reason: {reason}"
        )
        log.info(
            "federatedhpa.rescaled",
            controller=self.NAME,
            namespace=namespace,
            name=name,
            current=current,
            desired=desired,
            reason=reason,
        )

    # -- writes -------------------------------------------------------------------------------------

    def _condition(
        self, status: Object, kind: HPAConditionType, value: bool, reason: str, message: str
    ) -> None:
        set_condition(status["conditions"], kind, value, reason, message, format_time(self.ctx.clock.now()))

    async def _write_status(self, found: Object, status: Object) -> None:
        status.setdefault("currentReplicas", (found.get("status") or {}).get("currentReplicas", 0))
        status.setdefault("desiredReplicas", (found.get("status") or {}).get("desiredReplicas", 0))
        if status == (found.get("status") or {}):
            return
        updated = {**found, "status": status}
        await self.ctx.hub.update_status(updated, field_manager=FIELD_MANAGER)

    async def _warn(self, autoscaler: Object, warnings: _Warnings, reason: str, message: str) -> None:
        """A Warning Event, unless the last round recorded the same one."""
        warnings.current.add((str(reason), message))
        if (str(reason), message) not in warnings.previous:
            await self._event(autoscaler, WARNING, reason, message)

    async def _event(self, autoscaler: Object, event_type: str, reason: str, message: str) -> None:
        now = format_time(self.ctx.clock.now())
        event = object_event(autoscaler, event_type, str(reason), message, component=COMPONENT, now=now)
        await record_event(self.ctx.hub, event, controller=self.NAME, field_manager=FIELD_MANAGER)

    def _raw_hub(self) -> Client:
        """The hub as a `Client`: `/scale` is read and written as a subresource, which the roles lack."""
        hub = self.ctx.hub
        if not isinstance(hub, Client):
            raise TypeError("the FederatedHPA controller reads /scale through a Client of the hub")
        return hub


@dataclass(slots=True)
class _Warnings:
    """The Warning Events of the last round of one autoscaler, and those of this round."""

    previous: set[tuple[str, str]]
    current: set[tuple[str, str]] = field(default_factory=set)


def _ready(cluster: Object) -> bool:
    conditions = (cluster.get("status") or {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
