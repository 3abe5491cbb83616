"""One look at one autoscaler, pure: from its spec, its target's Scale and its pods to a size.

This is kube's `reconcileAutoscaler` between reading the target's `/scale` and writing it back,
run by the simulated members' HPA for one cluster and by the hub's FederatedHPA for a federation:

- a target at zero replicas (with a non-zero minimum) is left alone (`ScalingDisabled`);
- outside [min, max] the count is brought back in bounds;
- otherwise the selector of the Scale picks the pods (none, or one that does not parse:
  `InvalidSelector`), another autoscaler of the same target makes both stand down
  (`AmbiguousSelector`), the metrics propose a count (`metricspecs`) and the behaviour rules
  stabilize and limit it (`behavior`).

The look has two steps because the pods are read in between: `screen` runs the checks that need
no pods and either ends the look (a `Verdict`) or says whose pods to read (`PodsToRead`);
`conclude` takes what was read of them (`metricspecs.Samples`) to a `Verdict`. `decide` runs both
for a shell whose pods are at hand (the sim's cache); the FederatedHPA reads its members' pods
asynchronously between the two. What to write (conditions, Warning Events, the new size and its
reason, the metric statuses) is the `Verdict`; the shell writes it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from flotilla.api.karmada.autoscaling import HPAConditionType, HPAEventReason
from flotilla.api.selectors import LabelSelector, SelectorError, parse_label_selector
from flotilla.autoscaling import behavior, metricspecs
from flotilla.autoscaling.pods import pod_metrics, pod_sample
from flotilla.autoscaling.replicas import PodMetric, PodSample, ReplicaCalculator

Object = Mapping[str, Any]
Condition = tuple[HPAConditionType, bool, str, str]
"""(type, status, reason, message)."""
Observe = Callable[[LabelSelector], metricspecs.Samples]
"""The target's pods by selector → what the metrics read of them."""


@dataclass(slots=True)
class Verdict:
    current: int
    desired: int
    rescale: bool = False
    reason: str = ""
    """Why the size changes (`SuccessfulRescale`'s message)."""
    conditions: list[Condition] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    """(reason, message) of the Warning Events to record."""
    metric_statuses: list[dict[str, Any]] | None = None
    """`status.currentMetrics`; None keeps what the status says."""
    failed: bool = False
    """The look ended in an error (a selector, a rival, the metrics): as kube's
    `setCurrentReplicasAndMetricsInStatus`, the status takes only currentReplicas."""


@dataclass(frozen=True, slots=True)
class PodsToRead:
    """The checks passed: the metrics propose the count, from the pods `selector` picks."""

    selector: LabelSelector
    selector_text: str
    """The Scale's `status.selector`, as a `labelSelector` query parameter wants it."""
    verdict: Verdict
    spec: Object
    minimum: int
    maximum: int


def samples_of(cluster: str, pods: Sequence[Object], metrics_list: Object) -> metricspecs.Samples:
    """The calculator's view of a cluster's pods and its `PodMetricsList` (pods keyed `cluster/name`)."""

    def samples(resource: str, container: str) -> tuple[list[PodSample], dict[str, PodMetric]]:
        found = [pod_sample(cluster, pod, resource) for pod in pods]
        return found, pod_metrics(cluster, metrics_list, resource, container)

    return samples


def rivals_of(reference: Object, namespace: str, autoscalers: Iterable[Object]) -> list[str]:
    """The live `autoscalers` of `namespace` scaling the target of `reference`: `namespace/name`, sorted.

    Kube compares the pods each autoscaler's selector selects; two autoscalers of one target are
    the case that matters (they would fight over its `/scale`), and it needs no pods.
    """

    def target(ref: Object) -> tuple[str, str, str]:
        group = str(ref.get("apiVersion") or "").rpartition("/")[0]
        return group, str(ref.get("kind") or ""), str(ref.get("name") or "")

    wanted = target(reference)
    return sorted(
        f"{namespace}/{(obj.get('metadata') or {}).get('name')}"
        for obj in autoscalers
        if target((obj.get("spec") or {}).get("scaleTargetRef") or {}) == wanted
        and not (obj.get("metadata") or {}).get("deletionTimestamp")
    )


