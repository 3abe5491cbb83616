"""Services, Secrets, Namespaces, storage and other core kinds get kube-apiserver's defaults."""

from __future__ import annotations

import base64
import copy
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.defaults import apply_defaults, prepare_for_create

SERVICE = GroupVersionKind("", "v1", "Service")
SECRET = GroupVersionKind("", "v1", "Secret")
NAMESPACE = GroupVersionKind("", "v1", "Namespace")
PVC = GroupVersionKind("", "v1", "PersistentVolumeClaim")
PV = GroupVersionKind("", "v1", "PersistentVolume")
NODE = GroupVersionKind("", "v1", "Node")
LIMIT_RANGE = GroupVersionKind("", "v1", "LimitRange")
RC = GroupVersionKind("", "v1", "ReplicationController")
ENDPOINTS = GroupVersionKind("", "v1", "Endpoints")
CONFIG_MAP = GroupVersionKind("", "v1", "ConfigMap")


def defaulted(gvk: GroupVersionKind, manifest: dict[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(manifest)
    apply_defaults(gvk, result)
    return result


def test_service_defaults_match_kubectl_output() -> None:
    """A ClusterIP Service gets its type, affinity, protocol, target port and traffic policy."""
    manifest = {"metadata": {"name": "web"}, "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}
    assert defaulted(SERVICE, manifest)["spec"] == {
        "internalTrafficPolicy": "Cluster",
        "ports": [{"port": 80, "protocol": "TCP", "targetPort": 80}],
        "selector": {"app": "web"},
        "sessionAffinity": "None",
        "type": "ClusterIP",
    }


def test_load_balancers_get_node_ports_and_an_external_policy() -> None:
    """LoadBalancer Services allocate node ports and route externally via the cluster by default."""
    spec = defaulted(
        SERVICE, {"spec": {"type": "LoadBalancer", "ports": [{"port": 443, "targetPort": "https"}]}}
    )["spec"]
    assert spec["allocateLoadBalancerNodePorts"] is True
    assert spec["externalTrafficPolicy"] == "Cluster"
    assert spec["ports"][0]["targetPort"] == "https"


def test_external_name_services_get_no_traffic_policies() -> None:
    """ExternalName Services only get their session affinity."""
    spec = defaulted(SERVICE, {"spec": {"type": "ExternalName", "externalName": "db.example.com"}})["spec"]
    assert spec == {"type": "ExternalName", "externalName": "db.example.com", "sessionAffinity": "None"}


def test_client_ip_affinity_gets_a_three_hour_timeout() -> None:
    """kube's default client IP affinity timeout is 10800 seconds."""
    spec = defaulted(SERVICE, {"spec": {"sessionAffinity": "ClientIP", "ports": [{"port": 80}]}})["spec"]
    assert spec["sessionAffinityConfig"] == {"clientIP": {"timeoutSeconds": 10800}}


def test_headless_services_get_their_cluster_ips_list() -> None:
    """`clusterIP: None` is mirrored into `clusterIPs`, as kube's strategy normalizes it."""
    spec = defaulted(SERVICE, {"spec": {"clusterIP": "None", "ports": [{"port": 80}]}})["spec"]
    assert spec["clusterIPs"] == ["None"]


def test_secrets_default_to_opaque_and_fold_string_data() -> None:
    """`stringData` entries become base64 `data` entries and disappear, overriding equal keys."""
    manifest = {"stringData": {"user": "admin"}, "data": {"user": "b2xk", "pass": "cHc="}}
    assert defaulted(SECRET, manifest) == {
        "data": {"user": base64.b64encode(b"admin").decode(), "pass": "cHc="},
        "type": "Opaque",
    }


def test_namespaces_get_their_name_label_and_active_phase() -> None:
    """The `kubernetes.io/metadata.name` label always names the namespace."""
    namespace = defaulted(
        NAMESPACE, {"metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "x"}}}
    )
    assert namespace == {
        "metadata": {"name": "team-a", "labels": {"kubernetes.io/metadata.name": "team-a"}},
        "status": {"phase": "Active"},
    }


def test_new_namespaces_get_the_kubernetes_finalizer_only_on_create() -> None:
    """The finalizer is added at creation; later defaulting does not bring it back once removed."""
    namespace: dict[str, Any] = {"metadata": {"name": "team-a"}}
    prepare_for_create(NAMESPACE, namespace)
    assert namespace["spec"] == {"finalizers": ["kubernetes"]}
    namespace["spec"]["finalizers"] = []
    apply_defaults(NAMESPACE, namespace)
    assert namespace["spec"]["finalizers"] == []


def test_claims_default_their_volume_mode_and_phase() -> None:
    """Claims are Filesystem claims, Pending until bound, with canonical sizes."""
    claim = defaulted(
        PVC, {"spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1000Mi"}}}}
    )
    assert claim["spec"]["volumeMode"] == "Filesystem"
    assert claim["spec"]["resources"]["requests"]["storage"] == "1000Mi"
    assert claim["status"] == {"phase": "Pending"}


def test_volumes_default_their_reclaim_policy() -> None:
    """PersistentVolumes are retained by default."""
    volume = defaulted(PV, {"spec": {"capacity": {"storage": "10Gi"}, "hostPath": {"path": "/data"}}})
    assert volume["spec"]["persistentVolumeReclaimPolicy"] == "Retain"
    assert volume["spec"]["hostPath"] == {"path": "/data", "type": ""}
    assert volume["status"] == {"phase": "Pending"}


def test_node_allocatable_defaults_to_capacity() -> None:
    """A node reporting only capacity gets the same allocatable, canonically written."""
    node = defaulted(NODE, {"status": {"capacity": {"cpu": "4", "memory": "8192Mi", "pods": "110"}}})
    assert node["status"]["allocatable"] == {"cpu": "4", "memory": "8Gi", "pods": "110"}


def test_container_limit_ranges_fill_defaults_from_max_and_min() -> None:
    """Default limits come from max; default requests from the default limit, then min."""
    item = {"type": "Container", "max": {"cpu": "2"}, "min": {"memory": "64Mi"}}
    result = defaulted(LIMIT_RANGE, {"spec": {"limits": [item]}})["spec"]["limits"][0]
    assert result["default"] == {"cpu": "2"}
    assert result["defaultRequest"] == {"cpu": "2", "memory": "64Mi"}


def test_replication_controllers_take_selector_and_labels_from_their_template() -> None:
    """An RC without selector or labels adopts its template's labels and one replica."""
    template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "a", "image": "a:1"}]},
    }
    controller = defaulted(RC, {"metadata": {"name": "web"}, "spec": {"template": template}})
    assert controller["metadata"]["labels"] == {"app": "web"}
    assert controller["spec"]["selector"] == {"app": "web"}
    assert controller["spec"]["replicas"] == 1
    assert controller["spec"]["template"]["spec"]["dnsPolicy"] == "ClusterFirst"


def test_endpoint_ports_default_to_tcp() -> None:
    """Endpoints subsets' ports are TCP unless said otherwise."""
    endpoints = defaulted(
        ENDPOINTS, {"subsets": [{"ports": [{"port": 80}, {"port": 53, "protocol": "UDP"}]}]}
    )
    assert [port["protocol"] for port in endpoints["subsets"][0]["ports"]] == ["TCP", "UDP"]


def test_kinds_without_defaults_are_untouched() -> None:
    """A ConfigMap comes back exactly as written."""
    manifest = {"metadata": {"name": "c"}, "data": {"a": "b"}}
    assert defaulted(CONFIG_MAP, manifest) == manifest
