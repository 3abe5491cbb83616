"""Defaults of the core/v1 kinds besides pod specs: Services, Secrets, Namespaces, storage, nodes.

What kube-apiserver 1.32 fills in (core/v1 `defaults.go` and its generated defaulters): a Service's
`type: ClusterIP`, `sessionAffinity: None`, port protocols and target ports and traffic policies; a
Secret's `type: Opaque` (and `stringData` folded into `data`, as kube's conversion does); a
Namespace's `kubernetes.io/metadata.name` label and `Active` phase; claim and volume modes and
phases; a node's allocatable defaulting to its capacity; a LimitRange's container defaults.
"""

from __future__ import annotations

import base64
from typing import Any

from flotilla.apiserver.registry.defaults.pods import (
    canonical_resource_list,
    default_claim_spec,
    default_pod_template,
)
from flotilla.apiserver.registry.validation import fields

NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
DEFAULT_CLIENT_IP_TIMEOUT = 10800


def default_service(service: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(service, "spec")
    if not spec.get("sessionAffinity"):
        spec["sessionAffinity"] = "None"
    if spec["sessionAffinity"] == "None":
        spec.pop("sessionAffinityConfig", None)
    elif spec["sessionAffinity"] == "ClientIP":
        client_ip = fields.mapping(fields.mapping(spec, "sessionAffinityConfig"), "clientIP")
        if client_ip.get("timeoutSeconds") is None:
            spec["sessionAffinityConfig"] = {"clientIP": {"timeoutSeconds": DEFAULT_CLIENT_IP_TIMEOUT}}
    if not spec.get("type"):
        spec["type"] = "ClusterIP"
    kind = spec["type"]
    for port in fields.objects(spec, "ports"):
        if not port.get("protocol"):
            port["protocol"] = "TCP"
        if port.get("targetPort") in (None, 0, ""):
            port["targetPort"] = port.get("port", 0)
    externally_accessible = kind in ("LoadBalancer", "NodePort") or (
        kind == "ClusterIP" and bool(fields.items(spec, "externalIPs"))
    )
    if externally_accessible and not spec.get("externalTrafficPolicy"):
        spec["externalTrafficPolicy"] = "Cluster"
    if spec.get("internalTrafficPolicy") is None and kind in ("ClusterIP", "LoadBalancer", "NodePort"):
        spec["internalTrafficPolicy"] = "Cluster"
    if kind == "LoadBalancer":
        if spec.get("allocateLoadBalancerNodePorts") is None:
            spec["allocateLoadBalancerNodePorts"] = True
        for ingress in fields.objects(
            fields.mapping(fields.mapping(service, "status"), "loadBalancer"), "ingress"
        ):
            if ingress.get("ip") and ingress.get("ipMode") is None:
                ingress["ipMode"] = "VIP"
    _sync_cluster_ips(spec)


def _sync_cluster_ips(spec: dict[str, Any]) -> None:
    """`clusterIP` and `clusterIPs[0]` name the same address; fill whichever one is missing.

    kube's Service strategy does this before validation (`NormalizeClusterIPs`), so a manifest with
    only `clusterIP: None` is a headless Service rather than an error.
    """
    cluster_ip = fields.text(spec, "clusterIP")
    cluster_ips = fields.items(spec, "clusterIPs")
    if cluster_ip and not cluster_ips:
        spec["clusterIPs"] = [cluster_ip]
    elif not cluster_ip and cluster_ips and isinstance(cluster_ips[0], str):
        spec["clusterIP"] = cluster_ips[0]


def default_secret(secret: dict[str, Any]) -> None:
    if not secret.get("type"):
        secret["type"] = "Opaque"
    string_data = secret.pop("stringData", None)
    if isinstance(string_data, dict) and string_data:
        data = fields.ensure_mapping(secret, "data")
        for key, value in string_data.items():
            data[key] = base64.b64encode(str(value).encode()).decode()


def default_namespace(namespace: dict[str, Any]) -> None:
    name = fields.text(fields.mapping(namespace, "metadata"), "name")
    if name:
        labels = fields.ensure_mapping(fields.ensure_mapping(namespace, "metadata"), "labels")
        labels[NAMESPACE_NAME_LABEL] = name
    status = fields.ensure_mapping(namespace, "status")
    if not status.get("phase"):
        status["phase"] = "Active"


def default_persistent_volume_claim(claim: dict[str, Any]) -> None:
    status = fields.ensure_mapping(claim, "status")
    if not status.get("phase"):
        status["phase"] = "Pending"
    default_claim_spec(fields.ensure_mapping(claim, "spec"))
    canonical_resource_list(status.get("capacity"))
    canonical_resource_list(status.get("allocatedResources"))


def default_persistent_volume(volume: dict[str, Any]) -> None:
    status = fields.ensure_mapping(volume, "status")
    if not status.get("phase"):
        status["phase"] = "Pending"
    spec = fields.ensure_mapping(volume, "spec")
    if not spec.get("persistentVolumeReclaimPolicy"):
        spec["persistentVolumeReclaimPolicy"] = "Retain"
    if spec.get("volumeMode") is None:
        spec["volumeMode"] = "Filesystem"
    canonical_resource_list(spec.get("capacity"))
    host_path = spec.get("hostPath")
    if isinstance(host_path, dict) and host_path.get("type") is None:
        host_path["type"] = ""


def default_node(node: dict[str, Any]) -> None:
    status = fields.mapping(node, "status")
    capacity = status.get("capacity")
    if status.get("allocatable") is None and isinstance(capacity, dict):
        status["allocatable"] = dict(capacity)
    canonical_resource_list(status.get("capacity"))
    canonical_resource_list(status.get("allocatable"))


def default_endpoints(endpoints: dict[str, Any]) -> None:
    for subset in fields.objects(endpoints, "subsets"):
        for port in fields.objects(subset, "ports"):
            if not port.get("protocol"):
                port["protocol"] = "TCP"


def default_replication_controller(controller: dict[str, Any]) -> None:
    spec = fields.ensure_mapping(controller, "spec")
    template = spec.get("template")
    labels = (
        fields.string_map(fields.mapping(template, "metadata"), "labels")
        if isinstance(template, dict)
        else {}
    )
    if labels:
        if not fields.mapping(spec, "selector"):
            spec["selector"] = dict(labels)
        meta = fields.ensure_mapping(controller, "metadata")
        if not fields.mapping(meta, "labels"):
            meta["labels"] = dict(labels)
    if spec.get("replicas") is None:
        spec["replicas"] = 1
    if isinstance(template, dict):
        default_pod_template(spec)


def default_pod_template_object(pod_template: dict[str, Any]) -> None:
    default_pod_template(pod_template)


def default_limit_range(limit_range: dict[str, Any]) -> None:
    for item in fields.objects(fields.mapping(limit_range, "spec"), "limits"):
        if fields.text(item, "type") == "Container":
            defaults = dict(fields.mapping(item, "default"))
            requests = dict(fields.mapping(item, "defaultRequest"))
            for name, value in fields.mapping(item, "max").items():
                defaults.setdefault(name, value)
            for name, value in defaults.items():
                requests.setdefault(name, value)
            for name, value in fields.mapping(item, "min").items():
                requests.setdefault(name, value)
            if defaults:
                item["default"] = defaults
            if requests:
                item["defaultRequest"] = requests
        for section in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio"):
            canonical_resource_list(item.get(section))


def default_resource_quota(quota: dict[str, Any]) -> None:
    canonical_resource_list(fields.mapping(quota, "spec").get("hard"))
    status = fields.mapping(quota, "status")
    canonical_resource_list(status.get("hard"))
    canonical_resource_list(status.get("used"))