@dataclass(frozen=True, slots=True)
class Autoscaling:
    """What every look shares: the calculator and kube's downscale stabilization window."""

    calculator: ReplicaCalculator
    downscale_window: timedelta

    def decide(
        self,
        spec: Object,
        scale: Object,
        rivals: Sequence[str],
        history: behavior.ScalingHistory,
        observe: Observe,
        now: datetime,
    ) -> Verdict:
        """Both steps, with the pods read through `observe` in between."""
        step = self.screen(spec, scale, rivals, history, now)
        if isinstance(step, Verdict):
            return step
        return self.conclude(step, observe(step.selector), history, now)

    def screen(
        self,
        spec: Object,
        scale: Object,
        rivals: Sequence[str],
        history: behavior.ScalingHistory,
        now: datetime,
    ) -> Verdict | PodsToRead:
        """The look up to the pods: a `Verdict` when it ends here, else which pods to read.

        `rivals` are the autoscalers of this target's namespace scaling it (`namespace/name`,
        this one among them); `history` is this autoscaler's, updated in place.
        """
        current = int((scale.get("spec") or {}).get("replicas") or 0)
        minimum = int(spec.get("minReplicas") or 1)
        maximum = int(spec.get("maxReplicas") or 0)
        history.record_initial(current, now)
        verdict = Verdict(current=current, desired=current)
        if current == 0 and minimum != 0:
            message = "scaling is disabled since the replica count of the target is zero"
            verdict.conditions.append((HPAConditionType.SCALING_ACTIVE, False, "ScalingDisabled", message))
            return verdict
        if current > maximum:
            return _bounded(verdict, maximum, "Current number of replicas above Spec.MaxReplicas")
        if current < minimum:
            return _bounded(verdict, minimum, "Current number of replicas below Spec.MinReplicas")
        text = str((scale.get("status") or {}).get("selector") or "")
        selector = _selector(verdict, text)
        if selector is None:
            return verdict
        if len(rivals) > 1:
            message = f"pods by selector {text} are controlled by multiple HPAs: [{' '.join(rivals)}]"
            verdict.conditions.append((HPAConditionType.SCALING_ACTIVE, False, "AmbiguousSelector", message))
            verdict.warnings.append(("AmbiguousSelector", message))
            verdict.failed = True
            return verdict
        return PodsToRead(selector, text, verdict, spec, minimum, maximum)

    def conclude(
        self, step: PodsToRead, samples: metricspecs.Samples, history: behavior.ScalingHistory, now: datetime
    ) -> Verdict:
        """The metrics' proposal from what was read of the pods, stabilized and limited."""
        verdict, spec, current = step.verdict, step.spec, step.verdict.current
        outcome = metricspecs.compute(self.calculator, spec.get("metrics") or [], current, samples, now)
        verdict.conditions.append((HPAConditionType.SCALING_ACTIVE, *outcome.active))
        verdict.warnings.extend(outcome.failures)
        if outcome.replicas is None:
            verdict.warnings.append((HPAEventReason.FAILED_COMPUTE_METRICS_REPLICAS, outcome.error))
            verdict.failed = True
            return verdict
        verdict.metric_statuses = outcome.statuses
        if outcome.replicas > current:
            verdict.reason = f"{outcome.metric_name} above target"
        elif outcome.replicas < current:
            verdict.reason = "All metrics below target"
        decision = self._normalize(history, spec, current, outcome.replicas, step.minimum, step.maximum, now)
        verdict.conditions.append((HPAConditionType.ABLE_TO_SCALE, True, *decision.able_to_scale))
        verdict.conditions.append((HPAConditionType.SCALING_LIMITED, decision.limited, *decision.limit))
        verdict.desired = decision.replicas
        verdict.rescale = decision.replicas != current
        return verdict

    def _normalize(
        self,
        history: behavior.ScalingHistory,
        spec: Object,
        current: int,
        desired: int,
        minimum: int,
        maximum: int,
        now: datetime,
    ) -> behavior.Decision:
        rules = spec.get("behavior")
        if isinstance(rules, Mapping):
            return behavior.normalize_with_behavior(
                history, rules, current, desired, minimum, maximum, now, self.downscale_window
            )
        return behavior.normalize(history, current, desired, minimum, maximum, now, self.downscale_window)


def _bounded(verdict: Verdict, replicas: int, reason: str) -> Verdict:
    verdict.desired, verdict.reason, verdict.rescale = replicas, reason, True
    return verdict


def _selector(verdict: Verdict, text: str) -> LabelSelector | None:
    """The Scale's selector, or None with ScalingActive=False (InvalidSelector) and its Warning.

    The wording is kube's (and Karmada's `validateAndParseSelector`): the Event of a missing
    selector says "selector is required", the condition says the scale is missing one.
    """
    if not text:
        message = "the HPA target's scale is missing a selector"
        verdict.conditions.append((HPAConditionType.SCALING_ACTIVE, False, "InvalidSelector", message))
        verdict.warnings.append((HPAEventReason.SELECTOR_REQUIRED, "selector is required"))
        verdict.failed = True
        return None
    try:
        return parse_label_selector(text)
    except SelectorError as error:
        message = f"couldn't convert selector into a corresponding internal selector object: {error}"
        verdict.conditions.append((HPAConditionType.SCALING_ACTIVE, False, "InvalidSelector", message))
        verdict.warnings.append(("InvalidSelector", message))
        verdict.failed = True
        return None
