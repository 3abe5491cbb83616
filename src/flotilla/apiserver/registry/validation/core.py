"""Validation of the simpler core/v1 kinds: Namespace, ServiceAccount, ConfigMap, Secret, Node, Event,
Endpoints, ReplicationController and PodTemplate.

ConfigMaps and Secrets hold file-like keys and at most 1 MiB of data, and freeze once marked
`immutable`; a Secret's `type` never changes and some types require specific keys. Nodes may change
little besides taints, unschedulability and the CIDRs and provider ID the first time they are set.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import json
from typing import Any

from flotilla.api import fielderrors, names
from flotilla.api.fielderrors import FieldError
from flotilla.apiserver.registry.validation import fields, metadata, pods, scalars, tolerations
from flotilla.apiserver.registry.validation.apps import SELECTOR_MISMATCH
from flotilla.apiserver.registry.validation.equality import semantic_equal

MAX_DATA_SIZE = 1024 * 1024
IMMUTABLE_WHEN_SET = "field is immutable when `immutable` is set"
REDACTED = "<secret contents redacted>"
_SECRET_REQUIRED_KEYS = {
    "kubernetes.io/dockercfg": (".dockercfg",),
    "kubernetes.io/dockerconfigjson": (".dockerconfigjson",),
    "kubernetes.io/tls": ("tls.crt", "tls.key"),
}
PROTOCOLS = ("SCTP", "TCP", "UDP")


# --- Namespace, ServiceAccount ------------------------------------------------------------------


def validate_namespace(namespace: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(namespace, namespaced=False, name_rule=metadata.dns_label_name)
    finalizers = [
        item
        for item in fields.items(fields.mapping(namespace, "spec"), "finalizers")
        if isinstance(item, str)
    ]
    for finalizer in finalizers:
        errors.extend(metadata.validate_finalizers([finalizer], "spec.finalizers"))
    return errors


def validate_namespace_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    return metadata.validate_object_meta_update(new, old)


def validate_service_account(account: dict[str, Any]) -> list[FieldError]:
    return metadata.validate_object_meta(account, namespaced=True)


def validate_service_account_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_service_account(new))
    return errors


# --- ConfigMap, Secret --------------------------------------------------------------------------


def _decoded(value: Any) -> bytes | None:
    if not isinstance(value, str):
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def validate_config_map(config_map: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(config_map, namespaced=True)
    data = fields.mapping(config_map, "data")
    binary = fields.mapping(config_map, "binaryData")
    size = 0
    for key in sorted(data):
        key_path = fielderrors.key("data", key)
        errors.extend(
            fielderrors.invalid(key_path, key, message) for message in names.config_map_key_errors(key)
        )
        if key in binary:
            errors.append(fielderrors.invalid(key_path, key, "duplicate of key present in binaryData"))
        size += len(str(data[key]).encode())
    for key in sorted(binary):
        key_path = fielderrors.key("binaryData", key)
        errors.extend(
            fielderrors.invalid(key_path, key, message) for message in names.config_map_key_errors(key)
        )
        content = _decoded(binary[key])
        if content is None:
            errors.append(fielderrors.invalid(key_path, REDACTED, "must be base64-encoded"))
        else:
            size += len(content)
    if size > MAX_DATA_SIZE:
        errors.append(fielderrors.too_long("", MAX_DATA_SIZE))
    return errors


def _immutable_data(new: dict[str, Any], old: dict[str, Any], sections: tuple[str, ...]) -> list[FieldError]:
    if old.get("immutable") is not True:
        return []
    errors: list[FieldError] = []
    if new.get("immutable") is not True:
        errors.append(fielderrors.forbidden("immutable", IMMUTABLE_WHEN_SET))
    errors.extend(
        fielderrors.forbidden(section, IMMUTABLE_WHEN_SET)
        for section in sections
        if fields.mapping(new, section) != fields.mapping(old, section)
    )
    return errors


def validate_config_map_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(_immutable_data(new, old, ("data", "binaryData")))
    errors.extend(validate_config_map(new))
    return errors


def validate_secret(secret: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(secret, namespaced=True)
    data = fields.mapping(secret, "data")
    contents: dict[str, bytes] = {}
    for key in sorted(data):
        key_path = fielderrors.key("data", key)
        errors.extend(
            fielderrors.invalid(key_path, key, message) for message in names.config_map_key_errors(key)
        )
        content = _decoded(data[key])
        if content is None:
            errors.append(fielderrors.invalid(key_path, REDACTED, "must be base64-encoded"))
        else:
            contents[key] = content
    if sum(len(content) for content in contents.values()) > MAX_DATA_SIZE:
        errors.append(fielderrors.too_long("data", MAX_DATA_SIZE))
    errors.extend(_kind(secret, contents))
    return errors


def _kind(secret: dict[str, Any], contents: dict[str, bytes]) -> list[FieldError]:
    kind = fields.text(secret, "type")
    data = fields.mapping(secret, "data")
    if kind == "kubernetes.io/service-account-token":
        annotations = fields.string_map(fields.mapping(secret, "metadata"), "annotations")
        if not annotations.get("kubernetes.io/service-account.name"):
            return [
                fielderrors.required(
                    fielderrors.key("metadata.annotations", "kubernetes.io/service-account.name")
                )
            ]
        return []
    if kind == "kubernetes.io/basic-auth":
        if "username" not in data and "password" not in data:
            return [
                fielderrors.required(fielderrors.key("data", "username")),
                fielderrors.required(fielderrors.key("data", "password")),
            ]
        return []
    if kind == "kubernetes.io/ssh-auth":
        if not contents.get("ssh-privatekey"):
            return [fielderrors.required(fielderrors.key("data", "ssh-privatekey"))]
        return []
    required = _SECRET_REQUIRED_KEYS.get(kind, ())
    errors = [fielderrors.required(fielderrors.key("data", key)) for key in required if key not in data]
    if kind in ("kubernetes.io/dockercfg", "kubernetes.io/dockerconfigjson") and not errors:
        key = required[0]
        try:
            parsed = json.loads(contents.get(key, b""))
        except ValueError as problem:
            errors.append(fielderrors.invalid(fielderrors.key("data", key), REDACTED, str(problem)))
        else:
            if not isinstance(parsed, dict):
                errors.append(
                    fielderrors.invalid(
                        fielderrors.key("data", key),
                        REDACTED,
                        "json: cannot unmarshal into Go value of type map[string]interface {}",
                    )
                )
    return errors


def validate_secret_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(metadata.immutable(fields.text(new, "type"), fields.text(old, "type"), "type"))
    errors.extend(_immutable_data(new, old, ("data",)))
    errors.extend(validate_secret(new))
    return errors


# --- Node ---------------------------------------------------------------------------------------

_NODE_MUTABLE_SPEC = frozenset(
    {"taints", "unschedulable", "podCIDR", "podCIDRs", "providerID", "configSource", "externalID"}
)


def validate_node(node: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(node, namespaced=False)
    spec = fields.mapping(node, "spec")
    # kube reports taint problems under `metadata.taints`.
    errors.extend(tolerations.validate_taints(fields.objects(spec, "taints"), "metadata.taints"))
    cidrs = [cidr for cidr in fields.items(spec, "podCIDRs") if isinstance(cidr, str)]
    for position, cidr in enumerate(cidrs):
        errors.extend(scalars.cidr_errors(cidr, fielderrors.index("spec.podCIDRs", position)))
    if len(cidrs) > 1:
        families = {_family(cidr) for cidr in cidrs}
        if len(cidrs) > 2 or len(families) != 2:
            errors.append(
                fielderrors.invalid(
                    "spec.podCIDRs", cidrs, "may specify no more than one CIDR for each IP family"
                )
            )
    return errors


def _family(cidr: str) -> int:
    try:
        return ipaddress.ip_network(cidr, strict=False).version
    except ValueError:
        return 0


def validate_node_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_node(new))
    new_spec, old_spec = fields.mapping(new, "spec"), fields.mapping(old, "spec")
    old_cidrs = fields.items(old_spec, "podCIDRs")
    if old_cidrs and old_cidrs != fields.items(new_spec, "podCIDRs"):
        errors.append(
            fielderrors.forbidden(
                "spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid'
            )
        )
    old_provider = fields.text(old_spec, "providerID")
    if old_provider and old_provider != fields.text(new_spec, "providerID"):
        errors.append(
            fielderrors.forbidden(
                "spec.providerID", 'node updates may not change providerID except from "" to valid'
            )
        )
    frozen_new = {key: value for key, value in new_spec.items() if key not in _NODE_MUTABLE_SPEC}
    frozen_old = {key: value for key, value in old_spec.items() if key not in _NODE_MUTABLE_SPEC}
    if not semantic_equal(frozen_new, frozen_old):
        errors.append(
            fielderrors.forbidden(
                "",
                "node updates may only change labels, taints, or capacity "
                "(or configSource, if the DynamicKubeletConfig feature gate is enabled)",
            )
        )
    return errors


# --- Endpoints ----------------------------------------------------------------------------------


def validate_endpoints(endpoints: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(endpoints, namespaced=True)
    for position, subset in enumerate(fields.objects(endpoints, "subsets")):
        subset_path = fielderrors.index("subsets", position)
        if not fields.items(subset, "addresses") and not fields.items(subset, "notReadyAddresses"):
            errors.append(
                fielderrors.required(subset_path, "must specify `addresses` or `notReadyAddresses`")
            )
        for section in ("addresses", "notReadyAddresses"):
            for address_position, address in enumerate(fields.objects(subset, section)):
                errors.extend(
                    _endpoint_address(
                        address, fielderrors.index(fielderrors.child(subset_path, section), address_position)
                    )
                )
        ports = fields.objects(subset, "ports")
        for port_position, port in enumerate(ports):
            errors.extend(
                _endpoint_port(
                    port,
                    len(ports) > 1,
                    fielderrors.index(fielderrors.child(subset_path, "ports"), port_position),
                )
            )
    return errors


def _endpoint_address(address: dict[str, Any], path: str) -> list[FieldError]:
    ip = fields.text(address, "ip")
    errors = scalars.ip_errors(ip, fielderrors.child(path, "ip"))
    hostname = fields.text(address, "hostname")
    if hostname:
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "hostname"), hostname, message)
            for message in names.dns1123_label_errors(hostname)
        )
    node_name = address.get("nodeName")
    if isinstance(node_name, str):
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "nodeName"), node_name, message)
            for message in names.dns1123_subdomain_errors(node_name)
        )
    errors.extend(scalars.non_special_ip(ip, fielderrors.child(path, "ip")))
    return errors


def _endpoint_port(port: dict[str, Any], require_name: bool, path: str) -> list[FieldError]:
    errors: list[FieldError] = []
    name = fields.text(port, "name")
    if require_name and not name:
        errors.append(fielderrors.required(fielderrors.child(path, "name")))
    elif name:
        errors.extend(
            fielderrors.invalid(fielderrors.child(path, "name"), name, message)
            for message in names.dns1123_label_errors(name)
        )
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
    app_protocol = port.get("appProtocol")
    if isinstance(app_protocol, str):
        errors.extend(metadata.qualified_name(app_protocol, fielderrors.child(path, "appProtocol")))
    return errors


def validate_endpoints_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(validate_endpoints(new))
    return errors


# --- ReplicationController, PodTemplate ---------------------------------------------------------


def _replication_controller_spec(spec: dict[str, Any], path: str) -> list[FieldError]:
    errors = metadata.nonnegative(
        fields.integer(spec, "minReadySeconds") or 0, fielderrors.child(path, "minReadySeconds")
    )
    selector = fields.string_map(spec, "selector")
    if not selector:
        errors.append(fielderrors.required(fielderrors.child(path, "selector")))
    errors.extend(
        metadata.nonnegative(fields.integer(spec, "replicas") or 0, fielderrors.child(path, "replicas"))
    )
    template_path = fielderrors.child(path, "template")
    if spec.get("template") is None:
        errors.append(fielderrors.required(template_path))
        return errors
    template = fields.mapping(spec, "template")
    labels = fields.string_map(fields.mapping(template, "metadata"), "labels")
    if selector and any(labels.get(key) != value for key, value in selector.items()):
        errors.append(
            fielderrors.invalid(
                fielderrors.child(template_path, "metadata.labels"), labels, SELECTOR_MISMATCH
            )
        )
    errors.extend(pods.validate_pod_template(template, template_path))
    pod_spec = fields.mapping(template, "spec")
    restart_policy = fields.text(pod_spec, "restartPolicy")
    if restart_policy != "Always":
        errors.append(
            fielderrors.not_supported(
                fielderrors.child(template_path, "spec.restartPolicy"), restart_policy, ("Always",)
            )
        )
    if pod_spec.get("activeDeadlineSeconds") is not None:
        errors.append(
            fielderrors.forbidden(
                fielderrors.child(template_path, "spec.activeDeadlineSeconds"),
                "activeDeadlineSeconds in ReplicationController is not Supported",
            )
        )
    return errors


def validate_replication_controller(controller: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(controller, namespaced=True)
    errors.extend(_replication_controller_spec(fields.mapping(controller, "spec"), "spec"))
    return errors


def validate_replication_controller_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(_replication_controller_spec(fields.mapping(new, "spec"), "spec"))
    return errors


def validate_pod_template_object(pod_template: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta(pod_template, namespaced=True)
    errors.extend(pods.validate_pod_template(fields.mapping(pod_template, "template"), "template"))
    return errors


def validate_pod_template_object_update(new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
    errors = metadata.validate_object_meta_update(new, old)
    errors.extend(pods.validate_pod_template(fields.mapping(new, "template"), "template"))
    return errors
