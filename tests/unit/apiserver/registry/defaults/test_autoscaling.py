"""Autoscaling, networking, discovery, RBAC, CRD, scheduling and storage kinds get kube's defaults."""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.registry.defaults import apply_defaults

HPA = GroupVersionKind("autoscaling", "v2", "HorizontalPodAutoscaler")
NETWORK_POLICY = GroupVersionKind("networking.k8s.io", "v1", "NetworkPolicy")
INGRESS_CLASS = GroupVersionKind("networking.k8s.io", "v1", "IngressClass")
ENDPOINT_SLICE = GroupVersionKind("discovery.k8s.io", "v1", "EndpointSlice")
ROLE_BINDING = GroupVersionKind("rbac.authorization.k8s.io", "v1", "RoleBinding")
CRD = GroupVersionKind("apiextensions.k8s.io", "v1", "CustomResourceDefinition")
PRIORITY_CLASS = GroupVersionKind("scheduling.k8s.io", "v1", "PriorityClass")
STORAGE_CLASS = GroupVersionKind("storage.k8s.io", "v1", "StorageClass")


def defaulted(gvk: GroupVersionKind, manifest: dict[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(manifest)
    apply_defaults(gvk, result)
    return result


def test_hpas_default_to_one_replica_and_80_percent_cpu() -> None:
    """Without metrics an HPA targets 80% average CPU utilization."""
    spec = defaulted(HPA, {"spec": {"maxReplicas": 5}})["spec"]
    assert spec["minReplicas"] == 1
    assert spec["metrics"] == [
        {
            "type": "Resource",
            "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
        }
    ]
    assert "behavior" not in spec


def test_hpa_behavior_is_completed_with_kubes_rules() -> None:
    """A partial behavior keeps what was given and fills both directions' defaults."""
    behavior = {"scaleDown": {"stabilizationWindowSeconds": 60}}
    result = defaulted(HPA, {"spec": {"maxReplicas": 5, "behavior": behavior}})["spec"]["behavior"]
    assert result == {
        "scaleUp": {
            "stabilizationWindowSeconds": 0,
            "selectPolicy": "Max",
            "policies": [
                {"type": "Pods", "value": 4, "periodSeconds": 15},
                {"type": "Percent", "value": 100, "periodSeconds": 15},
            ],
        },
        "scaleDown": {
            "stabilizationWindowSeconds": 60,
            "selectPolicy": "Max",
            "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}],
        },
    }


def test_network_policy_types_follow_the_rules_present() -> None:
    """Ingress is implied; Egress joins when egress rules exist; ports are TCP."""
    ingress_only = defaulted(
        NETWORK_POLICY, {"spec": {"podSelector": {}, "ingress": [{"ports": [{"port": 80}]}]}}
    )
    assert ingress_only["spec"]["policyTypes"] == ["Ingress"]
    assert ingress_only["spec"]["ingress"][0]["ports"] == [{"port": 80, "protocol": "TCP"}]
    both = defaulted(NETWORK_POLICY, {"spec": {"podSelector": {}, "egress": [{}]}})
    assert both["spec"]["policyTypes"] == ["Ingress", "Egress"]


def test_ingress_class_parameters_are_cluster_scoped() -> None:
    """Parameters without a scope refer to a cluster-scoped object."""
    parameters = {"kind": "Params", "name": "p"}
    result = defaulted(INGRESS_CLASS, {"spec": {"controller": "k8s.io/nginx", "parameters": parameters}})
    assert result["spec"]["parameters"]["scope"] == "Cluster"


def test_endpoint_slice_ports_get_an_empty_name_and_tcp() -> None:
    """discovery/v1 ports are named `""` and TCP unless said otherwise."""
    result = defaulted(ENDPOINT_SLICE, {"addressType": "IPv4", "ports": [{"port": 80}]})
    assert result["ports"] == [{"port": 80, "name": "", "protocol": "TCP"}]


def test_bindings_get_rbac_api_groups() -> None:
    """roleRef and user/group subjects get RBAC's group; service accounts the core group."""
    binding = {
        "roleRef": {"kind": "Role", "name": "r"},
        "subjects": [
            {"kind": "User", "name": "u"},
            {"kind": "ServiceAccount", "name": "s", "namespace": "n"},
        ],
    }
    result = defaulted(ROLE_BINDING, binding)
    assert result["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io"
    assert [subject["apiGroup"] for subject in result["subjects"]] == ["rbac.authorization.k8s.io", ""]


def test_crd_names_conversion_and_stored_versions_are_defaulted() -> None:
    """singular and listKind derive from the kind; conversion is None; the storage version is stored."""
    spec = {
        "group": "stable.example.com",
        "names": {"plural": "crontabs", "kind": "CronTab"},
        "versions": [{"name": "v1beta1", "storage": False}, {"name": "v1", "storage": True}],
    }
    result = defaulted(CRD, {"metadata": {"name": "crontabs.stable.example.com"}, "spec": spec})
    assert result["spec"]["names"] == {
        "plural": "crontabs",
        "kind": "CronTab",
        "singular": "crontab",
        "listKind": "CronTabList",
    }
    assert result["spec"]["conversion"] == {"strategy": "None"}
    assert result["status"] == {"storedVersions": ["v1"]}


def test_priority_and_storage_classes_get_their_policies() -> None:
    """PreemptLowerPriority, Delete and Immediate are kube's defaults."""
    assert defaulted(PRIORITY_CLASS, {"value": 10})["preemptionPolicy"] == "PreemptLowerPriority"
    storage_class = defaulted(STORAGE_CLASS, {"provisioner": "example.com/ssd"})
    assert (storage_class["reclaimPolicy"], storage_class["volumeBindingMode"]) == ("Delete", "Immediate")
