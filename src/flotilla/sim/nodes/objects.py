"""What a simulated node's kubelet registers and reports: its Node, its heartbeat Lease, its health.

A kubelet registers its Node with the labels, capacity, conditions, addresses, `nodeInfo` and pod
CIDR it knows, and renews a Lease in `kube-node-lease` as its heartbeat. Here these are functions of
the cluster's spec, the node's index and its `NodeHealth`, so every cluster's nodes look alike and a
node is the same after a restart (stable addresses, pod CIDRs and machine ids). Nodes are
recognisable by kwok's marker (`kwok.x-k8s.io/node: fake` annotation, `type: kwok` label); the
simulated kubelet acts only on pods bound to such nodes.
"""

from __future__ import annotations

import enum
import uuid
from datetime import datetime
from typing import Any

from flotilla.api.conditions import stamped_condition
from flotilla.api.times import format_micro_time, format_time
from flotilla.sim.spec import ClusterSpec

NODE_LEASE_NAMESPACE = "kube-node-lease"

MANAGED_ANNOTATION = "kwok.x-k8s.io/node"
MANAGED_VALUE = "fake"
TYPE_LABEL = "type"
TYPE_VALUE = "kwok"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
REGION_LABEL = "topology.kubernetes.io/region"
ZONE_LABEL = "topology.kubernetes.io/zone"

EPHEMERAL_STORAGE = "100Gi"
CONTAINER_RUNTIME_VERSION = "containerd://1.7.24"
KERNEL_VERSION = "6.8.0-flotilla-sim"
OS_IMAGE = "Ubuntu 24.04.1 LTS"
KUBELET_PORT = 10250
_NODE_NAMESPACE_UUID = uuid.UUID("6f1c9a52-63d4-4b8e-9d55-7a3f3b1e2c10")
"""Seeds the stable machine, system and boot ids of each node name."""

STOPPED_POSTING = "Kubelet stopped posting node status."
NOT_READY_MESSAGE = (
    "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady "
    "message:Network plugin returns error: cni plugin not initialized"
)
# (type, healthy status, reason, message) in the order a kubelet reports them.
_KUBELET_CONDITIONS = (
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)
_NETWORK_CONDITION = ("NetworkUnavailable", "False", "RouteCreated", "RouteController created a route")


class NodeHealth(enum.Enum):
    READY = "Ready"
    NOT_READY = "NotReady"
    """The kubelet runs and reports Ready=False."""
    UNREACHABLE = "Unreachable"
    """The kubelet is silent: no leases, the node controller sets the conditions to Unknown."""


def internal_ip(index: int) -> str:
    """The node's InternalIP: unique per node index, the same scheme in every cluster."""
    return f"10.0.{index // 250}.{index % 250 + 2}"


def pod_cidr(index: int) -> str:
    """A /24 per node from 10.244.0.0/14 onwards, as kube-controller-manager's range allocator hands out."""
    block = 244 * 256 + index
    return f"10.{block // 256}.{block % 256}.0/24"


def instance_type(spec: ClusterSpec) -> str:
    chosen = spec.labels.get(INSTANCE_TYPE_LABEL) or spec.labels.get("instance-type")
    return chosen or f"sim-{spec.node_cpu}cpu-{spec.node_memory}".lower()


def node_labels(spec: ClusterSpec, index: int) -> dict[str, str]:
    name = spec.node_name(index)
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        INSTANCE_TYPE_LABEL: instance_type(spec),
        TYPE_LABEL: TYPE_VALUE,
    }
    if spec.region:
        labels[REGION_LABEL] = spec.region
    zones = spec.zones
    if zones:
        labels[ZONE_LABEL] = zones[index % len(zones)]
    return labels


