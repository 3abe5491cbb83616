"""Every controller `flotilla controller-manager` can run, by the name `--controllers` uses.

Order matters only for readability of logs; each controller is independent and level-based.
"""

from __future__ import annotations

from collections.abc import Callable

from flotilla.controllers.applicationfailover import ApplicationFailoverController
from flotilla.controllers.autoscaling import CronFederatedHPAController, FederatedHPAController
from flotilla.controllers.binding.controller import BindingController
from flotilla.controllers.cluster import ClusterController
from flotilla.controllers.clustertaint import ClusterTaintPolicyController
from flotilla.controllers.dependencies import DependenciesController
from flotilla.controllers.descheduler import DeschedulerController
from flotilla.controllers.detector import DetectorController
from flotilla.controllers.execution.controller import ExecutionController
from flotilla.controllers.failback import FailbackController
from flotilla.controllers.failover.gracefuleviction import GracefulEvictionController
from flotilla.controllers.failover.taintmanager import TaintManager
from flotilla.controllers.federatedquota import FederatedResourceQuotaController
from flotilla.controllers.mcs import MultiClusterServiceController, ServiceExportController
from flotilla.controllers.memberhpa import ReplicasSyncerController, ScaleTargetMarkerController
from flotilla.controllers.namespaces import NamespaceSyncController
from flotilla.controllers.rebalancer import WorkloadRebalancerController
from flotilla.controllers.status.bindingstatus import BindingStatusController
from flotilla.controllers.status.workstatus import WorkStatusController
from flotilla.runtime.hubcontroller import ControllerContext, HubController, ManagerSettings
from flotilla.scheduler.scheduler import SchedulerController

FACTORIES: dict[str, Callable[[ControllerContext], HubController]] = {}
"""Controller name → constructor. Each controller module's entry is added below."""

FACTORIES[ClusterController.NAME] = ClusterController

FACTORIES[DetectorController.NAME] = DetectorController
FACTORIES[NamespaceSyncController.NAME] = NamespaceSyncController
FACTORIES[DependenciesController.NAME] = DependenciesController

FACTORIES[SchedulerController.NAME] = SchedulerController
# On by default, unlike Karmada's separately deployed descheduler: see controllers/descheduler.
FACTORIES[DeschedulerController.NAME] = DeschedulerController

FACTORIES[BindingController.NAME] = BindingController
FACTORIES[ExecutionController.NAME] = ExecutionController
FACTORIES[WorkStatusController.NAME] = WorkStatusController
FACTORIES[BindingStatusController.NAME] = BindingStatusController

FACTORIES[TaintManager.NAME] = TaintManager
FACTORIES[GracefulEvictionController.NAME] = GracefulEvictionController
FACTORIES[ClusterTaintPolicyController.NAME] = ClusterTaintPolicyController
FACTORIES[WorkloadRebalancerController.NAME] = WorkloadRebalancerController
# Not gated by Failover, as in Karmada: a policy's failover.application is enough.
FACTORIES[ApplicationFailoverController.NAME] = ApplicationFailoverController
# On by default: it moves nothing unless a policy carries failover.flotilla.io/failback-after.
FACTORIES[FailbackController.NAME] = FailbackController

# Multi-cluster services: the MCS API (on by default, as Karmada's serviceExport controller) and
# Karmada's MultiClusterService (behind Karmada's `MultiClusterService` gate, off by default).
FACTORIES[ServiceExportController.NAME] = ServiceExportController
FACTORIES[MultiClusterServiceController.NAME] = MultiClusterServiceController

# Member HPAs keep their members' replicas and the template shows the sum: on by default here,
# off by default in Karmada (see controllers/memberhpa).
FACTORIES[ScaleTargetMarkerController.NAME] = ScaleTargetMarkerController
FACTORIES[ReplicasSyncerController.NAME] = ReplicasSyncerController

# On by default, unlike Karmada's gated enforcement: see controllers/federatedquota.
FACTORIES[FederatedResourceQuotaController.NAME] = FederatedResourceQuotaController

# Autoscaling (on by default, as in Karmada): see controllers/autoscaling.
FACTORIES[FederatedHPAController.NAME] = FederatedHPAController
FACTORIES[CronFederatedHPAController.NAME] = CronFederatedHPAController

DEFAULT_OFF: frozenset[str] = frozenset()
"""Controllers that `*` does not enable (they must be named explicitly)."""

CLUSTER_TAINT_POLICY = ClusterTaintPolicyController.NAME
"""The ClusterTaintPolicy controller's name, which the `Failover` gate switches off with the taint manager."""


def switched_off(settings: ManagerSettings) -> frozenset[str]:
    """Controllers the settings keep from running whatever `--controllers` says.

    As in karmada-controller-manager: the `MultiClusterService` gate off (its default) stops the
    multiclusterservice controller; the `Failover` gate off stops the taint manager and the
    ClusterTaintPolicy controller; `--enable-taint-manager=false` or
    `--enable-no-execute-taint-eviction=false` stop the taint manager.
    """
    off = set()
    if not settings.feature_gates.enabled("MultiClusterService"):
        off.add(MultiClusterServiceController.NAME)
    if not settings.feature_gates.failover:
        off |= {TaintManager.NAME, CLUSTER_TAINT_POLICY}
    if not (settings.enable_taint_manager and settings.enable_no_execute_taint_eviction):
        off.add(TaintManager.NAME)
    return frozenset(name for name in off if name in FACTORIES)
