"""Custom resources served at every version of their CRD, with the system kubectl and the Python client.

One API server for the module. A two-version CRD with `conversion: {strategy: None}` (v1 stored,
v2 served beside it, each version with its own schema, CEL rule, printer columns and selectable
fields) is read, listed, watched and written at both versions; a `Webhook` CRD serves only its
storage version and says why; Karmada's bindings are served at work.karmada.io/v1alpha1 beside
v1alpha2, converted as Karmada converts them.
"""

from __future__ import annotations

import json
import subprocess
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client, watch

from tests.support.kubectl import Kubectl
from tests.support.waiting import eventually

pytestmark = pytest.mark.kubectl

V1_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {"color": {"type": "string"}, "size": {"type": "integer"}},
        }
    },
}
V2_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "color": {"type": "string"},
                "size": {"type": "integer"},
                "shine": {"type": "string"},
            },
            "x-kubernetes-validations": [
                {"rule": "!has(self.size) || self.size <= 10", "message": "at most 10"}
            ],
        }
    },
}


def two_version_crd(group: str, **conversion: Any) -> dict[str, Any]:
    """Gizmos: v1 (stored, column COLOR) and v2 (column SHADE, `spec.color` selectable, a CEL rule)."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"gizmos.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
            "conversion": conversion or {"strategy": "None"},
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": V1_SCHEMA},
                    "additionalPrinterColumns": [
                        {"name": "Color", "type": "string", "jsonPath": ".spec.color"}
                    ],
                },
                {
                    "name": "v2",
                    "served": True,
                    "storage": False,
                    "schema": {"openAPIV3Schema": V2_SCHEMA},
                    "additionalPrinterColumns": [
                        {"name": "Shade", "type": "string", "jsonPath": ".spec.color"}
                    ],
                    "selectableFields": [{"jsonPath": ".spec.color"}],
                },
            ],
        },
    }


def gizmo(group: str, version: str, name: str, **spec: Any) -> dict[str, Any]:
    return {"apiVersion": f"{group}/{version}", "kind": "Gizmo", "metadata": {"name": name}, "spec": spec}


def refused_apply(
    kubectl: Kubectl, manifest: dict[str, Any], *extra: str
) -> subprocess.CompletedProcess[str]:
    """A `kubectl apply` of `manifest` that the server refuses (the test fails if it succeeds)."""
    result = kubectl.run("apply", "-f", "-", *extra, check=False, input=json.dumps(manifest))
    assert result.returncode != 0, result.stdout
    return result


@pytest.fixture(scope="module")
def group(server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    kubectl = Kubectl(server.kubeconfig, tmp_path_factory.mktemp("crd-cache"))
    name = f"g{uuid.uuid4().hex[:8]}.example.com"
    kubectl.apply_yaml(two_version_crd(name))
    kubectl("wait", "--for=condition=established", f"crd/gizmos.{name}", "--timeout=20s")
    eventually(lambda: kubectl.succeeds("get", f"gizmos.v2.{name}", "-A"), what="v2 served")
    yield name
    kubectl.run("delete", "crd", f"gizmos.{name}", "--wait=false", check=False)


@pytest.fixture
def objects(api_client: client.ApiClient) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(api_client)


def test_an_object_created_at_v1_is_read_and_listed_at_v2(
    kubectl: Kubectl, objects: client.CustomObjectsApi, group: str, namespace: str
) -> None:
    """Created at v1, the object reads and lists at v2 with apiVersion v2 (kubectl and the client)."""
    kubectl.apply_yaml(gizmo(group, "v1", "first", color="red", size=3), "-n", namespace)
    at_v2 = kubectl.json("get", f"gizmos.v2.{group}", "first", "-n", namespace)
    assert at_v2["apiVersion"] == f"{group}/v2"
    assert at_v2["spec"] == {"color": "red", "size": 3}
    listed = kubectl.json("get", f"gizmos.v2.{group}", "-n", namespace)
    assert [item["apiVersion"] for item in listed["items"]] == [f"{group}/v2"]
    read = objects.get_namespaced_custom_object(group, "v2", namespace, "gizmos", "first")
    assert read["apiVersion"] == f"{group}/v2"
    assert read["metadata"]["resourceVersion"] == at_v2["metadata"]["resourceVersion"]
    items = objects.list_namespaced_custom_object(group, "v2", namespace, "gizmos")["items"]
    assert [item["apiVersion"] for item in items] == [f"{group}/v2"]
    assert objects.get_namespaced_custom_object(group, "v1", namespace, "gizmos", "first")["apiVersion"] == (
        f"{group}/v1"
    )


def test_a_write_at_v2_is_stored_at_v1(
    kubectl: Kubectl, objects: client.CustomObjectsApi, group: str, namespace: str
) -> None:
    """Written at v2, the object is stored at v1: what v1's schema lacks is pruned, it reads at v1."""
    created = objects.create_namespaced_custom_object(
        group, "v2", namespace, "gizmos", gizmo(group, "v2", "second", color="blue", shine="matte")
    )
    assert created["apiVersion"] == f"{group}/v2"
    assert created["spec"] == {"color": "blue"}, "spec.shine is not in v1, the storage version"
    at_v1 = kubectl.json("get", f"gizmos.v1.{group}", "second", "-n", namespace)
    assert at_v1["apiVersion"] == f"{group}/v1" and at_v1["spec"] == {"color": "blue"}
    patched = objects.patch_namespaced_custom_object(
        group, "v2", namespace, "gizmos", "second", {"spec": {"size": 4}}
    )
    assert patched["apiVersion"] == f"{group}/v2" and patched["spec"] == {"color": "blue", "size": 4}
    kubectl("label", f"gizmos.v2.{group}", "second", "-n", namespace, "tier=gold")
    at_v1 = kubectl.json("get", f"gizmos.v1.{group}", "second", "-n", namespace)
    assert at_v1["metadata"]["labels"] == {"tier": "gold"} and at_v1["spec"]["size"] == 4
    crd = kubectl.json("get", "crd", f"gizmos.{group}")
    assert crd["status"]["storedVersions"] == ["v1"]


