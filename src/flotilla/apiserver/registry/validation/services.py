"""Validation of Services.

A Service is named like a DNS-1035 label (its name becomes a DNS name and environment variables),
needs ports unless it is headless or an ExternalName, names every port when it has several, and
keeps its cluster IP for life. kube's traffic-policy and session-affinity rules apply as written;
cluster IP allocation itself is the registry's job, not validation's.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields, metadata, scalars

SERVICE_TYPES = ("ClusterIP", "ExternalName", "LoadBalancer", "NodePort")
PROTOCOLS = ("SCTP", "TCP", "UDP")
SESSION_AFFINITIES = ("ClientIP", "None")
IP_FAMILIES = ("IPv4", "IPv6")
IP_FAMILY_POLICIES = ("PreferDualStack", "RequireDualStack", "SingleStack")
TRAFFIC_POLICIES = ("Cluster", "Local")
KUBELET_PORT = 10250
MAX_CLIENT_IP_TIMEOUT = 86400


def _cluster_ips(spec: dict[str, Any]) -> list[str]:
    listed = [ip for ip in fields.items(spec, "clusterIPs") if isinstance(ip, str)]
    if listed:
        return listed
    single = fields.text(spec, "clusterIP")
    return [single] if single else []


def is_headless(spec: dict[str, Any]) -> bool:
    return fields.text(spec, "type") == "ClusterIP" and _cluster_ips(spec) == ["None"]


def externally_accessible(spec: dict[str, Any]) -> bool:
    kind = fields.text(spec, "type")
    return kind in ("LoadBalancer", "NodePort") or (
        kind == "ClusterIP" and bool(fields.items(spec, "externalIPs"))
    )


def validate_service(service: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(service, namespaced=True, name_rule=metadata.dns1035_name)
    spec = fields.mapping(service, "spec")
    kind = fields.text(spec, "type")
    ports = fields.objects(spec, "ports")
    headless = is_headless(spec)
    if not ports and not headless and kind != "ExternalName":
        errors.append(fielderrors.required("spec.ports"))
    errors.extend(_type_specific(spec, kind, ports))
    seen_names: set[str] = set()
    for position, port in enumerate(ports):
        errors.extend(
            _service_port(port, len(ports) > 1, seen_names, fielderrors.index("spec.ports", position))
        )
    errors.extend(metadata.validate_labels(fields.string_map(spec, "selector"), "spec.selector"))
    errors.extend(_session_affinity(spec))
    errors.extend(_cluster_ip_fields(spec))
    for position, ip in enumerate(fields.items(spec, "externalIPs")):
        ip_path = fielderrors.index("spec.externalIPs", position)
        text = ip if isinstance(ip, str) else ""
        errors.extend(scalars.ip_errors(text, ip_path))
        errors.extend(scalars.non_special_ip(text, ip_path))
    if not kind:
        errors.append(fielderrors.required("spec.type"))
    elif kind not in SERVICE_TYPES:
        errors.append(fielderrors.not_supported("spec.type", kind, SERVICE_TYPES))
    if kind == "ClusterIP":
        errors.extend(
            fielderrors.forbidden(
                fielderrors.child(fielderrors.index("spec.ports", position), "nodePort"),
                "may not be used when `type` is 'ClusterIP'",
            )
            for position, port in enumerate(ports)
            if fields.integer(port, "nodePort")
        )
    errors.extend(_duplicate_ports(ports))
    errors.extend(_source_ranges(spec, kind))
    errors.extend(_traffic_policies(spec, kind))
    return errors


def _type_specific(spec: dict[str, Any], kind: str, ports: list[dict[str, Any]]) -> list[FieldError]:
    errors: list[FieldError] = []
    ips = _cluster_ips(spec)
    if kind in ("LoadBalancer", "NodePort") and ips[:1] == ["None"]:
        errors.append(
            fielderrors.invalid("spec.clusterIPs[0]", "None", f"may not be set to 'None' for {kind} services")
        )
    if kind == "LoadBalancer":
        errors.extend(
            fielderrors.invalid(
                fielderrors.index("spec.ports", position),
                KUBELET_PORT,
                f"may not expose port {KUBELET_PORT} externally since it is used by kubelet",
            )
            for position, port in enumerate(ports)
            if fields.integer(port, "port") == KUBELET_PORT
        )
        if spec.get("allocateLoadBalancerNodePorts") is None:
            errors.append(fielderrors.required("spec.allocateLoadBalancerNodePorts"))
    if kind == "ExternalName":
        if ips:
            errors.append(
                fielderrors.forbidden("spec.clusterIPs", "may not be set for ExternalName services")
            )
        if fields.items(spec, "ipFamilies"):
            errors.append(
                fielderrors.forbidden("spec.ipFamilies", "may not be set for ExternalName services")
            )
        if spec.get("ipFamilyPolicy") is not None:
            errors.append(
                fielderrors.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services")
            )
        external_name = fields.text(spec, "externalName").removesuffix(".")
        if external_name:
            errors.extend(
                fielderrors.invalid("spec.externalName", external_name, message)
                for message in names.dns1123_subdomain_errors(external_name)
            )
        else:
            errors.append(fielderrors.required("spec.externalName"))
    return errors


def _service_port(port: dict[str, Any], require_name: bool, seen: set[str], path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    name = fields.text(port, "name")
    name_path = fielderrors.child(path, "name")
    if require_name and not name:
        errors.append(fielderrors.required(name_path))
    elif name:
        errors.extend(
            fielderrors.invalid(name_path, name, message) for message in names.dns1123_label_errors(name)
        )
        if name in seen:
            errors.append(fielderrors.duplicate(name_path, name))
        seen.add(name)
    number = fields.integer(port, "port") or 0
    errors.extend(
        fielderrors.invalid(fielderrors.child(path, "port"), number, message)
        for message in scalars.port_number_errors(number)
    )
    protocol = fields.text(port, "protocol")
    if not protocol:
        errors.append(fielderrors.required(fielderrors.child(path, "protocol")))
    elif protocol not in PROTOCOLS:
        errors.append(fielderrors.not_supported(fielderrors.child(path, "protocol"), protocol, PROTOCOLS))
    errors.extend(scalars.port_number_or_name(port.get("targetPort"), fielderrors.child(path, "targetPort")))
    app_protocol = port.get("appProtocol")
    if isinstance(app_protocol, str):
        errors.extend(metadata.qualified_name(app_protocol, fielderrors.child(path, "appProtocol")))
    return errors


def _duplicate_ports(ports: list[dict[str, Any]]) -> list[FieldError]:
    errors: list[FieldError] = []
    node_ports: set[tuple[str, int]] = set()
    service_ports: set[tuple[str, int]] = set()
    for position, port in enumerate(ports):
        path = fielderrors.index("spec.ports", position)
        protocol = fields.text(port, "protocol")
        node_port = fields.integer(port, "nodePort") or 0
        if node_port:
            if (protocol, node_port) in node_ports:
                errors.append(fielderrors.duplicate(fielderrors.child(path, "nodePort"), node_port))
            node_ports.add((protocol, node_port))
        number = fields.integer(port, "port") or 0
        if (protocol, number) in service_ports:
            errors.append(fielderrors.duplicate(path, {"port": number, "protocol": protocol}))
        service_ports.add((protocol, number))
    return errors


def _session_affinity(spec: dict[str, Any]) -> list[FieldError]:
    affinity = fields.text(spec, "sessionAffinity")
    config_path = "spec.sessionAffinityConfig"
    if not affinity:
        return [fielderrors.required("spec.sessionAffinity")]
    if affinity not in SESSION_AFFINITIES:
        return [fielderrors.not_supported("spec.sessionAffinity", affinity, SESSION_AFFINITIES)]
    if affinity == "None":
        if spec.get("sessionAffinityConfig") is not None:
            return [fielderrors.forbidden(config_path, "must not be set when session affinity is None")]
        return []
    if spec.get("sessionAffinityConfig") is None:
        return [fielderrors.required(config_path, "when session affinity type is ClientIP")]
    client_ip = fields.mapping(spec["sessionAffinityConfig"], "clientIP")
    if not client_ip:
        return [
            fielderrors.required(
                fielderrors.child(config_path, "clientIP"), "when session affinity type is ClientIP"
            )
        ]
    timeout = fields.integer(client_ip, "timeoutSeconds")
    timeout_path = fielderrors.child(config_path, "clientIP.timeoutSeconds")
    if timeout is None:
        return [fielderrors.required(timeout_path, "when session affinity type is ClientIP")]
    if not 0 < timeout <= MAX_CLIENT_IP_TIMEOUT:
        return [
            fielderrors.invalid(
                timeout_path, timeout, f"must be greater than 0 and less than {MAX_CLIENT_IP_TIMEOUT}"
            )
        ]
    return []


def _cluster_ip_fields(spec: dict[str, Any]) -> list[FieldError]:
    """kube's `ValidateServiceClusterIPsRelatedFields`."""
    if fields.text(spec, "type") == "ExternalName":
        return []
    errors: list[FieldError] = []
    cluster_ip = fields.text(spec, "clusterIP")
    cluster_ips = [ip for ip in fields.items(spec, "clusterIPs") if isinstance(ip, str)]
    if cluster_ip:
        if not cluster_ips:
            errors.append(fielderrors.required("spec.clusterIPs"))
        elif cluster_ips[0] != cluster_ip:
            errors.append(
                fielderrors.invalid("spec.clusterIPs", cluster_ips, "first value must match `clusterIP`")
            )
    elif cluster_ips:
        errors.append(
            fielderrors.invalid(
                "spec.clusterIPs", cluster_ips, "must be empty when `clusterIP` is not specified"
            )
        )
    families = [family for family in fields.items(spec, "ipFamilies") if isinstance(family, str)]
    seen: set[str] = set()
    for position, family in enumerate(families):
        family_path = fielderrors.index("spec.ipFamilies", position)
        if family not in IP_FAMILIES:
            errors.append(fielderrors.not_supported(family_path, family, IP_FAMILIES))
        if family in seen:
            errors.append(fielderrors.duplicate(family_path, family))
        seen.add(family)
    policy = spec.get("ipFamilyPolicy")
    if policy is not None and policy not in IP_FAMILY_POLICIES:
        errors.append(fielderrors.not_supported("spec.ipFamilyPolicy", policy, IP_FAMILY_POLICIES))
    invalid_ips = False
    for position, ip in enumerate(cluster_ips):
        if position == 0 and ip == "None":
            if len(cluster_ips) > 1:
                invalid_ips = True
                errors.append(
                    fielderrors.invalid(
                        "spec.clusterIPs", cluster_ips, "'None' must be the first and only value"
                    )
                )
            continue
        problems = scalars.ip_errors(ip, fielderrors.index("spec.clusterIPs", position))
        invalid_ips = invalid_ips or bool(problems)
        errors.extend(problems)
    if len(cluster_ips) > 2:
        errors.append(fielderrors.invalid("spec.clusterIPs", cluster_ips, "may only hold up to 2 values"))
        return errors
    if invalid_ips:
        return errors
    versions = [ipaddress.ip_address(ip).version for ip in cluster_ips if ip != "None"]
    if len(cluster_ips) > 1 and len(set(versions)) != len(versions):
        errors.append(
            fielderrors.invalid(
                "spec.clusterIPs", cluster_ips, "may specify no more than one IP for each IP family"
            )
        )
    if cluster_ips[:1] != ["None"]:
        for position, (ip, family) in enumerate(zip(cluster_ips, families, strict=False)):
            version = ipaddress.ip_address(ip).version
            expected = {"IPv4": 4, "IPv6": 6}.get(family)
            if expected is not None and version != expected:
                errors.append(
                    fielderrors.invalid(
                        fielderrors.index("spec.clusterIPs", position),
                        ip,
                        f"expected an {family} value as indicated by `ipFamilies[{position}]`",
                    )
                )
    return errors


