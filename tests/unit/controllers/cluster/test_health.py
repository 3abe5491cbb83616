"""The Ready condition of a cluster: probe results, success and failure thresholds, transition times."""

from __future__ import annotations

import pytest

from flotilla.api.karmada.model import Condition
from flotilla.api.times import format_time
from flotilla.controllers.cluster.health import (
    ReadyHistory,
    observed_ready_condition,
    set_condition,
    status_collection_failed,
    threshold_adjusted,
)
from flotilla.runtime.clock import ManualClock

SUCCESS_THRESHOLD = 30.0
FAILURE_THRESHOLD = 20.0


class Prober:
    """Feeds probe results through the thresholds as the controller does, one probe per call."""

    def __init__(self, current: Condition | None) -> None:
        self.clock = ManualClock()
        self.current = current
        self.history: ReadyHistory | None = None

    def probe(self, result: str, after: float = 0.0) -> Condition:
        self.clock.advance(after)
        ready, self.history = threshold_adjusted(
            observed_ready_condition(result),  # type: ignore[arg-type]
            self.current,
            self.history,
            self.clock.now(),
            success_threshold=SUCCESS_THRESHOLD,
            failure_threshold=FAILURE_THRESHOLD,
        )
        self.current = ready
        return ready


@pytest.mark.parametrize(
    ("probe", "status", "reason"),
    [
        ("healthy", "True", "ClusterReady"),
        ("unhealthy", "False", "ClusterNotReady"),
        ("unreachable", "False", "ClusterNotReachable"),
    ],
)
def test_each_probe_result_has_karmadas_ready_condition(probe: str, status: str, reason: str) -> None:
    """Healthy, answering-but-unhealthy and silent members get Karmada's statuses and reasons."""
    condition = observed_ready_condition(probe)  # type: ignore[arg-type]
    assert (condition.type, condition.status, condition.reason) == ("Ready", status, reason)
    assert condition.message


def test_a_new_cluster_gets_its_first_observation_at_once() -> None:
    """A cluster without a Ready condition is not damped: its first probe is reported as it is."""
    prober = Prober(current=None)
    assert prober.probe("unreachable").reason == "ClusterNotReachable"


def test_a_ready_cluster_turns_not_ready_only_after_the_failure_threshold() -> None:
    """Failures are hidden until they have lasted `failure_threshold` seconds."""
    prober = Prober(current=observed_ready_condition("healthy"))
    assert prober.probe("unreachable").status == "True"
    assert prober.probe("unreachable", after=10).status == "True"
    assert prober.probe("unreachable", after=9.9).status == "True"
    turned = prober.probe("unreachable", after=0.1)
    assert (turned.status, turned.reason) == ("False", "ClusterNotReachable")


def test_a_recovering_cluster_turns_ready_only_after_the_success_threshold() -> None:
    """A NotReady cluster must answer healthy for `success_threshold` seconds before it is Ready."""
    prober = Prober(current=observed_ready_condition("unreachable"))
    assert prober.probe("healthy").status == "False"
    assert prober.probe("healthy", after=29).status == "False"
    assert prober.probe("healthy", after=1).status == "True"


def test_a_blip_shorter_than_the_threshold_restarts_the_count() -> None:
    """A healthy probe in between resets the failure clock: the cluster stays Ready."""
    prober = Prober(current=observed_ready_condition("healthy"))
    prober.probe("unreachable")
    assert prober.probe("healthy", after=15).status == "True"
    assert prober.probe("unreachable", after=1).status == "True"
    assert prober.probe("unreachable", after=15).status == "True"
    assert prober.probe("unreachable", after=5).status == "False"


def test_a_change_between_two_not_ready_reasons_is_not_damped() -> None:
    """NotReachable becoming NotReady is no flip of readiness, so it shows at once."""
    prober = Prober(current=observed_ready_condition("unreachable"))
    assert prober.probe("unhealthy").reason == "ClusterNotReady"


def test_zero_thresholds_report_every_observation() -> None:
    """With both thresholds at 0 the Ready condition follows every probe."""
    clock = ManualClock()
    ready, _ = threshold_adjusted(
        observed_ready_condition("unreachable"),
        observed_ready_condition("healthy"),
        None,
        clock.now(),
        success_threshold=0,
        failure_threshold=0,
    )
    assert ready.status == "False"


def test_status_collection_failure_is_ready_false_with_the_reason() -> None:
    """A cluster whose client cannot be built is NotReady, saying why."""
    condition = status_collection_failed("secret karmada-cluster/x not found")
    assert (condition.status, condition.reason) == ("False", "StatusCollectionFailed")
    assert "not found" in condition.message


def test_set_condition_keeps_the_transition_time_while_the_status_holds() -> None:
    """Only a change of status moves lastTransitionTime; the reason and message always follow."""
    clock = ManualClock()
    first = set_condition([], observed_ready_condition("unhealthy"), clock.now())
    assert first[0].last_transition_time == format_time(clock.now())
    clock.advance(60)
    same = set_condition(first, observed_ready_condition("unreachable"), clock.now())
    assert same[0].last_transition_time == first[0].last_transition_time
    assert same[0].reason == "ClusterNotReachable"
    flipped = set_condition(same, observed_ready_condition("healthy"), clock.now())
    assert flipped[0].last_transition_time == format_time(clock.now())
    assert flipped[0].last_transition_time != first[0].last_transition_time


def test_set_condition_leaves_other_condition_types_in_place() -> None:
    """Setting Ready appends it after the other conditions and does not touch them."""
    other = Condition(type="CompleteAPIEnablements", status="True", reason="Complete", message="m")
    conditions = set_condition([other], observed_ready_condition("healthy"), ManualClock().now())
    assert [c.type for c in conditions] == ["CompleteAPIEnablements", "Ready"]
    assert conditions[0] == other
