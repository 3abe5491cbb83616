"""The resource metrics API (`metrics.k8s.io/v1beta1`): its kinds, and reading a PodMetricsList.

metrics-server serves it in a Kubernetes cluster: `PodMetrics` (per container usage of a running
pod) and `NodeMetrics` (a node's usage), each with the `timestamp` of the sample and the `window`
it covers; `kubectl top` and the HPA read it. Simulated members serve it from a load users set
(`flotilla.sim.metrics`); the hub serves it across members as Karmada's metrics adapter does, each
item annotated with the member it came from (`QUERY_FROM_CLUSTER_ANNOTATION`). Both ends, and the
FederatedHPA controller reading per-pod usage, share what is here: the resource types, and
`pod_usages`, which decodes a PodMetricsList into one CPU and memory figure per pod (the sum of
its containers, as the HPA's metrics client adds them up).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flotilla.api.quantities import QuantityError, parse_quantity
from flotilla.api.scheme import GroupVersionKind, ResourceType

GROUP = "metrics.k8s.io"
VERSION = "v1beta1"
API_VERSION = f"{GROUP}/{VERSION}"

POD_METRICS = ResourceType(
    group=GROUP,
    version=VERSION,
    kind="PodMetrics",
    plural="pods",
    singular="",
    namespaced=True,
    verbs=("get", "list"),
)
NODE_METRICS = ResourceType(
    group=GROUP,
    version=VERSION,
    kind="NodeMetrics",
    plural="nodes",
    singular="",
    namespaced=False,
    verbs=("get", "list"),
)
"""metrics-server's discovery: `pods` and `nodes`, get and list only (no watch), no short names."""

POD_METRICS_KIND = POD_METRICS.gvk
NODE_METRICS_KIND = NODE_METRICS.gvk
POD_METRICS_LIST: GroupVersionKind = GroupVersionKind(GROUP, VERSION, "PodMetricsList")

QUERY_FROM_CLUSTER_ANNOTATION = "resource.karmada.io/query-from-cluster"
"""Karmada's metrics adapter marks each item it merges with the member cluster it came from."""


@dataclass(frozen=True, slots=True)
class PodUsage:
    """One pod's usage: the sum over its containers, CPU in cores and memory in bytes (exact)."""

    namespace: str
    name: str
    cpu: Fraction
    memory: Fraction
    cluster: str = ""
    """The member it came from (`QUERY_FROM_CLUSTER_ANNOTATION`), empty when read from a member."""
    timestamp: str = ""
    window: str = ""

    @property
    def cpu_millis(self) -> int:
        """CPU in millicores, rounded up as kube's `MilliValue()` rounds."""
        return -(-self.cpu.numerator * 1000 // self.cpu.denominator)

    @property
    def memory_bytes(self) -> int:
        return -(-self.memory.numerator // self.memory.denominator)


def _amount(value: Any) -> Fraction:
    try:
        return parse_quantity(value).amount
    except QuantityError:
        return Fraction(0)


def pod_usage(item: Mapping[str, Any]) -> PodUsage:
    """One PodMetrics as a `PodUsage` (containers summed; an unreadable quantity counts as zero)."""
    metadata = item.get("metadata") or {}
    cpu = memory = Fraction(0)
    for container in item.get("containers") or ():
        if not isinstance(container, Mapping):
            continue
        usage = container.get("usage") or {}
        cpu += _amount(usage.get("cpu", "0"))
        memory += _amount(usage.get("memory", "0"))
    annotations = metadata.get("annotations") or {}
    return PodUsage(
        namespace=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        cpu=cpu,
        memory=memory,
        cluster=str(annotations.get(QUERY_FROM_CLUSTER_ANNOTATION) or ""),
        timestamp=str(item.get("timestamp") or ""),
        window=str(item.get("window") or ""),
    )


def pod_usages(pod_metrics_list: Mapping[str, Any] | Iterable[Mapping[str, Any]]) -> list[PodUsage]:
    """Every pod of a PodMetricsList (or of its `items`), in order: the HPA's view of pod metrics.

    Pods of the same name in different members (the hub's merged list) stay separate items; tell
    them apart by `cluster`."""
    items = pod_metrics_list.get("items") or [] if isinstance(pod_metrics_list, Mapping) else pod_metrics_list
    return [pod_usage(item) for item in items if isinstance(item, Mapping)]