def node_conditions(
    health: NodeHealth, now: datetime, previous: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """The node conditions for `health`; unchanged statuses keep their transition time.

    A silent kubelet posts nothing, so an unreachable node keeps its last heartbeat times.
    """
    stamp = format_time(now)
    before = {c.get("type"): c for c in previous or []}
    conditions = []
    for kind, healthy, healthy_reason, healthy_message in (_NETWORK_CONDITION, *_KUBELET_CONDITIONS):
        status, reason, message, heartbeat = healthy, healthy_reason, healthy_message, stamp
        if health is NodeHealth.UNREACHABLE:
            heartbeat = str(before.get(kind, {}).get("lastHeartbeatTime") or stamp)
            if kind != _NETWORK_CONDITION[0]:  # the route controller's condition stays as it was
                status, reason, message = "Unknown", "NodeStatusUnknown", STOPPED_POSTING
        elif health is NodeHealth.NOT_READY and kind == "Ready":
            status, reason, message = "False", "KubeletNotReady", NOT_READY_MESSAGE
        condition = {
            "type": kind,
            "status": status,
            "lastHeartbeatTime": heartbeat,
            "lastTransitionTime": stamp,
            "reason": reason,
            "message": message,
        }
        conditions.append(stamped_condition(condition, before.get(kind), stamp))
    return conditions


def node_status(spec: ClusterSpec, index: int, health: NodeHealth, now: datetime) -> dict[str, Any]:
    name = spec.node_name(index)
    resources = {
        "cpu": spec.node_cpu,
        "ephemeral-storage": EPHEMERAL_STORAGE,
        "memory": spec.node_memory,
        "pods": str(spec.node_pods),
    }
    return {
        "capacity": dict(resources),
        "allocatable": dict(resources),
        "conditions": node_conditions(health, now),
        "addresses": [
            {"type": "InternalIP", "address": internal_ip(index)},
            {"type": "Hostname", "address": name},
        ],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": KUBELET_PORT}},
        "nodeInfo": {
            "machineID": uuid.uuid5(_NODE_NAMESPACE_UUID, f"machine/{name}").hex,
            "systemUUID": str(uuid.uuid5(_NODE_NAMESPACE_UUID, f"system/{name}")),
            "bootID": str(uuid.uuid5(_NODE_NAMESPACE_UUID, f"boot/{name}")),
            "kernelVersion": KERNEL_VERSION,
            "osImage": OS_IMAGE,
            "containerRuntimeVersion": CONTAINER_RUNTIME_VERSION,
            "kubeletVersion": spec.kubernetes_version,
            "kubeProxyVersion": spec.kubernetes_version,
            "operatingSystem": "linux",
            "architecture": "amd64",
        },
    }


def node_object(spec: ClusterSpec, index: int, health: NodeHealth, now: datetime) -> dict[str, Any]:
    """The Node a kubelet of this cluster would register as node `index`."""
    cidr = pod_cidr(index)
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": spec.node_name(index),
            "labels": node_labels(spec, index),
            "annotations": {MANAGED_ANNOTATION: MANAGED_VALUE, "node.alpha.kubernetes.io/ttl": "0"},
        },
        "spec": {"podCIDR": cidr, "podCIDRs": [cidr], "providerID": f"kwok://{spec.node_name(index)}"},
        "status": node_status(spec, index, health, now),
    }


def lease_object(node_name: str, node_uid: str, duration: int, now: datetime) -> dict[str, Any]:
    """The kubelet's heartbeat Lease, owned by its Node so it goes when the node does."""
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": {
            "name": node_name,
            "namespace": NODE_LEASE_NAMESPACE,
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": node_name, "uid": node_uid}],
        },
        "spec": {
            "holderIdentity": node_name,
            "leaseDurationSeconds": duration,
            "renewTime": format_micro_time(now),
        },
    }


def is_managed(node: dict[str, Any] | None) -> bool:
    """Whether a node is one of ours (kwok's marker), so simulated kubelets act on its pods."""
    annotations = ((node or {}).get("metadata") or {}).get("annotations") or {}
    return bool(annotations.get(MANAGED_ANNOTATION) == MANAGED_VALUE)


def ready_status(node: dict[str, Any] | None) -> str:
    """The status of the node's Ready condition ("True", "False", "Unknown"; "" when absent)."""
    for condition in ((node or {}).get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return str(condition.get("status") or "")
    return ""
