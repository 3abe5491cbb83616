"""PodMetrics and NodeMetrics objects as metrics-server writes them, from computed usage.

metrics-server stamps every item with the time of its last scrape (`timestamp`) and the interval
the rates were measured over (`window`); here usage is computed when asked, so the timestamp is
now and the window the scrape interval metrics-server runs with by default (15 s). CPU is written
in nanocores' canonical form (`250m`, `333333334n`), memory in bytes (`256Mi`, `1398101`); a pod's
usage is split over its containers.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from fractions import Fraction
from typing import Any

from flotilla.api import resourcemetrics
from flotilla.api.quantities import Format, Quantity, canonical
from flotilla.api.times import format_time
from flotilla.sim.metrics.usage import Usage, split_among_containers

WINDOW = "15s"
NANO = 10**9


def cpu_text(nanocores: int) -> str:
    return canonical(Quantity(Fraction(nanocores, NANO)))


def memory_text(size: int) -> str:
    return canonical(Quantity(Fraction(size), Format.BINARY_SI))


def _metadata(source: Mapping[str, Any], now: str, *, namespaced: bool) -> dict[str, Any]:
    metadata = source.get("metadata") or {}
    built: dict[str, Any] = {"name": metadata.get("name", "")}
    if namespaced:
        built["namespace"] = metadata.get("namespace", "")
    built["creationTimestamp"] = now
    if metadata.get("labels"):
        built["labels"] = dict(metadata["labels"])
    return built


def pod_metrics(pod: Mapping[str, Any], usage: Usage, now: datetime) -> dict[str, Any]:
    """The PodMetrics of a running pod using `usage` in all (split over its containers)."""
    stamp = format_time(now)
    names = [str(c.get("name", "")) for c in (pod.get("spec") or {}).get("containers") or ()] or [""]
    cpus = split_among_containers(usage.cpu, len(names), NANO)
    memories = split_among_containers(usage.memory, len(names), 1)
    return {
        "kind": resourcemetrics.POD_METRICS.kind,
        "apiVersion": resourcemetrics.API_VERSION,
        "metadata": _metadata(pod, stamp, namespaced=True),
        "timestamp": stamp,
        "window": WINDOW,
        "containers": [
            {"name": name, "usage": {"cpu": cpu_text(cpu), "memory": memory_text(memory)}}
            for name, cpu, memory in zip(names, cpus, memories, strict=True)
        ],
    }


def node_metrics(node: Mapping[str, Any], usage: Usage, now: datetime) -> dict[str, Any]:
    stamp = format_time(now)
    return {
        "kind": resourcemetrics.NODE_METRICS.kind,
        "apiVersion": resourcemetrics.API_VERSION,
        "metadata": _metadata(node, stamp, namespaced=False),
        "timestamp": stamp,
        "window": WINDOW,
        "usage": {
            "cpu": cpu_text(split_among_containers(usage.cpu, 1, NANO)[0]),
            "memory": memory_text(split_among_containers(usage.memory, 1, 1)[0]),
        },
    }


def metrics_list(kind: str, items: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "kind": f"{kind}List",
        "apiVersion": resourcemetrics.API_VERSION,
        "metadata": {},
        "items": items,
    }
