"""API enablements of a member, from its discovery as the client maps it."""

from __future__ import annotations

from flotilla.client.discovery import ResourceInfo
from flotilla.controllers.cluster.apienablements import api_enablements


def resource(group: str, version: str, kind: str, plural: str) -> ResourceInfo:
    return ResourceInfo(group, version, kind, plural, True, ("get", "list"), ())


def test_group_versions_and_resources_come_out_sorted() -> None:
    """Group versions are sorted, the core group is plain `v1`, resources are sorted by name."""
    discovered = [
        resource("apps", "v1", "StatefulSet", "statefulsets"),
        resource("", "v1", "Pod", "pods"),
        resource("apps", "v1", "Deployment", "deployments"),
        resource("batch", "v1", "Job", "jobs"),
        resource("", "v1", "ConfigMap", "configmaps"),
    ]
    wire = [e.to_object() for e in api_enablements(discovered)]
    assert wire == [
        {
            "groupVersion": "apps/v1",
            "resources": [
                {"name": "deployments", "kind": "Deployment"},
                {"name": "statefulsets", "kind": "StatefulSet"},
            ],
        },
        {"groupVersion": "batch/v1", "resources": [{"name": "jobs", "kind": "Job"}]},
        {
            "groupVersion": "v1",
            "resources": [{"name": "configmaps", "kind": "ConfigMap"}, {"name": "pods", "kind": "Pod"}],
        },
    ]


def test_subresources_and_nameless_entries_are_left_out() -> None:
    """`pods/status` and entries without a kind are not resources the scheduler asks about."""
    discovered = [
        resource("", "v1", "Pod", "pods"),
        resource("", "v1", "Pod", "pods/status"),
        resource("", "v1", "", "bindings"),
    ]
    (only,) = api_enablements(discovered)
    assert [r.name for r in only.resources] == ["pods"]


def test_every_served_version_of_a_group_is_listed() -> None:
    """A group served in two versions appears twice, once per version."""
    discovered = [
        resource("autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers"),
        resource("autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers"),
    ]
    assert [e.group_version for e in api_enablements(discovered)] == ["autoscaling/v1", "autoscaling/v2"]


def test_no_discovery_means_no_enablements() -> None:
    """An empty discovery gives an empty list (the status then says the list is not complete)."""
    assert api_enablements([]) == []
