"""What a simulated cluster looks like: its name, nodes and their capacity, labels, version, timing,
what exec and logs do on its pods, and how its HPA controller runs."""

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
class AutoscalerSettings:
    """The cluster's HPA controller: kube-controller-manager's `--horizontal-pod-autoscaler-*` flags."""

    sync_period: float = 15.0
    """Seconds between two looks at each HorizontalPodAutoscaler."""
    downscale_stabilization: float = 300.0
    """Seconds of recommendations whose highest a scale-down may not go below."""
    tolerance: float = 0.1
    """How far the usage ratio may stray from 1.0 before the replicas change."""
    cpu_initialization_period: float = 300.0
    """Seconds after a pod's start during which its CPU samples count only once it is Ready."""
    initial_readiness_delay: float = 30.0
    """Seconds after a pod's start during which turning unready does not count as unready."""


@dataclass(frozen=True, slots=True)
class PodSelector:
    """Which pods a rule is for (kwok's `selector`): every pod when both lists are empty."""

    match_namespaces: tuple[str, ...] = ()
    match_names: tuple[str, ...] = ()

    def selects(self, namespace: str, name: str) -> bool:
        return (not self.match_namespaces or namespace in self.match_namespaces) and (
            not self.match_names or name in self.match_names
        )


@dataclass(frozen=True, slots=True)
class ExecRule:
    """kwok's `Exec` with a `local` target: an exec into a selected container runs its command here."""

    selector: PodSelector = field(default_factory=PodSelector)
    containers: tuple[str, ...] = ()
    """Containers it is for (every container when empty)."""
    work_dir: str = ""
    """Where the command runs ("": the sim's working directory)."""
    envs: tuple[tuple[str, str], ...] = ()
    """Variables added to the sim's environment for the command."""
    timeout_seconds: float = 300.0
    """The command is killed after this long (or when the client goes away)."""


@dataclass(frozen=True, slots=True)
class LogRule:
    """kwok's `Logs`: a selected container's log is a local file."""

    logs_file: str
    selector: PodSelector = field(default_factory=PodSelector)
    containers: tuple[str, ...] = ()
    previous_logs_file: str = ""
    """The log of the container's previous instance (`logs --previous`); none when empty."""


@dataclass(frozen=True, slots=True)
class PodStreams:
    """What exec and logs do on a cluster's pods; the first rule selecting a pod and container wins."""

    execs: tuple[ExecRule, ...] = ()
    logs: tuple[LogRule, ...] = ()

    def exec_rule(self, namespace: str, name: str, container: str) -> ExecRule | None:
        return next(
            (r for r in self.execs if _selects(r.selector, r.containers, namespace, name, container)), None
        )

    def log_rule(self, namespace: str, name: str, container: str) -> LogRule | None:
        return next(
            (r for r in self.logs if _selects(r.selector, r.containers, namespace, name, container)), None
        )


def _selects(
    selector: PodSelector, containers: tuple[str, ...], namespace: str, name: str, container: str
) -> bool:
    return selector.selects(namespace, name) and (not containers or container in containers)


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
    streams: PodStreams = field(default_factory=PodStreams)
    """What `kubectl exec` and `kubectl logs` do on its pods (nothing unless configured)."""
    autoscaling: AutoscalerSettings = field(default_factory=AutoscalerSettings)
    """How its HorizontalPodAutoscaler controller runs."""

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
