"""`flotilla controller-manager`: the hub's controllers in one process, a client of the hub API.

It builds one hub client and serves `/healthz`, `/readyz` and `/metrics` on a small HTTP endpoint
at once. With leader election (the default) it then waits to hold the Lease
`kube-system/flotilla-controller-manager` (`leaderelection.py`); a standby starts neither informers
nor controllers — it only reads the Lease every retry period, costing the hub nothing else — and
its `/readyz` says it is not the leader. Once it leads it builds the shared informers and member
clients, starts the enabled controllers (`--controllers=*,-name` as in
karmada-controller-manager), waits for the informers' first lists and turns ready.

Losing the Lease (no renewal within the renew deadline) stops the controllers and ends the process
with a non-zero exit code (`done` is set, `exit_code` is 1), as kube-controller-manager does: the
supervisor restarts it as a fresh standby, with empty caches. A clean stop releases the Lease.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import structlog
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, Metric

from flotilla.client import Client, load_kubeconfig
from flotilla.runtime.clock import SystemClock
from flotilla.runtime.controller import RESULT_ERROR, RESULT_REQUEUE, RESULT_SUCCESS
from flotilla.runtime.health import FamiliesCollector, HealthEndpoint, component_registry
from flotilla.runtime.hubcontroller import ControllerContext, HubController, ManagerSettings
from flotilla.runtime.informers import SharedInformers
from flotilla.runtime.leaderelection import LeaderElectionConfig, LeaderElector
from flotilla.runtime.members import MemberClients

log = structlog.get_logger("flotilla.controllers")

FIELD_MANAGER = "flotilla-controller-manager"
RELEASE_TIMEOUT = 5.0
"""Seconds a stopping leader spends trying to release the Lease before it gives up."""

ControllerFactory = Callable[[ControllerContext], HubController]


def select_controllers(spec: str, available: Iterable[str], default_off: Iterable[str] = ()) -> list[str]:
    """Names enabled by `--controllers`: `*` = every default, `name` enables, `-name` disables."""
    names = list(available)
    off = set(default_off)
    chosen: list[str] = []
    items = [s.strip() for s in spec.split(",") if s.strip()] or ["*"]
    unknown = [i.lstrip("-") for i in items if i not in ("*",) and i.lstrip("-") not in names]
    if unknown:
        raise ValueError(f"unknown controller(s): {', '.join(unknown)}; known: {', '.join(names)}")
    for name in names:
        if f"-{name}" in items:
            continue
        if name in items or ("*" in items and name not in off):
            chosen.append(name)
    return chosen


class ControllerManager:
    def __init__(
        self,
        kubeconfig: Path | None,
        factories: dict[str, ControllerFactory],
        *,
        controllers: str = "*",
        context: str | None = None,
        hub_endpoints: Sequence[str] = (),
        health_address: tuple[str, int] = ("127.0.0.1", 10357),
        settings: ManagerSettings | None = None,
        default_off: Iterable[str] = (),
        leader_election: LeaderElectionConfig | None = None,
    ) -> None:
        """`leader_election` None runs the controllers at once, without a Lease; `hub_endpoints` are
        API servers of the hub beyond the kubeconfig's, for its clients to fail over to."""
        self._kubeconfig = kubeconfig
        self._context_name = context
        self._hub_endpoints = tuple(hub_endpoints)
        self._factories = factories
        self._enabled = select_controllers(controllers, factories, default_off)
        self._health_address = health_address
        self._settings = settings or ManagerSettings()
        self._leader_election = leader_election
        self.controllers: list[HubController] = []
        self.ctx: ControllerContext | None = None
        self._hub: Client | None = None
        self._elector: LeaderElector | None = None
        self._election_client: Client | None = None
        self._leading: asyncio.Task[None] | None = None
        self._health: HealthEndpoint | None = None
        self.registry = component_registry(FamiliesCollector(self._metric_families))
        """What `/metrics` reports: the controllers' metrics, read at scrape time, and the process's."""
        self.health_url = ""
        self._ready = False
        self.done = asyncio.Event()
        """Set when the manager ended by itself (leadership lost); `exit_code` says how."""
        self.exit_code = 0

    async def start(self) -> None:
        config = load_kubeconfig(self._kubeconfig, self._context_name).with_endpoints(self._hub_endpoints)
        self._hub = Client(config, field_manager=FIELD_MANAGER, user_agent="flotilla-controller-manager")
        await self._start_health()
        if self._leader_election is None:
            await self._start_controllers(self._hub)
        else:
            # Its own client, as kube-controller-manager's leader-election client: renewals must not
            # queue behind the controllers' requests for a connection of the shared pool (a busy
            # scheduler keeps every one of them in use, and a starved renewal loses the Lease).
            self._election_client = Client(
                config, field_manager=FIELD_MANAGER, user_agent="flotilla-controller-manager/leader-election"
            )
            self._elector = LeaderElector(self._election_client, self._leader_election)
            self._leading = asyncio.create_task(self._lead(self._elector, self._hub), name="leader-election")
        log.info(
            "controller_manager.started",
            controllers=self._enabled,
            hub=config.server,
            hub_endpoints=config.endpoints,
            leader_election=self._leader_election is not None,
            identity=self._leader_election.identity if self._leader_election is not None else None,
        )

    async def stop(self) -> None:
        self._ready = False
        if self._leading is not None:
            self._leading.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._leading
            self._leading = None
        await self._stop_controllers()
        if self._elector is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(RELEASE_TIMEOUT):
                    await self._elector.release()
        if self._hub is not None:
            await self._hub.close()
            self._hub = None
        if self._election_client is not None:
            await self._election_client.close()
            self._election_client = None
        if self._health is not None:
            await self._health.stop()
            self._health = None
        log.info("controller_manager.stopped")

    async def _lead(self, elector: LeaderElector, hub: Client) -> None:
        """Wait for the Lease, run the controllers while it is held, end the process when it is lost."""
        try:
            await elector.acquire()
            await self._start_controllers(hub)
            await elector.hold()
        except Exception:
            log.exception("controller_manager.failed")
        self._ready = False
        await self._stop_controllers()
        self.exit_code = 1
        self.done.set()

    async def _start_controllers(self, hub: Client) -> None:
        informers = SharedInformers(hub)
        members = MemberClients(
            informers, field_manager=FIELD_MANAGER, timeout=self._settings.member_timeout, hub=hub.config
        )
        self.ctx = ControllerContext(hub, informers, members, self._settings, SystemClock())
        self.controllers = [self._factories[name](self.ctx) for name in self._enabled]
        for controller in self.controllers:
            controller.setup()
        informers.start()
        await informers.wait_synced()
        for controller in self.controllers:
            controller.start()
        self._ready = True
        log.info("controller_manager.controllers_started", controllers=self._enabled)

    async def _stop_controllers(self) -> None:
        controllers, self.controllers = self.controllers, []
        await asyncio.gather(*(c.stop() for c in controllers), return_exceptions=True)
        ctx, self.ctx = self.ctx, None
        if ctx is not None:
            await ctx.member_informers.stop()
            await ctx.informers.stop()
            await ctx.members.close()

    async def _start_health(self) -> None:
        self._health = HealthEndpoint(self._health_address, self._readiness, self.registry)
        await self._health.start()
        self.health_url = self._health.url

    @property
    def is_leader(self) -> bool:
        """Whether this manager runs the controllers (always, without leader election)."""
        return self._elector.is_leader if self._elector is not None else self._hub is not None

    def _readiness(self) -> str:
        if self._elector is not None and not self._elector.is_leader:
            config = self._elector.config
            holder = self._elector.holder or "nobody yet"
            return f"not the leader (Lease {config.namespace}/{config.name} is held by {holder})"
        ok = self._ready and self.ctx is not None and self.ctx.informers.synced
        return "" if ok else "informers not synced"

    def _metric_families(self) -> list[Metric]:
        own = [family for controller in self.controllers for family in controller.metric_families()]
        return [*controller_metrics(self.controllers, is_leader=self.is_leader), *own]


