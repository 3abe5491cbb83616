"""Protobuf field tables for networking.k8s.io/v1.

Generated from kubectl v1.32.4-dispatcher by tests/unit/apiserver/encoding/protobuf/extract_tables.py;
do not edit by hand.
"""

from collections.abc import Mapping
from typing import Final

from flotilla.apiserver.encoding.protobuf.model import (
    INLINE,
    INT32,
    OMITEMPTY,
    POINTER,
    REPEATED,
    STRING,
    Field,
    Message,
)

MESSAGES: Final[Mapping[str, Message]] = {
    "networking.v1.HTTPIngressPath": (
        Field(1, "path", STRING, OMITEMPTY),
        Field(3, "pathType", STRING, POINTER),
        Field(2, "backend", "networking.v1.IngressBackend"),
    ),
    "networking.v1.HTTPIngressRuleValue": (Field(1, "paths", "networking.v1.HTTPIngressPath", REPEATED),),
    "networking.v1.IPBlock": (
        Field(1, "cidr", STRING),
        Field(2, "except", STRING, REPEATED | OMITEMPTY),
    ),
    "networking.v1.Ingress": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "networking.v1.IngressSpec", OMITEMPTY),
        Field(3, "status", "networking.v1.IngressStatus", OMITEMPTY),
    ),
    "networking.v1.IngressBackend": (
        Field(4, "service", "networking.v1.IngressServiceBackend", POINTER | OMITEMPTY),
        Field(3, "resource", "core.v1.TypedLocalObjectReference", POINTER | OMITEMPTY),
    ),
    "networking.v1.IngressLoadBalancerIngress": (
        Field(1, "ip", STRING, OMITEMPTY),
        Field(2, "hostname", STRING, OMITEMPTY),
        Field(4, "ports", "networking.v1.IngressPortStatus", REPEATED | OMITEMPTY),
    ),
    "networking.v1.IngressLoadBalancerStatus": (
        Field(1, "ingress", "networking.v1.IngressLoadBalancerIngress", REPEATED | OMITEMPTY),
    ),
    "networking.v1.IngressPortStatus": (
        Field(1, "port", INT32),
        Field(2, "protocol", STRING),
        Field(3, "error", STRING, POINTER | OMITEMPTY),
    ),
    "networking.v1.IngressRule": (
        Field(1, "host", STRING, OMITEMPTY),
        Field(2, "", "networking.v1.IngressRuleValue", INLINE),
    ),
    "networking.v1.IngressRuleValue": (
        Field(1, "http", "networking.v1.HTTPIngressRuleValue", POINTER | OMITEMPTY),
    ),
    "networking.v1.IngressServiceBackend": (
        Field(1, "name", STRING),
        Field(2, "port", "networking.v1.ServiceBackendPort", OMITEMPTY),
    ),
    "networking.v1.IngressSpec": (
        Field(4, "ingressClassName", STRING, POINTER | OMITEMPTY),
        Field(1, "defaultBackend", "networking.v1.IngressBackend", POINTER | OMITEMPTY),
        Field(2, "tls", "networking.v1.IngressTLS", REPEATED | OMITEMPTY),
        Field(3, "rules", "networking.v1.IngressRule", REPEATED | OMITEMPTY),
    ),
    "networking.v1.IngressStatus": (
        Field(1, "loadBalancer", "networking.v1.IngressLoadBalancerStatus", OMITEMPTY),
    ),
    "networking.v1.IngressTLS": (
        Field(1, "hosts", STRING, REPEATED | OMITEMPTY),
        Field(2, "secretName", STRING, OMITEMPTY),
    ),
    "networking.v1.NetworkPolicy": (
        Field(1, "metadata", "meta.v1.ObjectMeta", OMITEMPTY),
        Field(2, "spec", "networking.v1.NetworkPolicySpec", OMITEMPTY),
    ),
    "networking.v1.NetworkPolicyEgressRule": (
        Field(1, "ports", "networking.v1.NetworkPolicyPort", REPEATED | OMITEMPTY),
        Field(2, "to", "networking.v1.NetworkPolicyPeer", REPEATED | OMITEMPTY),
    ),
    "networking.v1.NetworkPolicyIngressRule": (
        Field(1, "ports", "networking.v1.NetworkPolicyPort", REPEATED | OMITEMPTY),
        Field(2, "from", "networking.v1.NetworkPolicyPeer", REPEATED | OMITEMPTY),
    ),
    "networking.v1.NetworkPolicyPeer": (
        Field(1, "podSelector", "meta.v1.LabelSelector", POINTER | OMITEMPTY),
        Field(2, "namespaceSelector", "meta.v1.LabelSelector", POINTER | OMITEMPTY),
        Field(3, "ipBlock", "networking.v1.IPBlock", POINTER | OMITEMPTY),
    ),
    "networking.v1.NetworkPolicyPort": (
        Field(1, "protocol", STRING, POINTER | OMITEMPTY),
        Field(2, "port", "intstr.IntOrString", POINTER | OMITEMPTY),
        Field(3, "endPort", INT32, POINTER | OMITEMPTY),
    ),
    "networking.v1.NetworkPolicySpec": (
        Field(1, "podSelector", "meta.v1.LabelSelector"),
        Field(2, "ingress", "networking.v1.NetworkPolicyIngressRule", REPEATED | OMITEMPTY),
        Field(3, "egress", "networking.v1.NetworkPolicyEgressRule", REPEATED | OMITEMPTY),
        Field(4, "policyTypes", STRING, REPEATED | OMITEMPTY),
    ),
    "networking.v1.ServiceBackendPort": (
        Field(1, "name", STRING, OMITEMPTY),
        Field(2, "number", INT32, OMITEMPTY),
    ),
}
