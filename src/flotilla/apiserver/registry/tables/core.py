"""Tables for the core (`v1`) kinds other than pods, events and volumes.

Each printer mirrors kube-apiserver 1.32 column for column. Where Kubernetes' defaulting guarantees a
field on every stored object (a Service's `type`, a port's `protocol`, a Secret's `type`, a
controller's `replicas`), the printer assumes that default when the field is absent, so a table
matches a real cluster's even if the object was stored before defaulting existed here.
"""

from __future__ import annotations

import ipaddress
from datetime import datetime
from typing import Any

from flotilla.api.duration import since
from flotilla.api.quantities import format_quantity
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.labels import NONE, format_labels
from flotilla.apiserver.registry.tables.model import (
    AGE,
    CONTAINERS,
    IMAGES,
    NAME,
    Cell,
    Column,
    Printer,
    wide,
)
from flotilla.apiserver.registry.tables.objects import (
    container_cells,
    created,
    flag,
    integer,
    items,
    mapping,
    name,
    objects,
    string_map,
    text,
)

_LIST_LIMIT = 3
"""Lists in cells show three entries, then `+ N more...`."""


def _with_more(shown: list[str], total: int) -> str:
    listed = ",".join(shown)
    return f"{listed} + {total - _LIST_LIMIT} more..." if total > _LIST_LIMIT else listed


# Service


def _load_balancer_ingress(status: dict[str, Any]) -> list[str]:
    """The sorted, de-duplicated IPs (or hostnames) of a load balancer status."""
    addresses = {text(entry, "ip") or text(entry, "hostname") for entry in objects(status, "ingress")}
    return sorted(address for address in addresses if address)


def _external_ip(service: dict[str, Any]) -> str:
    external_ips = [ip for ip in items(service, "spec", "externalIPs") if isinstance(ip, str)]
    service_type = text(service, "spec", "type") or "ClusterIP"
    if service_type in ("ClusterIP", "NodePort"):
        return ",".join(external_ips) if external_ips else NONE
    if service_type == "LoadBalancer":
        # The server always renders the wide form, so the list is never clipped.
        addresses = _load_balancer_ingress(mapping(service, "status", "loadBalancer")) + external_ips
        return ",".join(addresses) if addresses else "<pending>"
    if service_type == "ExternalName":
        return text(service, "spec", "externalName")
    return "<unknown>"


def _ports(service: dict[str, Any]) -> str:
    pieces = []
    for port in objects(service, "spec", "ports"):
        protocol = text(port, "protocol") or "TCP"
        node_port = integer(port, "nodePort")
        number = integer(port, "port")
        pieces.append(f"{number}:{node_port}/{protocol}" if node_port > 0 else f"{number}/{protocol}")
    return ",".join(pieces) or NONE


def service_row(service: dict[str, Any], now: datetime) -> list[Cell]:
    cluster_ips = [ip for ip in items(service, "spec", "clusterIPs") if isinstance(ip, str)]
    cluster_ip = cluster_ips[0] if cluster_ips else text(service, "spec", "clusterIP")
    return [
        name(service),
        text(service, "spec", "type") or "ClusterIP",
        cluster_ip or NONE,
        _external_ip(service),
        _ports(service),
        since(created(service), now),
        format_labels(string_map(service, "spec", "selector")),
    ]


SERVICE = Printer(
    (
        NAME,
        Column("Type", "string", description=swagger_doc("ServiceSpec.type")),
        Column("Cluster-IP", "string", description=swagger_doc("ServiceSpec.clusterIP")),
        Column("External-IP", "string", description=swagger_doc("ServiceSpec.externalIPs")),
        Column("Port(s)", "string", description=swagger_doc("ServiceSpec.ports")),
        AGE,
        wide("Selector", swagger_doc("ServiceSpec.selector")),
    ),
    service_row,
)


# Endpoints


