"""The replica calculator: Kubernetes' HPA arithmetic on the pods of every member."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

import pytest

from flotilla.autoscaling.replicas import (
    MetricsError,
    PodMetric,
    PodSample,
    ReplicaCalculator,
)

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
LONG_AGO = NOW - timedelta(hours=1)
CALCULATOR = ReplicaCalculator()


def pods(count: int, *, request: int | None = 1000, **fields: object) -> list[PodSample]:
    """`count` running, ready pods started long ago, each requesting `request` millicores."""
    base: dict[str, object] = {
        "ready": True,
        "ready_transition": LONG_AGO,
        "start_time": LONG_AGO,
        "requests": {"app": request},
    }
    base.update(fields)
    return [PodSample(key=f"m1/pod-{i}", **base) for i in range(count)]  # type: ignore[arg-type]


def samples(values: Sequence[int | None], *, at: datetime = NOW) -> dict[str, PodMetric]:
    return {
        f"m1/pod-{i}": PodMetric(value, at, timedelta(seconds=30))
        for i, value in enumerate(values)
        if value is not None
    }


def utilization(current: int, target: int, pod_list: list[PodSample], metrics: dict[str, PodMetric]) -> int:
    return CALCULATOR.utilization_replicas(current, target, "cpu", pod_list, metrics, NOW).replicas


def test_scales_up_to_the_ceiling_of_ratio_times_ready_pods() -> None:
    """50% used against a 30% target on 3 pods asks for ceil(3 x 5/3) = 5."""
    proposal = CALCULATOR.utilization_replicas(3, 30, "cpu", pods(3), samples([300, 500, 700]), NOW)
    assert (proposal.replicas, proposal.utilization, proposal.average_value) == (5, 50, 500)


def test_scales_down_to_the_ceiling_of_ratio_times_ready_pods() -> None:
    """28% used against 50% on 5 pods asks for ceil(5 x 0.56) = 3."""
    assert utilization(5, 50, pods(5), samples([100, 300, 500, 250, 250])) == 3


def test_within_tolerance_keeps_the_current_count() -> None:
    """102% of a 100% target is within the 10% tolerance."""
    assert utilization(3, 100, pods(3), samples([1010, 1030, 1020])) == 3


def test_a_wider_tolerance_holds_a_bigger_change() -> None:
    """With a tolerance of 0.5, a ratio of 1.4 keeps the count."""
    wide = ReplicaCalculator(tolerance=0.5)
    assert wide.utilization_replicas(2, 50, "cpu", pods(2), samples([700, 700]), NOW).replicas == 2


def test_unready_pods_count_as_idle_when_scaling_up() -> None:
    """An unready pod counts at 0% when scaling up: 1200m over 3 pods at 30% → 4."""
    pod_list = pods(3)
    pod_list[0] = PodSample(
        key="m1/pod-0", ready=False, ready_transition=NOW, start_time=NOW, requests={"app": 1000}
    )
    assert utilization(3, 30, pod_list, samples([300, 500, 700])) == 4


def test_pending_pods_are_unready() -> None:
    """A Pending pod is never a sample; scaling up it counts as idle."""
    pod_list = [*pods(2), PodSample(key="m1/pod-2", phase="Pending", requests={"app": 1000})]
    assert utilization(3, 50, pod_list, samples([1000, 1000])) == 4


def test_missing_pods_count_as_fully_used_when_scaling_down() -> None:
    """A pod without a sample counts at 100% when scaling down: (300 + 1000)/4000 at 50% → 3."""
    assert utilization(4, 50, pods(4), samples([100, 100, 100, None])) == 3


def test_missing_pods_count_as_idle_when_scaling_up() -> None:
    """A pod without a sample counts at 0% when scaling up: 2700/4000 at 50% → 6."""
    assert utilization(4, 50, pods(4), samples([900, 900, 900, None])) == 6


def test_filling_in_missing_pods_that_flips_the_direction_keeps_the_count() -> None:
    """120% on one pod, the other missing (0%): 60% — the direction flips, so no change."""
    assert utilization(2, 100, pods(2), samples([1200, None])) == 2


def test_deleted_and_failed_pods_are_ignored() -> None:
    """Pods being deleted or Failed neither count nor lend their samples."""
    pod_list = [
        *pods(2),
        PodSample(key="m1/pod-2", deleting=True, requests={"app": 1000}),
        PodSample(key="m1/pod-3", phase="Failed", requests={"app": 1000}),
    ]
    assert utilization(4, 50, pod_list, samples([1000, 1000, 0, 0])) == 4


def test_pods_of_several_members_are_one_set() -> None:
    """Equal pod names in two members are two pods."""
    pod_list = [
        PodSample(key="m1/web", ready_transition=LONG_AGO, start_time=LONG_AGO, requests={"app": 1000}),
        PodSample(key="m2/web", ready_transition=LONG_AGO, start_time=LONG_AGO, requests={"app": 1000}),
    ]
    metrics = {
        "m1/web": PodMetric(1000, NOW, timedelta(seconds=30)),
        "m2/web": PodMetric(1000, NOW, timedelta(seconds=30)),
    }
    assert utilization(2, 50, pod_list, metrics) == 4


def test_a_pod_in_its_cpu_initialization_period_with_an_early_sample_is_unready() -> None:
    """Within the initialization period, a sample older than one window after readiness is skipped."""
    young = PodSample(
        key="m1/pod-0",
        ready=True,
        ready_transition=NOW - timedelta(seconds=10),
        start_time=NOW - timedelta(minutes=1),
        requests={"app": 1000},
    )
    pod_list = [young, *pods(3)[1:]]
    # pod-0's sample is at NOW, 10 s after readiness, within its 30 s window: unready, so idle
    # (2000/3000 at 50% → 4); counted, its 3000m would ask for 10.
    assert utilization(3, 50, pod_list, samples([3000, 1000, 1000])) == 4


def test_a_pod_that_never_became_ready_is_unready_after_the_initialization_period() -> None:
    """Past the period, a pod that turned unready within the readiness delay of its start is unready."""
    never_ready = PodSample(
        key="m1/pod-0",
        ready=False,
        ready_transition=LONG_AGO + timedelta(seconds=5),
        start_time=LONG_AGO,
        requests={"app": 1000},
    )
    pod_list = [never_ready, *pods(3)[1:]]
    # Unready: idle when scaling up (2000/3000 → 4); counted, its sample would ask for 6.
    assert utilization(3, 50, pod_list, samples([1000, 1000, 1000])) == 4


def test_a_pod_that_was_ready_once_keeps_its_sample() -> None:
    """Past the period, a pod that turned unready long after its start still counts."""
    was_ready = PodSample(
        key="m1/pod-0",
        ready=False,
        ready_transition=LONG_AGO + timedelta(minutes=10),
        start_time=LONG_AGO,
        requests={"app": 1000},
    )
    pod_list = [was_ready, *pods(3)[1:]]
    assert utilization(3, 50, pod_list, samples([1000, 1000, 1000])) == 6


def test_only_cpu_has_readiness_rules() -> None:
    """A memory metric counts a pod in its initialization period as ready."""
    young = pods(1, start_time=NOW, ready_transition=NOW)
    proposal = CALCULATOR.utilization_replicas(1, 50, "memory", young, samples([1000]), NOW)
    assert proposal.replicas == 2


def test_average_value_targets_divide_the_average_usage() -> None:
    """2000m on average against a 1000m target on 3 pods → 6."""
    proposal = CALCULATOR.average_value_replicas(3, 1000, "cpu", pods(3), samples([1000, 2000, 3000]), NOW)
    assert (proposal.replicas, proposal.utilization, proposal.average_value) == (6, None, 2000)


def test_average_value_missing_pods_count_at_the_target_when_scaling_down() -> None:
    """Missing pods count at the target itself when the others are below it."""
    proposal = CALCULATOR.average_value_replicas(3, 1000, "cpu", pods(3), samples([100, 100, None]), NOW)
    assert proposal.replicas == 2


@pytest.mark.parametrize(
    ("pod_list", "metrics", "message"),
    [
        ([], {}, "no pods returned by selector"),
        (pods(2, ready=None), samples([100, 100]), "did not receive metrics for targeted pods"),
        (pods(1, request=None), samples([100]), "missing request for cpu in container app of Pod pod-0"),
        (pods(1, request=0), samples([100]), "no metrics returned matched known pods"),
    ],
)
def test_what_cannot_be_computed_says_why(
    pod_list: list[PodSample], metrics: dict[str, PodMetric], message: str
) -> None:
    """No pods, no usable samples, or no requests: a MetricsError with kube's message."""
    with pytest.raises(MetricsError, match=message):
        utilization(2, 50, pod_list, metrics)


def test_a_container_resource_metric_reads_one_container_request() -> None:
    """ContainerResource targets compare with the named container's request only."""
    pod_list = pods(1, requests={"app": 500, "sidecar": 1500})
    proposal = CALCULATOR.utilization_replicas(1, 50, "cpu", pod_list, samples([500]), NOW, container="app")
    assert (proposal.replicas, proposal.utilization) == (2, 100)
