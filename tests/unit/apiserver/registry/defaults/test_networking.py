"""NetworkPolicies, IngressClasses and EndpointSlices get kube's defaults."""

from __future__ import annotations

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.defaults.defaulting import defaulted

NETWORK_POLICY = GroupVersionKind("networking.k8s.io", "v1", "NetworkPolicy")
INGRESS_CLASS = GroupVersionKind("networking.k8s.io", "v1", "IngressClass")
ENDPOINT_SLICE = GroupVersionKind("discovery.k8s.io", "v1", "EndpointSlice")


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
