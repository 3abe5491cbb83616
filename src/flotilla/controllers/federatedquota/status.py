"""A FederatedResourceQuota's status, computed from its Works and the namespace's ResourceBindings.

`aggregatedStatus` has one entry per cluster whose Work is applied and reflects its ResourceQuota
(`hard`, `used` as the member's quota controller wrote them), in cluster name order, as Karmada's
status controller builds it. `overall` echoes `spec.overall`; `overallUsed` is what the namespace's
bindings hold of the resources `overall` names (Karmada's enforcement controller): the scheduled
replicas times the per-replica requests. Between two passes the hub's admission may have raised
`overallUsed` to reserve a write it admitted; this sum replaces such reservations, so one for a write
that never committed does not last.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flotilla.api.karmada import names
from flotilla.api.karmada.federatedquota import overall_used, resource_amounts, written
from flotilla.api.objects import metadata_of

Object = Mapping[str, Any]
APPLIED = "Applied"


def _applied(work: Object) -> bool:
    status = work.get("status")
    conditions = status.get("conditions") if isinstance(status, Mapping) else None
    return any(
        isinstance(condition, Mapping)
        and condition.get("type") == APPLIED
        and condition.get("status") == "True"
        for condition in conditions or ()
    )


def cluster_status(work: Object) -> dict[str, Any] | None:
    """`{clusterName, hard, used}` from an applied Work's reflected ResourceQuota status, or None."""
    if not _applied(work):
        return None
    cluster = names.cluster_of_execution_namespace(str(metadata_of(work).get("namespace") or ""))
    statuses = (work.get("status") or {}).get("manifestStatuses") or []
    if cluster is None or not statuses or not isinstance(statuses[0], Mapping):
        return None
    reflected = statuses[0].get("status")
    if not isinstance(reflected, Mapping):
        return None
    entry: dict[str, Any] = {"clusterName": cluster}
    for field in ("hard", "used"):
        amounts = resource_amounts(reflected.get(field))
        if amounts:
            entry[field] = written(amounts)
    return entry


def quota_status(quota: Object, works: Iterable[Object], bindings: Iterable[Object]) -> dict[str, Any]:
    """The status the quota should have."""
    spec = quota.get("spec")
    overall = resource_amounts(spec.get("overall") if isinstance(spec, Mapping) else None)
    aggregated = [entry for entry in map(cluster_status, works) if entry is not None]
    aggregated.sort(key=lambda entry: str(entry["clusterName"]))
    status: dict[str, Any] = {}
    if overall:
        status["overall"] = written(overall)
        used = overall_used(bindings, overall)
        if used:  # Go omits an empty map
            status["overallUsed"] = written(used)
    if aggregated:
        status["aggregatedStatus"] = aggregated
    return status
