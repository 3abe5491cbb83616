"""One simulated cluster: an API server of its own, plus simulated nodes, scheduler, kubelet and controllers.

Its state lives under `<data-dir>/<name>/` (store and PKI), so it survives a restart of the process;
it listens on its own HTTPS port (kept across restarts when free) and writes
`<data-dir>/<name>.kubeconfig`. As a member of a clusterset it serves the MCS API, says who it is
(ClusterProperty), allocates clusterset IPs and answers DNS on a loopback UDP port of its own
(`sim.multicluster`). Its pods answer `kubectl exec` and `kubectl logs` as configured
(`sim.podstreams`); it serves `metrics.k8s.io` from the loads set on its workloads (`sim.metrics`).
Fault injection closes its port (unreachable), slows every request
(latency) or marks its nodes NotReady.
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Protocol

import structlog
import yaml

from flotilla.apiserver.server import APIServer, APISettings, ServerSettings
from flotilla.runtime.clock import Clock, SystemClock
from flotilla.sim.controllers import WorkloadControllers
from flotilla.sim.kubelet import Kubelet
from flotilla.sim.kubescheduler import KubeScheduler
from flotilla.sim.metrics import LoadBook, serve_metrics
from flotilla.sim.metrics.loads import Load, LoadKey
from flotilla.sim.multicluster import ClusterIdentity, ClusterSetIPAllocator, DNSServer
from flotilla.sim.nodes import NodeSimulator
from flotilla.sim.podstreams.execs import ExecServer
from flotilla.sim.podstreams.logs import LogServer
from flotilla.sim.spec import ClusterSpec

log = structlog.get_logger("flotilla.sim")


class Component(Protocol):
    async def start(self) -> None: ...

    async def stop(self) -> None: ...


class SimulatedCluster:
    def __init__(
        self,
        spec: ClusterSpec,
        data_dir: Path,
        *,
        clock: Clock | None = None,
        bind_address: str = "127.0.0.1",
        history_window: int = 2000,
    ) -> None:
        self.spec = spec
        self.data_dir = data_dir
        self.directory = data_dir / spec.name
        self.clock = clock or SystemClock()
        self.server = APIServer(
            ServerSettings(
                data_dir=self.directory,
                bind_address=bind_address,
                secure_port=self._remembered_port(),
                cluster_name=spec.name,
                storage_sync="NORMAL",
                any_port_if_taken=True,
                api=APISettings(kubernetes_version=spec.kubernetes_version, history_window=history_window),
                karmada=False,
                clusterset_member=True,
            )
        )
        embedded = self.server.embedded
        # metrics-server: usage from the loads `flotilla sim load` sets (`sim.metrics`); the HPA
        # controller reads the same computation in process.
        self.loads = LoadBook(self.directory)
        self.metrics = serve_metrics(embedded, self.loads, self.clock)
        self.nodes = NodeSimulator(embedded.client("kubelet"), spec, self.clock)
        self.dns = DNSServer.of_member(embedded.client("clusterset-dns"), host=bind_address)
        self.components: list[Component] = [
            self.nodes,
            KubeScheduler(embedded.client("kube-scheduler"), spec, self.clock),
            Kubelet(embedded.client("kubelet"), spec, self.clock),
            WorkloadControllers(
                embedded.client("kube-controller-manager"), spec, self.clock, pod_metrics=self.metrics
            ),
            # Its part in a clusterset: identity, clusterset IPs and DNS (`sim.multicluster`).
            ClusterIdentity(embedded.client("clusterset-identity"), spec.name),
            ClusterSetIPAllocator(embedded.client("clusterset-ip-allocator"), spec, self.clock),
            self.dns,
        ]
        self.latency_ms = 0
        # kwok's exec and logs: configured local commands and files (`sim.podstreams`).
        streams_client = embedded.client("kubelet")
        embedded.serve_pod_subresource(
            "exec", ("get", "create"), ExecServer(streams_client, spec.streams).serve
        )
        embedded.serve_pod_subresource("log", ("get",), LogServer(streams_client, spec.streams).serve)

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def kubeconfig_path(self) -> Path:
        return self.data_dir / f"{self.spec.name}.kubeconfig"

    @property
    def url(self) -> str:
        return self.server.url

    def _remembered_port(self) -> int:
        with contextlib.suppress(OSError, ValueError):
            return int((self.directory / "port").read_text())
        return 0

    async def start(self) -> None:
        await self.server.start()
        (self.directory / "port").write_text(str(self.server.port))
        await asyncio.to_thread(self.loads.read)
        self._write_kubeconfig()
        for component in self.components:
            await component.start()
        log.info("sim.cluster_started", cluster=self.name, url=self.url, nodes=self.spec.nodes)

    def _write_kubeconfig(self) -> None:
        config = yaml.safe_load(self.server.kubeconfig_path.read_text())
        config["clusters"][0]["name"] = self.name
        config["users"][0]["name"] = f"{self.name}-admin"
        config["contexts"] = [
            {"name": self.name, "context": {"cluster": self.name, "user": f"{self.name}-admin"}}
        ]
        config["current-context"] = self.name
        tmp = self.kubeconfig_path.with_suffix(".tmp")
        tmp.write_text(yaml.safe_dump(config, sort_keys=False))
        tmp.chmod(0o600)
        tmp.replace(self.kubeconfig_path)

    async def stop(self) -> None:
        for component in reversed(self.components):
            with contextlib.suppress(Exception):
                await component.stop()
        await self.server.stop()

    # -- faults ---------------------------------------------------------------------------------

    async def set_unreachable(self, unreachable: bool) -> None:
        if unreachable and self.server.listening:
            await self.server.stop_listening()
        elif not unreachable and not self.server.listening:
            await self.server.listen(self.server.port)
        log.info("sim.fault", cluster=self.name, unreachable=unreachable)

    def set_latency(self, milliseconds: int) -> None:
        self.latency_ms = max(0, milliseconds)
        self.server.context.injected_latency = self.latency_ms / 1000
        log.info("sim.fault", cluster=self.name, latency_ms=self.latency_ms)

    async def set_nodes_not_ready(self, not_ready: bool) -> None:
        await self.nodes.set_not_ready(not_ready)
        log.info("sim.fault", cluster=self.name, nodes_not_ready=not_ready)

    async def set_load(self, key: LoadKey, load: Load) -> bool:
        """Set (an empty load: clear) the load of workload `key`; whether the workload exists now."""
        text = self.loads.set(key, load)
        await asyncio.to_thread(self.loads.write, text)
        log.info("sim.load", cluster=self.name, kind=key[0], namespace=key[1], name=key[2], **load.to_json())
        return self.metrics.workload_exists(key)

    def faults(self) -> dict[str, object]:
        return {
            "unreachable": not self.server.listening,
            "latencyMs": self.latency_ms,
            "nodesNotReady": self.nodes.not_ready,
        }
