"""The small HTTP endpoint every long-running client component serves: health, readiness, metrics.

The controller manager and the agent are clients of the hub, not servers, but a supervisor (a
kubelet's probes, Prometheus) still needs to ask them how they are. `/healthz` and `/livez` answer
"ok" while the process runs; `/readyz` asks the component (its informers have listed); `/metrics`
renders the component's gauges in Prometheus' text format. Port 0 picks a free port; `url` says
which.
"""

from __future__ import annotations

from collections.abc import Callable

from aiohttp import web

Readiness = Callable[[], str]
"""Why the component is not ready, or "" when it is."""
Metrics = Callable[[], list[str]]
"""The component's metric lines, in Prometheus' text format."""


class HealthEndpoint:
    def __init__(self, address: tuple[str, int], ready: Readiness, metrics: Metrics) -> None:
        self._address = address
        self._ready = ready
        self._metrics = metrics
        self._runner: web.AppRunner | None = None
        self.url = ""

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/healthz", self._healthz)
        app.router.add_get("/livez", self._healthz)
        app.router.add_get("/readyz", self._readyz)
        app.router.add_get("/metrics", self._metrics_text)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, *self._address)
        await site.start()
        sockets = getattr(site._server, "sockets", None) or []
        port = sockets[0].getsockname()[1] if sockets else self._address[1]
        self.url = f"http://{self._address[0]}:{port}"

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _healthz(self, request: web.Request) -> web.Response:
        return web.Response(text="ok")

    async def _readyz(self, request: web.Request) -> web.Response:
        problem = self._ready()
        return web.Response(text=problem or "ok", status=503 if problem else 200)

    async def _metrics_text(self, request: web.Request) -> web.Response:
        return web.Response(text="".join(f"{line}\n" for line in self._metrics()), content_type="text/plain")
