"""What a marked Deployment's template should say: the sum of its members' replicas (pure).

Karmada's `isDeploymentStatusCollected`, as one decision with its reason. The template of a
Deployment marked `retain-replicas` takes the total of `status.replicas` over its members, read
from its ResourceBinding's `status.aggregatedStatus`, but only once that total means something:

- the placement divides replicas (`Divided`): with `Duplicated` every member runs the template's
  count, and a sum would multiply it;
- the binding has caught up with the template (`spec.replicas` equal) and the scheduler with the
  binding (`schedulerObservedGeneration` = `generation`), so no division is under way;
- every target cluster reported a status with replicas, from a copy its controller has observed
  (`observedGeneration` at least the reflected `generation`): a cluster that has not reported yet
  would make the sum too small, and write a smaller template than what runs.

The answer is `Sync(total)` when the template differs from the total, else `Wait(reason)` (a
later change of the binding or the template brings the decision back) or `Idle` (nothing to do).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.objects import metadata_of, spec_of
from flotilla.controllers.memberhpa.targets import is_marked
from flotilla.scheduler.core.placement import SchedulingType, placement_from_object


@dataclass(frozen=True, slots=True)
class Sync:
    """Write `replicas` into the template's `spec.replicas`."""

    replicas: int


@dataclass(frozen=True, slots=True)
class Wait:
    """Not yet: the members' statuses do not tell the total yet (`reason` says which part)."""

    reason: str


@dataclass(frozen=True, slots=True)
class Idle:
    """Nothing to write: the template is not the syncer's, or it already says the total."""

    reason: str


Decision = Sync | Wait | Idle


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def members_total(binding: Mapping[str, Any]) -> int | str:
    """The sum of `status.replicas` over the binding's target clusters, or why it is not known."""
    clusters = [
        str(target.get("name") or "")
        for target in spec_of(binding).get("clusters") or ()
        if isinstance(target, Mapping)
    ]
    if not clusters:
        return "no target clusters"
    statuses: dict[str, Mapping[str, Any]] = {}
    for item in (binding.get("status") or {}).get("aggregatedStatus") or ():
        if isinstance(item, Mapping) and isinstance(item.get("status"), Mapping):
            statuses[str(item.get("clusterName") or "")] = item["status"]
    total = 0
    for cluster in clusters:
        status = statuses.get(cluster)
        replicas = _integer(status.get("replicas")) if status is not None else None
        if status is None or replicas is None or replicas <= 0:
            return f"the status of cluster {cluster}"
        generation, observed = _integer(status.get("generation")), _integer(status.get("observedGeneration"))
        if generation is not None and (observed is None or observed < generation):
            return f"cluster {cluster} to observe its copy's generation {generation}"
        total += replicas
    return total


def decide(template: Mapping[str, Any], binding: Mapping[str, Any] | None) -> Decision:
    """What the syncer does for `template` given its ResourceBinding (None: there is none)."""
    if not is_marked(template) or metadata_of(template).get("deletionTimestamp"):
        return Idle("not marked to retain replicas")
    if binding is None:
        return Idle("no ResourceBinding")
    placement = placement_from_object(spec_of(binding).get("placement"))
    if placement.scheduling_type != SchedulingType.DIVIDED:
        return Idle("replicas are not divided")
    desired = _integer(spec_of(template).get("replicas"))
    if desired is None:
        return Idle("the template does not set spec.replicas")
    if _integer(spec_of(binding).get("replicas")) != desired:
        return Wait("the binding to take the template's replicas")
    observed_generation = (binding.get("status") or {}).get("schedulerObservedGeneration")
    if metadata_of(binding).get("generation") != observed_generation:
        return Wait("the scheduler to observe the binding")
    total = members_total(binding)
    if isinstance(total, str):
        return Wait(total)
    if total == desired:
        return Idle("the template already says the members' total")
    return Sync(total)
