"""The API server's `/metrics`: kube-apiserver's metric names, through `prometheus_client`.

Dashboards and alerts written for kube-apiserver read these names and labels, so they are kube's
(`k8s.io/apiserver/pkg/endpoints/metrics`, `pkg/storage/etcd3/metrics`, flow control):

- `apiserver_request_total{verb,dry_run,group,version,resource,subresource,scope,component,code}`
  and `apiserver_request_duration_seconds` (kube's buckets), for every answered request, the 401s,
  403s and 429s of the filters included (`requestlabels.py` maps a request to its labels);
- `apiserver_longrunning_requests{verb,group,version,resource,subresource,scope,component}`: watches
  and other streams now open (kube's current name for what `apiserver_registered_watchers` was);
- `apiserver_watch_events_total{group,version,kind}`: events written to watch streams;
- `apiserver_current_inflight_requests{request_kind}`: seats held now in the readOnly and mutating
  limits (kube reports the last second's maximum; this is the value at scrape time);
- `apiserver_storage_objects{resource}`: objects stored per resource, counted in the watch cache;
- `etcd_request_duration_seconds{operation,type}`: storage latency on any backend
  (`store/timedbackend.py`);
- `apiserver_flowcontrol_*`: flow control, where ours has kube's concept (`flowcontrol.py`);
- `process_*` and `python_*` from prometheus_client's collectors.

Each server instance has its own registry (the simulator runs many in one process). The request
path pays two dict lookups, a counter increment and a histogram observation: label children are
kept by label values. Like every other path, `/metrics` goes through authentication, the in-flight
limits and authorization: the `system:monitoring` ClusterRole (and `system:masters`) may read it.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from aiohttp import web
from aiohttp.typedefs import Handler
from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.metrics_core import GaugeMetricFamily, Metric

from flotilla.apiserver.context import CONTEXT, APIContext
from flotilla.apiserver.http.limits import LIMITS, RequestLimits, is_long_running
from flotilla.apiserver.http.requestlabels import COMPONENT, RequestLabels, bounded, request_labels
from flotilla.apiserver.registry.resources import ServedResource
from flotilla.apiserver.requestinfo import request_info
from flotilla.apiserver.store.timedbackend import StorageLatency, TimedBackend, storage_latency_histogram
from flotilla.runtime.health import FamiliesCollector, component_registry, exposition

METRICS_PATH = "/metrics"
REQUEST_BUCKETS = (
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
)  # fmt: skip
"""kube's buckets for `apiserver_request_duration_seconds`."""
REQUEST_LABELS = ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"]
LONG_RUNNING_LABELS = ["verb", "group", "version", "resource", "subresource", "scope", "component"]

Count = Callable[[float], None]


