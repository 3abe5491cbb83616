"""Protocol details real clients rely on, checked with the system kubectl and the official Python client
against one API server process: JSON patch over the whole object (resourceVersion included), the
client-side to server-side apply migration, trailing slashes on discovery, timestamps stored in UTC."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from kubernetes import client
from kubernetes.client.exceptions import ApiException

from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

JSON_PATCH = "application/json-patch+json"
FINALIZER = "x.example.com/f"


@pytest.fixture
def core(api_client: client.ApiClient) -> client.CoreV1Api:
    return client.CoreV1Api(api_client)


def config_map(kubectl: Kubectl, namespace: str, name: str) -> dict[str, Any]:
    kubectl("create", "configmap", name, "-n", namespace, "--from-literal=a=1")
    found: dict[str, Any] = kubectl.json("get", "configmap", name, "-n", namespace)
    return found


def test_a_json_patch_tests_the_resource_version_and_adds_a_finalizer(
    kubectl: Kubectl, namespace: str
) -> None:
    """kopf's way of adding its finalizer: `test` the current resourceVersion, then `add` the list."""
    current = config_map(kubectl, namespace, "kopf")
    patch = [
        {"op": "test", "path": "/metadata/resourceVersion", "value": current["metadata"]["resourceVersion"]},
        {"op": "add", "path": "/metadata/finalizers", "value": [FINALIZER]},
    ]

    kubectl("patch", "configmap", "kopf", "-n", namespace, "--type", "json", "-p", json.dumps(patch))

    patched = kubectl.json("get", "configmap", "kopf", "-n", namespace)
    assert patched["metadata"]["finalizers"] == [FINALIZER]
    kubectl(
        "patch",
        "configmap",
        "kopf",
        "-n",
        namespace,
        "--type",
        "json",
        "-p",
        '[{"op": "remove", "path": "/metadata/finalizers"}]',
    )


def test_replacing_the_resource_version_makes_it_the_precondition(
    core: client.CoreV1Api, kubectl: Kubectl, namespace: str
) -> None:
    """The current resourceVersion goes through; a stale one is 409 Conflict in kube's words."""
    stale = config_map(kubectl, namespace, "pinned")["metadata"]["resourceVersion"]
    core.patch_namespaced_config_map("pinned", namespace, {"data": {"b": "2"}})
    current = core.read_namespaced_config_map("pinned", namespace).metadata.resource_version

    def replace(resource_version: str, value: str) -> Any:
        patch = [
            {"op": "replace", "path": "/metadata/resourceVersion", "value": resource_version},
            {"op": "add", "path": "/data/c", "value": value},
        ]
        return core.patch_namespaced_config_map("pinned", namespace, patch, _content_type=JSON_PATCH)

    assert replace(current, "current").data["c"] == "current"
    with pytest.raises(ApiException) as refused:
        replace(stale, "stale")

    assert refused.value.status == 409
    status = json.loads(refused.value.body)
    assert status["reason"] == "Conflict"
    assert status["message"] == (
        'Operation cannot be fulfilled on configmaps "pinned": the object has been modified; please apply '
        "your changes to the latest version and try again"
    )
    assert core.read_namespaced_config_map("pinned", namespace).data["c"] == "current"


def test_a_failed_json_patch_test_is_422_in_kubernetes_words(
    core: client.CoreV1Api, kubectl: Kubectl, namespace: str
) -> None:
    """A test of the current resourceVersion passes; of another one it is 422 Invalid, no Python repr."""
    current = config_map(kubectl, namespace, "tested")["metadata"]["resourceVersion"]

    def test_version(resource_version: str) -> Any:
        patch = [
            {"op": "test", "path": "/metadata/resourceVersion", "value": resource_version},
            {"op": "add", "path": "/data/b", "value": "2"},
        ]
        return core.patch_namespaced_config_map("tested", namespace, patch, _content_type=JSON_PATCH)

    assert test_version(current).data == {"a": "1", "b": "2"}
    with pytest.raises(ApiException) as refused:
        test_version(current)

    assert refused.value.status == 422
    status = json.loads(refused.value.body)
    assert status["reason"] == "Invalid"
    assert "/metadata/resourceVersion" in status["message"]
    assert "{" not in status["message"] and "'" not in status["message"]


def test_server_side_apply_after_client_side_apply_migrates_field_ownership_silently(
    kubectl: Kubectl, namespace: str
) -> None:
    """kubectl's migration patch (managedFields and resourceVersion replaced) is taken: no warning,
    and the fields end up owned as kube-apiserver leaves them."""
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "migrated"}, "data": {"a": "1"}}
    kubectl.apply_yaml(manifest, "-n", namespace)

    for _ in range(2):
        applied = kubectl.run(
            "apply", "--server-side", "-n", namespace, "-f", "-", input=json.dumps(manifest)
        )
        assert "Warning" not in applied.stderr, applied.stderr

    stored = kubectl.json("get", "configmap", "migrated", "-n", namespace, "--show-managed-fields")
    owners = {
        (entry["manager"], entry["operation"]): entry["fieldsV1"]
        for entry in stored["metadata"]["managedFields"]
    }
    assert owners == {
        ("kubectl", "Apply"): {"f:data": {"f:a": {}}},
        ("kubectl-last-applied", "Apply"): {
            "f:metadata": {"f:annotations": {"f:kubectl.kubernetes.io/last-applied-configuration": {}}}
        },
    }