def test_a_watch_at_v2_gets_every_event_at_v2(
    objects: client.CustomObjectsApi, group: str, namespace: str
) -> None:
    """Events of objects written at v1 reach a v2 watch (the Python client's) converted."""
    start = objects.list_namespaced_custom_object(group, "v2", namespace, "gizmos")["metadata"][
        "resourceVersion"
    ]

    def writer() -> None:
        body = gizmo(group, "v1", "watched", color="green")
        objects.create_namespaced_custom_object(group, "v1", namespace, "gizmos", body)
        objects.patch_namespaced_custom_object(
            group, "v1", namespace, "gizmos", "watched", {"spec": {"size": 2}}
        )
        objects.delete_namespaced_custom_object(group, "v1", namespace, "gizmos", "watched")

    thread = threading.Thread(target=writer)
    thread.start()
    events: list[tuple[str, str]] = []
    stream = watch.Watch()
    for event in stream.stream(
        objects.list_namespaced_custom_object,
        group,
        "v2",
        namespace,
        "gizmos",
        resource_version=start,
        timeout_seconds=10,
    ):
        events.append((event["type"], event["object"]["apiVersion"]))
        if len(events) == 3:
            stream.stop()
    thread.join()
    assert events == [(kind, f"{group}/v2") for kind in ("ADDED", "MODIFIED", "DELETED")]


def test_kubectl_get_watch_at_v2_prints_objects_at_v2(kubectl: Kubectl, group: str, namespace: str) -> None:
    """`kubectl get -w -o json` at v2 prints an object created at v1 with apiVersion v2."""
    watching = kubectl.popen(
        "get", f"gizmos.v2.{group}", "-n", namespace, "-w", "-o", "jsonpath={.apiVersion}{'\\n'}"
    )
    try:
        kubectl.apply_yaml(gizmo(group, "v1", "seen", color="red"), "-n", namespace)
        assert watching.stdout is not None
        assert watching.stdout.readline().strip() == f"{group}/v2"
    finally:
        watching.kill()
        watching.communicate()


def test_each_version_has_its_own_columns_field_selectors_and_rules(
    kubectl: Kubectl, group: str, namespace: str
) -> None:
    """Objects written at v1 are printed, selected and listed at v2 by v2's printer columns and
    selectable fields; the schema and CEL rules of the version written to apply."""
    kubectl.apply_yaml(
        [gizmo(group, "v1", "red-one", color="red"), gizmo(group, "v1", "blue-one", color="blue")],
        "-n",
        namespace,
    )
    assert kubectl("get", f"gizmos.v1.{group}", "-n", namespace).split("\n")[0].split() == ["NAME", "COLOR"]
    assert kubectl("get", f"gizmos.v2.{group}", "-n", namespace).split("\n")[0].split() == ["NAME", "SHADE"]
    selected = kubectl.json(
        "get", f"gizmos.v2.{group}", "-n", namespace, "--field-selector", "spec.color=red"
    )
    assert [(item["metadata"]["name"], item["apiVersion"]) for item in selected["items"]] == [
        ("red-one", f"{group}/v2")
    ]
    refused = kubectl.run(
        "get", f"gizmos.v1.{group}", "-n", namespace, "--field-selector", "spec.color=red", check=False
    )
    assert refused.returncode != 0 and "field label not supported: spec.color" in refused.stderr
    kubectl.apply_yaml(gizmo(group, "v1", "big", size=20), "-n", namespace)
    too_big = refused_apply(kubectl, gizmo(group, "v2", "bigger", size=20), "-n", namespace)
    assert "at most 10" in too_big.stderr


