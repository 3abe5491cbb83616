"""One look at an HPA or a FederatedHPA, pure: from its spec, its target's Scale and its pods to a size."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flotilla.api.selectors import LabelSelector
from flotilla.autoscaling.behavior import ScalingHistory
from flotilla.autoscaling.decision import Autoscaling, PodsToRead, Verdict, rivals_of, samples_of
from flotilla.autoscaling.metricspecs import Samples
from flotilla.autoscaling.replicas import ReplicaCalculator

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
STARTED = "2026-01-01T11:00:00Z"
AUTOSCALING = Autoscaling(ReplicaCalculator(), timedelta(minutes=5))
CPU_50 = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}},
}


def spec(**fields: Any) -> dict[str, Any]:
    return {"minReplicas": 1, "maxReplicas": 10, "metrics": [CPU_50], **fields}


def scale(replicas: int, selector: str = "app=web") -> dict[str, Any]:
    status: dict[str, Any] = {"replicas": replicas}
    if selector:
        status["selector"] = selector
    return {"spec": {"replicas": replicas}, "status": status}


def pod(name: str, cpu_request: str = "100m") -> dict[str, Any]:
    return {
        "metadata": {"name": name, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "app", "resources": {"requests": {"cpu": cpu_request}}}]},
        "status": {
            "phase": "Running",
            "startTime": STARTED,
            "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": STARTED}],
        },
    }


def usage(name: str, cpu: str) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "timestamp": "2026-01-01T12:00:00Z",
        "window": "15s",
        "containers": [{"name": "app", "usage": {"cpu": cpu, "memory": "8Mi"}}],
    }


def observed(cpu_each: str, count: int = 2) -> tuple[list[LabelSelector], Any]:
    """`count` pods of 100m requested, each using `cpu_each`; and the selectors the look asked for."""
    asked: list[LabelSelector] = []
    names = [f"web-{i}" for i in range(count)]

    def observe(selector: LabelSelector) -> Samples:
        asked.append(selector)
        return samples_of("m1", [pod(n) for n in names], {"items": [usage(n, cpu_each) for n in names]})

    return asked, observe


def decide(autoscaler: dict[str, Any], target: dict[str, Any], cpu_each: str = "50m", **kw: Any) -> Verdict:
    _, observe = observed(cpu_each)
    rivals = kw.get("rivals", ["ns/web"])
    return AUTOSCALING.decide(autoscaler, target, rivals, kw.get("history") or ScalingHistory(), observe, NOW)


def conditions(verdict: Verdict) -> dict[str, tuple[bool, str]]:
    return {str(kind): (status, reason) for kind, status, reason, _ in verdict.conditions}


def test_samples_are_keyed_by_cluster_and_read_from_the_metrics_list() -> None:
    pods, metrics = samples_of("m1", [pod("web-0")], {"items": [usage("web-0", "250m")]})("cpu", "")
    assert [p.key for p in pods] == ["m1/web-0"]
    assert pods[0].requests == {"app": 100}
    assert metrics["m1/web-0"].value == 250
    assert metrics["m1/web-0"].window == timedelta(seconds=15)


def test_load_above_target_scales_up_within_the_scale_up_limit() -> None:
    """100% of requests against a 50% target asks for twice the pods: 2 → 4."""
    verdict = decide(spec(), scale(2), "100m")
    assert (verdict.current, verdict.desired, verdict.rescale) == (2, 4, True)
    assert verdict.reason == "cpu resource utilization (percentage of request) above target"
    assert verdict.metric_statuses == [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "current": {"averageUtilization": 100, "averageValue": "100m"}},
        }
    ]
    assert conditions(verdict) == {
        "ScalingActive": (True, "ValidMetricFound"),
        "AbleToScale": (True, "ReadyForNewScale"),
        "ScalingLimited": (False, "DesiredWithinRange"),
    }


def test_a_scale_down_is_held_by_the_stabilization_window() -> None:
    """The first look remembers the current size: a lower recommendation waits 5 minutes."""
    verdict = decide(spec(), scale(4), "5m")
    assert (verdict.desired, verdict.rescale) == (4, False)
    assert conditions(verdict)["AbleToScale"] == (True, "ScaleDownStabilized")


def test_a_behavior_without_a_window_scales_down_at_once_within_the_policies() -> None:
    down = {"stabilizationWindowSeconds": 0, "policies": [{"type": "Pods", "value": 1, "periodSeconds": 60}]}
    verdict = decide(spec(behavior={"scaleDown": down}), scale(4), "5m")
    assert (verdict.desired, verdict.rescale, verdict.reason) == (3, True, "All metrics below target")
    assert conditions(verdict)["ScalingLimited"] == (True, "ScaleDownLimit")


def test_bounds_are_restored_before_the_metrics_are_read() -> None:
    asked, observe = observed("50m")
    verdict = AUTOSCALING.decide(spec(maxReplicas=3), scale(5), ["ns/web"], ScalingHistory(), observe, NOW)
    assert (verdict.desired, verdict.rescale) == (3, True)
    assert verdict.reason == "Current number of replicas above Spec.MaxReplicas"
    assert asked == []


def test_a_target_at_zero_replicas_is_left_alone() -> None:
    verdict = decide(spec(), scale(0))
    assert (verdict.desired, verdict.rescale, verdict.failed) == (0, False, False)
    assert conditions(verdict) == {"ScalingActive": (False, "ScalingDisabled")}


def test_a_scale_without_a_selector_disables_scaling_with_a_warning() -> None:
    verdict = decide(spec(), scale(2, selector=""))
    assert conditions(verdict) == {"ScalingActive": (False, "InvalidSelector")}
    assert verdict.warnings == [("SelectorRequired", "selector is required")]
    assert verdict.failed and not verdict.rescale


def test_a_selector_that_does_not_parse_is_invalid_with_kubes_message() -> None:
    verdict = decide(spec(), scale(2, selector="app in (web"))
    assert conditions(verdict) == {"ScalingActive": (False, "InvalidSelector")}
    reason, message = verdict.warnings[0]
    assert reason == "InvalidSelector"
    assert message.startswith("couldn't convert selector into a corresponding internal selector object: ")
    assert verdict.failed


def test_two_autoscalers_of_one_target_both_stand_down() -> None:
    verdict = decide(spec(), scale(2), rivals=["ns/a", "ns/web"])
    assert conditions(verdict) == {"ScalingActive": (False, "AmbiguousSelector")}
    assert verdict.warnings[0][1] == "pods by selector app=web are controlled by multiple HPAs: [ns/a ns/web]"
    assert verdict.failed and not verdict.rescale


def test_metrics_the_sims_do_not_serve_deactivate_scaling_and_keep_the_size() -> None:
    pods_metric = {"type": "Pods", "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue"}}}
    verdict = decide(spec(metrics=[pods_metric]), scale(2))
    assert (verdict.desired, verdict.rescale, verdict.metric_statuses) == (2, False, None)
    assert verdict.failed
    assert conditions(verdict) == {"ScalingActive": (False, "FailedGetPodsMetric")}
    assert [reason for reason, _ in verdict.warnings] == [
        "FailedGetPodsMetric",
        "FailedComputeMetricsReplicas",
    ]


def test_screening_names_the_pods_to_read_and_concluding_takes_what_was_read() -> None:
    """The FederatedHPA's two steps: `screen` asks for no pods; `conclude` gives `decide`'s verdict."""
    history = ScalingHistory()
    step = AUTOSCALING.screen(spec(), scale(2, selector="app=web"), ["ns/web"], history, NOW)
    assert isinstance(step, PodsToRead)
    assert step.selector_text == "app=web" and step.selector.matches({"app": "web"})
    _, observe = observed("100m")
    verdict = AUTOSCALING.conclude(step, observe(step.selector), history, NOW)
    assert (verdict.current, verdict.desired, verdict.rescale) == (2, 4, True)
    assert verdict == decide(spec(), scale(2), "100m")


def test_screening_ends_the_look_when_no_pods_are_needed() -> None:
    step = AUTOSCALING.screen(spec(maxReplicas=3), scale(5), ["ns/web"], ScalingHistory(), NOW)
    assert isinstance(step, Verdict) and (step.desired, step.rescale) == (3, True)


def test_rivals_are_the_live_autoscalers_of_the_same_target() -> None:
    def autoscaler(name: str, target: str, api_version: str = "apps/v1", **metadata: Any) -> dict[str, Any]:
        reference = {"apiVersion": api_version, "kind": "Deployment", "name": target}
        return {"metadata": {"name": name, **metadata}, "spec": {"scaleTargetRef": reference}}

    reference = {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}
    autoscalers = [
        autoscaler("web", "web"),
        autoscaler("a", "web", "apps/v1beta2"),  # the same group in another version: the same target
        autoscaler("api", "api"),
        autoscaler("gone", "web", deletionTimestamp="2026-01-01T00:00:00Z"),
    ]
    assert rivals_of(reference, "ns", autoscalers) == ["ns/a", "ns/web"]
