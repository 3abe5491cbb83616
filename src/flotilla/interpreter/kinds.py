"""The built-in kinds the resource interpreter knows, and where their pod template lives.

Karmada's native interpreter keys every operation by the object's kind and API group (the version
does not matter: `apps/v1` and a future `apps/v2` Deployment are read the same way). Each operation
module keeps its own table from `GroupKind` to a function; this module holds the keys they share,
the one way to read an object's `GroupKind`, and the paths of the pod templates, which replica
interpretation, dependency discovery and the image and command overriders all walk.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple


class InterpreterError(ValueError):
    """An object the interpreter cannot read: a wrong type in a field it needs, or an unknown kind."""


class GroupKind(NamedTuple):
    group: str
    kind: str

    def __str__(self) -> str:
        return f"{self.kind}.{self.group}" if self.group else self.kind


DEPLOYMENT = GroupKind("apps", "Deployment")
REPLICA_SET = GroupKind("apps", "ReplicaSet")
STATEFUL_SET = GroupKind("apps", "StatefulSet")
DAEMON_SET = GroupKind("apps", "DaemonSet")
JOB = GroupKind("batch", "Job")
CRON_JOB = GroupKind("batch", "CronJob")
POD = GroupKind("", "Pod")
SERVICE = GroupKind("", "Service")
SERVICE_ACCOUNT = GroupKind("", "ServiceAccount")
SECRET = GroupKind("", "Secret")
CONFIG_MAP = GroupKind("", "ConfigMap")
PERSISTENT_VOLUME = GroupKind("", "PersistentVolume")
PERSISTENT_VOLUME_CLAIM = GroupKind("", "PersistentVolumeClaim")
INGRESS = GroupKind("networking.k8s.io", "Ingress")
POD_DISRUPTION_BUDGET = GroupKind("policy", "PodDisruptionBudget")
HORIZONTAL_POD_AUTOSCALER = GroupKind("autoscaling", "HorizontalPodAutoscaler")
SERVICE_IMPORT = GroupKind("multicluster.x-k8s.io", "ServiceImport")

POD_TEMPLATE_PATHS: Mapping[GroupKind, tuple[str, ...]] = {
    DEPLOYMENT: ("spec", "template", "spec"),
    REPLICA_SET: ("spec", "template", "spec"),
    STATEFUL_SET: ("spec", "template", "spec"),
    DAEMON_SET: ("spec", "template", "spec"),
    JOB: ("spec", "template", "spec"),
    CRON_JOB: ("spec", "jobTemplate", "spec", "template", "spec"),
    POD: ("spec",),
}
"""Where the pod spec sits in each kind that carries one (a Pod is its own template)."""


def group_kind(obj: Mapping[str, Any]) -> GroupKind:
    """The group and kind of a manifest, read from its `apiVersion` and `kind`."""
    api_version = obj.get("apiVersion")
    kind = obj.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        raise InterpreterError("object has no apiVersion or kind")
    group, _, _ = api_version.rpartition("/")
    return GroupKind(group, kind)


def nested(obj: Mapping[str, Any], *path: str) -> Any:
    """The value at `path`, or None when any step is missing or not an object."""
    value: Any = obj
    for step in path:
        if not isinstance(value, Mapping):
            return None
        value = value.get(step)
    return value


def nested_mapping(obj: Mapping[str, Any], *path: str) -> Mapping[str, Any]:
    """The object at `path`; an empty mapping when it is missing or of another type."""
    value = nested(obj, *path)
    return value if isinstance(value, Mapping) else {}


def nested_list(obj: Mapping[str, Any], *path: str) -> list[Any]:
    """The list at `path`; an empty list when it is missing or of another type."""
    value = nested(obj, *path)
    return value if isinstance(value, list) else []


def nested_int(obj: Mapping[str, Any], *path: str, default: int = 0) -> int:
    """The integer at `path`, `default` when absent; a non-integer is an `InterpreterError`."""
    value = nested(obj, *path)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        raise InterpreterError(f".{'.'.join(path)}: expected an integer, got {value!r}")
    return value


def pod_spec(obj: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The pod spec of a kind that carries one, None for every other kind."""
    path = POD_TEMPLATE_PATHS.get(group_kind(obj))
    if path is None:
        return None
    return nested_mapping(obj, *path)
