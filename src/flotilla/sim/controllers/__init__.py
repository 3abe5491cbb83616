"""The simulated kube-controller-manager: the workload controllers of one simulated cluster.

Each controller reconciles one kind through the cluster's in-process client, the way its
namesake in kube-controller-manager 1.32 does: Deployments → ReplicaSets → Pods, StatefulSets,
DaemonSets, Jobs and CronJobs, the endpoints of Services, the `default` ServiceAccount and root CA
ConfigMap of every namespace, the status of ResourceQuotas, and HorizontalPodAutoscalers (on the
usage the cluster's metrics computation gives them). They only read what the simulated
kubelet reports about pods; they never fake a pod's state. `WorkloadControllers` starts and stops
them together.

One room per workload kind — `deployments/`, `replicasets/`, `statefulsets/`, `daemonsets/`, `jobs/`
(Jobs and CronJobs), `horizontalpodautoscaler/` — beside `endpoints.py` and `serviceaccounts.py`;
the kinds never import each other. What they share sits below them: `podowners/` (kube's rules
for objects that own pods: ownership, pod states, templates, revisions, conditions) over
`framework/` (how a controller runs: queue and watches, events, slow start, the kinds named once).
"""

from __future__ import annotations

from flotilla.apiserver.localclient import LocalClient
from flotilla.runtime.clock import Clock
from flotilla.sim.controllers.daemonsets.daemonset import DaemonSetController
from flotilla.sim.controllers.deployments.deployment import DeploymentController
from flotilla.sim.controllers.endpoints import EndpointsController
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.horizontalpodautoscaler import (
    HorizontalPodAutoscalerController,
    PodMetricsSource,
)
from flotilla.sim.controllers.jobs.cronjob import CronJobController
from flotilla.sim.controllers.jobs.job import JobController
from flotilla.sim.controllers.replicasets.replicaset import ReplicaSetController
from flotilla.sim.controllers.resourcequotas import ResourceQuotaController
from flotilla.sim.controllers.serviceaccounts import ServiceAccountsController
from flotilla.sim.controllers.statefulsets.statefulset import StatefulSetController
from flotilla.sim.spec import ClusterSpec


class WorkloadControllers:
    def __init__(
        self,
        client: LocalClient,
        spec: ClusterSpec,
        clock: Clock,
        *,
        root_ca_pem: str = "",
        pod_metrics: PodMetricsSource | None = None,
    ) -> None:
        self.controllers: list[SimController] = [
            ServiceAccountsController(client, spec, clock, root_ca_pem=root_ca_pem),
            DeploymentController(client, spec, clock),
            ReplicaSetController(client, spec, clock),
            StatefulSetController(client, spec, clock),
            DaemonSetController(client, spec, clock),
            JobController(client, spec, clock),
            CronJobController(client, spec, clock),
            EndpointsController(client, spec, clock),
            ResourceQuotaController(client, spec, clock),
        ]
        if pod_metrics is not None:  # the HPA reads usage from the cluster's metrics computation
            self.controllers.append(HorizontalPodAutoscalerController(client, spec, clock, pod_metrics))

    async def start(self) -> None:
        for controller in self.controllers:
            await controller.start()

    async def stop(self) -> None:
        for controller in reversed(self.controllers):
            await controller.stop()


__all__ = [
    "CronJobController",
    "DaemonSetController",
    "DeploymentController",
    "EndpointsController",
    "HorizontalPodAutoscalerController",
    "JobController",
    "ReplicaSetController",
    "ResourceQuotaController",
    "ServiceAccountsController",
    "StatefulSetController",
    "WorkloadControllers",
]
