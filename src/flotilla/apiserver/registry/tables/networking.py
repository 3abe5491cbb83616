"""Tables for `networking.k8s.io/v1` (Ingress, IngressClass, NetworkPolicy) and EndpointSlice.

Lists inside cells show three entries and then `+ N more...`, as Kubernetes does. An Ingress's
PORTS column is not read from the object: it is `80`, or `80, 443` when TLS is configured.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flotilla.api.duration import since
from flotilla.apiserver.registry.tables.descriptions import swagger_doc
from flotilla.apiserver.registry.tables.labels import NONE, format_label_selector
from flotilla.apiserver.registry.tables.model import AGE, NAME, Cell, Column, Printer
from flotilla.apiserver.registry.tables.objects import (
    child,
    created,
    items,
    mapping,
    name,
    objects,
    optional_integer,
    optional_text,
    text,
)

_LIST_LIMIT = 3


def _list_with_more(shown: list[str], total: int) -> str:
    """Go's `listWithMoreString`: `<unset>` for an empty list."""
    if total > _LIST_LIMIT:
        return f"{','.join(shown)} + {total - _LIST_LIMIT} more..."
    return ",".join(shown) or "<unset>"


def ingress_hosts(ingress: dict[str, Any]) -> str:
    """The HOSTS cell: the first three rule hosts, `*` when no rule names one."""
    rules = objects(ingress, "spec", "rules")
    hosts: list[str] = []
    more = False
    for rule in rules:
        if len(hosts) == _LIST_LIMIT:
            more = True
        if not more and text(rule, "host"):
            hosts.append(text(rule, "host"))
    if not hosts:
        return "*"
    listed = ",".join(hosts)
    return f"{listed} + {len(rules) - _LIST_LIMIT} more..." if more else listed


def _ingress_address(ingress: dict[str, Any]) -> str:
    entries = objects(ingress, "status", "loadBalancer", "ingress")
    addresses = {text(entry, "ip") or text(entry, "hostname") for entry in entries}
    return ",".join(sorted(address for address in addresses if address))


def _ingress_row(ingress: dict[str, Any], now: datetime) -> list[Cell]:
    class_name = optional_text(ingress, "spec", "ingressClassName")
    return [
        name(ingress),
        NONE if class_name is None else class_name,
        ingress_hosts(ingress),
        _ingress_address(ingress),
        "80, 443" if items(ingress, "spec", "tls") else "80",
        since(created(ingress), now),
    ]


INGRESS = Printer(
    (
        NAME,
        Column(
            "Class",
            "string",
            description=(
                "The name of the IngressClass resource that should be used for additional configuration"
            ),
        ),
        Column(
            "Hosts",
            "string",
            description="Hosts that incoming requests are matched against before the ingress rule",
        ),
        Column(
            "Address",
            "string",
            description="Address is a list containing ingress points for the load-balancer",
        ),
        Column("Ports", "string", description="Ports of TLS configurations that open"),
        AGE,
    ),
    _ingress_row,
)


def _ingress_class_row(ingress_class: dict[str, Any], now: datetime) -> list[Cell]:
    parameters = child(ingress_class, "spec", "parameters")
    reference = NONE
    if isinstance(parameters, dict):
        api_group = optional_text(parameters, "apiGroup")
        reference = text(parameters, "kind") + ("" if api_group is None else f".{api_group}")
        reference += "/" + text(parameters, "name")
    return [
        name(ingress_class),
        text(ingress_class, "spec", "controller"),
        reference,
        since(created(ingress_class), now),
    ]


INGRESS_CLASS = Printer(
    (
        NAME,
        Column("Controller", "string", description="Controller that is responsible for handling this class"),
        Column("Parameters", "string", description="A reference to a resource with additional parameters"),
        AGE,
    ),
    _ingress_class_row,
)

NETWORK_POLICY = Printer(
    (NAME, Column("Pod-Selector", "string", description=swagger_doc("NetworkPolicySpec.podSelector")), AGE),
    # The selector is a struct, not a pointer, in Go: an absent one is the empty (match-all) selector.
    lambda obj, now: [
        name(obj),
        format_label_selector(mapping(obj, "spec", "podSelector")),
        since(created(obj), now),
    ],
)


def endpoint_slice_ports(endpoint_slice: dict[str, Any]) -> str:
    ports = objects(endpoint_slice, "ports")
    shown = []
    for port in ports[:_LIST_LIMIT]:
        number = optional_integer(port, "port")
        port_name = optional_text(port, "name")
        shown.append(str(number) if number is not None else port_name if port_name is not None else "*")
    return _list_with_more(shown, len(ports))


def endpoint_slice_addresses(endpoint_slice: dict[str, Any]) -> str:
    addresses = [
        address
        for endpoint in objects(endpoint_slice, "endpoints")
        for address in items(endpoint, "addresses")
        if isinstance(address, str)
    ]
    return _list_with_more(addresses[:_LIST_LIMIT], len(addresses))


ENDPOINT_SLICE = Printer(
    (
        NAME,
        Column("AddressType", "string", description=swagger_doc("EndpointSlice.addressType")),
        Column("Ports", "string", description=swagger_doc("EndpointSlice.ports")),
        Column("Endpoints", "string", description=swagger_doc("EndpointSlice.endpoints")),
        AGE,
    ),
    lambda obj, now: [
        name(obj),
        text(obj, "addressType"),
        endpoint_slice_ports(obj),
        endpoint_slice_addresses(obj),
        since(created(obj), now),
    ],
)
