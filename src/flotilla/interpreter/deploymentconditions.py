"""A Deployment's `Available` and `Progressing` conditions on the hub, from those of its member copies.

`kubectl wait --for=condition=Available` and every kstatus user (Helm's `--wait`, kpt, Flux, Argo
CD, lightkube's and kr8s's wait helpers) read these two conditions; Karmada leaves them off the
template (its users write health customizations instead). The hub sets them the way the deployment
controller would for one Deployment made of all the copies:

- `Available` is True (`MinimumReplicasAvailable`) only when every scheduled copy reports
  `Available=True`; a copy not applied or not reported yet, or a template scheduled to no cluster,
  makes it False (`MinimumReplicasUnavailable`), naming the clusters that hold it back.
- `Progressing` is False (`ProgressDeadlineExceeded`) as soon as any copy says so; True with
  `NewReplicaSetAvailable` once every copy has observed the current template and finished its
  rollout (its own `Progressing` says `NewReplicaSetAvailable`, or it is healthy when it keeps no
  such condition); True with `ReplicaSetUpdated` otherwise, naming the clusters still rolling.
  A paused template says `DeploymentPaused` (Unknown); a template without a progress deadline gets
  no `Progressing` condition, as kube gives it none.

Each condition carries `lastUpdateTime` and `lastTransitionTime`. An unchanged condition (same
status, reason and message) is kept as it is, so folding the same members twice writes nothing;
a changed message or reason moves `lastUpdateTime` only, and `lastTransitionTime` moves only when
the status flips (`api.conditions`: `kept_if_unchanged` over `stamped_condition`).

A member reflects these conditions without their timestamps (`reflected_conditions`): a rollout's
progress renews the member's `lastUpdateTime` at every step, which must not rewrite its Work.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from flotilla.api.conditions import find_condition, kept_if_unchanged, stamped_condition
from flotilla.api.times import format_time
from flotilla.interpreter import kinds
from flotilla.interpreter.statusitems import StatusItems, item_status, member_observed_latest

AVAILABLE = "Available"
PROGRESSING = "Progressing"
MINIMUM_REPLICAS_AVAILABLE = "MinimumReplicasAvailable"
MINIMUM_REPLICAS_UNAVAILABLE = "MinimumReplicasUnavailable"
REPLICA_SET_UPDATED = "ReplicaSetUpdated"
NEW_REPLICA_SET_AVAILABLE = "NewReplicaSetAvailable"
PROGRESS_DEADLINE_EXCEEDED = "ProgressDeadlineExceeded"
DEPLOYMENT_PAUSED = "DeploymentPaused"
NO_PROGRESS_DEADLINE = 2**31 - 1
"""`progressDeadlineSeconds` at math.MaxInt32 means no deadline: kube then sets no Progressing."""

_REFLECTED_TYPES = (AVAILABLE, PROGRESSING)
_REFLECTED_FIELDS = ("type", "status", "reason", "message")

Condition = dict[str, Any]


def reflected_conditions(status: Mapping[str, Any]) -> list[Condition]:
    """A member Deployment's Available and Progressing conditions, without their timestamps."""
    return [
        {field: condition[field] for field in _REFLECTED_FIELDS if condition.get(field) is not None}
        for condition in kinds.nested_list(status, "conditions")
        if isinstance(condition, Mapping) and condition.get("type") in _REFLECTED_TYPES
    ]


def _member_condition(item: Mapping[str, Any], condition_type: str) -> Mapping[str, Any] | None:
    status = item_status(item)
    if status is None:
        return None
    conditions = [c for c in kinds.nested_list(status, "conditions") if isinstance(c, Mapping)]
    return find_condition(conditions, condition_type)


def member_available(item: Mapping[str, Any]) -> bool:
    """Whether a copy reports Available=True."""
    condition = _member_condition(item, AVAILABLE)
    return condition is not None and condition.get("status") == "True"


def member_timed_out(item: Mapping[str, Any]) -> bool:
    """Whether a copy's rollout exceeded its progress deadline (kstatus reads the reason alone)."""
    condition = _member_condition(item, PROGRESSING)
    return condition is not None and condition.get("reason") == PROGRESS_DEADLINE_EXCEEDED


