"""Defaults of networking.k8s.io/v1 and discovery.k8s.io/v1 kinds, as kube-apiserver sets them.

- NetworkPolicy: port protocols TCP; `policyTypes` is Ingress, plus Egress when egress rules exist.
- IngressClass: parameters are cluster-scoped unless said otherwise.
- EndpointSlice: ports get `name: ""` and `protocol: TCP`.
"""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.registry.validation import fields


def default_network_policy(policy: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(policy, "spec")
    for direction in ("ingress", "egress"):
        for rule in fields.objects(spec, direction):
            for port in fields.objects(rule, "ports"):
                if port.get("protocol") is None:
                    port["protocol"] = "TCP"
    if not fields.items(spec, "policyTypes"):
        spec["policyTypes"] = ["Ingress", "Egress"] if fields.items(spec, "egress") else ["Ingress"]


def default_ingress_class(ingress_class: dict[str, Any]) -> None:
    parameters = fields.mapping(ingress_class, "spec").get("parameters")
    if isinstance(parameters, dict) and parameters.get("scope") is None:
        parameters["scope"] = "Cluster"


def default_endpoint_slice(endpoint_slice: dict[str, Any]) -> None:
    for port in fields.objects(endpoint_slice, "ports"):
        if port.get("name") is None:
            port["name"] = ""
        if port.get("protocol") is None:
            port["protocol"] = "TCP"
