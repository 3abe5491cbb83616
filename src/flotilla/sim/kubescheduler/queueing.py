"""Which pods the simulated kube-scheduler takes, and which node changes can help a waiting pod.

A pod enters the queue when it is not bound, not being deleted, not finished, has no scheduling
gates and names the default scheduler (or none). Unschedulable pods wait for an event rather than a
timer: a node change matters only when it touches what a decision reads (labels, spec, allocatable),
never for heartbeats alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SCHEDULER_NAME = "default-scheduler"
TERMINAL_PHASES = ("Succeeded", "Failed")


def is_schedulable(pod: Mapping[str, Any]) -> bool:
    """Whether the default scheduler should place this pod now (kube's queue admission)."""
    spec = pod.get("spec") or {}
    return bool(
        not spec.get("nodeName")
        and not (pod.get("metadata") or {}).get("deletionTimestamp")
        and (spec.get("schedulerName") or SCHEDULER_NAME) == SCHEDULER_NAME
        and not spec.get("schedulingGates")
        and (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES
    )


def scheduling_relevant(node: Mapping[str, Any]) -> tuple[Any, ...]:
    """What of a node can change a scheduling decision (heartbeats alone cannot)."""
    return (
        (node.get("metadata") or {}).get("labels"),
        node.get("spec"),
        (node.get("status") or {}).get("allocatable"),
    )