def test_the_storage_version_moves_and_stored_versions_keep_the_old_one(
    kubectl: Kubectl, group: str, namespace: str
) -> None:
    """A CRD storing at v2 keeps v1 in storedVersions; v1 cannot leave the spec until it leaves there."""
    moved = f"m{uuid.uuid4().hex[:8]}.example.com"
    crd = two_version_crd(moved)
    kubectl.apply_yaml(crd)
    kubectl("wait", "--for=condition=established", f"crd/gizmos.{moved}", "--timeout=20s")
    try:
        eventually(lambda: kubectl.succeeds("get", f"gizmos.v2.{moved}", "-n", namespace), what="v2 served")
        kubectl.apply_yaml(gizmo(moved, "v1", "old", color="red"), "-n", namespace)
        crd["spec"]["versions"][0]["storage"], crd["spec"]["versions"][1]["storage"] = False, True
        kubectl.apply_yaml(crd)
        assert kubectl.json("get", "crd", f"gizmos.{moved}")["status"]["storedVersions"] == ["v1", "v2"]
        kubectl.apply_yaml(gizmo(moved, "v2", "new", color="blue", shine="gloss"), "-n", namespace)
        new = eventually(
            lambda: kubectl.json_or_none("get", f"gizmos.v2.{moved}", "new", "-n", namespace),
            what="stored at v2",
        )
        assert new["spec"]["shine"] == "gloss", "stored at v2 now, which knows spec.shine"
        old = kubectl.json("get", f"gizmos.v2.{moved}", "old", "-n", namespace)
        assert old["apiVersion"] == f"{moved}/v2" and old["spec"] == {"color": "red"}
        crd["spec"]["versions"] = crd["spec"]["versions"][1:]
        refused = refused_apply(kubectl, crd)
        assert 'status.storedVersions[0]: Invalid value: "v1": must appear in spec.versions' in refused.stderr
    finally:
        kubectl.run("delete", "crd", f"gizmos.{moved}", "--wait=false", check=False)


def test_a_webhook_crd_serves_only_its_storage_version_and_says_why(kubectl: Kubectl, namespace: str) -> None:
    """`strategy: Webhook`: v1 (storage) served, v2 not, and a condition naming what is missing."""
    hooked = f"h{uuid.uuid4().hex[:8]}.example.com"
    webhook = {
        "strategy": "Webhook",
        "webhook": {
            "clientConfig": {"url": "https://127.0.0.1:9/convert"},
            "conversionReviewVersions": ["v1"],
        },
    }
    kubectl.apply_yaml(two_version_crd(hooked, **webhook))
    try:
        kubectl("wait", "--for=condition=established", f"crd/gizmos.{hooked}", "--timeout=20s")
        kubectl(
            "wait",
            "--for=condition=WebhookConversionNotSupported",
            f"crd/gizmos.{hooked}",
            "--timeout=20s",
        )
        crd = kubectl.json("get", "crd", f"gizmos.{hooked}")
        condition = next(
            c for c in crd["status"]["conditions"] if c["type"] == "WebhookConversionNotSupported"
        )
        assert condition["message"].startswith(
            "this API server does not call conversion webhooks; only the storage version v1 is served; not v2"
        )
        kubectl.apply_yaml(gizmo(hooked, "v1", "plain", color="red"), "-n", namespace)
        assert (
            kubectl.json("get", f"gizmos.v1.{hooked}", "plain", "-n", namespace)["apiVersion"]
            == f"{hooked}/v1"
        )
        missing = kubectl.run("get", f"gizmos.v2.{hooked}", "-n", namespace, check=False)
        assert missing.returncode != 0
        assert kubectl("api-versions").count(f"{hooked}/") == 1
    finally:
        kubectl.run("delete", "crd", f"gizmos.{hooked}", "--wait=false", check=False)


RB_V1ALPHA1 = "resourcebindings.v1alpha1.work.karmada.io"
WORK = "work.karmada.io"


def v1alpha2_binding(name: str, namespace: str) -> dict[str, Any]:
    """A ResourceBinding as the detector and scheduler write it (v1alpha2 only fields included)."""
    return {
        "apiVersion": f"{WORK}/v1alpha2",
        "kind": "ResourceBinding",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": namespace,
                "name": "web",
                "uid": "5f4a1c1e-0000-4000-8000-000000000001",
                "resourceVersion": "42",
            },
            "replicas": 3,
            "replicaRequirements": {"resourceRequest": {"cpu": "1000m"}},
            "placement": {"clusterAffinity": {"clusterNames": ["m1", "m2"]}},
            "clusters": [{"name": "m1", "replicas": 2}, {"name": "m2", "replicas": 1}],
        },
    }


