from datetime import UTC, datetime
from typing import Any

from flotilla.apiserver.registry.tables.autoscaling import HORIZONTAL_POD_AUTOSCALER, format_metrics

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)


def autoscaler(metrics: list[dict[str, Any]], current: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "metadata": {"name": "web", "creationTimestamp": "2025-03-01T11:00:00Z"},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2,
            "maxReplicas": 10,
            "metrics": metrics,
        },
        "status": {"currentReplicas": 3, "currentMetrics": current or []},
    }


CPU = {
    "type": "Resource",
    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
}
MEMORY = {
    "type": "Resource",
    "resource": {"name": "memory", "target": {"type": "AverageValue", "averageValue": "512Mi"}},
}


def test_cpu_autoscaler_row() -> None:
    """An HPA prints `Kind/name`, `cpu: current%/target%`, min and max pods and replicas."""
    current = [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "current": {"averageUtilization": 45, "averageValue": "90m"}},
        }
    ]
    assert HORIZONTAL_POD_AUTOSCALER.cells(autoscaler([CPU], current), NOW) == [
        "web",
        "Deployment/web",
        "cpu: 45%/80%",
        "2",
        10,
        3,
        "60m",
    ]


def test_unmeasured_metrics_read_unknown_and_min_replicas_defaults_to_one() -> None:
    """Metrics without status read `<unknown>`; an unset minReplicas prints 1."""
    obj = autoscaler([CPU, MEMORY])
    del obj["spec"]["minReplicas"]
    assert HORIZONTAL_POD_AUTOSCALER.cells(obj, NOW)[2:4] == [
        "cpu: <unknown>/80%, memory: <unknown>/512Mi",
        "1",
    ]


def test_metric_kinds_and_overflow() -> None:
    """Pods, object and external metrics render their targets; past two metrics the rest are counted."""
    metrics = [
        {
            "type": "Pods",
            "pods": {"metric": {"name": "qps"}, "target": {"type": "AverageValue", "averageValue": "1k"}},
        },
        {
            "type": "External",
            "external": {"metric": {"name": "queue"}, "target": {"type": "Value", "value": "30"}},
        },
        {"type": "Object", "object": {"target": {"type": "AverageValue", "averageValue": "10"}}},
    ]
    current = [
        {"type": "Pods", "pods": {"current": {"averageValue": "1500m"}}},
        {"type": "External", "external": {"current": {"value": "12"}}},
    ]
    assert format_metrics(autoscaler(metrics, current)) == "1500m/1k, 12/30 + 1 more..."
    assert format_metrics(autoscaler(metrics[2:])) == "<unknown>/10 (avg)"


def test_no_metrics_and_unknown_types() -> None:
    """No metrics prints `<none>`; an unknown metric type prints `<unknown type>`."""
    assert format_metrics(autoscaler([])) == "<none>"
    assert format_metrics(autoscaler([{"type": "Quantum"}])) == "<unknown type>"
    auto_target = {
        "type": "ContainerResource",
        "containerResource": {"name": "cpu", "container": "app", "target": {}},
    }
    assert format_metrics(autoscaler([auto_target])) == "cpu: <unknown>/<auto>"
