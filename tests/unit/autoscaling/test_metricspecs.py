"""From metric specs and member samples to a proposal, metric statuses and ScalingActive."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flotilla.autoscaling.metricspecs import compute, milli_quantity
from flotilla.autoscaling.pods import pod_metrics, pod_sample
from flotilla.autoscaling.replicas import PodMetric, PodSample, ReplicaCalculator

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
LONG_AGO = NOW - timedelta(hours=1)


def cpu(**target: Any) -> dict[str, Any]:
    return {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", **target}}}


def samples(resource: str, container: str) -> tuple[list[PodSample], dict[str, PodMetric]]:
    """Two pods of 1000m requested, using 900m each (90%)."""
    pods = [
        PodSample(key=f"m{i}/p", ready_transition=LONG_AGO, start_time=LONG_AGO, requests={"app": 1000})
        for i in (1, 2)
    ]
    return pods, {f"m{i}/p": PodMetric(900, NOW, timedelta(seconds=30)) for i in (1, 2)}


def test_the_highest_metric_proposal_wins_and_each_metric_reports_its_current_value() -> None:
    """90% against 50% asks for 4; against 30%, for 6: 6 wins."""
    outcome = compute(
        ReplicaCalculator(), [cpu(averageUtilization=50), cpu(averageUtilization=30)], 2, samples, NOW
    )
    assert outcome.replicas == 6
    assert outcome.metric_name == "cpu resource utilization (percentage of request)"
    assert outcome.statuses[0] == {
        "type": "Resource",
        "resource": {"name": "cpu", "current": {"averageUtilization": 90, "averageValue": "900m"}},
    }
    assert outcome.active[:2] == (True, "ValidMetricFound")


def test_average_value_targets_report_the_average() -> None:
    target = {
        "type": "Resource",
        "resource": {"name": "cpu", "target": {"type": "AverageValue", "averageValue": "300m"}},
    }
    outcome = compute(ReplicaCalculator(), [target], 2, samples, NOW)
    assert outcome.replicas == 6
    assert outcome.statuses[0]["resource"]["current"] == {"averageValue": "900m"}


def test_metrics_without_a_source_here_fail_the_autoscaler_when_alone() -> None:
    """A Pods metric needs a custom metrics API: ScalingActive False, no proposal."""
    pods_metric = {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue"}}}
    outcome = compute(ReplicaCalculator(), [pods_metric], 2, samples, NOW)
    assert outcome.replicas is None
    assert outcome.active[:2] == (False, "FailedGetPodsMetric")
    assert outcome.error.startswith("invalid metrics (1 invalid out of 1), first error is: Pods metrics need")


def test_a_failed_metric_beside_one_that_scales_up_does_not_stop_the_scale_up() -> None:
    pods_metric = {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue"}}}
    outcome = compute(ReplicaCalculator(), [pods_metric, cpu(averageUtilization=50)], 2, samples, NOW)
    assert outcome.replicas == 4 and outcome.active[0] is True
    assert [reason for reason, _ in outcome.failures] == ["FailedGetPodsMetric"]


def test_milli_quantities_print_as_kube_prints_them() -> None:
    assert [milli_quantity(v) for v in (250, 1000, 1500, 0)] == ["250m", "1", "1500m", "0"]


def test_pods_and_pod_metrics_decode_from_member_objects() -> None:
    """Requests sum containers and sidecar init containers; a container without usage skips its pod."""
    pod = {
        "metadata": {"name": "web-1"},
        "spec": {
            "containers": [{"name": "app", "resources": {"requests": {"cpu": "250m"}}}],
            "initContainers": [
                {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "0.5"}}},
                {"name": "setup"},
            ],
        },
        "status": {
            "phase": "Running",
            "startTime": "2026-01-01T11:00:00Z",
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T11:00:05Z"}],
        },
    }
    sample = pod_sample("m1", pod, "cpu")
    assert (sample.key, sample.ready, sample.requests) == ("m1/web-1", True, {"app": 250, "proxy": 500})
    listed = {
        "items": [
            {
                "metadata": {"name": "web-1"},
                "timestamp": "2026-01-01T12:00:00Z",
                "window": "15s",
                "containers": [
                    {"name": "app", "usage": {"cpu": "100m"}},
                    {"name": "proxy", "usage": {"cpu": "20m"}},
                ],
            },
            {
                "metadata": {"name": "web-2"},
                "timestamp": "2026-01-01T12:00:00Z",
                "containers": [{"name": "app", "usage": {}}],
            },
        ]
    }
    found = pod_metrics("m1", listed, "cpu")
    assert found == {"m1/web-1": PodMetric(120, NOW, timedelta(seconds=15))}
    assert pod_metrics("m1", listed, "cpu", container="proxy")["m1/web-1"].value == 20
