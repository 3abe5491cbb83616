"""The API server's `/metrics`: Prometheus text on the secure port, as kube-apiserver serves it.

Like every other path it goes through authentication, the in-flight limits and authorization: the
`system:monitoring` ClusterRole (and `system:masters`) may read it. What it reports today is flow
control — admitted, rejected and running requests by priority level and flow schema (see
`flowcontrol.py`) — rendered by the same exposition code the controller manager and the agent use.
"""

from __future__ import annotations

from aiohttp import web

from flotilla.apiserver.http.limits import LIMITS
from flotilla.runtime.health import MetricFamily, render

METRICS_PATH = "/metrics"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


async def serve_metrics(request: web.Request) -> web.Response:
    families: list[MetricFamily] = []
    limits = request.app.get(LIMITS)
    if limits is not None:
        families.extend(limits.metric_families())
    text = "".join(f"{line}\n" for line in render(families))
    response = web.Response(body=text.encode())
    response.headers["Content-Type"] = CONTENT_TYPE
    return response


def install_metrics(app: web.Application) -> None:
    """Add the `/metrics` route to an API server application (before it starts)."""
    app.router.add_get(METRICS_PATH, serve_metrics)
