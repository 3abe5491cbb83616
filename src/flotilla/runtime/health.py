"""The small HTTP endpoint every long-running client component serves: health, readiness, metrics.

The controller manager and the agent are clients of the hub, not servers, but a supervisor (a
kubelet's probes, Prometheus) still needs to ask them how they are. `/healthz` and `/livez` answer
"ok" while the process runs; `/readyz` asks the component (its informers have listed); `/metrics`
is the component's `CollectorRegistry` in Prometheus' text format, written by `prometheus_client`.
Port 0 picks a free port; `url` says which.

Each component builds its own registry (`component_registry`), never the library's global default:
several components share one process in tests and in the simulator, and each must report only its
own series. Besides a component's own metrics, a registry carries `prometheus_client`'s process and
Python collectors (`process_*`, `python_*`), as every Kubernetes component reports them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from aiohttp import web
from prometheus_client import (
    GC_COLLECTOR,
    PLATFORM_COLLECTOR,
    PROCESS_COLLECTOR,
    CollectorRegistry,
    disable_created_metrics,
    generate_latest,
)
from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

# Kubernetes components expose no `*_created` series, and dashboards built for them do not expect
# one per counter and histogram; the switch is the library's own and process-wide.
disable_created_metrics()  # type: ignore[no-untyped-call]  # the library leaves it unannotated

Readiness = Callable[[], str]
"""Why the component is not ready, or "" when it is."""

METRICS_CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4
"""Prometheus' text format 0.0.4, what kube components answer and every scraper reads."""

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Upper bounds (seconds) of a latency histogram: Prometheus' defaults, plus 30 s and 60 s."""


def component_registry(*collectors: Collector) -> CollectorRegistry:
    """A registry of one component: `collectors` plus the process and Python collectors."""
    registry = CollectorRegistry(auto_describe=False)
    for collector in (PROCESS_COLLECTOR, PLATFORM_COLLECTOR, GC_COLLECTOR, *collectors):
        registry.register(collector)
    return registry


class FamiliesCollector(Collector):
    """A collector whose families a function builds at scrape time: state a component already keeps
    (queue depths, leadership, the metrics of controllers that come and go) is read, not copied.
    Families of one name from several sources (one histogram per controller) are merged into one."""

    def __init__(self, families: Callable[[], Iterable[Metric]]) -> None:
        self._families = families

    def collect(self) -> Iterable[Metric]:
        return merged(self._families())


def merged(families: Iterable[Metric]) -> list[Metric]:
    """`families` with those of one name joined: the text format allows each name once."""
    by_name: dict[str, Metric] = {}
    for family in families:
        kept = by_name.get(family.name)
        if kept is None:
            kept = by_name[family.name] = Metric(family.name, family.documentation, family.type, family.unit)
        kept.samples.extend(family.samples)
    return list(by_name.values())


def exposition(registry: CollectorRegistry) -> web.Response:
    """The registry as a `/metrics` answer."""
    response = web.Response(body=generate_latest(registry))
    response.headers["Content-Type"] = METRICS_CONTENT_TYPE
    return response


class HealthEndpoint:
    def __init__(self, address: tuple[str, int], ready: Readiness, registry: CollectorRegistry) -> None:
        self._address = address
        self._ready = ready
        self._registry = registry
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
        return exposition(self._registry)
