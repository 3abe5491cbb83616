"""Validation of networking.k8s.io/v1 (Ingress, IngressClass, NetworkPolicy) and discovery.k8s.io/v1
EndpointSlices.

An Ingress routes hosts and paths to service backends: rules or a default backend are required,
every path has a `pathType` and Exact/Prefix paths are clean absolute paths. A NetworkPolicy's
ports, peers and IP blocks follow kube's shapes. An EndpointSlice has a fixed address type and
addresses of that type.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.api.selectors import validate_label_selector
from flotilla.apiserver.registry.validation import fields, metadata, scalars

PATH_TYPES = ("Exact", "ImplementationSpecific", "Prefix")
INVALID_PATH_SEQUENCES = ("//", "/./", "/../", "%2f", "%2F")
INVALID_PATH_SUFFIXES = ("/..", "/.")
PROTOCOLS = ("SCTP", "TCP", "UDP")
POLICY_TYPES = ("Ingress", "Egress")
ADDRESS_TYPES = ("FQDN", "IPv4", "IPv6")
MAX_ENDPOINTS = 1000
MAX_ADDRESSES = 100
MAX_PORTS = 20000
MAX_INGRESS_CLASS_CONTROLLER = 250
_HTTP_PATH_FORMAT = r"[A-Za-z0-9/\-._~%!$&'()*+,;=:]+"
_HTTP_PATH = re.compile(_HTTP_PATH_FORMAT + r"\Z")
_WILDCARD_FORMAT = r"\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_WILDCARD = re.compile(_WILDCARD_FORMAT + r"\Z")
WILDCARD_MESSAGE = (
    "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, "
    "which must consist of lower case alphanumeric characters, '-' or '.' and end with an "
    "alphanumeric character (e.g. '*.example.com', "
    f"regex used for validation is '{_WILDCARD_FORMAT}')"
)


def wildcard_subdomain_errors(value: str) -> list[str]:
    errors = []
    if len(value) > names.DNS1123_SUBDOMAIN_MAX:
        errors.append(f"must be no more than {names.DNS1123_SUBDOMAIN_MAX} characters")
    if not _WILDCARD.match(value):
        errors.append(WILDCARD_MESSAGE)
    return errors


def _host(host: str, path: str) -> list[FieldError]:
    if "*" in host:
        return [fielderrors.invalid(path, host, message) for message in wildcard_subdomain_errors(host)]
    return [fielderrors.invalid(path, host, message) for message in names.dns1123_subdomain_errors(host)]


# --- Ingress ------------------------------------------------------------------------------------


def _backend(backend: dict[str, Any], path: str) -> list[FieldError]:
    has_resource = backend.get("resource") is not None
    has_service = backend.get("service") is not None
    if has_resource and has_service:
        return [fielderrors.invalid(path, "", "cannot set both resource and service backends")]
    if has_resource:
        resource = fields.mapping(backend, "resource")
        resource_path = fielderrors.child(path, "resource")
        return [
            fielderrors.required(fielderrors.child(resource_path, name))
            for name in ("kind", "name")
            if not fields.text(resource, name)
        ]
    if not has_service:
        return [fielderrors.invalid(path, "", "resource or service backend is required")]
    service = fields.mapping(backend, "service")
    errors: list[FieldError] = []
    name = fields.text(service, "name")
    name_path = fielderrors.child(path, "service.name")
    if not name:
        errors.append(fielderrors.required(name_path))
    else:
        errors.extend(
            fielderrors.invalid(name_path, name, message) for message in names.dns1035_label_errors(name)
        )
    port = fields.mapping(service, "port")
    port_name = fields.text(port, "name")
    port_number = fields.integer(port, "number") or 0
    if port_name and port_number:
        errors.append(fielderrors.invalid(path, "", "cannot set both port name & port number"))
    elif port_name:
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "service.port.name"), port_name, message)
            for message in scalars.port_name_errors(port_name)
        )
    elif port_number:
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "service.port.number"), port_number, message)
            for message in scalars.port_number_errors(port_number)
        )
    else:
        errors.append(fielderrors.required(path, "port name or number is required"))
    return errors


def _http_path(entry: dict[str, Any], path: str) -> list[FieldError]:
    path_type = entry.get("pathType")
    if path_type is None:
        return [fielderrors.required(fielderrors.child(path, "pathType"), "pathType must be specified")]
    errors: list[FieldError] = []
    value = fields.text(entry, "path")
    value_path = fielderrors.child(path, "path")
    if path_type in ("Exact", "Prefix"):
        if not value.startswith("/"):
            errors.append(fielderrors.invalid(value_path, value, "must be an absolute path"))
        errors.extend(
            fielderrors.invalid(value_path, value, f"must not contain '{sequence}'")
            for sequence in INVALID_PATH_SEQUENCES
            if value and sequence in value
        )
        errors.extend(
            fielderrors.invalid(value_path, value, f"cannot end with '{suffix}'")
            for suffix in INVALID_PATH_SUFFIXES
            if value and value.endswith(suffix)
        )
    elif path_type == "ImplementationSpecific":
        if value and not value.startswith("/"):
            errors.append(fielderrors.invalid(value_path, value, "must be an absolute path"))
    else:
        errors.append(fielderrors.not_supported(fielderrors.child(path, "pathType"), path_type, PATH_TYPES))
    errors.extend(_backend(fields.mapping(entry, "backend"), fielderrors.child(path, "backend")))
    return errors


def _rules(rules: list[dict[str, Any]], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    for position, rule in enumerate(rules):
        rule_path = fielderrors.index(path, position)
        host = fields.text(rule, "host")
        if host:
            try:
                ipaddress.ip_address(host)
                errors.append(
                    fielderrors.invalid(
                        fielderrors.child(rule_path, "host"), host, "must be a DNS name, not an IP address"
                    )
                )
            except ValueError:
                pass
            errors.extend(_host(host, fielderrors.child(rule_path, "host")))
        if rule.get("http") is not None:
            http = fields.mapping(rule, "http")
            paths_path = fielderrors.child(rule_path, "http.paths")
            entries = fields.objects(http, "paths")
            if not entries:
                errors.append(fielderrors.required(paths_path))
            for entry_position, entry in enumerate(entries):
                errors.extend(_http_path(entry, fielderrors.index(paths_path, entry_position)))
    return errors


def validate_ingress_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    rules = fields.objects(spec, "rules")
    errors: list[FieldError] = []
    if not rules and spec.get("defaultBackend") is None:
        errors.append(
            fielderrors.invalid(path, rules, "either `defaultBackend` or `rules` must be specified")
        )
    if spec.get("defaultBackend") is not None:
        errors.extend(
            _backend(fields.mapping(spec, "defaultBackend"), fielderrors.child(path, "defaultBackend"))
        )
    errors.extend(_rules(rules, fielderrors.child(path, "rules")))
    for position, tls in enumerate(fields.objects(spec, "tls")):
        tls_path = fielderrors.index(fielderrors.child(path, "tls"), position)
        for host_position, host in enumerate(fields.items(tls, "hosts")):
            if isinstance(host, str):
                errors.extend(
                    _host(host, fielderrors.index(fielderrors.child(tls_path, "hosts"), host_position))
                )
        secret_name = fields.text(tls, "secretName")
        if secret_name:
            errors.extend(
                fielderrors.invalid(fielderrors.child(tls_path, "secretName"), secret_name, message)
                for message in names.dns1123_subdomain_errors(secret_name)
            )
    class_name = spec.get("ingressClassName")
    if isinstance(class_name, str):
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "ingressClassName"), class_name, message)
            for message in names.dns1123_subdomain_errors(class_name)
        )
    return errors


def validate_ingress(ingress: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(ingress, namespaced=True)
    errors.extend(validate_ingress_spec(fields.mapping(ingress, "spec"), "spec"))
    return errors


def validate_ingress_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_ingress_spec(fields.mapping(new, "spec"), "spec"))
    return errors


def validate_ingress_class(ingress_class: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(ingress_class, namespaced=False)
    spec = fields.mapping(ingress_class, "spec")
    controller = fields.text(spec, "controller")
    path = "spec.controller"
    if len(controller) > MAX_INGRESS_CLASS_CONTROLLER:
        errors.append(fielderrors.too_long(path, MAX_INGRESS_CLASS_CONTROLLER))
    errors.extend(domain_prefixed_path(controller, path))
    if spec.get("parameters") is not None:
        parameters = fields.mapping(spec, "parameters")
        errors.extend(
            fielderrors.required(fielderrors.child("spec.parameters", name))
            for name in ("kind", "name")
            if not fields.text(parameters, name)
        )
        scope = parameters.get("scope")
        if isinstance(scope, str) and scope not in ("Cluster", "Namespace"):
            errors.append(fielderrors.not_supported("spec.parameters.scope", scope, ("Cluster", "Namespace")))
        if scope == "Namespace" and not fields.text(parameters, "namespace"):
            errors.append(
                fielderrors.required("spec.parameters.namespace", "`parameters.scope` is set to 'Namespace'")
            )
    return errors


def domain_prefixed_path(value: str, path: str) -> list[FieldError]:
    """kube's `IsDomainPrefixedPath` (`acme.io/foo`)."""
    if not value:
        return [fielderrors.required(path)]
    host, separator, rest = value.partition("/")
    if not separator or not host or not rest:
        return [fielderrors.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")')]
    errors = [fielderrors.invalid(path, host, message) for message in names.dns1123_subdomain_errors(host)]
    if not _HTTP_PATH.match(rest):
        errors.append(
            fielderrors.invalid(
                path, rest, f"must be a valid path (regex used for validation is '{_HTTP_PATH_FORMAT}')"
            )
        )
    return errors


def validate_ingress_class_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(
        metadata.immutable(
            fields.text(fields.mapping(new, "spec"), "controller"),
            fields.text(fields.mapping(old, "spec"), "controller"),
            "spec.controller",
        )
    )
    errors.extend(validate_ingress_class(new))
    return errors


# --- NetworkPolicy ------------------------------------------------------------------------------


def _policy_port(port: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    protocol = port.get("protocol")
    if protocol is not None and protocol not in ("TCP", "UDP", "SCTP"):
        errors.append(
            fielderrors.not_supported(fielderrors.child(path, "protocol"), protocol, ("TCP", "UDP", "SCTP"))
        )
    number = port.get("port")
    end_port = fields.integer(port, "endPort")
    end_path = fielderrors.child(path, "endPort")
    if number is None:
        if end_port is not None:
            errors.append(
                fielderrors.invalid(end_path, end_port, "may not be specified when `port` is not specified")
            )
    elif scalars.is_integer(number):
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "port"), number, message)
            for message in scalars.port_number_errors(number)
        )
        if end_port is not None:
            if end_port < number:
                errors.append(
                    fielderrors.invalid(end_path, number, "must be greater than or equal to `port`")
                )
            errors.extend(
                fielderrors.invalid(end_path, end_port, message)
                for message in scalars.port_number_errors(end_port)
            )
    else:
        if end_port is not None:
            errors.append(
                fielderrors.invalid(end_path, end_port, "may not be specified when `port` is non-numeric")
            )
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "port"), number, message)
            for message in scalars.port_name_errors(str(number))
        )
    return errors


