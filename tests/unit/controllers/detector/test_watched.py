"""Which kinds the detector watches, which objects are templates, and which updates matter."""

from __future__ import annotations

from typing import Any

from flotilla.client.discovery import RESTMapper
from flotilla.controllers.detector.watched import (
    enqueue_worthy,
    is_template,
    specification_changed,
    template_kinds,
)
from tests.unit.controllers.detector.policies import deployment

ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]


def _resource(
    kind: str, plural: str, verbs: list[str] | None = None, scope: str = "Namespaced"
) -> dict[str, Any]:
    return {
        "resource": plural,
        "responseKind": {"kind": kind},
        "scope": scope,
        "verbs": ALL_VERBS if verbs is None else verbs,
    }


def _group(name: str, versions: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "versions": [{"version": version, "resources": resources} for version, resources in versions.items()],
    }


def _mapper() -> RESTMapper:
    mapper = RESTMapper()
    mapper.load(
        [
            {
                "items": [
                    _group(
                        "",
                        {
                            "v1": [
                                _resource("ConfigMap", "configmaps"),
                                _resource("Event", "events"),
                                _resource("Namespace", "namespaces", scope="Cluster"),
                                _resource("ComponentStatus", "componentstatuses", ["get", "list"]),
                                _resource("Binding", "bindings", ["create"]),
                            ]
                        },
                    ),
                    _group(
                        "autoscaling",
                        {
                            "v2": [_resource("HorizontalPodAutoscaler", "horizontalpodautoscalers")],
                            "v1": [
                                _resource("HorizontalPodAutoscaler", "horizontalpodautoscalers"),
                                _resource("OnlyInV1", "onlyinv1s"),
                            ],
                        },
                    ),
                    _group("events.k8s.io", {"v1": [_resource("Event", "events")]}),
                    _group("coordination.k8s.io", {"v1": [_resource("Lease", "leases")]}),
                    _group(
                        "policy.karmada.io",
                        {"v1alpha1": [_resource("PropagationPolicy", "propagationpolicies")]},
                    ),
                    _group(
                        "apps.karmada.io",
                        {"v1alpha1": [_resource("WorkloadRebalancer", "workloadrebalancers")]},
                    ),
                    _group("example.com", {"v1": [_resource("Widget", "widgets")]}),
                ]
            }
        ]
    )
    return mapper


def test_template_kinds_are_the_preferred_deletable_watchable_non_karmada_ones() -> None:
    """Karmada groups, events, leases and kinds without list/watch/delete are left out."""
    kinds = {(info.group, info.version, info.kind) for info in template_kinds(_mapper())}
    assert kinds == {
        ("", "v1", "ConfigMap"),
        ("", "v1", "Namespace"),
        ("autoscaling", "v2", "HorizontalPodAutoscaler"),
        ("autoscaling", "v1", "OnlyInV1"),
        ("example.com", "v1", "Widget"),
    }


def test_objects_of_reserved_and_kube_namespaces_are_not_templates() -> None:
    """karmada-system, karmada-cluster, karmada-es-* and kube-* are skipped, as are those Namespaces."""
    assert is_template(deployment())
    for namespace in (
        "karmada-system",
        "karmada-cluster",
        "karmada-es-member-1",
        "kube-system",
        "kube-public",
    ):
        assert not is_template({**deployment(), "metadata": {"name": "x", "namespace": namespace}})
        assert not is_template({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}})
    assert is_template({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}})


def test_status_and_bookkeeping_changes_are_not_specification_changes() -> None:
    """status, resourceVersion and managedFields are ignored; labels and spec are not."""
    old = deployment()
    status_only = {
        **old,
        "status": {"readyReplicas": 3},
        "metadata": {**old["metadata"], "resourceVersion": "8"},
    }
    assert not specification_changed(old, status_only)
    relabelled = {**old, "metadata": {**old["metadata"], "labels": {"app": "web", "tier": "x"}}}
    assert specification_changed(old, relabelled)
    assert enqueue_worthy("MODIFIED", relabelled, old)
    assert not enqueue_worthy("MODIFIED", status_only, old)
    assert enqueue_worthy("ADDED", old, None)
    assert not enqueue_worthy("DELETED", None, old)
