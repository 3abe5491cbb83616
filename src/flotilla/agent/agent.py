"""`flotilla agent`: the Pull-mode agent of one member cluster, as a long-running component.

Start-up checks what it can before anything runs, so a misconfigured agent stops with a message
instead of retrying forever: the data directory holds hub credentials (`flotilla register` wrote
them), the certificate is an agent certificate, the cluster it names agrees with `--cluster-name`
and `agent.json`, and the member's kubeconfig loads. Then it serves `/healthz`, `/readyz` and
`/metrics`, and runs hub sessions (`session.py`) one after the other:

    session with the current certificate ── renewal due ──▶ CSR ──▶ new hub.kubeconfig
        ▲                                                                   │
        └──────────────── a new session with the new certificate ◀──────────┘

Renewal is due at 80% of the certificate's lifetime, or `--renew-before` seconds before it expires.
A `--renew-before` longer than a certificate's whole lifetime would renew forever; a certificate
the agent has just obtained is then renewed at 80% of its lifetime, with a warning. A failed
renewal is retried with backoff while the session keeps running on the old certificate.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import structlog
from prometheus_client.metrics_core import GaugeMetricFamily, Metric

from flotilla.agent.certificates import (
    CertificateLifetime,
    certificate_cluster,
    certificate_lifetime,
    default_renewal_time,
    load_certificate,
    renewal_time,
    resolve_cluster_name,
    with_client_credentials,
)
from flotilla.agent.datadir import AgentConfigError, DataDir
from flotilla.agent.renewal import RenewalFailed, request_certificate
from flotilla.agent.session import FIELD_MANAGER, AgentSession
from flotilla.client import Client, ClientError, ClusterConfig, load_kubeconfig
from flotilla.client.interfaces import ReadWriter
from flotilla.runtime.clock import Clock, SystemClock
from flotilla.runtime.health import FamiliesCollector, HealthEndpoint, component_registry
from flotilla.runtime.hubcontroller import ManagerSettings
from flotilla.runtime.members import LocalMemberClient

log = structlog.get_logger("flotilla.agent")

MAX_RENEWAL_BACKOFF = 60.0


@dataclass(frozen=True, slots=True)
class AgentSettings:
    data_dir: Path
    """Where `flotilla register` left `hub.kubeconfig` and `agent.json`."""
    member_kubeconfig: Path | None = None
    """The member's kubeconfig (None: `$KUBECONFIG` or ~/.kube/config)."""
    member_context: str | None = None
    cluster_name: str = ""
    """The cluster this agent runs for; "" takes it from the certificate."""
    lease_seconds: float = 10.0
    """Seconds between renewals of the agent's Lease."""
    renew_before: float | None = None
    """Renew the certificate this many seconds before it expires (None: at 80% of its lifetime)."""
    health_address: tuple[str, int] = ("127.0.0.1", 0)
    hub_endpoints: tuple[str, ...] = ()
    """API servers of the hub beyond hub.kubeconfig's, to fail over to (same CA, same certificate)."""
    controllers: ManagerSettings = field(default_factory=ManagerSettings)
    """Status interval, thresholds and workers of the controllers the agent runs."""


