"""What a simulated cluster looks like: its name, nodes and their capacity, labels, version, timing."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Timing:
    """Delays of simulated behaviour, in seconds (tests set them to 0)."""

    pod_start: float = 1.0
    """From a pod being bound to a node to Running and Ready."""
    pod_complete: float = 2.0
    """From a Job's pod running to Succeeded."""
    node_lease_renew: float = 10.0
    """Between renewals of a node's Lease in kube-node-lease (kubelet: leaseDuration / 4)."""
    node_lease_duration: int = 40
    node_status_refresh: float = 300.0
    """Between refreshes of a node's status heartbeat times (kubelet reports changes at once)."""


@dataclass(frozen=True, slots=True)
class ClusterSpec:
    name: str
    nodes: int = 3
    node_cpu: str = "8"
    node_memory: str = "32Gi"
    node_pods: int = 110
    labels: dict[str, str] = field(default_factory=dict)
    """Labels of the cluster (region, zone, provider); nodes get the topology ones."""
    kubernetes_version: str = "v1.32.4"
    timing: Timing = field(default_factory=Timing)

    @property
    def region(self) -> str:
        return self.labels.get("topology.kubernetes.io/region") or self.labels.get("region", "")

    @property
    def zones(self) -> list[str]:
        """Zones nodes are spread over (round-robin)."""
        zone = self.labels.get("topology.kubernetes.io/zone") or self.labels.get("zone", "")
        return [z for z in zone.split(",") if z] if zone else []

    @property
    def provider(self) -> str:
        return self.labels.get("provider", "")

    def node_name(self, index: int) -> str:
        return f"{self.name}-node-{index}"