def member_rolled_out(item: Mapping[str, Any], template_generation: int) -> bool:
    """Whether a copy runs the current template and has finished rolling it out."""
    if not member_observed_latest(item, template_generation):
        return False
    condition = _member_condition(item, PROGRESSING)
    if condition is None:
        return item.get("health") == "Healthy"
    return condition.get("status") == "True" and condition.get("reason") == NEW_REPLICA_SET_AVAILABLE


def has_progress_deadline(template: Mapping[str, Any]) -> bool:
    """kube's `HasProgressDeadline`: a deadline is set and is not MaxInt32."""
    if kinds.nested(template, "spec", "progressDeadlineSeconds") is None:
        return False
    return kinds.nested_int(template, "spec", "progressDeadlineSeconds") != NO_PROGRESS_DEADLINE


def _member_clusters(items: StatusItems) -> str:
    names = ", ".join(str(item.get("clusterName", "")) for item in items)
    return f"member cluster {names}" if len(items) == 1 else f"member clusters {names}"


def _condition(condition_type: str, status: str, reason: str, message: str) -> Condition:
    return {"type": condition_type, "status": status, "reason": reason, "message": message}


def available_condition(items: StatusItems) -> Condition:
    """Available: True only when every scheduled copy is available."""
    if not items:
        message = "Deployment is not scheduled to any member cluster."
        return _condition(AVAILABLE, "False", MINIMUM_REPLICAS_UNAVAILABLE, message)
    unavailable = [item for item in items if not member_available(item)]
    if unavailable:
        message = f"Deployment does not have minimum availability in {_member_clusters(unavailable)}."
        return _condition(AVAILABLE, "False", MINIMUM_REPLICAS_UNAVAILABLE, message)
    return _condition(AVAILABLE, "True", MINIMUM_REPLICAS_AVAILABLE, "Deployment has minimum availability.")


def progressing_condition(template: Mapping[str, Any], items: StatusItems) -> Condition | None:
    """Progressing: how the rollout of the template over its copies goes; None without a deadline."""
    if not has_progress_deadline(template):
        return None
    subject = f'Deployment "{kinds.nested(template, "metadata", "name") or ""}"'
    if kinds.nested(template, "spec", "paused") is True:
        return _condition(PROGRESSING, "Unknown", DEPLOYMENT_PAUSED, "Deployment is paused")
    timed_out = [item for item in items if member_timed_out(item)]
    if timed_out:
        message = f"{subject} has timed out progressing in {_member_clusters(timed_out)}."
        return _condition(PROGRESSING, "False", PROGRESS_DEADLINE_EXCEEDED, message)
    if not items:
        message = f"{subject} is waiting to be scheduled to a member cluster."
        return _condition(PROGRESSING, "True", REPLICA_SET_UPDATED, message)
    generation = kinds.nested_int(template, "metadata", "generation")
    rolling = [item for item in items if not member_rolled_out(item, generation)]
    if rolling:
        message = f"{subject} is progressing in {_member_clusters(rolling)}."
        return _condition(PROGRESSING, "True", REPLICA_SET_UPDATED, message)
    return _condition(
        PROGRESSING, "True", NEW_REPLICA_SET_AVAILABLE, f"{subject} has successfully progressed."
    )


def _stamped(condition: Condition, previous: list[Mapping[str, Any]], stamp: str) -> Condition:
    """The condition kept while unchanged; else renewed now, its transition time kept if the status is."""
    existing = find_condition(previous, str(condition["type"]))
    renewed = stamped_condition({**condition, "lastUpdateTime": stamp}, existing, stamp)
    return kept_if_unchanged(renewed, existing)


def aggregate_conditions(template: Mapping[str, Any], items: StatusItems, now: datetime) -> list[Condition]:
    """The template's Available and Progressing conditions, folded from its copies."""
    previous = [c for c in kinds.nested_list(template, "status", "conditions") if isinstance(c, Mapping)]
    wanted = [available_condition(items)]
    progressing = progressing_condition(template, items)
    if progressing is not None:
        wanted.append(progressing)
    stamp = format_time(now)
    return [_stamped(condition, previous, stamp) for condition in wanted]
