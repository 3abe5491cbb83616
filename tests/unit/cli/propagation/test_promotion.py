"""What `promote` writes on the hub: the member object stripped into a template, and its dependencies."""

from __future__ import annotations

from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.cli.propagation.promotion import dependency_references, promoted_template


def member_deployment() -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web",
            "namespace": "shop",
            "uid": "0b7c-uid",
            "resourceVersion": "812",
            "generation": 3,
            "creationTimestamp": "2024-05-01T10:00:00Z",
            "managedFields": [{"manager": "kubectl-create"}],
            "ownerReferences": [{"kind": "Something", "name": "owner", "uid": "u"}],
            "finalizers": ["example.com/hold"],
            "labels": {"app": "web", "karmada.io/managed": "true"},
            "annotations": {
                "deployment.kubernetes.io/revision": "3",
                "kubectl.kubernetes.io/last-applied-configuration": "{}",
                "work.karmada.io/name": "web-7d9f",
                "team": "storefront",
            },
        },
        "spec": {
            "replicas": 2,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "serviceAccountName": "web-sa",
                    "imagePullSecrets": [{"name": "registry"}],
                    "containers": [
                        {
                            "name": "web",
                            "image": "nginx",
                            "envFrom": [{"configMapRef": {"name": "web-config"}}],
                        }
                    ],
                },
            },
        },
        "status": {"replicas": 2, "readyReplicas": 2},
    }


def test_server_fields_and_status_are_stripped() -> None:
    """uid, resourceVersion, generation, timestamps, managedFields, owners, finalizers and status go."""
    template = promoted_template(member_deployment())
    metadata = template["metadata"]
    for field in ("uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"):
        assert field not in metadata
    assert "ownerReferences" not in metadata
    assert "finalizers" not in metadata
    assert "status" not in template
    assert template["spec"]["replicas"] == 2
    assert (metadata["name"], metadata["namespace"]) == ("web", "shop")


def test_member_marks_go_user_labels_and_annotations_stay() -> None:
    """Karmada's managed label and Work annotation, kubectl's and the Deployment controller's go."""
    metadata = promoted_template(member_deployment())["metadata"]
    assert metadata["labels"] == {"app": "web"}
    assert metadata["annotations"]["team"] == "storefront"
    for key in (
        "work.karmada.io/name",
        "deployment.kubernetes.io/revision",
        "kubectl.kubernetes.io/last-applied-configuration",
    ):
        assert key not in metadata["annotations"]


def test_the_template_asks_for_the_member_object_to_be_overwritten() -> None:
    """The conflict-resolution annotation lets the execution controller adopt the existing object."""
    annotations = promoted_template(member_deployment())["metadata"]["annotations"]
    assert annotations["work.karmada.io/conflict-resolution"] == "overwrite"


def test_an_explicit_conflict_resolution_on_the_object_is_kept() -> None:
    """An object that already says `abort` keeps saying it, as karmadactl leaves it."""
    deployment = member_deployment()
    deployment["metadata"]["annotations"]["work.karmada.io/conflict-resolution"] = "abort"
    annotations = promoted_template(deployment)["metadata"]["annotations"]
    assert annotations["work.karmada.io/conflict-resolution"] == "abort"


def test_the_member_object_is_not_modified() -> None:
    """Promotion works on a copy."""
    deployment = member_deployment()
    promoted_template(deployment)
    assert deployment["metadata"]["uid"] == "0b7c-uid"
    assert deployment["status"] == {"replicas": 2, "readyReplicas": 2}


def test_a_services_cluster_ip_is_left_to_the_member() -> None:
    """A Service's allocated cluster IP is the member's; a headless `None` is the user's."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"clusterIP": "10.96.0.12", "clusterIPs": ["10.96.0.12"], "ports": [{"port": 80}]},
    }
    assert "clusterIP" not in promoted_template(service)["spec"]
    service["spec"]["clusterIP"] = "None"
    assert promoted_template(service)["spec"]["clusterIP"] == "None"


def test_dependencies_are_the_named_objects_the_pod_template_uses() -> None:
    """The ConfigMap, pull Secret and ServiceAccount referenced are listed, in the object's namespace."""
    references = dependency_references(member_deployment())
    assert sorted((r.gvk, r.namespace, r.name) for r in references) == sorted(
        [
            (GroupVersionKind("", "v1", "ConfigMap"), "shop", "web-config"),
            (GroupVersionKind("", "v1", "Secret"), "shop", "registry"),
            (GroupVersionKind("", "v1", "ServiceAccount"), "shop", "web-sa"),
        ]
    )


def test_objects_without_dependencies_have_none() -> None:
    """A ConfigMap references nothing."""
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "n"}}
    assert dependency_references(config_map) == []
