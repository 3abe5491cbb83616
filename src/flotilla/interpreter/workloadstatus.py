"""Workload status both ways: what a member's Deployment, StatefulSet, DaemonSet or ReplicaSet reports,
and what the template on the hub shows for all of its copies.

Reflected from a member: the replica counters, the member object's own `generation`, and
`resourceTemplateGeneration` — the template generation the member copy was rendered from (the
`resourcetemplate.karmada.io/generation` annotation the binding controller puts on every manifest).
A Deployment also reflects its `Available` and `Progressing` conditions without their timestamps
(`deploymentconditions`), a StatefulSet its `currentRevision` and `updateRevision`: what the hub
needs to tell a finished rollout from a running one, and nothing that changes while a rollout
merely goes on (a Work status write per member pod would be churn).

Folded onto the template: the counters add up; `observedGeneration` moves to the template's
generation only when every scheduled copy has observed its own latest generation and runs a copy
rendered from the template's current generation, and otherwise keeps its old value, so a
just-updated template never looks rolled out (kstatus, Argo CD and `kubectl rollout status` all
read it first). A Deployment gains `Available` and `Progressing` conditions, a StatefulSet the
revisions kstatus compares (`aggregate_revisions`). Fields follow the Go types' JSON: zero counters
that kube omits are omitted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from flotilla.interpreter import deploymentconditions, kinds
from flotilla.interpreter.kinds import GroupKind, InterpreterError
from flotilla.interpreter.statusitems import StatusItems, counter, item_status, member_observed_latest

RESOURCE_TEMPLATE_GENERATION_ANNOTATION = "resourcetemplate.karmada.io/generation"

Status = dict[str, Any]


class Counters:
    """The counter fields of a workload status in Go field order, and those kube always writes."""

    def __init__(self, fields: Sequence[str], required: Sequence[str] = ()) -> None:
        self.fields = tuple(fields)
        self.required = frozenset(required)


DEPLOYMENT = Counters(
    (
        "observedGeneration",
        "replicas",
        "updatedReplicas",
        "readyReplicas",
        "availableReplicas",
        "unavailableReplicas",
    )
)
STATEFUL_SET = Counters(
    (
        "observedGeneration",
        "replicas",
        "readyReplicas",
        "currentReplicas",
        "updatedReplicas",
        "availableReplicas",
    ),
    required=("replicas", "availableReplicas"),
)
DAEMON_SET = Counters(
    (
        "currentNumberScheduled",
        "numberMisscheduled",
        "desiredNumberScheduled",
        "numberReady",
        "observedGeneration",
        "updatedNumberScheduled",
        "numberAvailable",
        "numberUnavailable",
    ),
    required=("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"),
)
REPLICA_SET = Counters(
    ("replicas", "fullyLabeledReplicas", "readyReplicas", "availableReplicas", "observedGeneration"),
    required=("replicas",),
)
WORKLOADS: Mapping[GroupKind, Counters] = {
    kinds.DEPLOYMENT: DEPLOYMENT,
    kinds.STATEFUL_SET: STATEFUL_SET,
    kinds.DAEMON_SET: DAEMON_SET,
    kinds.REPLICA_SET: REPLICA_SET,
}

_REVISIONS = ("currentRevision", "updateRevision")


def _write_counters(status: Status, counters: Counters, values: Mapping[str, int]) -> None:
    for field in counters.fields:
        value = values.get(field, 0)
        if value or field in counters.required:
            status[field] = value
        else:
            status.pop(field, None)


def resource_template_generation(obj: Mapping[str, Any]) -> int:
    """The template generation a member copy was rendered from (0 when the annotation is absent)."""
    text = kinds.nested_mapping(obj, "metadata", "annotations").get(RESOURCE_TEMPLATE_GENERATION_ANNOTATION)
    if text is None or text == "":
        return 0
    try:
        return int(text)
    except (TypeError, ValueError):
        raise InterpreterError(
            f"annotation {RESOURCE_TEMPLATE_GENERATION_ANNOTATION}={text!r} is not an integer"
        ) from None


# --- reflect -------------------------------------------------------------------------------------------


def reflect_workload(obj: Mapping[str, Any]) -> Status | None:
    """A member workload's counters, generations, and the conditions or revisions its kind adds."""
    status = obj.get("status")
    if not isinstance(status, Mapping):
        return None
    group_kind = kinds.group_kind(obj)
    counters = WORKLOADS[group_kind]
    reflected: Status = {}
    generation = kinds.nested_int(obj, "metadata", "generation")
    if generation:
        reflected["generation"] = generation
    template_generation = resource_template_generation(obj)
    if template_generation:
        reflected["resourceTemplateGeneration"] = template_generation
    _write_counters(reflected, counters, {field: counter(status, field) for field in counters.fields})
    if group_kind == kinds.DEPLOYMENT:
        conditions = deploymentconditions.reflected_conditions(status)
        if conditions:
            reflected["conditions"] = conditions
    elif group_kind == kinds.STATEFUL_SET:
        reflected.update({field: status[field] for field in _REVISIONS if status.get(field)})
    return reflected or None


