"""Scaling behaviour: stabilization windows and rate limits between a recommendation and a new size.

Kubernetes' HPA (and Karmada's FederatedHPA, which lifts it) does not apply a metric's
recommendation at once. It remembers each autoscaler's recent recommendations and its recent
scale events, in memory, and:

- without `spec.behavior`: applies the highest recommendation of the downscale stabilization
  window (`--horizontal-pod-autoscaler-downscale-stabilization`, 5 minutes), then clamps to
  [min, max] and to a scale-up limit of max(2 x current, 4);
- with `spec.behavior` (defaulted by admission to kube's rules): keeps the count between the
  lowest recommendation of the scale-up window and the highest of the scale-down window (whose
  unset window is the flag's), then limits the change by the policies of the direction — each
  `Pods` or `Percent` policy allows a change relative to the size at the start of its period,
  the `selectPolicy` picks the most (Max) or least (Min) permissive, `Disabled` forbids it.

Each step gives the condition reason and message kube sets (`AbleToScale`, `ScalingLimited`).
`ScalingHistory` is the remembered state of one autoscaler; the functions are pure given `now`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

Object = Mapping[str, Any]

READY_FOR_NEW_SCALE = ("ReadyForNewScale", "recommended size matches current size")
SCALE_DOWN_STABILIZED = (
    "ScaleDownStabilized",
    "recent recommendations were higher than current one, applying the highest recent recommendation",
)
SCALE_UP_STABILIZED = (
    "ScaleUpStabilized",
    "recent recommendations were lower than current one, applying the lowest recent recommendation",
)
DESIRED_WITHIN_RANGE = ("DesiredWithinRange", "the desired count is within the acceptable range")
TOO_FEW_REPLICAS = ("TooFewReplicas", "the desired replica count is less than the minimum replica count")
TOO_MANY_REPLICAS = ("TooManyReplicas", "the desired replica count is more than the maximum replica count")
SCALE_UP_LIMIT = (
    "ScaleUpLimit",
    "the desired replica count is increasing faster than the maximum scale rate",
)
SCALE_DOWN_LIMIT = (
    "ScaleDownLimit",
    "the desired replica count is decreasing faster than the maximum scale rate",
)


@dataclass(slots=True)
class _Recommendation:
    replicas: int
    at: datetime


@dataclass(slots=True)
class _ScaleEvent:
    change: int
    at: datetime
    outdated: bool = False


@dataclass(slots=True)
class ScalingHistory:
    """One autoscaler's recent recommendations and scale events (kept in the controller's memory)."""

    recommendations: list[_Recommendation] = field(default_factory=list)
    scale_ups: list[_ScaleEvent] = field(default_factory=list)
    scale_downs: list[_ScaleEvent] = field(default_factory=list)

    def record_initial(self, current: int, now: datetime) -> None:
        """The current size counts as a recommendation when nothing was recommended yet."""
        if not self.recommendations:
            self.recommendations.append(_Recommendation(current, now))

    def remember(self, replicas: int, now: datetime, stale: datetime) -> None:
        """Record a recommendation, reusing the slot of one older than `stale`."""
        for recommendation in self.recommendations:
            if recommendation.at < stale:
                recommendation.replicas, recommendation.at = replicas, now
                return
        self.recommendations.append(_Recommendation(replicas, now))

    def record_scale(self, behavior: Object | None, previous: int, new: int, now: datetime) -> None:
        """Remember a rescale for the rate limits (only autoscalers with a behavior use them)."""
        if behavior is None or previous == new:
            return
        up = new > previous
        rules = _rules(behavior, "scaleUp" if up else "scaleDown")
        events = self.scale_ups if up else self.scale_downs
        longest = max((int(p.get("periodSeconds") or 0) for p in _policies(rules)), default=0)
        cutoff = now - timedelta(seconds=longest)
        for event in events:
            event.outdated = event.outdated or event.at <= cutoff
        fresh = _ScaleEvent(abs(new - previous), now)
        for position, event in enumerate(events):
            if event.outdated:
                events[position] = fresh
                return
        events.append(fresh)


@dataclass(frozen=True, slots=True)
class Decision:
    replicas: int
    able_to_scale: tuple[str, str]
    """(reason, message) of AbleToScale=True."""
    limited: bool
    """ScalingLimited's status."""
    limit: tuple[str, str]
    """(reason, message) of ScalingLimited."""


