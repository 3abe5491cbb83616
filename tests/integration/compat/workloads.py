"""The objects the compatibility suite's clients create, the same for every client.

A client under test applies these with its own API; the suite's checks read them back with the system
kubectl, so what is compared is what the hub stored and served, not what a client says it sent.
"""

from __future__ import annotations

from typing import Any

MEMBERS = ("member1", "member2")


def deployment(name: str, replicas: int = 2, image: str = "nginx:1.25") -> dict[str, Any]:
    """A Deployment of `replicas` nginx pods labelled app=<name>."""
    labels = {"app": name}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": dict(labels)},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": dict(labels)},
            "template": {
                "metadata": {"labels": dict(labels)},
                "spec": {"containers": [{"name": "web", "image": image}]},
            },
        },
    }


def config_map(name: str, **data: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": dict(data)}


def spread_policy() -> dict[str, Any]:
    """A PropagationPolicy that divides every Deployment of its namespace over both members."""
    return {
        "apiVersion": "policy.karmada.io/v1alpha1",
        "kind": "PropagationPolicy",
        "metadata": {"name": "spread"},
        "spec": {
            "resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
            "placement": {
                "clusterAffinity": {"clusterNames": list(MEMBERS)},
                "replicaScheduling": {
                    "replicaSchedulingType": "Divided",
                    "replicaDivisionPreference": "Weighted",
                },
            },
        },
    }


def condition_status(obj: dict[str, Any] | None, kind: str) -> str | None:
    """The status ("True", "False", "Unknown") of `obj`'s condition `kind`, or None when it has none."""
    for condition in ((obj or {}).get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return str(condition.get("status"))
    return None
