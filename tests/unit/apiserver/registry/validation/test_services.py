"""Services are validated with kube's port, type, affinity and cluster IP rules."""

from __future__ import annotations

import copy

from tests.unit.apiserver.registry.validation.manifests import (
    SERVICE,
    create_errors,
    service,
    stored,
    update_errors,
)


def test_a_minimal_service_is_valid() -> None:
    """A selector and one port make a valid ClusterIP Service."""
    assert create_errors(SERVICE, service()) == []


def test_ports_are_required_for_ordinary_services() -> None:
    """No ports is Required unless the Service is headless or an ExternalName."""
    assert create_errors(SERVICE, service(ports=[])) == ["spec.ports: Required value"]


def test_headless_services_may_omit_ports() -> None:
    """`clusterIP: None` makes ports optional (and `clusterIPs` is filled in)."""
    assert create_errors(SERVICE, service(ports=[], clusterIP="None")) == []


def test_several_ports_each_need_a_unique_name() -> None:
    """With two ports, a missing name is Required and a repeated one Duplicate."""
    ports = [{"port": 80, "name": "http"}, {"port": 443}, {"port": 8080, "name": "http"}]
    assert create_errors(SERVICE, service(ports=ports)) == [
        "spec.ports[1].name: Required value",
        'spec.ports[2].name: Duplicate value: "http"',
    ]


def test_port_numbers_and_protocols_are_checked() -> None:
    """Port 0 is out of range and ICMP is not a protocol."""
    assert create_errors(SERVICE, service(ports=[{"port": 0, "targetPort": 80, "protocol": "ICMP"}])) == [
        "spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
        'spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    ]


def test_named_target_ports_must_be_valid_port_names() -> None:
    """A target port name with an underscore is Invalid."""
    errors = create_errors(SERVICE, service(ports=[{"port": 80, "targetPort": "web_port"}]))
    assert errors == [
        'spec.ports[0].targetPort: Invalid value: "web_port": must contain only alpha-numeric characters '
        "(a-z, 0-9), and hyphens (-)"
    ]


def test_duplicate_port_and_protocol_pairs_are_refused() -> None:
    """The same port twice over TCP is a Duplicate."""
    ports = [{"port": 80, "name": "a"}, {"port": 80, "name": "b"}]
    assert create_errors(SERVICE, service(ports=ports)) == [
        'spec.ports[1]: Duplicate value: {"port":80,"protocol":"TCP"}'
    ]


def test_unknown_types_are_unsupported() -> None:
    """The four service types are listed in order."""
    assert create_errors(SERVICE, service(type="Ingress")) == [
        'spec.type: Unsupported value: "Ingress": supported values: "ClusterIP", "ExternalName", '
        '"LoadBalancer", "NodePort"'
    ]


def test_cluster_ip_services_may_not_request_node_ports() -> None:
    """A nodePort on a ClusterIP Service is Forbidden."""
    assert create_errors(SERVICE, service(ports=[{"port": 80, "nodePort": 30080}])) == [
        "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"
    ]


def test_external_name_services_need_a_dns_name() -> None:
    """An ExternalName without `externalName` is Required; an IP-less cname is fine."""
    assert create_errors(SERVICE, service(type="ExternalName", ports=[])) == [
        "spec.externalName: Required value"
    ]
    assert create_errors(SERVICE, service(type="ExternalName", externalName="db.example.com.")) == []


def test_load_balancers_may_not_expose_the_kubelet_port() -> None:
    """Port 10250 is reserved for the kubelet."""
    errors = create_errors(SERVICE, service(type="LoadBalancer", ports=[{"port": 10250}]))
    assert errors == [
        "spec.ports[0]: Invalid value: 10250: may not expose port 10250 externally since it is used by "
        "kubelet"
    ]


def test_client_ip_affinity_timeouts_are_bounded() -> None:
    """A day is the longest client IP affinity."""
    config = {"clientIP": {"timeoutSeconds": 90000}}
    errors = create_errors(SERVICE, service(sessionAffinity="ClientIP", sessionAffinityConfig=config))
    assert errors == [
        "spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 90000: must be greater than 0 "
        "and "
        "less than 86400"
    ]


def test_external_traffic_policy_needs_an_externally_accessible_service() -> None:
    """A ClusterIP Service without external IPs may not set externalTrafficPolicy."""
    assert create_errors(SERVICE, service(externalTrafficPolicy="Local")) == [
        'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible '
        "services"
    ]


def test_cluster_ips_must_be_addresses_of_one_family_each() -> None:
    """Two IPv4 cluster IPs are not a dual-stack pair."""
    errors = create_errors(SERVICE, service(clusterIP="10.0.0.1", clusterIPs=["10.0.0.1", "10.0.0.2"]))
    assert errors == [
        'spec.clusterIPs: Invalid value: ["10.0.0.1","10.0.0.2"]: may specify no more than one IP for each '
        "IP family"
    ]


def test_the_cluster_ip_may_not_change() -> None:
    """Once allocated, the primary cluster IP is fixed."""
    old = stored(SERVICE, service(clusterIP="10.96.0.10"))
    new = copy.deepcopy(old)
    new["spec"]["clusterIP"] = "10.96.0.11"
    new["spec"]["clusterIPs"] = ["10.96.0.11"]
    assert update_errors(SERVICE, new, old) == [
        'spec.clusterIPs[0]: Invalid value: ["10.96.0.11"]: may not change once set'
    ]


def test_service_updates_may_change_ports_and_selectors() -> None:
    """Ordinary edits keep validating."""
    old = stored(SERVICE, service(clusterIP="10.96.0.10"))
    new = copy.deepcopy(old)
    new["spec"]["selector"] = {"app": "web2"}
    new["spec"]["ports"][0]["port"] = 8080
    assert update_errors(SERVICE, new, old) == []