def _ip_block(block: dict[str, Any], path: str) -> list[FieldError]:
    cidr = fields.text(block, "cidr")
    if not cidr:
        return [fielderrors.required(fielderrors.child(path, "cidr"))]
    errors = scalars.cidr_errors(cidr, fielderrors.child(path, "cidr"))
    if errors:
        return errors
    network = ipaddress.ip_network(cidr, strict=False)
    for position, excepted in enumerate(fields.items(block, "except")):
        except_path = fielderrors.index(fielderrors.child(path, "except"), position)
        problems = scalars.cidr_errors(str(excepted), except_path)
        if problems:
            errors.extend(problems)
            continue
        inner = ipaddress.ip_network(str(excepted), strict=False)
        if (
            inner.version != network.version
            or inner.network_address not in network
            or inner.prefixlen <= network.prefixlen
        ):
            errors.append(fielderrors.invalid(except_path, excepted, "must be a strict subset of `cidr`"))
    return errors


def _peer(peer: dict[str, Any], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    count = 0
    for name in ("podSelector", "namespaceSelector"):
        if peer.get(name) is not None:
            count += 1
            errors.extend(validate_label_selector(peer[name], fielderrors.child(path, name)))
    if peer.get("ipBlock") is not None:
        count += 1
        errors.extend(_ip_block(fields.mapping(peer, "ipBlock"), fielderrors.child(path, "ipBlock")))
    if count == 0:
        errors.append(fielderrors.required(path, "must specify a peer"))
    elif count > 1 and peer.get("ipBlock") is not None:
        errors.append(fielderrors.forbidden(path, "may not specify both ipBlock and another peer"))
    return errors


def validate_network_policy(policy: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(policy, namespaced=True)
    spec = fields.mapping(policy, "spec")
    errors.extend(validate_label_selector(spec.get("podSelector") or {}, "spec.podSelector"))
    for direction, peers_name in (("ingress", "from"), ("egress", "to")):
        for position, rule in enumerate(fields.objects(spec, direction)):
            rule_path = fielderrors.index(fielderrors.child("spec", direction), position)
            for port_position, port in enumerate(fields.objects(rule, "ports")):
                errors.extend(
                    _policy_port(
                        port, fielderrors.index(fielderrors.child(rule_path, "ports"), port_position)
                    )
                )
            for peer_position, peer in enumerate(fields.objects(rule, peers_name)):
                errors.extend(
                    _peer(peer, fielderrors.index(fielderrors.child(rule_path, peers_name), peer_position))
                )
    policy_types = fields.items(spec, "policyTypes")
    if len(policy_types) > len(POLICY_TYPES):
        errors.append(
            fielderrors.invalid("spec.policyTypes", policy_types, "may not specify more than two policyTypes")
        )
        return errors
    errors.extend(
        fielderrors.not_supported(fielderrors.index("spec.policyTypes", position), kind, POLICY_TYPES)
        for position, kind in enumerate(policy_types)
        if kind not in POLICY_TYPES
    )
    return errors


def validate_network_policy_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_network_policy(new))
    return errors


# --- EndpointSlice ------------------------------------------------------------------------------


def _fqdn(value: str, path: str) -> list[FieldError]:
    if not value:
        return [fielderrors.required(path)]
    name = value.removesuffix(".")
    problems = names.dns1123_subdomain_errors(name)
    if problems:
        return [fielderrors.invalid(path, name, ",".join(problems))]
    labels = name.split(".")
    if len(labels) < 2:
        return [
            fielderrors.invalid(path, name, "should be a domain with at least two segments separated by dots")
        ]
    for label in labels:
        problems = names.dns1123_label_errors(label)
        if problems:
            return [fielderrors.invalid(path, label, ",".join(problems))]
    return []


def validate_endpoint_slice(slice_: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(slice_, namespaced=True)
    address_type = fields.text(slice_, "addressType")
    if not address_type:
        errors.append(fielderrors.required("addressType"))
    elif address_type not in ADDRESS_TYPES:
        errors.append(fielderrors.not_supported("addressType", address_type, ADDRESS_TYPES))
    endpoints = fields.objects(slice_, "endpoints")
    if len(endpoints) > MAX_ENDPOINTS:
        errors.append(fielderrors.too_many("endpoints", len(endpoints), MAX_ENDPOINTS))
    for position, endpoint in enumerate(endpoints):
        errors.extend(_endpoint(endpoint, address_type, fielderrors.index("endpoints", position)))
    ports = fields.objects(slice_, "ports")
    if len(ports) > MAX_PORTS:
        errors.append(fielderrors.too_many("ports", len(ports), MAX_PORTS))
    seen: set[str] = set()
    for position, port in enumerate(ports):
        path = fielderrors.index("ports", position)
        name = fields.text(port, "name")
        if name:
            errors.extend(
                fielderrors.invalid(fielderrors.child(path, "name"), name, message)
                for message in names.dns1123_label_errors(name)
            )
        if name in seen:
            errors.append(fielderrors.duplicate(fielderrors.child(path, "name"), name))
        seen.add(name)
        protocol = port.get("protocol")
        if protocol is None:
            errors.append(fielderrors.required(fielderrors.child(path, "protocol")))
        elif protocol not in PROTOCOLS:
            errors.append(fielderrors.not_supported(fielderrors.child(path, "protocol"), protocol, PROTOCOLS))
        app_protocol = port.get("appProtocol")
        if isinstance(app_protocol, str):
            errors.extend(metadata.qualified_name(app_protocol, fielderrors.child(path, "appProtocol")))
    return errors


def _endpoint(endpoint: dict[str, Any], address_type: str, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    addresses = fields.items(endpoint, "addresses")
    addresses_path = fielderrors.child(path, "addresses")
    if not addresses:
        errors.append(fielderrors.required(addresses_path, "must contain at least 1 address"))
    elif len(addresses) > MAX_ADDRESSES:
        errors.append(fielderrors.too_many(addresses_path, len(addresses), MAX_ADDRESSES))
    for position, address in enumerate(addresses):
        address_path = fielderrors.index(addresses_path, position)
        text = address if isinstance(address, str) else ""
        if address_type == "IPv4":
            errors.extend(scalars.ip_family_errors(text, 4, address_path))
        elif address_type == "IPv6":
            errors.extend(scalars.ip_family_errors(text, 6, address_path))
        elif address_type == "FQDN":
            errors.extend(_fqdn(text, address_path))
    node_name = endpoint.get("nodeName")
    if isinstance(node_name, str):
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "nodeName"), node_name, message)
            for message in names.dns1123_subdomain_errors(node_name)
        )
    hostname = endpoint.get("hostname")
    if isinstance(hostname, str):
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "hostname"), hostname, message)
            for message in names.dns1123_label_errors(hostname)
        )
    errors.extend(
        metadata.validate_labels(
            fields.string_map(endpoint, "deprecatedTopology"), fielderrors.child(path, "deprecatedTopology")
        )
    )
    return errors


def validate_endpoint_slice_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_endpoint_slice(new))
    errors.extend(
        metadata.immutable(fields.text(new, "addressType"), fields.text(old, "addressType"), "addressType")
    )
    return errors
