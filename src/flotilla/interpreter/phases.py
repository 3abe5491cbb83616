"""The phase of a Pod or a volume on the hub, picked from the phases of its member copies.

A phase is not a sum: the template shows the phase that most needs attention, in a fixed order of
precedence, and a cluster that has not reported yet counts as still pending:

- Pod: Failed, then Pending, then Running, then Succeeded (`Unknown` is deprecated and ignored);
  the container and init container statuses of all members are listed together;
- PersistentVolume: Failed, Pending, Available, Bound, Released;
- PersistentVolumeClaim: Bound unless a member lost its claim (`Lost`) or reports another phase.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from flotilla.interpreter import kinds
from flotilla.interpreter.statusitems import StatusItems, item_status

_POD_PHASES = ("Failed", "Pending", "Running", "Succeeded")
_VOLUME_PHASES = ("Failed", "Pending", "Available", "Bound", "Released")


def _reported_phases(items: StatusItems) -> set[str]:
    phases = set()
    for item in items:
        status = item_status(item)
        phase = status.get("phase") if status is not None else "Pending"
        if isinstance(phase, str):
            phases.add(phase)
    return phases


def _first(precedence: Sequence[str], phases: set[str]) -> str | None:
    return next((phase for phase in precedence if phase in phases), None)


def _container_statuses(items: StatusItems, field: str) -> list[dict[str, Any]]:
    """Each member's container statuses, reduced to what identifies and describes them."""
    statuses = []
    for item in items:
        status = item_status(item)
        if status is None:
            continue
        for container in kinds.nested_list(status, field):
            if isinstance(container, Mapping):
                reduced = {
                    key: copy.deepcopy(container[key])
                    for key in ("name", "ready", "state")
                    if key in container
                }
                reduced.setdefault("ready", False)
                statuses.append(reduced)
    return statuses


def aggregate_pod(template: dict[str, Any], items: StatusItems) -> None:
    """The Pod template's phase and container statuses from its members; untouched with no members."""
    if not items:
        return
    status: dict[str, Any] = {}
    phase = _first(_POD_PHASES, _reported_phases(items))
    if phase is not None:
        status["phase"] = phase
    for field in ("containerStatuses", "initContainerStatuses"):
        statuses = _container_statuses(items, field)
        if statuses:
            status[field] = statuses
    template["status"] = status


def aggregate_persistent_volume(template: dict[str, Any], items: StatusItems) -> None:
    """The PersistentVolume template's phase from its members."""
    phase = _first(_VOLUME_PHASES, _reported_phases(items))
    template["status"] = {"phase": phase} if phase is not None else {}


def aggregate_persistent_volume_claim(template: dict[str, Any], items: StatusItems) -> None:
    """The PersistentVolumeClaim template's phase: Bound unless a member reports Lost or another phase."""
    phase = "Bound"
    for item in items:
        status = item_status(item)
        member_phase = status.get("phase") if status is not None else None
        if member_phase == "Lost":
            phase = "Lost"
            break
        if isinstance(member_phase, str) and member_phase and member_phase != "Bound":
            phase = member_phase
    template["status"] = {"phase": phase}