class Agent:
    def __init__(self, settings: AgentSettings, clock: Clock | None = None) -> None:
        self._settings = settings
        self._clock = clock or SystemClock()
        self._data_dir = DataDir(settings.data_dir)
        self._member: LocalMemberClient | None = None
        self._session: AgentSession | None = None
        self._health: HealthEndpoint | None = None
        self.registry = component_registry(FamiliesCollector(self._metric_families))
        """What `/metrics` reports: work queues, the Lease and the certificate, and the process."""
        self._task: asyncio.Task[None] | None = None
        self._not_after: datetime | None = None
        self.cluster_name = ""
        self.hub_server = ""
        self.health_url = ""

    async def start(self) -> None:
        hub_config = self._load_hub_config()
        certificate = load_certificate(hub_config.client_cert_pem or b"")
        registration = self._data_dir.registration()
        self.cluster_name = resolve_cluster_name(
            self._settings.cluster_name, registration.cluster_name, certificate_cluster(certificate)
        )
        self.hub_server = hub_config.server
        member_config = load_kubeconfig(self._settings.member_kubeconfig, self._settings.member_context)
        member = Client(
            member_config,
            field_manager=FIELD_MANAGER,
            timeout=self._settings.controllers.member_timeout,
            user_agent=f"flotilla-agent/{self.cluster_name}",
        )
        self._member = LocalMemberClient(self.cluster_name, member)
        self._health = HealthEndpoint(self._settings.health_address, self._readiness, self.registry)
        await self._health.start()
        self.health_url = self._health.url
        self._task = asyncio.create_task(self._run(hub_config), name="agent")
        log.info("agent.started", cluster=self.cluster_name, hub=self.hub_server, member=member_config.server)

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        if self._session is not None:
            await self._session.stop()
            self._session = None
        if self._member is not None:
            await self._member.close()
            self._member = None
        if self._health is not None:
            await self._health.stop()
            self._health = None
        log.info("agent.stopped", cluster=self.cluster_name)

    def _load_hub_config(self) -> ClusterConfig:
        self._data_dir.check()
        config = load_kubeconfig(self._data_dir.hub_kubeconfig).with_endpoints(self._settings.hub_endpoints)
        if not config.client_cert_pem or not config.client_key_pem:
            raise AgentConfigError(
                f"{self._data_dir.hub_kubeconfig} holds no client certificate and key for the agent"
            )
        return config

    # -- sessions and certificate renewal -----------------------------------------------------------

    async def _run(self, hub_config: ClusterConfig) -> None:
        assert self._member is not None
        renewed = False
        while True:
            session = AgentSession(
                hub_config,
                self._member,
                self._settings.controllers,
                self._clock,
                lease_seconds=self._settings.lease_seconds,
            )
            self._session = session
            session.start()
            hub_config = await self._renew_when_due(session.hub, hub_config, renewed=renewed)
            renewed = True
            await session.stop()
            log.info("agent.hub_client_switched", cluster=self.cluster_name)

    async def _renew_when_due(
        self, hub: ReadWriter, config: ClusterConfig, *, renewed: bool
    ) -> ClusterConfig:
        """Wait until the certificate is due, renew it, and return the hub config with the new one."""
        lifetime = certificate_lifetime(load_certificate(config.client_cert_pem or b""))
        self._not_after = lifetime.not_after
        due = self._renewal_due(lifetime, renewed=renewed)
        log.info(
            "agent.certificate_renewal_scheduled",
            cluster=self.cluster_name,
            not_after=lifetime.not_after.isoformat(),
            renew_at=due.isoformat(),
        )
        await asyncio.sleep(max(0.0, (due - self._clock.now()).total_seconds()))
        backoff = 1.0
        while True:
            try:
                issued = await request_certificate(hub, self.cluster_name, lifetime)
                break
            except (ClientError, RenewalFailed) as exc:
                expired = self._clock.now() >= lifetime.not_after
                log.warning(
                    "agent.certificate_renewal_failed",
                    cluster=self.cluster_name,
                    error=str(exc),
                    retry_in=backoff,
                    expired=expired,
                    hint="the certificate has expired: register the cluster again" if expired else "",
                )
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_RENEWAL_BACKOFF)
        kubeconfig = self._data_dir.hub_kubeconfig.read_text()
        self._data_dir.replace_hub_kubeconfig(
            with_client_credentials(kubeconfig, issued.certificate_pem, issued.key_pem)
        )
        new_config = self._load_hub_config()
        new_lifetime = certificate_lifetime(load_certificate(issued.certificate_pem))
        self._not_after = new_lifetime.not_after
        log.info(
            "agent.certificate_renewed",
            cluster=self.cluster_name,
            request=issued.request_name,
            not_after=new_lifetime.not_after.isoformat(),
        )
        return new_config

    def _renewal_due(self, lifetime: CertificateLifetime, *, renewed: bool) -> datetime:
        due = renewal_time(lifetime, self._settings.renew_before)
        if renewed and due <= self._clock.now():
            log.warning(
                "agent.renew_before_exceeds_lifetime",
                cluster=self.cluster_name,
                renew_before=self._settings.renew_before,
                lifetime_seconds=lifetime.total.total_seconds(),
            )
            return default_renewal_time(lifetime)
        return due

    # -- health ------------------------------------------------------------------------------------

    def _readiness(self) -> str:
        session = self._session
        if session is None or not session.running:
            return "hub informers not synced"
        if not session.ctx.informers.synced:
            return "hub informers not synced"
        return ""

    def _metric_families(self) -> list[Metric]:
        families: list[Metric] = []
        session = self._session
        if session is not None:
            depth = GaugeMetricFamily(
                "flotilla_workqueue_depth",
                "Keys waiting in each controller's work queue.",
                labels=["controller"],
            )
            for c in session.controllers:
                depth.add_metric([c.NAME], len(c.loop.queue))
            families.append(depth)
            if session.lease.renewed_at is not None:
                families.append(
                    GaugeMetricFamily(
                        "flotilla_agent_lease_renew_timestamp_seconds",
                        "When the agent last renewed its cluster's Lease on the hub (Unix seconds).",
                        value=session.lease.renewed_at.timestamp(),
                    )
                )
        if self._not_after is not None:
            families.append(
                GaugeMetricFamily(
                    "flotilla_agent_certificate_expiry_timestamp_seconds",
                    "When the agent's hub client certificate expires (Unix seconds).",
                    value=self._not_after.timestamp(),
                )
            )
        return families
