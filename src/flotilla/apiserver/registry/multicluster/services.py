"""multicluster.x-k8s.io ServiceExport and ServiceImport, field for field as mcs-api v0.5's CRDs.

Both kinds are namespaced with a status subresource; v1alpha1 and v1beta1 share one schema (v0.5
only renamed the storage version), so the CRDs list both with `strategy: None`. ServiceExport has
optional `exportedLabels`/`exportedAnnotations` and conditions keyed by type; ServiceImport has the
ports (atomic), up to two IPs and IP families, the type (`ClusterSetIP` or `Headless`), session
affinity, traffic policies, and a status with the exporting clusters and conditions.
"""

from __future__ import annotations

from typing import Any

from flotilla.api import multicluster
from flotilla.apiserver.registry.karmada.schemas import (
    AGE,
    Schema,
    array,
    column,
    conditions,
    integer,
    obj,
    string,
    string_map,
)


def _root(description: str, spec: Schema, status: Schema) -> Schema:
    """The root of a kind whose spec is optional (as in mcs-api)."""
    return obj(
        {
            "apiVersion": string("The versioned schema of this representation of an object."),
            "kind": string("The REST resource this object represents."),
            "metadata": {"type": "object"},
            "spec": spec,
            "status": status,
        },
        description,
    )


def service_export_schema() -> Schema:
    spec = obj(
        {
            "exportedLabels": string_map("Labels to put on the ServiceImport."),
            "exportedAnnotations": string_map("Annotations to put on the ServiceImport."),
        },
        "What to export besides the Service.",
    )
    status = obj(
        {"conditions": conditions("Valid, Ready and Conflict.")},
        "The state of the export; the Service comes from the Service of the same name and namespace.",
    )
    return _root(
        "ServiceExport declares that the Service of the same name and namespace should be consumable "
        "from other clusters.",
        spec,
        status,
    )


def _port() -> Schema:
    return obj(
        {
            "name": string("The port's name within the service (a DNS label)."),
            "protocol": string("TCP, UDP or SCTP; TCP by default."),
            "appProtocol": string("The application protocol of this port."),
            "port": integer("The port number."),
        },
        required=["port"],
    )


def service_import_schema() -> Schema:
    client_ip = obj({"timeoutSeconds": integer("Seconds of ClientIP session stickiness.")})
    ports = array(_port(), "The ports of the multi-cluster service.", list_type="atomic")
    spec = obj(
        {
            "ports": ports,
            "ips": _limited(array({"type": "string"}, "The clusterset IPs (one per IP family)."), 2),
            "type": string(
                "ClusterSetIP or Headless.",
                enum=[item.value for item in multicluster.ServiceImportType],
            ),
            "sessionAffinity": string("ClientIP or None (ignored when Headless)."),
            "sessionAffinityConfig": obj({"clientIP": client_ip}),
            "ipFamilies": _limited(array({"type": "string"}, "IPv4 and/or IPv6."), 2),
            "internalTrafficPolicy": string("Cluster or Local."),
            "trafficDistribution": string("A hint such as PreferClose."),
        },
        "The multi-cluster service.",
        required=["ports", "type"],
    )
    cluster = obj(
        {"cluster": string("The name of an exporting cluster (a DNS label).")}, required=["cluster"]
    )
    clusters = array(cluster, "The exporting clusters this service was derived from.")
    clusters["x-kubernetes-list-type"] = "map"
    clusters["x-kubernetes-list-map-keys"] = ["cluster"]
    status = obj({"clusters": clusters, "conditions": conditions("Ready.")})
    return _root("ServiceImport describes a service imported from clusters in a ClusterSet.", spec, status)


def _limited(node: Schema, max_items: int) -> Schema:
    node["maxItems"] = max_items
    return node


def _crd(
    kind: str, plural: str, short_names: list[str], schema: Schema, columns: list[dict[str, Any]]
) -> dict[str, Any]:
    versions = [
        {
            "name": name,
            "served": True,
            "storage": name == multicluster.STORAGE_VERSION,
            "schema": {"openAPIV3Schema": schema},
            "subresources": {"status": {}},
            "additionalPrinterColumns": columns,
        }
        for name in multicluster.SERVED_VERSIONS
    ]
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{multicluster.GROUP}"},
        "spec": {
            "group": multicluster.GROUP,
            "names": {
                "kind": kind,
                "listKind": f"{kind}List",
                "plural": plural,
                "singular": kind.lower(),
                "shortNames": short_names,
            },
            "scope": "Namespaced",
            "versions": versions,
        },
    }


def service_export_crd() -> dict[str, Any]:
    return _crd(
        multicluster.SERVICE_EXPORT.kind,
        multicluster.SERVICE_EXPORTS,
        ["svcex", "svcexport"],
        service_export_schema(),
        [AGE],
    )


def service_import_crd() -> dict[str, Any]:
    columns = [column("Type", ".spec.type"), column("IP", ".spec.ips"), AGE]
    return _crd(
        multicluster.SERVICE_IMPORT.kind,
        multicluster.SERVICE_IMPORTS,
        ["svcim", "svcimport"],
        service_import_schema(),
        columns,
    )
