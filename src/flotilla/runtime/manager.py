"""`flotilla controller-manager`: the hub's controllers in one process, a client of the hub API.

It builds one hub client, shared informers and member clients, starts the enabled controllers
(`--controllers=*,-name` as in karmada-controller-manager), waits for the informers' first lists,
then serves `/healthz`, `/readyz` and `/metrics` on a small HTTP endpoint until SIGTERM.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from pathlib import Path

import structlog

from flotilla.client import Client, load_kubeconfig
from flotilla.runtime.clock import SystemClock
from flotilla.runtime.health import HealthEndpoint
from flotilla.runtime.hubcontroller import ControllerContext, HubController, ManagerSettings
from flotilla.runtime.informers import SharedInformers
from flotilla.runtime.members import MemberClients

log = structlog.get_logger("flotilla.controllers")

FIELD_MANAGER = "flotilla-controller-manager"

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
        health_address: tuple[str, int] = ("127.0.0.1", 10357),
        settings: ManagerSettings | None = None,
        default_off: Iterable[str] = (),
    ) -> None:
        self._kubeconfig = kubeconfig
        self._context_name = context
        self._factories = factories
        self._enabled = select_controllers(controllers, factories, default_off)
        self._health_address = health_address
        self._settings = settings or ManagerSettings()
        self.controllers: list[HubController] = []
        self.ctx: ControllerContext | None = None
        self._health: HealthEndpoint | None = None
        self.health_url = ""
        self._ready = False

    async def start(self) -> None:
        config = load_kubeconfig(self._kubeconfig, self._context_name)
        hub = Client(config, field_manager=FIELD_MANAGER, user_agent="flotilla-controller-manager")
        informers = SharedInformers(hub)
        members = MemberClients(informers, field_manager=FIELD_MANAGER, timeout=self._settings.member_timeout)
        self.ctx = ControllerContext(hub, informers, members, self._settings, SystemClock())
        await self._start_health()
        self.controllers = [self._factories[name](self.ctx) for name in self._enabled]
        for controller in self.controllers:
            controller.setup()
        informers.start()
        await informers.wait_synced()
        for controller in self.controllers:
            controller.start()
        self._ready = True
        log.info("controller_manager.started", controllers=self._enabled, hub=config.server)

    async def stop(self) -> None:
        self._ready = False
        await asyncio.gather(*(c.stop() for c in self.controllers), return_exceptions=True)
        if self.ctx is not None:
            await self.ctx.informers.stop()
            await self.ctx.members.close()
            await self.ctx.hub.close()
        if self._health is not None:
            await self._health.stop()
            self._health = None
        log.info("controller_manager.stopped")

    async def _start_health(self) -> None:
        self._health = HealthEndpoint(self._health_address, self._readiness, self._metrics)
        await self._health.start()
        self.health_url = self._health.url

    def _readiness(self) -> str:
        ok = self._ready and self.ctx is not None and self.ctx.informers.synced
        return "" if ok else "informers not synced"

    def _metrics(self) -> list[str]:
        return [
            f'flotilla_workqueue_depth{{controller="{controller.NAME}"}} {len(controller.loop.queue)}'
            for controller in self.controllers
        ]
