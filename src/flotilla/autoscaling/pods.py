"""Pods and their metrics, decoded into what the replica calculator reads.

A FederatedHPA's pods are the union of the pods matching the target's selector in every Ready
target cluster (a simulated cluster's HPA: its own pods); each becomes a `PodSample` keyed
`cluster/name`. A cluster's metrics.k8s.io `PodMetricsList` gives each pod's usage per container;
a pod's sample is the sum over its containers (or the one container a ContainerResource metric
names), skipped when a container lacks the resource, as kube's metrics client does. Requests
count regular containers and restartable (sidecar) init containers.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from flotilla.api.duration import parse_go_duration
from flotilla.api.quantities import QuantityError, milli_units, parse_quantity
from flotilla.api.times import timestamp
from flotilla.autoscaling.replicas import PodMetric, PodSample

Object = Mapping[str, Any]
DEFAULT_WINDOW = timedelta(seconds=30)


def pod_key(cluster: str, name: str) -> str:
    return f"{cluster}/{name}"


def pod_sample(cluster: str, pod: Object, resource: str) -> PodSample:
    metadata = pod.get("metadata") or {}
    status = pod.get("status") or {}
    ready = next((c for c in status.get("conditions") or [] if c.get("type") == "Ready"), None)
    return PodSample(
        key=pod_key(cluster, str(metadata.get("name") or "")),
        phase=str(status.get("phase") or "Pending"),
        deleting=bool(metadata.get("deletionTimestamp")),
        ready=None if ready is None else ready.get("status") == "True",
        ready_transition=None if ready is None else timestamp(ready.get("lastTransitionTime")),
        start_time=timestamp(status.get("startTime")),
        requests=_requests(pod, resource),
    )


def _requests(pod: Object, resource: str) -> dict[str, int | None]:
    spec = pod.get("spec") or {}
    containers = list(spec.get("containers") or [])
    containers += [c for c in spec.get("initContainers") or [] if c.get("restartPolicy") == "Always"]
    requests: dict[str, int | None] = {}
    for container in containers:
        value = ((container.get("resources") or {}).get("requests") or {}).get(resource)
        requests[str(container.get("name") or "")] = _milli(value)
    return requests


def pod_metrics(
    cluster: str, metrics_list: Object, resource: str, container: str = ""
) -> dict[str, PodMetric]:
    """The samples of a member's PodMetricsList, by pod key."""
    samples: dict[str, PodMetric] = {}
    for item in metrics_list.get("items") or []:
        containers = item.get("containers") or []
        total = 0
        missing = not containers
        for entry in containers:
            if container and entry.get("name") != container:
                continue
            value = _milli((entry.get("usage") or {}).get(resource))
            if value is None:
                missing = True
                break
            total += value
        moment = timestamp(item.get("timestamp"))
        if missing or moment is None:
            continue
        name = str((item.get("metadata") or {}).get("name") or "")
        samples[pod_key(cluster, name)] = PodMetric(total, moment, _window(item.get("window")))
    return samples


def _window(value: Any) -> timedelta:
    try:
        return timedelta(seconds=parse_go_duration(str(value))) if value else DEFAULT_WINDOW
    except ValueError:
        return DEFAULT_WINDOW


def _milli(value: Any) -> int | None:
    if value is None:
        return None
    try:
        return milli_units(parse_quantity(value).amount)
    except QuantityError:
        return None
