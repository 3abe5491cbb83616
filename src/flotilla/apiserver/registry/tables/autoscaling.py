"""The HorizontalPodAutoscaler table: `NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE`.

TARGETS pairs each metric in the spec with the current value at the same index of
`status.currentMetrics`: `cpu: 45%/80%`, `memory: 200Mi/500Mi`, `10/20 (avg)` for external and object
metrics averaged per pod. A metric not measured yet reads `<unknown>`; a resource target with no
utilisation reads `<auto>`. Two metrics are shown, then `+ N more...`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import since
from flotilla.api.quantities import format_optional_quantity
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.labels import NONE
from flotilla.apiserver.registry.tables.model import AGE, NAME, Cell, Column, Printer
from flotilla.apiserver.registry.tables.objects import child, created, integer, mapping, name, objects, text

_SHOWN_METRICS = 2
_UNKNOWN = "<unknown>"


def _status_for(statuses: list[dict[str, Any]], index: int, source: str) -> dict[str, Any] | None:
    """The `source` block of the status at `index`, if the autoscaler has measured it."""
    if index >= len(statuses):
        return None
    block = statuses[index].get(source)
    return block if isinstance(block, dict) else None


def _value_metric(spec: dict[str, Any], status: dict[str, Any] | None) -> str:
    """External and Object metrics: a per-pod average or a plain value."""
    target = mapping(spec, "target")
    if target.get("averageValue") is not None:
        current = _UNKNOWN
        if status is not None and child(status, "current", "averageValue") is not None:
            current = format_optional_quantity(child(status, "current", "averageValue"))
        return f"{current}/{format_optional_quantity(target.get('averageValue'))} (avg)"
    current = _UNKNOWN
    if status is not None:
        current = format_optional_quantity(child(status, "current", "value"))
    return f"{current}/{format_optional_quantity(target.get('value'))}"


def _resource_metric(spec: dict[str, Any], status: dict[str, Any] | None) -> str:
    """Resource and ContainerResource metrics: `name: current/target`."""
    resource = text(spec, "name")
    target = mapping(spec, "target")
    if target.get("averageValue") is not None:
        current = _UNKNOWN
        if status is not None:
            current = format_optional_quantity(child(status, "current", "averageValue"))
        return f"{resource}: {current}/{format_optional_quantity(target.get('averageValue'))}"
    current = _UNKNOWN
    utilization = child(status, "current", "averageUtilization")
    if status is not None and isinstance(utilization, int):
        current = f"{utilization}%"
    goal = target.get("averageUtilization")
    return f"{resource}: {current}/{f'{goal}%' if isinstance(goal, int) else '<auto>'}"


_SOURCES = {
    "External": ("external", _value_metric),
    "Object": ("object", _value_metric),
    "Resource": ("resource", _resource_metric),
    "ContainerResource": ("containerResource", _resource_metric),
}


def format_metrics(autoscaler: dict[str, Any]) -> str:
    specs = objects(autoscaler, "spec", "metrics")
    if not specs:
        return NONE
    statuses = objects(autoscaler, "status", "currentMetrics")
    rendered = []
    for index, spec in enumerate(specs):
        metric_type = text(spec, "type")
        if metric_type == "Pods":
            status = _status_for(statuses, index, "pods")
            current = _UNKNOWN
            if status is not None:
                current = format_optional_quantity(child(status, "current", "averageValue"))
            target = format_optional_quantity(child(spec, "pods", "target", "averageValue"))
            rendered.append(f"{current}/{target}")
        elif metric_type in _SOURCES:
            source, render = _SOURCES[metric_type]
            rendered.append(render(mapping(spec, source), _status_for(statuses, index, source)))
        else:
            rendered.append("<unknown type>")
    listed = ", ".join(rendered[:_SHOWN_METRICS])
    if len(rendered) > _SHOWN_METRICS:
        return f"{listed} + {len(rendered) - _SHOWN_METRICS} more..."
    return listed


def _autoscaler_row(autoscaler: dict[str, Any], now: datetime) -> list[Cell]:
    target = mapping(autoscaler, "spec", "scaleTargetRef")
    # minReplicas defaults to 1 in autoscaling/v2, so Kubernetes never shows `<unset>` for it.
    min_replicas = integer(autoscaler, "spec", "minReplicas", default=1)
    return [
        name(autoscaler),
        f"{text(target, 'kind')}/{text(target, 'name')}",
        format_metrics(autoscaler),
        str(min_replicas),
        integer(autoscaler, "spec", "maxReplicas"),
        integer(autoscaler, "status", "currentReplicas"),
        since(created(autoscaler), now),
    ]


HORIZONTAL_POD_AUTOSCALER = Printer(
    (
        NAME,
        Column("Reference", "string", description=swagger_doc("HorizontalPodAutoscalerSpec.scaleTargetRef")),
        Column("Targets", "string", description=swagger_doc("HorizontalPodAutoscalerSpec.metrics")),
        Column("MinPods", "string", description=swagger_doc("HorizontalPodAutoscalerSpec.minReplicas")),
        Column("MaxPods", "string", description=swagger_doc("HorizontalPodAutoscalerSpec.maxReplicas")),
        Column(
            "Replicas", "string", description=swagger_doc("HorizontalPodAutoscalerStatus.currentReplicas")
        ),
        AGE,
    ),
    _autoscaler_row,
)
