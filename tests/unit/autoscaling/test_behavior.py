"""Scaling behaviour: stabilization windows and rate limits, as kube's HPA controller applies them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flotilla.autoscaling import behavior
from flotilla.autoscaling.behavior import ScalingHistory, normalize, normalize_with_behavior

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
FIVE_MINUTES = timedelta(minutes=5)

# kube's defaults, as admission fills in a given behavior.
DEFAULT_BEHAVIOR: dict[str, Any] = {
    "scaleUp": {
        "stabilizationWindowSeconds": 0,
        "selectPolicy": "Max",
        "policies": [
            {"type": "Pods", "value": 4, "periodSeconds": 15},
            {"type": "Percent", "value": 100, "periodSeconds": 15},
        ],
    },
    "scaleDown": {
        "selectPolicy": "Max",
        "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
    },
}


def history_of(*recommendations: tuple[int, float]) -> ScalingHistory:
    """A history with (replicas, seconds ago) recommendations."""
    history = ScalingHistory()
    for replicas, ago in recommendations:
        history.remember(replicas, NOW - timedelta(seconds=ago), NOW - timedelta(days=1))
    return history


def test_scale_down_waits_for_the_highest_recommendation_of_the_window() -> None:
    """A recommendation of 5 a minute ago holds a new recommendation of 2 at 5."""
    decision = normalize(history_of((5, 60)), 5, 2, 1, 10, NOW, FIVE_MINUTES)
    assert decision.replicas == 5
    assert decision.able_to_scale == behavior.SCALE_DOWN_STABILIZED


def test_scale_down_happens_once_the_window_has_passed() -> None:
    """Recommendations older than the window no longer hold the count up."""
    decision = normalize(history_of((5, 301)), 5, 2, 1, 10, NOW, FIVE_MINUTES)
    assert decision.replicas == 2
    assert decision.able_to_scale == behavior.READY_FOR_NEW_SCALE


def test_a_shorter_window_scales_down_sooner() -> None:
    """The downscale stabilization flag sets the window."""
    decision = normalize(history_of((5, 20)), 5, 2, 1, 10, NOW, timedelta(seconds=10))
    assert decision.replicas == 2


def test_old_recommendations_are_replaced_not_accumulated() -> None:
    """A recommendation older than the window gives its slot to the new one."""
    history = history_of((5, 400), (4, 10))
    normalize(history, 4, 3, 1, 10, NOW, FIVE_MINUTES)
    assert sorted(r.replicas for r in history.recommendations) == [3, 4]


def test_scale_up_without_behavior_is_capped_at_twice_the_current_count() -> None:
    """From 3 to 20 with max 50: at most max(2 x 3, 4) = 6."""
    decision = normalize(ScalingHistory(), 3, 20, 1, 50, NOW, FIVE_MINUTES)
    assert (decision.replicas, decision.limited, decision.limit) == (6, True, behavior.SCALE_UP_LIMIT)


def test_the_maximum_limits_before_the_rate() -> None:
    """From 3 to 20 with max 5: 5, TooManyReplicas."""
    decision = normalize(ScalingHistory(), 3, 20, 1, 5, NOW, FIVE_MINUTES)
    assert (decision.replicas, decision.limit) == (5, behavior.TOO_MANY_REPLICAS)


def test_the_minimum_holds() -> None:
    """Nothing goes below minReplicas."""
    decision = normalize(ScalingHistory(), 3, 1, 2, 5, NOW, timedelta(0))
    assert (decision.replicas, decision.limited, decision.limit) == (2, True, behavior.TOO_FEW_REPLICAS)


def test_within_range_is_not_limited() -> None:
    decision = normalize(ScalingHistory(), 3, 4, 1, 5, NOW, FIVE_MINUTES)
    assert (decision.replicas, decision.limited, decision.limit) == (4, False, behavior.DESIRED_WITHIN_RANGE)


def test_default_scale_up_policies_allow_the_larger_of_four_pods_and_double() -> None:
    """From 3 towards 20: max(3 + 4, 3 x 2) = 7."""
    decision = normalize_with_behavior(ScalingHistory(), DEFAULT_BEHAVIOR, 3, 20, 1, 50, NOW, FIVE_MINUTES)
    assert (decision.replicas, decision.limit) == (7, behavior.SCALE_UP_LIMIT)


def test_scale_events_within_the_period_count_against_the_rate() -> None:
    """After going 3 → 7 five seconds ago, the period started at 3: no more than 7 yet."""
    history = ScalingHistory()
    history.record_scale(DEFAULT_BEHAVIOR, 3, 7, NOW - timedelta(seconds=5))
    decision = normalize_with_behavior(history, DEFAULT_BEHAVIOR, 7, 20, 1, 50, NOW, FIVE_MINUTES)
    assert decision.replicas == 7


def test_scale_events_older_than_the_period_do_not_count() -> None:
    """Twenty seconds later the 15 s period has passed: 7 may double to 14."""
    history = ScalingHistory()
    history.record_scale(DEFAULT_BEHAVIOR, 3, 7, NOW - timedelta(seconds=20))
    decision = normalize_with_behavior(history, DEFAULT_BEHAVIOR, 7, 20, 1, 50, NOW, FIVE_MINUTES)
    assert decision.replicas == 14


def test_select_policy_min_picks_the_least_change() -> None:
    """Min of (+4 pods, +100%) from 10 is 14."""
    rules = {**DEFAULT_BEHAVIOR, "scaleUp": {**DEFAULT_BEHAVIOR["scaleUp"], "selectPolicy": "Min"}}
    decision = normalize_with_behavior(ScalingHistory(), rules, 10, 40, 1, 50, NOW, FIVE_MINUTES)
    assert decision.replicas == 14


def test_disabled_scale_down_keeps_the_count() -> None:
    """selectPolicy Disabled forbids the direction altogether."""
    rules = {**DEFAULT_BEHAVIOR, "scaleDown": {"selectPolicy": "Disabled", "stabilizationWindowSeconds": 0}}
    decision = normalize_with_behavior(ScalingHistory(), rules, 6, 2, 1, 10, NOW, FIVE_MINUTES)
    assert (decision.replicas, decision.limit) == (6, behavior.SCALE_DOWN_LIMIT)


def test_scale_down_percent_policy_limits_the_fall() -> None:
    """50% per minute from 10 towards 1: 5 at most."""
    rules = {
        **DEFAULT_BEHAVIOR,
        "scaleDown": {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [{"type": "Percent", "value": 50, "periodSeconds": 60}],
        },
    }
    decision = normalize_with_behavior(ScalingHistory(), rules, 10, 1, 1, 10, NOW, FIVE_MINUTES)
    assert (decision.replicas, decision.limit) == (5, behavior.SCALE_DOWN_LIMIT)


def test_unset_scale_down_window_is_the_flag() -> None:
    """Without its own window, scale down waits for the downscale stabilization flag's."""
    held = normalize_with_behavior(history_of((6, 30)), DEFAULT_BEHAVIOR, 6, 2, 1, 10, NOW, FIVE_MINUTES)
    assert (held.replicas, held.able_to_scale) == (6, behavior.SCALE_DOWN_STABILIZED)
    free = normalize_with_behavior(
        history_of((6, 30)), DEFAULT_BEHAVIOR, 6, 2, 1, 10, NOW, timedelta(seconds=10)
    )
    assert free.replicas == 2


def test_a_scale_up_window_takes_the_lowest_recent_recommendation() -> None:
    """A 60 s scale-up window with a recommendation of 4 ten seconds ago holds 8 at 4."""
    rules = {**DEFAULT_BEHAVIOR, "scaleUp": {**DEFAULT_BEHAVIOR["scaleUp"], "stabilizationWindowSeconds": 60}}
    decision = normalize_with_behavior(history_of((4, 10)), rules, 3, 8, 1, 10, NOW, FIVE_MINUTES)
    assert (decision.replicas, decision.able_to_scale) == (4, behavior.SCALE_UP_STABILIZED)
