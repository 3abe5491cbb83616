"""Realistic manifests shared by the interpreter and override tests."""

from __future__ import annotations

from typing import Any


def web_deployment() -> dict[str, Any]:
    """A Deployment with a sidecar, init containers, env from ConfigMaps and Secrets, projected volumes."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "shop",
            "generation": 3,
            "labels": {"app": "web", "tier": "frontend"},
            "annotations": {"team": "storefront"},
        },
        "spec": {
            "replicas": 4,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "serviceAccountName": "web-runner",
                    "priorityClassName": "high",
                    "nodeSelector": {"disktype": "ssd"},
                    "tolerations": [
                        {"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"}
                    ],
                    "affinity": {
                        "nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {
                                "nodeSelectorTerms": [
                                    {
                                        "matchExpressions": [
                                            {
                                                "key": "kubernetes.io/arch",
                                                "operator": "In",
                                                "values": ["amd64"],
                                            }
                                        ]
                                    }
                                ]
                            }
                        }
                    },
                    "imagePullSecrets": [{"name": "registry-credentials"}],
                    "initContainers": [
                        {
                            "name": "migrate",
                            "image": "registry.example.com/shop/migrate:2.1",
                            "resources": {"requests": {"cpu": "2", "memory": "256Mi"}},
                            "envFrom": [{"secretRef": {"name": "db-admin"}}],
                        },
                        {
                            "name": "log-shipper",
                            "image": "fluent/fluent-bit:3.0",
                            "restartPolicy": "Always",
                            "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}},
                        },
                    ],
                    "containers": [
                        {
                            "name": "web",
                            "image": "registry.example.com/shop/web:1.4.2",
                            "command": ["/bin/web"],
                            "args": ["--port=8080", "--verbose"],
                            "resources": {
                                "requests": {"cpu": "500m", "memory": "512Mi", "nvidia.com/gpu": "1"},
                                "limits": {"memory": "1Gi", "ephemeral-storage": "2Gi"},
                            },
                            "env": [
                                {
                                    "name": "MODE",
                                    "valueFrom": {"configMapKeyRef": {"name": "web-settings", "key": "mode"}},
                                },
                                {
                                    "name": "TOKEN",
                                    "valueFrom": {"secretKeyRef": {"name": "api-token", "key": "token"}},
                                },
                                {"name": "PLAIN", "value": "1"},
                            ],
                            "envFrom": [{"configMapRef": {"name": "web-env"}}],
                            "volumeMounts": [{"name": "config", "mountPath": "/etc/web"}],
                        },
                        {
                            "name": "proxy",
                            "image": "envoyproxy/envoy@sha256:" + "a" * 64,
                            "resources": {"requests": {"cpu": "250m", "memory": "128Mi"}},
                        },
                    ],
                    "volumes": [
                        {"name": "config", "configMap": {"name": "web-config"}},
                        {"name": "certs", "secret": {"secretName": "web-tls"}},
                        {"name": "data", "persistentVolumeClaim": {"claimName": "web-data"}},
                        {
                            "name": "bundle",
                            "projected": {
                                "sources": [
                                    {"configMap": {"name": "ca-bundle"}},
                                    {"secret": {"name": "client-cert"}},
                                    {"serviceAccountToken": {"path": "token"}},
                                ]
                            },
                        },
                    ],
                },
            },
        },
    }


def member_deployment_status(
    *,
    replicas: int,
    ready: int,
    generation: int = 1,
    observed: int = 1,
    template_generation: int = 3,
) -> dict[str, Any]:
    """What `reflect_status` reports for a member Deployment."""
    return {
        "generation": generation,
        "resourceTemplateGeneration": template_generation,
        "observedGeneration": observed,
        "replicas": replicas,
        "updatedReplicas": replicas,
        "readyReplicas": ready,
        "availableReplicas": ready,
        **({"unavailableReplicas": replicas - ready} if replicas > ready else {}),
    }
