"""Pods and pod specs get kube's container, probe, volume and quantity defaults."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.defaults import apply_defaults, prepare_for_create
from flotilla.apiserver.registry.defaults.pods import image_pull_policy, qos_class

POD = GroupVersionKind("", "v1", "Pod")
DIGEST = "sha256:" + "a" * 64


def pod(**spec: Any) -> dict[str, Any]:
    body = {"containers": [{"name": "app", "image": "nginx:1.27"}], **spec}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": body,
    }


def defaulted_spec(**spec: Any) -> dict[str, Any]:
    manifest = pod(**spec)
    apply_defaults(POD, manifest)
    result: dict[str, Any] = manifest["spec"]
    return result


def test_a_pod_defaults_to_what_kubectl_shows() -> None:
    """Pods get the pod spec defaults plus `enableServiceLinks`."""
    assert defaulted_spec() == {
        "containers": [
            {
                "image": "nginx:1.27",
                "imagePullPolicy": "IfNotPresent",
                "name": "app",
                "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
            }
        ],
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "terminationGracePeriodSeconds": 30,
    }


def test_new_pods_start_pending_with_a_qos_class() -> None:
    """Creation sets status to Pending and computes the QoS class."""
    manifest = pod()
    manifest["status"] = {"phase": "Running"}
    prepare_for_create(POD, manifest)
    assert manifest["status"] == {"phase": "Pending", "qosClass": "BestEffort"}


@pytest.mark.parametrize(
    ("image", "policy"),
    [
        ("nginx", "Always"),
        ("nginx:latest", "Always"),
        ("nginx:1.27", "IfNotPresent"),
        ("registry.example.com:5000/team/app", "Always"),
        ("registry.example.com:5000/team/app:v2", "IfNotPresent"),
        (f"nginx@{DIGEST}", "IfNotPresent"),
        (f"nginx:latest@{DIGEST}", "Always"),
        ("Nginx", "IfNotPresent"),
        ("", "IfNotPresent"),
    ],
)
def test_image_pull_policy_follows_the_tag(image: str, policy: str) -> None:
    """Untagged and `:latest` images are pulled Always; other tags, digests and bad names IfNotPresent."""
    assert image_pull_policy(image) == policy


def test_explicit_pull_policies_are_kept() -> None:
    """A user's `Never` survives defaulting."""
    spec = defaulted_spec(containers=[{"name": "a", "image": "nginx", "imagePullPolicy": "Never"}])
    assert spec["containers"][0]["imagePullPolicy"] == "Never"


def test_ports_env_and_probes_get_their_defaults() -> None:
    """TCP ports, fieldRef apiVersion v1, probe timings and HTTP probe scheme and path."""
    container = {
        "name": "a",
        "image": "a:1",
        "ports": [{"containerPort": 80}],
        "env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
        "readinessProbe": {"httpGet": {"port": 80}},
        "livenessProbe": {"grpc": {"port": 9000}, "periodSeconds": 5},
        "lifecycle": {"preStop": {"httpGet": {"port": 80, "path": "/stop"}}},
    }
    (result,) = defaulted_spec(containers=[container])["containers"]
    assert result["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert result["env"][0]["valueFrom"]["fieldRef"] == {"apiVersion": "v1", "fieldPath": "metadata.name"}
    assert result["readinessProbe"] == {
        "httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    assert result["livenessProbe"]["periodSeconds"] == 5
    assert result["livenessProbe"]["grpc"] == {"port": 9000, "service": ""}
    assert result["lifecycle"]["preStop"]["httpGet"] == {"port": 80, "path": "/stop", "scheme": "HTTP"}


def test_volumes_get_file_modes_and_a_default_source() -> None:
    """Secret, configMap and projected volumes get mode 420; a bare volume becomes an emptyDir."""
    volumes = [
        {"name": "s", "secret": {"secretName": "s"}},
        {"name": "c", "configMap": {"name": "c", "defaultMode": 256}},
        {"name": "p", "projected": {"sources": [{"serviceAccountToken": {"path": "token"}}]}},
        {"name": "h", "hostPath": {"path": "/var/log"}},
        {"name": "scratch"},
    ]
    result = defaulted_spec(volumes=volumes)["volumes"]
    assert result == [
        {"name": "s", "secret": {"secretName": "s", "defaultMode": 420}},
        {"name": "c", "configMap": {"name": "c", "defaultMode": 256}},
        {
            "name": "p",
            "projected": {
                "sources": [{"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}}],
                "defaultMode": 420,
            },
        },
        {"name": "h", "hostPath": {"path": "/var/log", "type": ""}},
        {"name": "scratch", "emptyDir": {}},
    ]


def test_pod_requests_default_to_limits_and_quantities_are_canonical() -> None:
    """A limit without a request becomes the request; `0.5` is stored as `500m`."""
    container = {
        "name": "a",
        "image": "a:1",
        "resources": {"limits": {"cpu": "0.5", "memory": "1024Mi"}, "requests": {"cpu": 0.25}},
    }
    (result,) = defaulted_spec(containers=[container])["containers"]
    assert result["resources"] == {
        "limits": {"cpu": "500m", "memory": "1Gi"},
        "requests": {"cpu": "250m", "memory": "1Gi"},
    }


def test_templates_do_not_copy_limits_to_requests() -> None:
    """Only Pods get requests from limits, as in kube (templates stay as written)."""
    deployment = {
        "spec": {
            "template": {
                "spec": {"containers": [{"name": "a", "image": "a:1", "resources": {"limits": {"cpu": "1"}}}]}
            }
        }
    }
    apply_defaults(GroupVersionKind("apps", "v1", "Deployment"), deployment)
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"] == {"limits": {"cpu": "1"}}
    assert "enableServiceLinks" not in deployment["spec"]["template"]["spec"]


def test_host_network_pods_use_their_container_ports_on_the_host() -> None:
    """With hostNetwork, an unset hostPort becomes the containerPort."""
    container = {"name": "a", "image": "a:1", "ports": [{"containerPort": 8080}]}
    (result,) = defaulted_spec(hostNetwork=True, containers=[container])["containers"]
    assert result["ports"] == [{"containerPort": 8080, "hostPort": 8080, "protocol": "TCP"}]


def test_service_account_is_mirrored_into_the_deprecated_field() -> None:
    """core/v1 writes `serviceAccount` alongside `serviceAccountName`, and reads either."""
    assert defaulted_spec(serviceAccountName="ci")["serviceAccount"] == "ci"
    assert defaulted_spec(serviceAccount="legacy")["serviceAccountName"] == "legacy"


@pytest.mark.parametrize(
    ("resources", "expected"),
    [
        ({}, "BestEffort"),
        ({"requests": {"cpu": "100m"}}, "Burstable"),
        ({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1", "memory": "1Gi"}}, "Guaranteed"),
        (
            {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "1Gi"}},
            "Burstable",
        ),
        ({"limits": {"example.com/gpu": "1"}}, "BestEffort"),
    ],
)
def test_qos_class_follows_cpu_and_memory(resources: dict[str, Any], expected: str) -> None:
    """Guaranteed needs equal cpu and memory requests and limits; none at all is BestEffort."""
    spec = {"containers": [{"name": "a", "image": "a", "resources": copy.deepcopy(resources)}]}
    assert qos_class(spec) == expected