def controller_metrics(controllers: Iterable[HubController], *, is_leader: bool) -> list[Metric]:
    """The manager's metric families: reconciles, work queues, leadership."""
    running = list(controllers)
    reconciles = CounterMetricFamily(
        "flotilla_reconcile_total",
        "Reconciles per controller by result (success, requeue, error).",
        labels=["controller", "result"],
    )
    depth = GaugeMetricFamily(
        "flotilla_workqueue_depth", "Keys waiting in each controller's work queue.", labels=["controller"]
    )
    adds = CounterMetricFamily(
        "flotilla_workqueue_adds_total", "Keys added to each controller's work queue.", labels=["controller"]
    )
    for c in running:
        for result in (RESULT_SUCCESS, RESULT_REQUEUE, RESULT_ERROR):
            reconciles.add_metric([c.NAME, result], c.loop.stats.results[result])
        depth.add_metric([c.NAME], len(c.loop.queue))
        adds.add_metric([c.NAME], c.loop.queue.adds)
    leader = GaugeMetricFamily(
        "flotilla_leader_is_leader",
        "1 when this controller manager holds the leader Lease and runs the controllers, else 0.",
        value=1 if is_leader else 0,
    )
    durations = [family for c in running for family in c.loop.stats.duration_families()]
    return [reconciles, *durations, depth, adds, leader]
