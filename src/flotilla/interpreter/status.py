"""Status in both directions: what a member object reports, and what the template shows for all members.

`reflect_status(member_object)` is Karmada's InterpretStatus: the work-status controller stores its
answer in `Work.status.manifestStatuses[].status`, and the binding-status controller copies it into
`ResourceBinding.status.aggregatedStatus[].status`. Workloads reflect their replica counters and
generations, and what tells a finished rollout from a running one (`workloadstatus`). Services
reflect their load balancer only when they are of type LoadBalancer; every kind without a rule
reflects its whole `.status`. Fields follow the Go types' JSON: zero counters that kube omits are
omitted.

`aggregate_status(template, items, now=...)` is AggregateStatus: it folds the per-cluster statuses
of the binding into the template's own status, so `kubectl get deploy` on the hub shows `READY
2/2` when two members run one ready pod each, and `kubectl wait --for=condition=Available` and
kstatus read the template as they would one Deployment. The items are one per scheduled cluster
(a cluster whose Work is not applied yet has one without a status). Workloads are folded in
`flotilla.interpreter.workloadstatus` (counters, `observedGeneration`, Deployment conditions,
StatefulSet revisions), Jobs and CronJobs in `flotilla.interpreter.jobstatus`, Pods and volumes
(phases) in `flotilla.interpreter.phases`.

Both functions are pure: they return new dicts and never touch their arguments.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from flotilla.interpreter import jobstatus, kinds, phases, workloadstatus
from flotilla.interpreter.kinds import GroupKind
from flotilla.interpreter.statusitems import StatusItems, counter, item_status

Status = dict[str, Any]


# --- reflect -------------------------------------------------------------------------------------------


def _reflect_service(obj: Mapping[str, Any]) -> Status | None:
    if kinds.nested(obj, "spec", "type") != "LoadBalancer" or not isinstance(obj.get("status"), Mapping):
        return None
    return {"loadBalancer": copy.deepcopy(dict(kinds.nested_mapping(obj, "status", "loadBalancer")))}


def _reflect_fields(
    fields: Sequence[str], required: Sequence[str] = ()
) -> Callable[[Mapping[str, Any]], Status | None]:
    def reflect(obj: Mapping[str, Any]) -> Status | None:
        status = obj.get("status")
        if not isinstance(status, Mapping):
            return None
        return {
            field: copy.deepcopy(status.get(field, 0))
            for field in fields
            if status.get(field) or field in required
        }

    return reflect


def _reflect_whole(obj: Mapping[str, Any]) -> Status | None:
    status = obj.get("status")
    return copy.deepcopy(dict(status)) if isinstance(status, Mapping) else None


_REFLECTORS: Mapping[GroupKind, Callable[[Mapping[str, Any]], Status | None]] = {
    **dict.fromkeys(workloadstatus.WORKLOADS, workloadstatus.reflect_workload),
    kinds.SERVICE: _reflect_service,
    kinds.INGRESS: _reflect_whole,
    kinds.JOB: _reflect_fields(
        ("conditions", "startTime", "completionTime", "active", "succeeded", "failed")
    ),
    kinds.POD_DISRUPTION_BUDGET: _reflect_fields(
        ("disruptedPods", "disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"),
        required=("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"),
    ),
    kinds.HORIZONTAL_POD_AUTOSCALER: _reflect_fields(
        ("currentReplicas", "desiredReplicas"), required=("desiredReplicas",)
    ),
}

REFLECT_STATUS_KINDS = frozenset(_REFLECTORS)
"""Kinds that reflect selected status fields; every other kind reflects its whole status."""


def reflect_status(obj: Mapping[str, Any]) -> Status | None:
    """What a member object's status contributes to its Work; None when it has not reported one yet."""
    return _REFLECTORS.get(kinds.group_kind(obj), _reflect_whole)(obj)


# --- aggregate -----------------------------------------------------------------------------------------