def test_a_binding_stored_at_v1alpha2_is_served_at_v1alpha1_as_karmada_converts_it(
    kubectl: Kubectl, objects: client.CustomObjectsApi, namespace: str
) -> None:
    """Read, listed and watched at v1alpha1, a binding has Karmada's v1alpha1 shape: replicas and
    requests inside the reference, no uid, no placement; its status without health."""
    kubectl.apply_yaml(v1alpha2_binding("web-deployment", namespace), "-n", namespace)
    status = {
        "aggregatedStatus": [
            {"clusterName": "m1", "applied": True, "health": "Healthy", "status": {"ready": 2}}
        ]
    }
    kubectl(
        "patch",
        "rb",
        "web-deployment",
        "-n",
        namespace,
        "--subresource=status",
        "--type=merge",
        "-p",
        json.dumps({"status": status}),
    )
    old = kubectl.json("get", RB_V1ALPHA1, "web-deployment", "-n", namespace)
    assert old["apiVersion"] == f"{WORK}/v1alpha1"
    assert old["spec"] == {
        "resource": {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "namespace": namespace,
            "name": "web",
            "resourceVersion": "42",
            "resourcePerReplicas": {"cpu": "1"},
            "replicas": 3,
        },
        "clusters": [{"name": "m1", "replicas": 2}, {"name": "m2", "replicas": 1}],
    }
    assert old["status"] == {
        "aggregatedStatus": [{"clusterName": "m1", "applied": True, "status": {"ready": 2}}]
    }
    listed = objects.list_namespaced_custom_object(WORK, "v1alpha1", namespace, "resourcebindings")
    assert [item["apiVersion"] for item in listed["items"]] == [f"{WORK}/v1alpha1"]
    stream = watch.Watch()
    for event in stream.stream(
        objects.list_namespaced_custom_object,
        WORK,
        "v1alpha1",
        namespace,
        "resourcebindings",
        timeout_seconds=5,
    ):
        assert event["object"]["spec"]["resource"]["replicas"] == 3
        stream.stop()
    stored = kubectl.json("get", "rb", "web-deployment", "-n", namespace)
    assert stored["apiVersion"] == f"{WORK}/v1alpha2" and stored["spec"]["placement"], (
        "reading converts nothing stored"
    )


def test_a_binding_written_at_v1alpha1_is_stored_at_v1alpha2(
    kubectl: Kubectl, objects: client.CustomObjectsApi, namespace: str
) -> None:
    """Created at v1alpha1 (the Python client) or applied there (kubectl), bindings land at v1alpha2."""
    body = {
        "apiVersion": f"{WORK}/v1alpha1",
        "kind": "ResourceBinding",
        "metadata": {"name": "api-deployment"},
        "spec": {
            "resource": {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "namespace": namespace,
                "name": "api",
                "resourcePerReplicas": {"cpu": "250m"},
                "replicas": 2,
            },
            "clusters": [{"name": "m1", "replicas": 2}],
        },
    }
    created = objects.create_namespaced_custom_object(WORK, "v1alpha1", namespace, "resourcebindings", body)
    assert created["apiVersion"] == f"{WORK}/v1alpha1" and created["spec"] == body["spec"]
    stored = kubectl.json("get", "rb", "api-deployment", "-n", namespace)
    assert stored["apiVersion"] == f"{WORK}/v1alpha2"
    assert stored["spec"] == {
        "resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": namespace, "name": "api"},
        "replicaRequirements": {"resourceRequest": {"cpu": "250m"}},
        "replicas": 2,
        "clusters": [{"name": "m1", "replicas": 2}],
    }
    cluster_binding = {
        "apiVersion": f"{WORK}/v1alpha1",
        "kind": "ClusterResourceBinding",
        "metadata": {"name": f"reader-{uuid.uuid4().hex[:6]}-clusterrole"},
        "spec": {
            "resource": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "name": "r"}
        },
    }
    kubectl.apply_yaml(cluster_binding)
    name = cluster_binding["metadata"]["name"]
    try:
        at_v1alpha2 = kubectl.json("get", "crb", name)
        assert at_v1alpha2["apiVersion"] == f"{WORK}/v1alpha2"
        assert at_v1alpha2["spec"] == {"resource": cluster_binding["spec"]["resource"]}
        kubectl("label", f"clusterresourcebindings.v1alpha1.{WORK}", name, "team=a")
        assert kubectl.json("get", "crb", name)["metadata"]["labels"] == {"team": "a"}
    finally:
        kubectl.run("delete", "crb", name, check=False)
