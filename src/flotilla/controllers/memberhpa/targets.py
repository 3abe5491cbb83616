"""Which workloads propagated HPAs scale, and whether a workload carries the retain mark (pure).

An HPA names the workload it scales by `spec.scaleTargetRef` (apiVersion, kind, name) in its own
namespace. The marker files every HPA under that workload (`ScaleTarget`, keyed by API group,
not version, as kube's RESTMapper resolves it) and asks, for a workload, whether any HPA filed
under it was propagated from the hub: its propagation policy's permanent-id label says the
detector claimed it, so the member gets a copy of the HPA too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flotilla.api.karmada import constants
from flotilla.api.objects import metadata_of
from flotilla.api.scheme import GroupVersion, GroupVersionKind

RETAIN_REPLICAS_VALUE = "true"

_PROPAGATION_LABELS = (
    constants.PROPAGATION_POLICY_PERMANENT_ID_LABEL,
    constants.CLUSTER_PROPAGATION_POLICY_PERMANENT_ID_LABEL,
)


@dataclass(frozen=True, slots=True, order=True)
class ScaleTarget:
    """A workload an HPA scales: its namespace, API group and version, kind and name.

    Equality and hashing ignore the version: `apps/v1` and a later `apps/v2` name one workload.
    """

    namespace: str
    group: str
    kind: str
    name: str
    version: str = field(default="", compare=False)

    @property
    def gvk(self) -> GroupVersionKind:
        return GroupVersionKind(self.group, self.version, self.kind)

    def __str__(self) -> str:
        kind = f"{self.kind}.{self.group}" if self.group else self.kind
        return f"{kind} {self.namespace}/{self.name}"


def scale_target(hpa: Mapping[str, Any]) -> ScaleTarget | None:
    """The workload `hpa` scales; None when its `scaleTargetRef` does not name one."""
    reference = (hpa.get("spec") or {}).get("scaleTargetRef")
    if not isinstance(reference, Mapping):
        return None
    kind, name = reference.get("kind"), reference.get("name")
    api_version = reference.get("apiVersion") or ""
    if not isinstance(kind, str) or not kind or not isinstance(name, str) or not name:
        return None
    if not isinstance(api_version, str):
        return None
    group_version = GroupVersion.parse(api_version)
    namespace = str(metadata_of(hpa).get("namespace") or "")
    return ScaleTarget(namespace, group_version.group, kind, name, group_version.version)


def is_propagated(hpa: Mapping[str, Any]) -> bool:
    """Whether a (Cluster)PropagationPolicy claimed the HPA (Karmada's `hasBeenPropagated`)."""
    labels = metadata_of(hpa).get("labels") or {}
    return isinstance(labels, Mapping) and any(label in labels for label in _PROPAGATION_LABELS)


def marks_its_target(hpa: Mapping[str, Any]) -> bool:
    """A propagated HPA that is not being deleted: its target keeps the member's replicas."""
    return is_propagated(hpa) and not metadata_of(hpa).get("deletionTimestamp")


def wants_mark(hpas: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a workload scaled by `hpas` (every HPA naming it) is to carry the retain mark."""
    return any(marks_its_target(hpa) for hpa in hpas)


def is_marked(obj: Mapping[str, Any]) -> bool:
    """Whether the workload carries `resourcetemplate.karmada.io/retain-replicas: "true"`."""
    labels = metadata_of(obj).get("labels") or {}
    return (
        isinstance(labels, Mapping) and labels.get(constants.RETAIN_REPLICAS_LABEL) == RETAIN_REPLICAS_VALUE
    )


def mark_patch(wanted: bool) -> dict[str, Any]:
    """The JSON merge patch that sets (or removes) the retain mark and touches nothing else."""
    value = RETAIN_REPLICAS_VALUE if wanted else None
    return {"metadata": {"labels": {constants.RETAIN_REPLICAS_LABEL: value}}}
