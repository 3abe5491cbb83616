"""Which watched changes enqueue a binding: the binding controller ignores status churn."""

from __future__ import annotations

import copy

from flotilla.controllers.binding import triggers

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "nginx", "resourceVersion": "1", "generation": 1, "labels": {"app": "nginx"}},
    "spec": {"replicas": 2},
    "status": {"replicas": 0},
}


def test_a_template_status_write_is_not_a_change() -> None:
    """Status, resourceVersion and managedFields changes do not re-render Works."""
    new = copy.deepcopy(DEPLOYMENT)
    new["status"] = {"replicas": 2, "readyReplicas": 2}
    new["metadata"]["resourceVersion"] = "2"
    new["metadata"]["managedFields"] = [{"manager": "flotilla-binding-status"}]
    assert not triggers.template_changed(DEPLOYMENT, new)


def test_template_spec_and_label_changes_are_changes() -> None:
    """A new replica count or a new label reaches the members, so it re-renders."""
    scaled = copy.deepcopy(DEPLOYMENT)
    scaled["spec"]["replicas"] = 3
    labelled = copy.deepcopy(DEPLOYMENT)
    labelled["metadata"]["labels"]["tier"] = "web"
    assert triggers.template_changed(DEPLOYMENT, scaled)
    assert triggers.template_changed(DEPLOYMENT, labelled)


def test_top_level_fields_of_kinds_without_spec_are_changes() -> None:
    """A ConfigMap's data is its desired state."""
    old = {"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}}
    new = {"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "w"}}
    assert triggers.template_changed(old, new)


def test_binding_status_writes_are_not_changes_but_spec_and_deletion_are() -> None:
    """The binding controller reacts to spec.clusters and deletion, not to aggregated status."""
    binding = {"metadata": {"name": "b"}, "spec": {"clusters": [{"name": "sz"}]}, "status": {}}
    status_only = copy.deepcopy(binding)
    status_only["status"] = {"aggregatedStatus": [{"clusterName": "sz"}]}
    moved = copy.deepcopy(binding)
    moved["spec"]["clusters"] = [{"name": "gz"}]
    deleting = copy.deepcopy(binding)
    deleting["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    assert not triggers.binding_changed(binding, status_only)
    assert triggers.binding_changed(binding, moved)
    assert triggers.binding_changed(binding, deleting)


def test_cluster_status_refreshes_are_not_changes_but_labels_are() -> None:
    """Override rules match labels and spec fields; the health status every few seconds does not count."""
    cluster = {"metadata": {"name": "sz", "labels": {"tier": "gold"}}, "spec": {"region": "a"}, "status": {}}
    refreshed = copy.deepcopy(cluster)
    refreshed["status"] = {"conditions": [{"type": "Ready", "status": "True"}]}
    relabelled = copy.deepcopy(cluster)
    relabelled["metadata"]["labels"]["tier"] = "silver"
    assert not triggers.cluster_identity_changed(cluster, refreshed)
    assert triggers.cluster_identity_changed(cluster, relabelled)


def test_work_status_writes_are_not_spec_changes() -> None:
    """Only a changed spec, label or annotation of a Work asks the binding controller to restore it."""
    work = {"metadata": {"annotations": {"a": "1"}}, "spec": {"workload": {}}, "status": {}}
    status_only = copy.deepcopy(work)
    status_only["status"] = {"conditions": [{"type": "Applied"}]}
    edited = copy.deepcopy(work)
    edited["spec"]["suspendDispatching"] = True
    assert not triggers.work_spec_changed(work, status_only)
    assert triggers.work_spec_changed(work, edited)