class APIServerMetrics:
    """One API server's metrics and the registry `/metrics` renders."""

    def __init__(self, ctx: APIContext, limits: RequestLimits | None) -> None:
        self._ctx = ctx
        self._limits = limits
        self.requests = Counter(
            "apiserver_request",
            "Counter of apiserver requests broken out for each verb, dry run value, group, version, "
            "resource, scope, component, and HTTP response code.",
            [*REQUEST_LABELS, "code"],
            registry=None,
        )
        self.durations = Histogram(
            "apiserver_request_duration_seconds",
            "Response latency distribution in seconds for each verb, dry run value, group, version, "
            "resource, subresource, scope and component.",
            REQUEST_LABELS,
            buckets=REQUEST_BUCKETS,
            registry=None,
        )
        self.long_running = Gauge(
            "apiserver_longrunning_requests",
            "Gauge of all active long-running apiserver requests broken out by verb, group, version, "
            "resource, scope and component.",
            LONG_RUNNING_LABELS,
            registry=None,
        )
        self.watch_events = Counter(
            "apiserver_watch_events",
            "Number of events sent in watch clients.",
            ["group", "version", "kind"],
            registry=None,
        )
        self.storage = StorageLatency(storage_latency_histogram())
        self.registry = component_registry(
            self.requests,
            self.durations,
            self.long_running,
            self.watch_events,
            self.storage.histogram,
            FamiliesCollector(self._state_families),
        )
        self._answered: dict[tuple[RequestLabels, int], tuple[Count, Count]] = {}
        self._watch_counts: dict[tuple[str, str, str], Count] = {}

    # -- requests --------------------------------------------------------------------------------

    def record(self, labels: RequestLabels, code: int, seconds: float) -> None:
        """Count one answered request and observe how long it took."""
        if code >= 400:
            labels = bounded(labels, self._served)
        children = self._answered.get((labels, code))
        if children is None:
            children = self._answered[(labels, code)] = (
                self.requests.labels(*labels, COMPONENT, str(code)).inc,
                self.durations.labels(*labels, COMPONENT).observe,
            )
        count, observe = children
        count(1)
        observe(seconds)

    def long_running_gauge(self, labels: RequestLabels) -> Gauge:
        verb, _, group, version, resource, subresource, scope = labels
        return self.long_running.labels(verb, group, version, resource, subresource, scope, COMPONENT)

    def watch_event_counter(self, served: ServedResource) -> Count:
        """What a watch stream calls with the number of events it wrote."""
        t = served.type
        key = (t.group, t.version, t.kind)
        count = self._watch_counts.get(key)
        if count is None:
            count = self._watch_counts[key] = self.watch_events.labels(*key).inc
        return count

    def _served(self, group: str, version: str, resource: str, subresource: str) -> bool:
        served = self._ctx.registry.lookup(group, version, resource)
        if served is None or not subresource:
            return served is not None
        t = served.type
        return (
            t.subresource(subresource) is not None
            or (t.group, t.plural, subresource) in self._ctx.subresource_handlers
        )

    # -- state read at scrape time ---------------------------------------------------------------

    def _state_families(self) -> list[Metric]:
        families = [self._storage_objects()]
        limits = self._limits
        if limits is not None:
            inflight = GaugeMetricFamily(
                "apiserver_current_inflight_requests",
                "Number of currently used inflight request limit of this apiserver per request kind.",
                labels=["request_kind"],
            )
            inflight.add_metric(["readOnly"], limits.read_only_inflight)
            inflight.add_metric(["mutating"], limits.mutating_inflight)
            families += [inflight, *limits.metric_families()]
        return families

    def _storage_objects(self) -> Metric:
        objects = GaugeMetricFamily(
            "apiserver_storage_objects",
            "Number of stored objects at the time of last check split by kind.",
            labels=["resource"],
        )
        seen: set[str] = set()
        for served in self._ctx.registry.all():
            prefix = served.storage_prefix
            if prefix in seen:
                continue
            seen.add(prefix)
            storage = served.storage
            label = f"{storage.resource}.{storage.group}" if storage.group else storage.resource
            objects.add_metric([label], self._ctx.cache.count(prefix))
        return objects

    # -- HTTP ------------------------------------------------------------------------------------

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Outermost: every answer is counted, those of authentication and the limits too."""
        started = time.perf_counter()
        info = request_info(request)
        method = request.method
        labels = request_labels(
            method,
            info,
            request.query,
            request.headers.get("Content-Type", "") if method == "PATCH" else "",
            _route(request) if info is None else "",
        )
        if info is not None and is_long_running(info.verb, info.subresource):
            gauge = self.long_running_gauge(labels)
            gauge.inc()
            try:
                response = await handler(request)
            finally:
                gauge.dec()
        else:
            response = await handler(request)
        self.record(labels, response.status, time.perf_counter() - started)
        return response

    async def serve(self, request: web.Request) -> web.Response:
        return exposition(self.registry)


def _route(request: web.Request) -> str:
    """The pattern of the route a non-resource request matched ("" when none did)."""
    resource = request.match_info.route.resource
    return resource.canonical if resource is not None else ""


API_METRICS: web.AppKey[APIServerMetrics] = web.AppKey("flotilla.apiserver.http.metrics", APIServerMetrics)


def install_metrics(app: web.Application) -> APIServerMetrics:
    """Add `/metrics`, the request counting and storage timing to an API server application (before
    it starts)."""
    ctx = app[CONTEXT]
    metrics = APIServerMetrics(ctx, app.get(LIMITS))
    ctx.store.backend = TimedBackend(ctx.store.backend, metrics.storage)
    app[API_METRICS] = metrics
    app.middlewares.insert(0, metrics.middleware)
    app.router.add_get(METRICS_PATH, metrics.serve)
    return metrics


def watch_event_counter(request: web.Request, served: ServedResource) -> Count | None:
    """The counter of `apiserver_watch_events_total` a watch on `served` adds to (None without metrics)."""
    metrics = request.app.get(API_METRICS)
    return metrics.watch_event_counter(served) if metrics is not None else None