# --- aggregate -----------------------------------------------------------------------------------------


def _template_status(template: dict[str, Any]) -> Status:
    status = template.get("status")
    if not isinstance(status, dict):
        status = template["status"] = {}
    return status


def aggregate_counters(template: dict[str, Any], items: StatusItems, counters: Counters) -> None:
    """Sum the members' counters into the template; raise observedGeneration once all copies caught up."""
    summed = {field: 0 for field in counters.fields if field != "observedGeneration"}
    for item in items:
        status = item_status(item)
        if status is not None:
            for field in summed:
                summed[field] += counter(status, field)
    status = _template_status(template)
    template_generation = kinds.nested_int(template, "metadata", "generation")
    if items and all(member_observed_latest(item, template_generation) for item in items):
        summed["observedGeneration"] = template_generation
    else:
        summed["observedGeneration"] = counter(status, "observedGeneration")
    _write_counters(status, counters, summed)


def aggregate_revisions(status: Status, items: StatusItems) -> None:
    """`currentRevision` and `updateRevision` equal exactly when every copy has finished its rollout.

    kstatus and `kubectl rollout status` call a StatefulSet rolled out once the two are equal. The
    hub shows a real member's pair: while some copy is still rolling (or has not reported), the
    first such copy's, which differ (a copy not reported leaves `currentRevision` out); once every
    copy's pair is equal, the first copy's.
    """
    reported = [item_status(item) for item in items]
    lagging = [
        member
        for member in reported
        if member is None or member.get("currentRevision") != member.get("updateRevision")
    ]
    first_update = next((str(m["updateRevision"]) for m in reported if m and m.get("updateRevision")), "")
    if not lagging:
        revisions = dict.fromkeys(_REVISIONS, first_update)
    elif lagging[0] is None:
        revisions = {"currentRevision": "", "updateRevision": first_update}
    else:
        revisions = {field: str(lagging[0].get(field) or "") for field in _REVISIONS}
    for field, value in revisions.items():
        if value:
            status[field] = value
        else:
            status.pop(field, None)


def aggregate_workload(template: dict[str, Any], items: StatusItems, now: datetime) -> None:
    """Fold the members' statuses of a workload into its template (`now` stamps new conditions)."""
    group_kind = kinds.group_kind(template)
    aggregate_counters(template, items, WORKLOADS[group_kind])
    status = _template_status(template)
    if group_kind == kinds.DEPLOYMENT:
        conditions = deploymentconditions.aggregate_conditions(template, items, now)
        if conditions:
            status["conditions"] = conditions
        else:
            status.pop("conditions", None)
    elif group_kind == kinds.STATEFUL_SET:
        aggregate_revisions(status, items)
