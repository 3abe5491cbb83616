"""The ResourceQuota status of a simulated cluster: what each quota limits and what its namespace uses.

kube-controller-manager's resourcequota controller writes `status.hard` (the spec's limits) and
`status.used` (what the namespace's pods take) on every ResourceQuota; `kubectl describe quota`
and Karmada's FederatedResourceQuota status read them. The simulated one counts what pods can
use: `pods` (pods not yet Succeeded or Failed), `cpu`/`requests.cpu`, `memory`/`requests.memory`,
`ephemeral-storage`/`requests.ephemeral-storage` (the pod's effective requests, computed as the
scheduler computes them, `interpreter.requests`), and `limits.cpu`/`limits.memory` (the sum of the
containers' limits). Other limits (object counts, extended resources) get no `used` entry.
Admission against the quota (refusing a pod over it) is not simulated.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import structlog

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.quantities import Format, Quantity, canonical
from flotilla.apiserver import errors
from flotilla.interpreter.requests import counted_units, pod_requests
from flotilla.sim.controllers.framework.controller import SimController
from flotilla.sim.controllers.framework.kinds import POD, RESOURCE_QUOTA

log = structlog.get_logger("flotilla.sim.controllers")

TERMINAL_PHASES = ("Succeeded", "Failed")
_REQUESTS = {"cpu", "memory", "ephemeral-storage"}
_LIMITS = {"limits.cpu": "cpu", "limits.memory": "memory"}


def _written(resource: str, units: int) -> str:
    """Whole units (millicores for cpu) as kube writes the quantity."""
    if resource == "cpu":
        return canonical(Quantity(Fraction(units, 1000), Format.DECIMAL_SI))
    return canonical(Quantity(Fraction(units), Format.BINARY_SI))


def _limits(spec: Mapping[str, Any], resource: str) -> int:
    total = 0
    for container in spec.get("containers") or ():
        limit = ((container.get("resources") or {}).get("limits") or {}).get(resource)
        if limit is not None:
            total += counted_units(resource, limit)
    return total


def quota_used(hard: Mapping[str, Any], pods: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """`status.used` of a quota limiting `hard`, over the pods of its namespace."""
    active = [pod for pod in pods if (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES]
    used: dict[str, str] = {}
    for name in hard:
        requested = name.removeprefix("requests.")
        if name == "pods":
            used[name] = str(len(active))
        elif requested in _REQUESTS:
            units = sum(pod_requests(pod.get("spec") or {}).get(requested, 0) for pod in active)
            used[name] = _written(requested, units)
        elif name in _LIMITS:
            resource = _LIMITS[name]
            used[name] = _written(resource, sum(_limits(pod.get("spec") or {}, resource) for pod in active))
    return used


class ResourceQuotaController(SimController):
    NAME = "resourcequota-controller"
    KIND = RESOURCE_QUOTA
    WORKERS = 1

    def watch(self) -> None:
        self.watch_kind(POD, self._quotas_of_namespace)

    def _quotas_of_namespace(self, pod: dict[str, Any]) -> list[ObjectKey]:
        namespace = str((pod.get("metadata") or {}).get("namespace") or "")
        return [ObjectKey.of(quota) for quota in self.client.list(RESOURCE_QUOTA, namespace=namespace)]

    async def reconcile(self, key: ObjectKey) -> float | None:
        quota = self.client.get(RESOURCE_QUOTA, key.name, namespace=key.namespace)
        if quota is None:
            return None
        hard = dict((quota.get("spec") or {}).get("hard") or {})
        status = {"hard": hard, "used": quota_used(hard, self.client.list(POD, namespace=key.namespace))}
        if quota.get("status") == status:
            return None
        quota["status"] = status
        try:
            await self.client.update(RESOURCE_QUOTA, quota, subresource="status")
        except (errors.Conflict, errors.NotFound):
            self.enqueue(key)  # changed or gone meanwhile: look again
        return None