def normalize(
    history: ScalingHistory,
    current: int,
    desired: int,
    minimum: int,
    maximum: int,
    now: datetime,
    downscale_window: timedelta,
) -> Decision:
    """Without `spec.behavior`: downscale stabilization, then [min, max] and the scale-up cap."""
    stabilized = desired
    stale = now - downscale_window
    for recommendation in history.recommendations:
        if recommendation.at >= stale and recommendation.replicas > stabilized:
            stabilized = recommendation.replicas
    history.remember(desired, now, stale)
    able = SCALE_DOWN_STABILIZED if stabilized != desired else READY_FOR_NEW_SCALE
    scale_up_limit = max(2 * current, 4)
    ceiling, over = (
        (scale_up_limit, SCALE_UP_LIMIT) if maximum > scale_up_limit else (maximum, TOO_MANY_REPLICAS)
    )
    if stabilized < minimum:
        replicas, limit = minimum, TOO_FEW_REPLICAS
    elif stabilized > ceiling:
        replicas, limit = ceiling, over
    else:
        replicas, limit = stabilized, DESIRED_WITHIN_RANGE
    return Decision(replicas, able, replicas != stabilized, limit)


def normalize_with_behavior(
    history: ScalingHistory,
    behavior: Object,
    current: int,
    desired: int,
    minimum: int,
    maximum: int,
    now: datetime,
    downscale_window: timedelta,
) -> Decision:
    """An autoscaler with `spec.behavior`: both stabilization windows, then the policies' rates."""
    up_rules = _rules(behavior, "scaleUp")
    down_rules = _rules(behavior, "scaleDown")
    up_window = timedelta(seconds=_window(up_rules, timedelta(0)))
    down_window = timedelta(seconds=_window(down_rules, downscale_window))
    up_cutoff, down_cutoff = now - up_window, now - down_window
    up_recommendation = down_recommendation = desired
    for recommendation in history.recommendations:
        if recommendation.at > up_cutoff:
            up_recommendation = min(up_recommendation, recommendation.replicas)
        if recommendation.at > down_cutoff:
            down_recommendation = max(down_recommendation, recommendation.replicas)
    stabilized = min(max(current, up_recommendation), down_recommendation)
    history.remember(desired, now, min(up_cutoff, down_cutoff))
    if stabilized != desired:
        able = SCALE_UP_STABILIZED if desired >= current else SCALE_DOWN_STABILIZED
    else:
        able = READY_FOR_NEW_SCALE
    replicas, limit = stabilized, DESIRED_WITHIN_RANGE
    if stabilized > current:
        ceiling = max(scale_up_limit(current, history, up_rules, now), current)
        ceiling, over = (ceiling, SCALE_UP_LIMIT) if maximum > ceiling else (maximum, TOO_MANY_REPLICAS)
        if stabilized > ceiling:
            replicas, limit = ceiling, over
    elif stabilized < current:
        floor = min(scale_down_limit(current, history, down_rules, now), current)
        floor, under = (floor, SCALE_DOWN_LIMIT) if minimum < floor else (minimum, TOO_FEW_REPLICAS)
        if stabilized < floor:
            replicas, limit = floor, under
    return Decision(replicas, able, replicas != stabilized, limit)


def scale_up_limit(current: int, history: ScalingHistory, rules: Object, now: datetime) -> int:
    """The most replicas the scale-up policies allow now."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    proposals = []
    for policy in _policies(rules):
        start = _period_start(current, history, policy, now)
        if policy.get("type") == "Pods":
            proposals.append(start + int(policy.get("value") or 0))
        else:
            proposals.append(math.ceil(start * (1 + int(policy.get("value") or 0) / 100)))
    if not proposals:
        return current
    return min(proposals) if select == "Min" else max(proposals)


def scale_down_limit(current: int, history: ScalingHistory, rules: Object, now: datetime) -> int:
    """The fewest replicas the scale-down policies allow now."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    proposals = []
    for policy in _policies(rules):
        start = _period_start(current, history, policy, now)
        if policy.get("type") == "Pods":
            proposals.append(start - int(policy.get("value") or 0))
        else:
            proposals.append(int(start * (1 - int(policy.get("value") or 0) / 100)))
    if not proposals:
        return current
    # Scaling down, the least change ("Min") is the highest floor.
    return max(proposals) if select == "Min" else min(proposals)


def _period_start(current: int, history: ScalingHistory, policy: Object, now: datetime) -> int:
    """The size at the start of the policy's period: the current one less what changed since."""
    cutoff = now - timedelta(seconds=int(policy.get("periodSeconds") or 0))
    added = sum(event.change for event in history.scale_ups if event.at > cutoff)
    removed = sum(event.change for event in history.scale_downs if event.at > cutoff)
    return current - added + removed


def _rules(behavior: Object, direction: str) -> Object:
    rules = behavior.get(direction)
    return rules if isinstance(rules, Mapping) else {}


def _policies(rules: Object) -> list[Object]:
    policies = rules.get("policies")
    return [p for p in policies if isinstance(p, Mapping)] if isinstance(policies, list) else []


def _window(rules: Object, default: timedelta) -> float:
    window = rules.get("stabilizationWindowSeconds")
    return float(window) if isinstance(window, int) else default.total_seconds()