def _source_ranges(spec: dict[str, Any], kind: str) -> list[FieldError]:
    ranges = fields.items(spec, "loadBalancerSourceRanges")
    if not ranges:
        return []
    if kind != "LoadBalancer":
        return [
            fielderrors.forbidden(
                "spec.loadBalancerSourceRanges", "may only be used when `type` is 'LoadBalancer'"
            )
        ]
    errors: list[FieldError] = []
    for position, value in enumerate(ranges):
        try:
            ipaddress.ip_network(str(value).strip(), strict=False)
        except ValueError:
            errors.append(
                fielderrors.invalid(
                    fielderrors.index("spec.loadBalancerSourceRanges", position),
                    value,
                    "must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 ",
                )
            )
    return errors


def _traffic_policies(spec: dict[str, Any], kind: str) -> list[FieldError]:
    errors: list[FieldError] = []
    external = fields.text(spec, "externalTrafficPolicy")
    if not externally_accessible(spec):
        if external:
            errors.append(
                fielderrors.invalid(
                    "spec.externalTrafficPolicy",
                    external,
                    "may only be set for externally-accessible services",
                )
            )
    elif not external:
        errors.append(fielderrors.required("spec.externalTrafficPolicy"))
    elif external not in TRAFFIC_POLICIES:
        errors.append(fielderrors.not_supported("spec.externalTrafficPolicy", external, TRAFFIC_POLICIES))
    health_check_port = fields.integer(spec, "healthCheckNodePort") or 0
    if health_check_port and not (kind == "LoadBalancer" and external == "Local"):
        errors.append(
            fielderrors.invalid(
                "spec.healthCheckNodePort",
                health_check_port,
                "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
            )
        )
    internal = spec.get("internalTrafficPolicy")
    if internal is None:
        if kind in ("ClusterIP", "LoadBalancer", "NodePort"):
            errors.append(fielderrors.required("spec.internalTrafficPolicy"))
    elif internal not in TRAFFIC_POLICIES:
        errors.append(fielderrors.not_supported("spec.internalTrafficPolicy", internal, TRAFFIC_POLICIES))
    return errors


def validate_service_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    """The primary cluster IP may not change (unless either side is an ExternalName service)."""
    errors = metadata.validate_object_meta_update(new, old)
    new_spec, old_spec = fields.mapping(new, "spec"), fields.mapping(old, "spec")
    external_name = "ExternalName" in (fields.text(new_spec, "type"), fields.text(old_spec, "type"))
    new_ips, old_ips = _cluster_ips(new_spec), _cluster_ips(old_spec)
    if not external_name and new_ips and old_ips and new_ips[0] != old_ips[0]:
        errors.append(fielderrors.invalid("spec.clusterIPs[0]", new_ips, "may not change once set"))
    old_class = old_spec.get("loadBalancerClass")
    new_class = new_spec.get("loadBalancerClass")
    if (
        fields.text(old_spec, "type") == "LoadBalancer"
        and fields.text(new_spec, "type") == "LoadBalancer"
        and old_class != new_class
    ):
        errors.append(fielderrors.invalid("spec.loadBalancerClass", new_class, metadata.FIELD_IMMUTABLE))
    errors.extend(validate_service(new))
    return errors
