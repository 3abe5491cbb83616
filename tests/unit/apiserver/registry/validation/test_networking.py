"""Ingresses, IngressClasses, NetworkPolicies and EndpointSlices validate as in kube."""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.validation.manifests import create_errors, meta, stored, update_errors

INGRESS = GroupVersionKind("networking.k8s.io", "v1", "Ingress")
INGRESS_CLASS = GroupVersionKind("networking.k8s.io", "v1", "IngressClass")
NETWORK_POLICY = GroupVersionKind("networking.k8s.io", "v1", "NetworkPolicy")
ENDPOINT_SLICE = GroupVersionKind("discovery.k8s.io", "v1", "EndpointSlice")


def ingress(path: dict[str, Any] | None = None, host: str = "web.example.com") -> dict[str, Any]:
    entry = path or {
        "path": "/",
        "pathType": "Prefix",
        "backend": {"service": {"name": "web", "port": {"number": 80}}},
    }
    rule = {"host": host, "http": {"paths": [entry]}}
    return {"metadata": meta(), "spec": {"rules": [rule]}}


def test_an_ingress_with_a_prefix_path_is_valid() -> None:
    """One rule routing `/` to a service port passes."""
    assert create_errors(INGRESS, ingress()) == []


def test_ingress_paths_need_a_path_type() -> None:
    """pathType has no default in networking.k8s.io/v1."""
    path = {"path": "/", "backend": {"service": {"name": "web", "port": {"number": 80}}}}
    assert create_errors(INGRESS, ingress(path)) == [
        "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"
    ]


def test_prefix_paths_must_be_clean_absolute_paths() -> None:
    """A relative path and a `//` sequence are both Invalid."""
    path = {
        "path": "api//v1",
        "pathType": "Prefix",
        "backend": {"service": {"name": "web", "port": {"number": 80}}},
    }
    assert create_errors(INGRESS, ingress(path)) == [
        'spec.rules[0].http.paths[0].path: Invalid value: "api//v1": must be an absolute path',
        "spec.rules[0].http.paths[0].path: Invalid value: \"api//v1\": must not contain '//'",
    ]


def test_service_backends_need_one_port() -> None:
    """A backend without port name or number is Required at the backend."""
    path = {"path": "/", "pathType": "Exact", "backend": {"service": {"name": "web", "port": {}}}}
    assert create_errors(INGRESS, ingress(path)) == [
        "spec.rules[0].http.paths[0].backend: Required value: port name or number is required"
    ]


def test_ingress_hosts_are_dns_names_or_wildcards() -> None:
    """`*.example.com` is fine; an IP address is not a host."""
    assert create_errors(INGRESS, ingress(host="*.example.com")) == []
    errors = create_errors(INGRESS, ingress(host="10.0.0.1"))
    assert errors == ['spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address']


def test_ingresses_need_rules_or_a_default_backend() -> None:
    """An empty spec is Invalid at `spec`."""
    assert create_errors(INGRESS, {"metadata": meta(), "spec": {}}) == [
        "spec: Invalid value: []: either `defaultBackend` or `rules` must be specified"
    ]


def test_ingress_class_controllers_are_domain_prefixed_and_immutable() -> None:
    """`nginx` alone is Invalid; changing a valid controller later is immutable."""
    bad = {"metadata": meta("nginx", namespace=None), "spec": {"controller": "nginx"}}
    assert create_errors(INGRESS_CLASS, bad) == [
        'spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")'
    ]
    old = stored(
        INGRESS_CLASS, {"metadata": meta("nginx", namespace=None), "spec": {"controller": "k8s.io/nginx"}}
    )
    new = copy.deepcopy(old)
    new["spec"]["controller"] = "example.com/other"
    assert update_errors(INGRESS_CLASS, new, old) == [
        'spec.controller: Invalid value: "example.com/other": field is immutable'
    ]


def test_network_policy_ports_and_peers_are_checked() -> None:
    """endPort below port is Invalid; an ipBlock except outside its cidr is Invalid."""
    rule = {
        "ports": [{"port": 8080, "endPort": 80}],
        "from": [{"ipBlock": {"cidr": "10.0.0.0/16", "except": ["192.168.0.0/24"]}}],
    }
    manifest = {"metadata": meta(), "spec": {"podSelector": {}, "ingress": [rule]}}
    assert create_errors(NETWORK_POLICY, manifest) == [
        "spec.ingress[0].ports[0].endPort: Invalid value: 8080: must be greater than or equal to `port`",
        'spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: "192.168.0.0/24": must be a strict '
        "subset of `cidr`",
    ]


def test_network_policy_peers_need_a_selector_or_block() -> None:
    """An empty peer is Required."""
    manifest = {"metadata": meta(), "spec": {"podSelector": {}, "egress": [{"to": [{}]}]}}
    assert create_errors(NETWORK_POLICY, manifest) == [
        "spec.egress[0].to[0]: Required value: must specify a peer"
    ]


def test_endpoint_slice_addresses_match_the_address_type() -> None:
    """An IPv6 address in an IPv4 slice is Invalid; the address type is an enum."""
    slice_ = {"metadata": meta(), "addressType": "IPv4", "endpoints": [{"addresses": ["::1"]}]}
    assert create_errors(ENDPOINT_SLICE, slice_) == [
        'endpoints[0].addresses[0]: Invalid value: "::1": must be a valid IPv4 address'
    ]
    slice_["addressType"] = "IPv5"
    assert create_errors(ENDPOINT_SLICE, slice_)[0] == (
        'addressType: Unsupported value: "IPv5": supported values: "FQDN", "IPv4", "IPv6"'
    )


def test_endpoint_slice_address_type_is_immutable() -> None:
    """A slice keeps its address type."""
    old = stored(ENDPOINT_SLICE, {"metadata": meta(), "addressType": "IPv4", "endpoints": []})
    new = copy.deepcopy(old)
    new["addressType"] = "IPv6"
    assert update_errors(ENDPOINT_SLICE, new, old) == [
        'addressType: Invalid value: "IPv6": field is immutable'
    ]
