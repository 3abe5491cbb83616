"""InterpretDependency: what a workload takes along to each cluster with propagateDeps."""

from __future__ import annotations

from typing import Any

from flotilla.interpreter import get_dependencies
from tests.unit.interpreter.samples import web_deployment


def _names(dependencies: list[dict[str, Any]], kind: str) -> list[str]:
    return [dependency["name"] for dependency in dependencies if dependency["kind"] == kind]


def test_deployment_depends_on_everything_its_pod_template_references() -> None:
    """Volumes, projected sources, env, envFrom, pull secrets and the service account are all found."""
    dependencies = get_dependencies(web_deployment())
    assert _names(dependencies, "ConfigMap") == ["ca-bundle", "web-config", "web-env", "web-settings"]
    assert _names(dependencies, "Secret") == [
        "api-token",
        "client-cert",
        "db-admin",
        "registry-credentials",
        "web-tls",
    ]
    assert _names(dependencies, "ServiceAccount") == ["web-runner"]
    assert _names(dependencies, "PersistentVolumeClaim") == ["web-data"]
    assert dependencies[0] == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "namespace": "shop",
        "name": "ca-bundle",
    }
    assert [dependency["kind"] for dependency in dependencies] == sorted(
        (dependency["kind"] for dependency in dependencies),
        key=["ConfigMap", "Secret", "ServiceAccount", "PersistentVolumeClaim"].index,
    )


def test_the_default_service_account_and_empty_names_are_not_dependencies() -> None:
    """Every namespace has `default`, and an empty reference names nothing."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {
            "serviceAccountName": "default",
            "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": ""}}]}],
        },
    }
    assert get_dependencies(pod) == []


def test_volume_plugin_credentials_and_ephemeral_containers_count() -> None:
    """Secrets handed to volume plugins and env of ephemeral containers are dependencies too."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ns"},
        "spec": {
            "containers": [{"name": "c"}],
            "ephemeralContainers": [{"name": "debug", "envFrom": [{"secretRef": {"name": "debug-creds"}}]}],
            "volumes": [
                {"name": "share", "azureFile": {"secretName": "azure-creds", "shareName": "s"}},
                {"name": "ceph", "cephfs": {"monitors": ["m"], "secretRef": {"name": "ceph-creds"}}},
                {"name": "csi", "csi": {"driver": "d", "nodePublishSecretRef": {"name": "csi-creds"}}},
            ],
        },
    }
    assert _names(get_dependencies(pod), "Secret") == [
        "azure-creds",
        "ceph-creds",
        "csi-creds",
        "debug-creds",
    ]


def test_cron_job_dependencies_come_from_its_job_template() -> None:
    """A CronJob's pod template sits inside its job template."""
    cron_job = {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "report", "namespace": "ns"},
        "spec": {
            "jobTemplate": {
                "spec": {
                    "template": {
                        "spec": {
                            "containers": [{"name": "c", "envFrom": [{"configMapRef": {"name": "cfg"}}]}]
                        }
                    }
                }
            }
        },
    }
    assert get_dependencies(cron_job) == [
        {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "ns", "name": "cfg"}
    ]


def test_ingress_depends_on_its_tls_secrets_and_backend_services() -> None:
    """An Ingress needs its certificates and the Services it routes to."""
    ingress = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "Ingress",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {
            "tls": [{"hosts": ["shop.example.com"], "secretName": "shop-tls"}],
            "defaultBackend": {"service": {"name": "fallback", "port": {"number": 80}}},
            "rules": [
                {
                    "host": "shop.example.com",
                    "http": {
                        "paths": [
                            {"path": "/", "backend": {"service": {"name": "web", "port": {"number": 80}}}},
                            {"path": "/api", "backend": {"service": {"name": "api", "port": {"number": 80}}}},
                            {
                                "path": "/static",
                                "backend": {"resource": {"kind": "StorageBucket", "name": "b"}},
                            },
                        ]
                    },
                }
            ],
        },
    }
    dependencies = get_dependencies(ingress)
    assert _names(dependencies, "Secret") == ["shop-tls"]
    assert _names(dependencies, "Service") == ["api", "fallback", "web"]


def test_service_import_depends_on_its_derived_service_and_endpoint_slices() -> None:
    """A ServiceImport brings the derived Service and its EndpointSlices, selected by label."""
    service_import = {
        "apiVersion": "multicluster.x-k8s.io/v1alpha1",
        "kind": "ServiceImport",
        "metadata": {"name": "web", "namespace": "shop"},
    }
    assert get_dependencies(service_import) == [
        {"apiVersion": "v1", "kind": "Service", "namespace": "shop", "name": "derived-web"},
        {
            "apiVersion": "discovery.k8s.io/v1",
            "kind": "EndpointSlice",
            "namespace": "shop",
            "labelSelector": {"matchLabels": {"kubernetes.io/service-name": "derived-web"}},
        },
    ]


def test_kinds_without_references_have_no_dependencies() -> None:
    """A ConfigMap depends on nothing."""
    assert get_dependencies({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}) == []
