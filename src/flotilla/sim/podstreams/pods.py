"""The pod and container an exec or log request names, with kube-apiserver's errors when there is none."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.localclient import LocalClient

POD = GroupVersionKind("", "v1", "Pod")


def find_pod(client: LocalClient, namespace: str, name: str) -> dict[str, Any]:
    pod = client.get(POD, name, namespace=namespace)
    if pod is None:
        raise errors.NotFound(f'pods "{name}" not found', name=name, kind="pods")
    return pod


def container_of(pod: Mapping[str, Any], requested: str) -> str:
    """The container a request addresses: the one named, or the pod's only one (kube's rules and words)."""
    name = pod["metadata"]["name"]
    spec = pod.get("spec") or {}
    names = [str(c["name"]) for c in spec.get("containers") or []]
    if requested:
        others = [c["name"] for key in ("initContainers", "ephemeralContainers") for c in spec.get(key) or []]
        if requested not in names and requested not in others:
            raise errors.BadRequest(f"container {requested} is not valid for pod {name}")
        return requested
    if len(names) == 1:
        return names[0]
    raise errors.BadRequest(
        f"a container name must be specified for pod {name}, choose one of: [{' '.join(names)}]"
    )
