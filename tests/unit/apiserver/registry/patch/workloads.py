"""Built-in kinds' schemas and a stored Deployment for the strategic merge patch tests."""

from __future__ import annotations

from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.schema.builtin import builtin_schemas
from flotilla.apiserver.registry.schema.model import Schema


def kind_schema(group: str, version: str, kind: str) -> Schema:
    schema = builtin_schemas().for_kind(GroupVersionKind(group, version, kind))
    assert schema is not None, f"no built-in schema for {group}/{version} {kind}"
    return schema


def stored_deployment() -> dict[str, Any]:
    """A Deployment as the server stores it: two containers, a volume, a toleration, finalizers."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "default",
            "labels": {"app": "web", "tier": "front"},
            "annotations": {"team": "storefront"},
            "finalizers": ["example.com/a", "example.com/b"],
        },
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "containers": [
                        {
                            "name": "nginx",
                            "image": "nginx:1.25",
                            "ports": [{"containerPort": 80, "protocol": "TCP"}],
                            "env": [{"name": "MODE", "value": "prod"}, {"name": "LOG", "value": "info"}],
                            "volumeMounts": [{"name": "cache", "mountPath": "/cache"}],
                        },
                        {"name": "x", "image": "busybox:1.36", "args": ["sleep", "3600"]},
                    ],
                    "volumes": [{"name": "cache", "emptyDir": {}}],
                    "tolerations": [
                        {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}
                    ],
                },
            },
        },
    }


def containers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = obj["spec"]["template"]["spec"]["containers"]
    return result


def container_names(obj: dict[str, Any]) -> list[str]:
    return [container["name"] for container in containers(obj)]


def template_patch(pod_spec: dict[str, Any]) -> dict[str, Any]:
    """A patch that changes only the pod template's spec."""
    return {"spec": {"template": {"spec": pod_spec}}}
