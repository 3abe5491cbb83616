"""The `scale` subresource: an autoscaling/v1 Scale view of a workload's replicas.

Built-in workloads keep replicas at `spec.replicas`/`status.replicas` and their pod selector at
`spec.selector`; custom resources name their own paths in the CRD (`specReplicasPath`…).
"""

from __future__ import annotations

from typing import Any

from flotilla.api.selectors import SelectorError, label_selector_from_object
from flotilla.apiserver.registry.resources import ScalePaths, ServedResource

BUILTIN_PATHS = ScalePaths(".spec.replicas", ".status.replicas", None)


def paths_of(served: ServedResource) -> ScalePaths:
    if served.custom is not None and served.custom.scale is not None:
        return served.custom.scale
    return BUILTIN_PATHS


def _get(obj: Any, path: str) -> Any:
    for part in path.strip(".").split("."):
        if not isinstance(obj, dict):
            return None
        obj = obj.get(part)
    return obj


def _set(obj: dict[str, Any], path: str, value: Any) -> None:
    parts = path.strip(".").split(".")
    for part in parts[:-1]:
        obj = obj.setdefault(part, {})
    obj[parts[-1]] = value


def scale_of(served: ServedResource, obj: dict[str, Any]) -> dict[str, Any]:
    paths = paths_of(served)
    meta = obj.get("metadata") or {}
    if paths.label_selector is None and served.builtin:
        selector_obj = (obj.get("spec") or {}).get("selector")
        try:
            selector = str(label_selector_from_object(selector_obj)) if selector_obj else ""
        except SelectorError:
            selector = ""
    else:
        selector = _get(obj, paths.label_selector) if paths.label_selector else ""
    status: dict[str, Any] = {"replicas": _get(obj, paths.status_replicas) or 0}
    if selector:
        status["selector"] = selector
    return {
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": {
            k: meta[k]
            for k in ("name", "namespace", "uid", "resourceVersion", "creationTimestamp")
            if k in meta
        },
        "spec": {"replicas": _get(obj, paths.spec_replicas) or 0},
        "status": status,
    }


def with_replicas(served: ServedResource, obj: dict[str, Any], replicas: int) -> dict[str, Any]:
    _set(obj, paths_of(served).spec_replicas, replicas)
    return obj
