"""The small HTTP endpoint every long-running client component serves: health, readiness, metrics.

The controller manager and the agent are clients of the hub, not servers, but a supervisor (a
kubelet's probes, Prometheus) still needs to ask them how they are. `/healthz` and `/livez` answer
"ok" while the process runs; `/readyz` asks the component (its informers have listed); `/metrics`
renders the component's metrics in Prometheus' text format. Port 0 picks a free port; `url` says
which.

The metrics themselves are a few counters, gauges and histograms the component keeps; `render`
turns them into exposition lines (`# HELP`, `# TYPE`, then one sample a line), a pure function.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from aiohttp import web

Readiness = Callable[[], str]
"""Why the component is not ready, or "" when it is."""
Metrics = Callable[[], list[str]]
"""The component's metric lines, in Prometheus' text format."""

DEFAULT_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Upper bounds (seconds) of a latency histogram: Prometheus' defaults, plus 30 s and 60 s."""

Labels = Mapping[str, str]


@dataclass(slots=True)
class Histogram:
    """Observations counted into cumulative buckets, as a Prometheus histogram reports them."""

    bounds: Sequence[float] = DEFAULT_BUCKETS
    counts: list[int] = field(default_factory=list)
    """Observations per bucket (not cumulative); the last one is above every bound."""
    total: float = 0.0
    observations: int = 0

    def observe(self, value: float) -> None:
        if not self.counts:
            self.counts = [0] * (len(self.bounds) + 1)
        self.counts[bisect.bisect_left(self.bounds, value)] += 1
        self.total += value
        self.observations += 1


@dataclass(frozen=True, slots=True)
class MetricFamily:
    """One metric name with its help, type and samples."""

    name: str
    help: str
    type: str
    """`counter`, `gauge` or `histogram`."""
    samples: Sequence[tuple[Labels, float]] = ()
    """Counter and gauge samples: labels and value."""
    histograms: Sequence[tuple[Labels, Histogram]] = ()
    """Histogram samples: labels and the histogram."""


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _sample(name: str, labels: Labels, value: float) -> str:
    rendered = ",".join(f'{key}="{_escape(str(label))}"' for key, label in labels.items())
    number = repr(float(value)) if value != int(value) else str(int(value))
    return f"{name}{{{rendered}}} {number}" if rendered else f"{name} {number}"


def _bound(bound: float) -> str:
    return repr(float(bound)) if bound != int(bound) else f"{int(bound)}.0"


def render(families: Iterable[MetricFamily]) -> list[str]:
    """Prometheus text exposition lines of `families`."""
    lines: list[str] = []
    for family in families:
        lines.append(f"# HELP {family.name} {family.help}")
        lines.append(f"# TYPE {family.name} {family.type}")
        lines.extend(_sample(family.name, labels, value) for labels, value in family.samples)
        for labels, histogram in family.histograms:
            cumulative = 0
            counts = histogram.counts or [0] * (len(histogram.bounds) + 1)
            for bound, count in zip(histogram.bounds, counts, strict=False):
                cumulative += count
                lines.append(_sample(f"{family.name}_bucket", {**labels, "le": _bound(bound)}, cumulative))
            lines.append(_sample(f"{family.name}_bucket", {**labels, "le": "+Inf"}, histogram.observations))
            lines.append(_sample(f"{family.name}_sum", labels, histogram.total))
            lines.append(_sample(f"{family.name}_count", labels, histogram.observations))
    return lines


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