def _host_port(ip: str, port: int) -> str:
    """Go's `net.JoinHostPort`: IPv6 addresses in brackets."""
    try:
        bracket = isinstance(ipaddress.ip_address(ip), ipaddress.IPv6Address)
    except ValueError:
        bracket = ":" in ip
    return f"[{ip}]:{port}" if bracket else f"{ip}:{port}"


def format_endpoints(endpoints: dict[str, Any]) -> str:
    """The ENDPOINTS cell: `ip:port` for every address and port, three shown."""
    subsets = objects(endpoints, "subsets")
    if not subsets:
        return NONE
    shown: list[str] = []
    total = 0
    for subset in subsets:
        addresses = [text(address, "ip") for address in objects(subset, "addresses")]
        ports = objects(subset, "ports")
        if not ports:
            # Headless services may publish addresses without ports.
            total += len(addresses)
            shown += addresses[: _LIST_LIMIT - len(shown)]
            continue
        for port in ports:
            total += len(addresses)
            for ip in addresses[: _LIST_LIMIT - len(shown)]:
                shown.append(_host_port(ip, integer(port, "port")))
    return _with_more(shown, total)


ENDPOINTS = Printer(
    (NAME, Column("Endpoints", "string", description=swagger_doc("Endpoints.subsets")), AGE),
    lambda obj, now: [name(obj), format_endpoints(obj), since(created(obj), now)],
)


# Node

NODE_ROLE_PREFIX = "node-role.kubernetes.io/"
NODE_ROLE_LABEL = "kubernetes.io/role"


def node_status(node: dict[str, Any]) -> str:
    """`Ready`, `NotReady` or `Unknown`, plus `,SchedulingDisabled` for a cordoned node."""
    ready = None
    for condition in objects(node, "status", "conditions"):
        if condition.get("type") == "Ready":
            ready = condition
    states = ["Unknown" if ready is None else "Ready" if ready.get("status") == "True" else "NotReady"]
    if flag(node, "spec", "unschedulable"):
        states.append("SchedulingDisabled")
    return ",".join(states)


def node_roles(node: dict[str, Any]) -> str:
    roles = set()
    for key, value in string_map(node, "metadata", "labels").items():
        if key.startswith(NODE_ROLE_PREFIX) and key[len(NODE_ROLE_PREFIX) :]:
            roles.add(key[len(NODE_ROLE_PREFIX) :])
        elif key == NODE_ROLE_LABEL and value:
            roles.add(value)
    return ",".join(sorted(roles)) or NONE


def _node_address(node: dict[str, Any], address_type: str) -> str:
    for address in objects(node, "status", "addresses"):
        if address.get("type") == address_type:
            return text(address, "address")
    return NONE


def node_row(node: dict[str, Any], now: datetime) -> list[Cell]:
    info = mapping(node, "status", "nodeInfo")
    return [
        name(node),
        node_status(node),
        node_roles(node),
        since(created(node), now),
        text(info, "kubeletVersion"),
        _node_address(node, "InternalIP"),
        _node_address(node, "ExternalIP"),
        text(info, "osImage") or "<unknown>",
        text(info, "kernelVersion") or "<unknown>",
        text(info, "containerRuntimeVersion") or "<unknown>",
    ]


NODE = Printer(
    (
        NAME,
        Column("Status", "string", description="The status of the node"),
        Column("Roles", "string", description="The roles of the node"),
        AGE,
        Column("Version", "string", description=swagger_doc("NodeSystemInfo.kubeletVersion")),
        wide("Internal-IP", swagger_doc("NodeStatus.addresses")),
        wide("External-IP", swagger_doc("NodeStatus.addresses")),
        wide("OS-Image", swagger_doc("NodeSystemInfo.osImage")),
        wide("Kernel-Version", swagger_doc("NodeSystemInfo.kernelVersion")),
        wide("Container-Runtime", swagger_doc("NodeSystemInfo.containerRuntimeVersion")),
    ),
    node_row,
)


# Namespaces, configuration and identities

