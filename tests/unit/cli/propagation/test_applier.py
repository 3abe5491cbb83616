"""The pure rules of `flotilla apply`: the body sent, the outcome word, the messages, `-o` documents."""

from __future__ import annotations

import re
from typing import Any

import pytest

from flotilla.cli.propagation.applier import (
    ApplySettings,
    ManifestProblem,
    apply_outcome,
    conflict_message,
    output_document,
    prepared_object,
    status_message,
)


def config_map(namespace: str | None = None, resource_version: str | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "settings"}
    if namespace is not None:
        metadata["namespace"] = namespace
    if resource_version is not None:
        metadata["resourceVersion"] = resource_version
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"a": "1"}}


def test_a_namespaced_object_without_namespace_gets_the_default_one() -> None:
    """The namespace of -n (or the context) fills in; the manifest itself is not modified."""
    manifest = config_map()
    body = prepared_object(manifest, True, ApplySettings(namespace="demo"), "cm.yaml")
    assert body["metadata"]["namespace"] == "demo"
    assert "namespace" not in manifest["metadata"]


def test_an_object_keeps_its_own_namespace_unless_minus_n_says_otherwise() -> None:
    """Without -n the manifest's namespace wins; with a different -n it is kubectl's error."""
    body = prepared_object(config_map("other"), True, ApplySettings(namespace="demo"), "cm.yaml")
    assert body["metadata"]["namespace"] == "other"
    with pytest.raises(ManifestProblem) as caught:
        prepared_object(
            config_map("other"), True, ApplySettings(namespace="demo", namespace_enforced=True), "cm.yaml"
        )
    assert str(caught.value) == (
        'the namespace from the provided object "other" does not match the namespace "demo". '
        "You must pass '--namespace=other' to perform this operation."
    )


def test_cluster_scoped_objects_lose_any_namespace() -> None:
    """A namespace written on a cluster-scoped object is dropped, not sent."""
    body = prepared_object(
        config_map("demo"), False, ApplySettings(namespace="x", namespace_enforced=True), "f"
    )
    assert "namespace" not in body["metadata"]


def test_an_object_without_a_name_cannot_be_applied() -> None:
    """Apply needs a name (generateName is for create)."""
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"generateName": "x-"}}
    with pytest.raises(
        ManifestProblem, match=re.escape('error when applying "cm.yaml": resource name may not be empty')
    ):
        prepared_object(manifest, True, ApplySettings(namespace="demo"), "cm.yaml")


def test_outcome_is_created_configured_or_unchanged_by_resource_version() -> None:
    """Absent before: created; a new resourceVersion: configured; the same one: unchanged."""
    assert apply_outcome(None, config_map("d", "5"), "none") == "created"
    assert apply_outcome(config_map("d", "5"), config_map("d", "9"), "none") == "configured"
    assert apply_outcome(config_map("d", "5"), config_map("d", "5"), "none") == "unchanged"


def test_server_dry_run_compares_content_and_client_dry_run_assumes_a_change() -> None:
    """A server dry run moves no resourceVersion, so content decides; client dry run cannot know."""
    before = config_map("d", "5")
    same = {**config_map("d", "5"), "metadata": {**before["metadata"], "managedFields": [{"manager": "x"}]}}
    changed = {**config_map("d", "5"), "data": {"a": "2"}}
    assert apply_outcome(before, same, "server") == "unchanged"
    assert apply_outcome(before, changed, "server") == "configured"
    assert apply_outcome(before, before, "client") == "configured"
    assert apply_outcome(None, before, "client") == "created"


def test_conflict_message_is_one_line_naming_object_source_and_the_ways_out() -> None:
    """The server's conflict list is kept and followed by --force-conflicts or editing the manifest."""
    message = conflict_message(
        'Apply failed with 1 conflict: conflict with "kubectl-patch" using apps/v1: .spec.replicas',
        "deployment.apps/nginx",
        "nginx.yaml",
    )
    assert "\n" not in message
    assert message.startswith('Apply failed with 1 conflict: conflict with "kubectl-patch"')
    assert 'deployment.apps/nginx from "nginx.yaml"' in message
    assert "--force-conflicts" in message


def test_status_message_is_kubectls_and_adds_causes_the_message_does_not_name() -> None:
    """Field causes already in the message are not repeated; others are appended."""
    causes = [
        {"field": "spec.replicas", "message": "Invalid value: -1"},
        {"field": "spec.selector", "message": "Required value"},
    ]
    message = status_message(
        "Invalid", 'Deployment.apps "bad" is invalid: spec.replicas: Invalid value: -1', causes, "f.yaml"
    )
    assert message == (
        'Error from server (Invalid): error when applying "f.yaml": Deployment.apps "bad" is invalid: '
        "spec.replicas: Invalid value: -1; spec.selector: Required value"
    )


def test_output_document_is_the_object_or_a_v1_list_without_managed_fields() -> None:
    """One object prints as itself; several as kubectl's List; managedFields are not shown."""
    assert output_document([config_map("d")]) == config_map("d")
    managed = config_map("d")
    managed["metadata"]["managedFields"] = [{"manager": "flotilla"}]
    assert output_document([managed]) == config_map("d")
    listed = output_document([config_map("d"), config_map("e")])
    assert listed["kind"] == "List"
    assert [item["metadata"]["namespace"] for item in listed["items"]] == ["d", "e"]
