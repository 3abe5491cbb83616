"""Member objects for the search cache's unit tests: pods as a simulated member shapes them."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.search.kinds import CachedKind

PODS = CachedKind(
    "",
    "v1",
    "Pod",
    "pods",
    True,
    ("spec.nodeName", "status.phase"),
    False,
)
DEPLOYMENTS = CachedKind("apps", "v1", "Deployment", "deployments", True)


def pod(
    name: str, namespace: str = "default", *, app: str = "web", phase: str = "Running", **labels: str
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "uid": f"uid-{namespace}-{name}",
            "resourceVersion": "17",
            "labels": {"app": app, **labels},
            "annotations": {
                "kubectl.kubernetes.io/last-applied-configuration": '{"big": "blob"}',
                "team": "a",
            },
            "managedFields": [{"manager": "kubectl", "operation": "Apply", "fieldsV1": {"f:spec": {}}}],
        },
        "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": "nginx:1.27"}]},
        "status": {"phase": phase, "podIP": "10.0.0.1"},
    }