NAMESPACE = Printer(
    (NAME, Column("Status", "string", description="The status of the namespace"), AGE),
    # The namespace strategy sets phase Active on create; assume it for objects stored without one.
    lambda obj, now: [name(obj), text(obj, "status", "phase") or "Active", since(created(obj), now)],
)

CONFIG_MAP = Printer(
    (NAME, Column("Data", "string", description=swagger_doc("ConfigMap.data")), AGE),
    lambda obj, now: [
        name(obj),
        len(mapping(obj, "data")) + len(mapping(obj, "binaryData")),
        since(created(obj), now),
    ],
)

SECRET = Printer(
    (
        NAME,
        Column("Type", "string", description=swagger_doc("Secret.type")),
        Column("Data", "string", description=swagger_doc("Secret.data")),
        AGE,
    ),
    lambda obj, now: [
        name(obj),
        text(obj, "type") or "Opaque",
        len(mapping(obj, "data")),
        since(created(obj), now),
    ],
)

SERVICE_ACCOUNT = Printer(
    (NAME, Column("Secrets", "string", description=swagger_doc("ServiceAccount.secrets")), AGE),
    lambda obj, now: [name(obj), len(items(obj, "secrets")), since(created(obj), now)],
)


# ResourceQuota


def quota_usage(quota: dict[str, Any]) -> tuple[str, str]:
    """The REQUEST and LIMIT cells: `resource: used/hard` for every hard limit in the status."""
    hard = mapping(quota, "status", "hard")
    used = mapping(quota, "status", "used")
    requests: list[str] = []
    limits: list[str] = []
    for resource in sorted(hard):
        entry = f"{resource}: {format_quantity(used.get(resource))}/{format_quantity(hard[resource])}"
        pieces = resource.split(".")
        (limits if len(pieces) > 1 and pieces[0] == "limits" else requests).append(entry)
    return ", ".join(requests), ", ".join(limits)


def _quota_row(quota: dict[str, Any], now: datetime) -> list[Cell]:
    request, limit = quota_usage(quota)
    return [name(quota), request, limit, since(created(quota), now)]


RESOURCE_QUOTA = Printer(
    (
        NAME,
        Column(
            "Request",
            "string",
            description="Request represents a minimum amount of cpu/memory that a container may consume.",
        ),
        Column(
            "Limit",
            "string",
            description=(
                "Limits control the maximum amount of cpu/memory that a container may use independent "
                "of contention on the node."
            ),
        ),
        AGE,
    ),
    _quota_row,
)


# ReplicationController and PodTemplate


def _replication_controller_row(controller: dict[str, Any], now: datetime) -> list[Cell]:
    names, images = container_cells(mapping(controller, "spec", "template", "spec"))
    return [
        name(controller),
        integer(controller, "spec", "replicas", default=1),
        integer(controller, "status", "replicas"),
        integer(controller, "status", "readyReplicas"),
        since(created(controller), now),
        names,
        images,
        format_labels(string_map(controller, "spec", "selector")),
    ]


REPLICATION_CONTROLLER = Printer(
    (
        NAME,
        Column("Desired", "integer", description=swagger_doc("ReplicationControllerSpec.replicas")),
        Column("Current", "integer", description=swagger_doc("ReplicationControllerStatus.replicas")),
        Column("Ready", "integer", description=swagger_doc("ReplicationControllerStatus.readyReplicas")),
        AGE,
        CONTAINERS,
        IMAGES,
        wide("Selector", swagger_doc("ReplicationControllerSpec.selector")),
    ),
    _replication_controller_row,
)


def _pod_template_row(template: dict[str, Any], _now: datetime) -> list[Cell]:
    names, images = container_cells(mapping(template, "template", "spec"))
    return [
        name(template),
        names,
        images,
        format_labels(string_map(template, "template", "metadata", "labels")),
    ]


POD_TEMPLATE = Printer(
    (
        NAME,
        Column("Containers", "string", description="Names of each container in the template."),
        Column("Images", "string", description="Images referenced by each container in the template."),
        Column("Pod Labels", "string", description="The labels for the pod template."),
    ),
    _pod_template_row,
)