def test_version_and_discovery_answer_with_a_trailing_slash(
    api_client: client.ApiClient, kubectl: Kubectl
) -> None:
    """The Python client's VersionApi (and kr8s) ask for /version/; go-restful serves any route so."""
    version = client.VersionApi(api_client).get_code()
    assert version.git_version.startswith("v1.")

    assert json.loads(kubectl("get", "--raw", "/api/v1/"))["kind"] == "APIResourceList"
    assert json.loads(kubectl("get", "--raw", "/apis/apps/"))["kind"] == "APIGroup"
    assert json.loads(kubectl("get", "--raw", "/apis/apps/v1/"))["groupVersion"] == "apps/v1"
    assert not kubectl.succeeds("get", "--raw", "/version/more")


def test_event_timestamps_are_stored_in_utc_with_z(
    core: client.CoreV1Api, kubectl: Kubectl, namespace: str
) -> None:
    """The Python client writes `+00:00`; kube stores Time as seconds `Z` and MicroTime with six digits."""
    sent = datetime(2026, 1, 1, 8, 0, 0, 250000, tzinfo=UTC)
    core.create_namespaced_event(
        namespace,
        client.CoreV1Event(
            metadata=client.V1ObjectMeta(name="ev"),
            involved_object=client.V1ObjectReference(kind="ConfigMap", name="x", namespace=namespace),
            reason="Tested",
            message="timestamps",
            first_timestamp=sent,
            last_timestamp=sent,
            event_time=sent,
            reporting_component="tests",
            reporting_instance="tests-1",
            action="Check",
            type="Normal",
        ),
    )
    kubectl.run(
        "create",
        "-n",
        namespace,
        "-f",
        "-",
        input=json.dumps(event_with_times(namespace, "zoned", "2026-01-01T10:00:00+02:00")),
    )

    stored = kubectl.json("get", "event", "ev", "-n", namespace)
    assert (stored["firstTimestamp"], stored["lastTimestamp"]) == (
        "2026-01-01T08:00:00Z",
        "2026-01-01T08:00:00Z",
    )
    assert stored["eventTime"] == "2026-01-01T08:00:00.250000Z"
    assert kubectl.json("get", "event", "zoned", "-n", namespace)["firstTimestamp"] == "2026-01-01T08:00:00Z"

    refused = kubectl.run(
        "create",
        "-n",
        namespace,
        "-f",
        "-",
        input=json.dumps(event_with_times(namespace, "bad", "soon")),
        check=False,
    )
    assert refused.returncode != 0
    assert "BadRequest" in refused.stderr and 'parsing time "soon"' in refused.stderr


def event_with_times(namespace: str, name: str, first: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": name},
        "involvedObject": {"kind": "ConfigMap", "name": "x", "namespace": namespace},
        "reason": "Tested",
        "firstTimestamp": first,
        "lastTimestamp": first,
    }


CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "stamps.protocol.example.com"},
    "spec": {
        "group": "protocol.example.com",
        "scope": "Namespaced",
        "names": {"plural": "stamps", "singular": "stamp", "kind": "Stamp"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "properties": {"at": {"type": "string", "format": "date-time"}},
                            }
                        },
                    }
                },
            }
        ],
    },
}


def test_custom_resources_keep_timestamps_as_sent(kubectl: Kubectl, namespace: str) -> None:
    """kube does not re-encode unstructured objects: a CR's date-time keeps its `+00:00`."""
    kubectl.apply_yaml(CRD)
    kubectl("wait", "--for=condition=Established", "crd/stamps.protocol.example.com", "--timeout=30s")
    stamp = {
        "apiVersion": "protocol.example.com/v1",
        "kind": "Stamp",
        "metadata": {"name": "s"},
        "spec": {"at": "2026-01-01T08:00:00+00:00"},
    }

    eventually(
        lambda: (
            kubectl.run("apply", "-n", namespace, "-f", "-", input=json.dumps(stamp), check=False).returncode
            == 0
        ),
        what="the Stamp applied once its CRD is served",
    )

    assert kubectl.json("get", "stamps", "s", "-n", namespace)["spec"]["at"] == "2026-01-01T08:00:00+00:00"


def test_a_built_in_status_is_always_served(kubectl: Kubectl, namespace: str) -> None:
    """A Deployment nobody reported on is served with `status: {}` (kr8s reads it at once), also after a
    replace that sent none, and a ReplicaSet's with its required `replicas: 0`, as kube-apiserver does."""
    kubectl("create", "deployment", "plain", "--image=nginx", "-n", namespace)
    assert kubectl.json("get", "deploy", "plain", "-n", namespace)["status"] == {}
    sent = kubectl.json("get", "deploy", "plain", "-n", namespace)
    del sent["status"]
    kubectl("replace", "-f", "-", input=json.dumps(sent))
    assert kubectl.json("get", "deploy", "plain", "-n", namespace)["status"] == {}
    replica_set = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {"name": "plain", "namespace": namespace},
        "spec": {
            "selector": {"matchLabels": {"app": "plain"}},
            "template": {
                "metadata": {"labels": {"app": "plain"}},
                "spec": {"containers": [{"name": "c", "image": "x"}]},
            },
        },
    }
    kubectl("create", "-f", "-", input=json.dumps(replica_set))
    assert kubectl.json("get", "rs", "plain", "-n", namespace)["status"] == {"replicas": 0}
