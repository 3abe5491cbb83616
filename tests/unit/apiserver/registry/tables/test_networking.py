from datetime import UTC, datetime
from typing import Any

from flotilla.apiserver.registry.tables.networking import (
    ENDPOINT_SLICE,
    INGRESS,
    INGRESS_CLASS,
    NETWORK_POLICY,
    ingress_hosts,
)

NOW = datetime(2025, 3, 1, 12, 0, 0, tzinfo=UTC)
META = {"name": "web", "creationTimestamp": "2025-03-01T08:00:00Z"}


def test_ingress_row() -> None:
    """An ingress shows its class, hosts, sorted load-balancer addresses and TLS ports."""
    ingress = {
        "metadata": META,
        "spec": {
            "ingressClassName": "nginx",
            "tls": [{"hosts": ["shop.example"]}],
            "rules": [{"host": "shop.example"}, {"host": "api.example"}],
        },
        "status": {
            "loadBalancer": {
                "ingress": [{"ip": "203.0.113.9"}, {"hostname": "lb.example"}, {"ip": "203.0.113.2"}]
            }
        },
    }
    assert INGRESS.cells(ingress, NOW) == [
        "web",
        "nginx",
        "shop.example,api.example",
        "203.0.113.2,203.0.113.9,lb.example",
        "80, 443",
        "4h",
    ]


def test_ingress_without_class_hosts_or_address() -> None:
    """No class prints `<none>`, rules without hosts print `*`, no address prints empty, no TLS is port 80."""
    ingress = {
        "metadata": META,
        "spec": {"defaultBackend": {"service": {"name": "web"}}, "rules": [{"http": {}}]},
    }
    assert INGRESS.cells(ingress, NOW)[1:5] == ["<none>", "*", "", "80"]


def test_ingress_hosts_show_three_then_count_remaining_rules() -> None:
    """After three hosts the cell counts the remaining rules, hostless ones included."""
    rules = [{"host": f"h{i}.example"} for i in range(4)] + [{}]
    assert ingress_hosts({"spec": {"rules": rules}}) == "h0.example,h1.example,h2.example + 2 more..."


def test_ingress_class_parameters_reference() -> None:
    """PARAMETERS is `kind.apiGroup/name`, without group when none is set, `<none>` when absent."""
    with_group = {
        "metadata": META,
        "spec": {
            "controller": "k8s.io/ingress-nginx",
            "parameters": {"apiGroup": "k8s.example.com", "kind": "IngressParameters", "name": "external-lb"},
        },
    }
    assert INGRESS_CLASS.cells(with_group, NOW) == [
        "web",
        "k8s.io/ingress-nginx",
        "IngressParameters.k8s.example.com/external-lb",
        "4h",
    ]
    core = {"metadata": META, "spec": {"controller": "c", "parameters": {"kind": "ConfigMap", "name": "cfg"}}}
    assert INGRESS_CLASS.cells(core, NOW)[2] == "ConfigMap/cfg"
    assert INGRESS_CLASS.cells({"metadata": META, "spec": {"controller": "c"}}, NOW)[2] == "<none>"


def test_network_policy_pod_selector() -> None:
    """POD-SELECTOR prints the selector, `<none>` for the select-all empty selector."""
    policy: dict[str, Any] = {"metadata": META, "spec": {"podSelector": {"matchLabels": {"role": "db"}}}}
    assert NETWORK_POLICY.cells(policy, NOW) == ["web", "role=db", "4h"]
    assert NETWORK_POLICY.cells({"metadata": META, "spec": {"podSelector": {}}}, NOW)[1] == "<none>"


def test_endpoint_slice_row() -> None:
    """Ports print numbers (name or `*` when unnumbered), endpoints list addresses, three shown."""
    endpoint_slice = {
        "metadata": META,
        "addressType": "IPv4",
        "ports": [{"name": "http", "port": 80}, {"name": "metrics"}, {}],
        "endpoints": [
            {"addresses": ["10.0.0.1"]},
            {"addresses": ["10.0.0.2", "10.0.0.3"]},
            {"addresses": ["10.0.0.4"]},
        ],
    }
    assert ENDPOINT_SLICE.cells(endpoint_slice, NOW) == [
        "web",
        "IPv4",
        "80,metrics,*",
        "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...",
        "4h",
    ]
    empty = {"metadata": META, "addressType": "IPv6"}
    assert ENDPOINT_SLICE.cells(empty, NOW)[2:4] == ["<unset>", "<unset>"]
