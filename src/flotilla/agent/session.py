"""One hub session of the agent: a hub client with one certificate, and everything that uses it.

A session owns the hub client, the agent's scoped informers — the Works of `karmada-es-<cluster>`
and its own Cluster (`metadata.name=<cluster>`), all RBAC lets it list — the controllers it runs
for its cluster (execution, work status, cluster status; the same code as the controller manager's,
with a context whose `sync_mode` is Pull and whose only member is the local one), the Lease
renewer and the cluster-proxy tunnel (`tunnel.py`). When the certificate is renewed the agent stops
the session and starts a new one with the new credentials: every connection is then made with the
new certificate, and since every controller is level-based the new session simply picks up where
the old one was.

Starting does not wait for the hub: the informers list (and retry with backoff while the hub is
away), and the controllers and the heartbeat start once they have listed, so an agent started
while the hub is down comes up by itself when it returns.
"""

from __future__ import annotations

import asyncio
import contextlib

import structlog

from flotilla.agent.clusterstatus import ClusterStatusController
from flotilla.agent.lease import LeaseRenewer
from flotilla.agent.tunnel import TunnelClient
from flotilla.api.karmada import constants
from flotilla.api.karmada.constants import ClusterSyncMode
from flotilla.api.karmada.names import execution_namespace
from flotilla.api.scheme import GroupVersionKind
from flotilla.client import Client, ClusterConfig
from flotilla.controllers.execution.controller import ExecutionController
from flotilla.controllers.status.workstatus import WorkStatusController
from flotilla.runtime.clock import Clock
from flotilla.runtime.hubcontroller import ControllerContext, HubController, ManagerSettings
from flotilla.runtime.informers import InformerScope, SharedInformers
from flotilla.runtime.members import LocalMemberClient

log = structlog.get_logger("flotilla.agent")

FIELD_MANAGER = "flotilla-agent"
WATCH_TIMEOUT = 60
"""Seconds a hub watch stays open: short, so a silently dropped connection is noticed soon."""
INTERPRETER_SYNC_SECONDS = 10.0
"""How long the controllers wait for the hub's customizations and interpreter webhooks before they
start with what has arrived (the built-in rules if the agent may not read them)."""


def agent_scopes(cluster_name: str) -> dict[GroupVersionKind, InformerScope]:
    """What the agent's informers may see of the hub: its Works and its own Cluster."""
    return {
        constants.WORK: InformerScope(namespace=execution_namespace(cluster_name)),
        constants.CLUSTER: InformerScope(field_selector=f"metadata.name={cluster_name}"),
    }


class AgentSession:
    def __init__(
        self,
        hub_config: ClusterConfig,
        member: LocalMemberClient,
        settings: ManagerSettings,
        clock: Clock,
        *,
        lease_seconds: float,
    ) -> None:
        cluster_name = member.cluster_name
        self.hub = Client(
            hub_config, field_manager=FIELD_MANAGER, user_agent=f"flotilla-agent/{cluster_name}"
        )
        informers = SharedInformers(self.hub, watch_timeout=WATCH_TIMEOUT, scopes=agent_scopes(cluster_name))
        # The hub's customizations and interpreter webhooks, for Retain, status and health as the
        # hub's controllers interpret them; apart from `informers` so they never hold the agent up.
        self.interpreter_informers = SharedInformers(self.hub, watch_timeout=WATCH_TIMEOUT)
        self.ctx = ControllerContext(
            self.hub,
            informers,
            member,
            settings,
            clock,
            sync_mode=ClusterSyncMode.PULL,
            interpreter_informers=self.interpreter_informers,
        )
        self.controllers: list[HubController] = [
            ExecutionController(self.ctx),
            WorkStatusController(self.ctx),
            ClusterStatusController(self.ctx),
        ]
        clusters = informers.get(constants.CLUSTER)
        self.lease = LeaseRenewer(
            self.hub,
            cluster_name,
            lambda: clusters.get(cluster_name),
            clock,
            interval=lease_seconds,
        )
        self.tunnel = TunnelClient(cluster_name, hub_config, member.client.config)
        self._cluster_name = cluster_name
        self._starting: asyncio.Task[None] | None = None
        self.running = False

    def start(self) -> None:
        for controller in self.controllers:
            controller.setup()
        self.ctx.informers.start()
        self.interpreter_informers.start()
        self._starting = asyncio.create_task(self._start_when_synced(), name="agent-session-start")

    async def _start_when_synced(self) -> None:
        await self.ctx.informers.wait_synced()
        try:
            await self.interpreter_informers.wait_synced(INTERPRETER_SYNC_SECONDS)
        except TimeoutError:
            log.warning(
                "agent.interpreter_configuration_unavailable",
                cluster=self._cluster_name,
                hint="the built-in interpreter answers until the hub's customizations can be read",
            )
        for controller in self.controllers:
            controller.start()
        self.lease.start()
        self.tunnel.start()
        self.running = True
        log.info("agent.session_started", cluster=self._cluster_name, hub=self.hub.server)

    async def stop(self) -> None:
        if self._starting is not None:
            self._starting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._starting
            self._starting = None
        self.running = False
        await self.tunnel.stop()
        await self.lease.stop()
        await asyncio.gather(*(c.stop() for c in self.controllers), return_exceptions=True)
        await self.ctx.informers.stop()
        await self.interpreter_informers.stop()
        await self.hub.close()
