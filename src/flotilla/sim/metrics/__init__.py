"""Simulated resource metrics: a metrics-server for each simulated cluster, driven by a load you set.

A real cluster's `kubectl top`, HPA and Karmada's FederatedHPA read `metrics.k8s.io`, which
metrics-server fills from the kubelets. A simulated cluster has no processes to measure, so usage
follows a load instead: a workload's total CPU and memory in that cluster, set with `flotilla sim
load` (kept by the sim, out of the hub's reach) or an annotation on the workload (`loads.py`),
divided among the workload's ready pods, nodes adding up their pods (`usage.py`, pure). The API
server of each cluster serves the two resources as computed ones (`metricsserver.py`, items shaped
by `objects.py`): nothing is stored, every answer is computed from the cache when asked.
"""

from __future__ import annotations

from flotilla.api.resourcemetrics import NODE_METRICS, POD_METRICS
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.runtime.clock import Clock
from flotilla.sim.metrics.loads import LoadBook
from flotilla.sim.metrics.metricsserver import MetricsServer

__all__ = ["LoadBook", "MetricsServer", "serve_metrics"]


def serve_metrics(embedded: EmbeddedAPI, loads: LoadBook, clock: Clock) -> MetricsServer:
    """Serve `metrics.k8s.io/v1beta1` pods and nodes on `embedded` from `loads`."""
    server = MetricsServer(embedded.client("metrics-server"), loads, clock)
    embedded.serve_computed_resource(POD_METRICS, server.serve_pods)
    embedded.serve_computed_resource(NODE_METRICS, server.serve_nodes)
    return server