def _load_balancer_ingress(items: StatusItems) -> list[dict[str, Any]]:
    """Every member's load balancer ingress, named after its cluster when it has no hostname; deduplicated."""
    found: dict[str, dict[str, Any]] = {}
    for item in items:
        status = item_status(item)
        if status is None:
            continue
        for ingress in kinds.nested_list(status, "loadBalancer", "ingress"):
            if not isinstance(ingress, Mapping):
                continue
            entry = copy.deepcopy(dict(ingress))
            if not entry.get("hostname"):
                entry["hostname"] = item.get("clusterName", "")
            found.setdefault(json.dumps(entry, sort_keys=True), entry)
    return sorted(
        found.values(), key=lambda entry: (entry.get("ip", ""), entry.get("hostname", ""), json.dumps(entry))
    )


def _aggregate_load_balancer(template: dict[str, Any], items: StatusItems) -> None:
    if (
        kinds.group_kind(template) == kinds.SERVICE
        and kinds.nested(template, "spec", "type") != "LoadBalancer"
    ):
        return
    ingress = _load_balancer_ingress(items)
    template["status"] = {"loadBalancer": {"ingress": ingress} if ingress else {}}


def _aggregate_autoscaler(template: dict[str, Any], items: StatusItems) -> None:
    status = template.get("status")
    if not isinstance(status, dict):
        status = template["status"] = {}
    current = desired = 0
    for item in items:
        member = item_status(item)
        if member is not None:
            current += counter(member, "currentReplicas")
            desired += counter(member, "desiredReplicas")
    if current:
        status["currentReplicas"] = current
    else:
        status.pop("currentReplicas", None)
    status["desiredReplicas"] = desired


def _aggregate_disruption_budget(template: dict[str, Any], items: StatusItems) -> None:
    summed = dict.fromkeys(("disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"), 0)
    disrupted: dict[str, Any] = {}
    for item in items:
        status = item_status(item)
        if status is None:
            continue
        for field in summed:
            summed[field] += counter(status, field)
        for pod, eviction_time in kinds.nested_mapping(status, "disruptedPods").items():
            disrupted[f"{item.get('clusterName', '')}/{pod}"] = eviction_time
    template["status"] = ({"disruptedPods": disrupted} if disrupted else {}) | summed


def _aggregate_with(
    aggregate: Callable[[dict[str, Any], StatusItems], None],
) -> Callable[[dict[str, Any], StatusItems, datetime], None]:
    """An aggregator for the dispatch table, for kinds whose status carries no timestamps of ours."""

    def aggregate_at(template: dict[str, Any], items: StatusItems, now: datetime) -> None:
        aggregate(template, items)

    return aggregate_at


_AGGREGATORS: Mapping[GroupKind, Callable[[dict[str, Any], StatusItems, datetime], None]] = {
    **dict.fromkeys(workloadstatus.WORKLOADS, workloadstatus.aggregate_workload),
    kinds.SERVICE: _aggregate_with(_aggregate_load_balancer),
    kinds.INGRESS: _aggregate_with(_aggregate_load_balancer),
    kinds.HORIZONTAL_POD_AUTOSCALER: _aggregate_with(_aggregate_autoscaler),
    kinds.POD_DISRUPTION_BUDGET: _aggregate_with(_aggregate_disruption_budget),
    kinds.JOB: jobstatus.aggregate_job,
    kinds.CRON_JOB: _aggregate_with(jobstatus.aggregate_cron_job),
    kinds.POD: _aggregate_with(phases.aggregate_pod),
    kinds.PERSISTENT_VOLUME: _aggregate_with(phases.aggregate_persistent_volume),
    kinds.PERSISTENT_VOLUME_CLAIM: _aggregate_with(phases.aggregate_persistent_volume_claim),
}

AGGREGATE_STATUS_KINDS = frozenset(_AGGREGATORS)
"""Kinds whose template status is computed from the members'."""


def aggregate_status(template: Mapping[str, Any], items: StatusItems, *, now: datetime) -> dict[str, Any]:
    """A copy of the template with its status folded from the members' statuses.

    `items` are one per scheduled cluster; `now` stamps the conditions a Deployment or a Job gains
    or changes. Kinds without a rule come back unchanged.
    """
    aggregated = copy.deepcopy(dict(template))
    aggregator = _AGGREGATORS.get(kinds.group_kind(template))
    if aggregator is not None:
        aggregator(aggregated, items, now)
    return aggregated
