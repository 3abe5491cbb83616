"""Policies and templates the detector tests share."""

from __future__ import annotations

from typing import Any

from flotilla.api.karmada.policy import ClusterPropagationPolicy, PropagationPolicy

NAMESPACE = "shop"


def deployment(name: str = "web", labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    """A Deployment template in the shop namespace, as the hub stores it."""
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "uid": f"uid-{name}",
            "resourceVersion": "7",
            "labels": labels if labels is not None else {"app": name},
        },
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "containers": [
                        {"name": "web", "image": "nginx", "resources": {"requests": {"cpu": "250m"}}}
                    ]
                },
            },
            **spec,
        },
    }


def by_name(name: str = "web") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "name": name}


def by_label(**labels: str) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "labelSelector": {"matchLabels": labels}}


def by_kind() -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment"}


def _spec(
    selectors: list[dict[str, Any]], priority: int | None, preemption: str | None, **extra: Any
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "resourceSelectors": selectors,
        "placement": {"clusterAffinity": {"clusterNames": ["member-1"]}},
        **extra,
    }
    if priority is not None:
        spec["priority"] = priority
    if preemption is not None:
        spec["preemption"] = preemption
    return spec


def propagation_policy(
    name: str,
    selectors: list[dict[str, Any]],
    *,
    priority: int | None = None,
    preemption: str | None = None,
    namespace: str = NAMESPACE,
    deleting: bool = False,
    **extra: Any,
) -> PropagationPolicy:
    metadata: dict[str, Any] = {
        "name": name,
        "namespace": namespace,
        "labels": {"propagationpolicy.karmada.io/permanent-id": f"pp-{name}"},
    }
    if deleting:
        metadata["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    return PropagationPolicy.from_object(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "PropagationPolicy",
            "metadata": metadata,
            "spec": _spec(selectors, priority, preemption, **extra),
        }
    )


def cluster_propagation_policy(
    name: str,
    selectors: list[dict[str, Any]],
    *,
    priority: int | None = None,
    preemption: str | None = None,
    **extra: Any,
) -> ClusterPropagationPolicy:
    return ClusterPropagationPolicy.from_object(
        {
            "apiVersion": "policy.karmada.io/v1alpha1",
            "kind": "ClusterPropagationPolicy",
            "metadata": {
                "name": name,
                "labels": {"clusterpropagationpolicy.karmada.io/permanent-id": f"cpp-{name}"},
            },
            "spec": _spec(selectors, priority, preemption, **extra),
        }
    )


def claimed_by(template: dict[str, Any], label: str, value: str) -> dict[str, Any]:
    """The template carrying a claim label."""
    labels = {**template["metadata"].get("labels", {}), label: value}
    return {**template, "metadata": {**template["metadata"], "labels": labels}}
