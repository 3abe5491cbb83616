"""The HorizontalPodAutoscaler controller of a simulated cluster: kube's HPA, on the sim's own metrics.

The queue key is an autoscaling/v2 HPA's `ObjectKey` (the only version served: kube serves v1 by
conversion, the sims do not serve it); it is enqueued when created or its spec changes, and again
every sync period (`AutoscalerSettings.sync_period`, kube's `--horizontal-pod-autoscaler-sync-period`).
One look, from the cache:

1. the target's Scale (`scaleTargetRef`, through the in-process client's `get_scale`): replicas and
   selector; a target that is absent or has no `/scale` is `AbleToScale=False` (`FailedGetScale`);
2. the decision (`flotilla.autoscaling.decision`, pure, the FederatedHPA's too): the pods
   matching the selector from the cache, their usage from the cluster's metrics computation
   (`PodMetricsSource`, the same as its metrics.k8s.io answers, without a request to itself);
3. a new size is written through the target's `scale` subresource with a `SuccessfulRescale` Event
   (`FailedRescale` and `AbleToScale=False` when refused), then the status (currentReplicas,
   desiredReplicas, currentMetrics, lastScaleTime, AbleToScale, ScalingActive, ScalingLimited)
   when it changed. Warning Events are told once per failure, not every sync period.

Recommendations and scale events live in memory, as in kube: a restarted sim starts from the
current size.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import timedelta
from typing import Any, Protocol

import structlog

from flotilla.api.karmada.autoscaling import HPAConditionType
from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.api.selectors import LabelSelector
from flotilla.api.times import format_time
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import CacheEvent, LocalClient
from flotilla.autoscaling import behavior, metricspecs
from flotilla.autoscaling.conditions import set_condition
from flotilla.autoscaling.decision import Autoscaling, Observe, Verdict, rivals_of, samples_of
from flotilla.autoscaling.replicas import ReplicaCalculator
from flotilla.runtime.clock import Clock
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.framework.events import NORMAL, WARNING
from flotilla.sim.controllers.framework.kinds import HORIZONTAL_POD_AUTOSCALER, POD
from flotilla.sim.spec import ClusterSpec

log = structlog.get_logger("flotilla.sim.controllers")

Object = dict[str, Any]


class PodMetricsSource(Protocol):
    """The cluster's metrics computation: a namespace's PodMetricsList for a label selector."""

    def pod_metrics_list(self, namespace: str, labels: LabelSelector) -> dict[str, Any]: ...


class HorizontalPodAutoscalerController(SimController):
    NAME = "horizontal-pod-autoscaler"
    KIND = HORIZONTAL_POD_AUTOSCALER
    WORKERS = 1

    def __init__(
        self, client: LocalClient, spec: ClusterSpec, clock: Clock, metrics: PodMetricsSource
    ) -> None:
        super().__init__(client, spec, clock)
        self.metrics = metrics
        settings = spec.autoscaling
        self.autoscaling = Autoscaling(
            ReplicaCalculator(
                tolerance=settings.tolerance,
                cpu_initialization_period=timedelta(seconds=settings.cpu_initialization_period),
                initial_readiness_delay=timedelta(seconds=settings.initial_readiness_delay),
            ),
            timedelta(seconds=settings.downscale_stabilization),
        )
        self._histories: dict[ObjectKey, behavior.ScalingHistory] = {}
        # The last round's Warning Events per autoscaler: a lasting failure is told once.
        self._warned: dict[ObjectKey, set[tuple[str, str]]] = {}

    def _on_own_change(self, event: CacheEvent) -> None:
        previous = event.prev.obj if event.prev is not None else None
        if previous is not None and previous.get("spec") == event.object.obj.get("spec"):
            return  # our own status writes: the sync period brings the next look
        super()._on_own_change(event)

    async def reconcile(self, key: ObjectKey) -> float | None:
        found = self.client.get(HORIZONTAL_POD_AUTOSCALER, key.name, namespace=key.namespace)
        if found is None or found["metadata"].get("deletionTimestamp"):
            self._histories.pop(key, None)
            self._warned.pop(key, None)
            return None
        status: Object = copy.deepcopy(found.get("status") or {})
        status.setdefault("conditions", [])
        warnings: set[tuple[str, str]] = set()
        await self._autoscale(key, found, status, warnings)
        self._warned[key] = warnings
        await self._write_status(found, status)
        return self.spec.autoscaling.sync_period

    async def _autoscale(
        self, key: ObjectKey, autoscaler: Object, status: Object, warnings: set[tuple[str, str]]
    ) -> None:
        spec = autoscaler.get("spec") or {}
        reference = spec.get("scaleTargetRef") or {}
        scale = self._scale(reference, key.namespace)
        if isinstance(scale, str):
            message = f"the HPA controller was unable to get the target's current scale: {scale}"
            self._condition(status, HPAConditionType.ABLE_TO_SCALE, False, "FailedGetScale", message)
            await self._warn(key, autoscaler, warnings, "FailedGetScale", message)
            return
        self._condition(
            status,
            HPAConditionType.ABLE_TO_SCALE,
            True,
            "SucceededGetScale",
            "the HPA controller was able to get the target's current scale",
        )
        now = self.clock.now()
        history = self._histories.setdefault(key, behavior.ScalingHistory())
        rivals = rivals_of(
            reference, key.namespace, self.client.list(HORIZONTAL_POD_AUTOSCALER, namespace=key.namespace)
        )
        verdict = self.autoscaling.decide(spec, scale, rivals, history, self._observer(key.namespace), now)
        for kind, value, reason, message in verdict.conditions:
            self._condition(status, kind, value, reason, message)
        for reason, message in verdict.warnings:
            await self._warn(key, autoscaler, warnings, reason, message)
        if verdict.failed:
            status.update(currentReplicas=verdict.current)
            return
        metric_statuses = (
            verdict.metric_statuses if verdict.metric_statuses is not None else status.get("currentMetrics")
        )
        desired = verdict.current
        if verdict.rescale:
            if not await self._rescale(autoscaler, reference, key.namespace, verdict, status):
                status.update(currentReplicas=verdict.current)
                return
            history.record_scale(spec.get("behavior"), verdict.current, verdict.desired, now)
            status["lastScaleTime"] = format_time(now)
            desired = verdict.desired
        status.update(currentReplicas=verdict.current, desiredReplicas=desired)
        if metric_statuses is not None:
            status["currentMetrics"] = metric_statuses

    def _scale(self, reference: Mapping[str, Any], namespace: str) -> Object | str:
        """The target's Scale, or why it cannot be read."""
        name = str(reference.get("name") or "")
        try:
            gvk = _target_kind(reference)
            scale = self.client.get_scale(gvk, name, namespace=namespace)
            if scale is None:
                served = self.client.resource(gvk).type
                resource = f"{served.plural}.{served.group}" if served.group else served.plural
                return f'{resource} "{name}" not found'
        except (ValueError, errors.APIError) as error:
            return str(error)
        return scale

    def _observer(self, namespace: str) -> Observe:
        def observe(selector: LabelSelector) -> metricspecs.Samples:
            pods = [
                pod
                for pod in self.client.list(POD, namespace=namespace)
                if selector.matches((pod.get("metadata") or {}).get("labels") or {})
            ]
            return samples_of(self.spec.name, pods, self.metrics.pod_metrics_list(namespace, selector))

        return observe

    async def _rescale(
        self,
        autoscaler: Object,
        reference: Mapping[str, Any],
        namespace: str,
        verdict: Verdict,
        status: Object,
    ) -> bool:
        """Write the new size to the target's `scale`; whether it was taken."""
        name = str(reference.get("name") or "")
        try:
            gvk = _target_kind(reference)
            await self.client.scale(gvk, name, verdict.desired, namespace=namespace)
        except errors.APIError as error:
            message = f"New size: {verdict.desired}; reason: {verdict.reason}; error: {error}"
            await self.events.record(autoscaler, HORIZONTAL_POD_AUTOSCALER, WARNING, "FailedRescale", message)
            self._condition(
                status,
                HPAConditionType.ABLE_TO_SCALE,
                False,
                "FailedUpdateScale",
                f"the HPA controller was unable to update the target scale: {error}",
            )
            return False
        self._condition(
            status,
            HPAConditionType.ABLE_TO_SCALE,
            True,
            "SucceededRescale",
            f"the HPA controller was able to update the target scale to {verdict.desired}",
        )
        message = f"New size: {verdict.desired}; reason: {verdict.reason}"
        await self.events.record(autoscaler, HORIZONTAL_POD_AUTOSCALER, NORMAL, "SuccessfulRescale", message)
        log.info(
            "hpa.rescaled",
            controller=self.NAME,
            cluster=self.spec.name,
            namespace=namespace,
            name=name,
            current=verdict.current,
            desired=verdict.desired,
            reason=verdict.reason,
        )
        return True

    # -- writes -------------------------------------------------------------------------------------

    def _condition(
        self, status: Object, kind: HPAConditionType, value: bool, reason: str, message: str
    ) -> None:
        set_condition(status["conditions"], kind, value, reason, message, format_time(self.clock.now()))

    async def _warn(
        self, key: ObjectKey, autoscaler: Object, warnings: set[tuple[str, str]], reason: str, message: str
    ) -> None:
        """A Warning Event, unless the last round recorded the same one."""
        warnings.add((str(reason), message))
        if (str(reason), message) not in self._warned.get(key, set()):
            await self.events.record(autoscaler, HORIZONTAL_POD_AUTOSCALER, WARNING, str(reason), message)

    async def _write_status(self, found: Object, status: Object) -> None:
        previous = found.get("status") or {}
        status.setdefault("currentReplicas", previous.get("currentReplicas", 0))
        status.setdefault("desiredReplicas", previous.get("desiredReplicas", 0))
        if status == previous:
            return
        found["status"] = status
        try:
            await self.client.update(HORIZONTAL_POD_AUTOSCALER, found, subresource="status")
        except (errors.Conflict, errors.NotFound):
            self.enqueue(ObjectKey.of(found))  # changed or gone meanwhile: look again


def _target_kind(reference: Mapping[str, Any]) -> GroupVersionKind:
    """The kind `scaleTargetRef` names (ValueError when its apiVersion does not parse)."""
    return GroupVersionKind.parse(str(reference.get("apiVersion") or ""), str(reference.get("kind") or ""))
