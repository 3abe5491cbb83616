"""Every controller `flotilla controller-manager` can run, by the name `--controllers` uses.

Order matters only for readability of logs; each controller is independent and level-based.
"""

from __future__ import annotations

from collections.abc import Callable

from flotilla.controllers.binding.controller import BindingController
from flotilla.controllers.cluster import ClusterController
from flotilla.controllers.dependencies import DependenciesController
from flotilla.controllers.detector import DetectorController
from flotilla.controllers.execution.controller import ExecutionController
from flotilla.controllers.namespaces import NamespaceSyncController
from flotilla.controllers.status.bindingstatus import BindingStatusController
from flotilla.controllers.status.workstatus import WorkStatusController
from flotilla.runtime.hubcontroller import ControllerContext, HubController
from flotilla.scheduler.scheduler import SchedulerController

FACTORIES: dict[str, Callable[[ControllerContext], HubController]] = {}
"""Controller name → constructor. Each controller module's entry is added below."""

FACTORIES[ClusterController.NAME] = ClusterController

FACTORIES[DetectorController.NAME] = DetectorController
FACTORIES[NamespaceSyncController.NAME] = NamespaceSyncController
FACTORIES[DependenciesController.NAME] = DependenciesController

FACTORIES[SchedulerController.NAME] = SchedulerController

FACTORIES[BindingController.NAME] = BindingController
FACTORIES[ExecutionController.NAME] = ExecutionController
FACTORIES[WorkStatusController.NAME] = WorkStatusController
FACTORIES[BindingStatusController.NAME] = BindingStatusController

DEFAULT_OFF: frozenset[str] = frozenset()
"""Controllers that `*` does not enable (they must be named explicitly)."""
