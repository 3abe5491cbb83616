"""How a DaemonSet's RollingUpdate replaces old pods, node by node (kube's `rollingUpdate`).

Without surge, old pods are deleted while at most `maxUnavailable` nodes lack an available
up-to-date pod (old pods that are not available anyway go at once). With `maxSurge`, up to that
many nodes get a new pod beside the old one, and an old pod goes once its node's new pod is
available. Both resolve percentages of the nodes that should run the DaemonSet, rounding up.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from flotilla.sim.controllers.daemonsets.daemonpods import Pod, is_updated
from flotilla.sim.controllers.podowners import pods
from flotilla.sim.controllers.podowners.intorpercent import scaled_value


def split_node_pods(
    node_pods: list[Pod], revision_hash: str, generation: str | None
) -> tuple[Pod | None, Pod | None, bool]:
    """(new pod, old pod, well-formed) for one node (kube's `findUpdatedPodsOnNode`)."""
    new: Pod | None = None
    old: Pod | None = None
    for pod in node_pods:
        if pods.is_terminating(pod):
            continue
        if is_updated(pod, revision_hash, generation):
            if new is not None:
                return None, None, False
            new = pod
        else:
            if old is not None:
                return None, None, False
            old = pod
    return new, old, True


def unavailable_plan(
    by_node: dict[str, list[Pod]],
    revision_hash: str,
    generation: str | None,
    min_ready: int,
    now: datetime,
    max_unavailable: int,
) -> tuple[list[Pod], list[str]]:
    """Old pods to delete while at most `max_unavailable` nodes lack an available new pod."""
    unavailable = 0
    replaceable: list[Pod] = []
    candidates: list[Pod] = []
    for node_name in sorted(by_node):
        new, old, ok = split_node_pods(by_node[node_name], revision_hash, generation)
        if not ok or (old is None and new is None) or (old is not None and new is not None):
            unavailable += 1
        elif new is not None:
            unavailable += not pods.is_available(new, min_ready, now)
        elif old is not None and not pods.is_available(old, min_ready, now):
            replaceable.append(old)
        elif unavailable < max_unavailable and old is not None:
            candidates.append(old)
    room = min(max(0, max_unavailable - unavailable), len(candidates))
    return [*replaceable, *candidates[:room]], []


def surge_plan(
    by_node: dict[str, list[Pod]],
    revision_hash: str,
    generation: str | None,
    min_ready: int,
    now: datetime,
    max_surge: int,
) -> tuple[list[Pod], list[str]]:
    """Nodes to start a new pod on beside the old one (at most `max_surge` at a time), old pods to retire."""
    surging = 0
    to_delete: list[Pod] = []
    allowed: list[str] = []
    candidates: list[str] = []
    for node_name in sorted(by_node):
        new, old, ok = split_node_pods(by_node[node_name], revision_hash, generation)
        if not ok:
            surging += 1
        elif old is None:
            continue
        elif new is None:
            if not pods.is_available(old, min_ready, now):
                allowed.append(node_name)
            elif surging < max_surge:
                candidates.append(node_name)
        elif not pods.is_available(new, min_ready, now):
            surging += 1
        else:
            to_delete.append(old)
    room = min(max(0, max_surge - surging), len(candidates))
    return to_delete, [*allowed, *candidates[:room]]


def _rolling(daemon_set: Mapping[str, Any]) -> Mapping[str, Any]:
    strategy = daemon_set["spec"].get("updateStrategy") or {}
    if strategy.get("type", "RollingUpdate") != "RollingUpdate":
        return {}
    rolling: Mapping[str, Any] = strategy.get("rollingUpdate") or {}
    return rolling


def max_surge(daemon_set: Mapping[str, Any], desired: int) -> int:
    return scaled_value(_rolling(daemon_set).get("maxSurge"), desired, round_up=True)


def max_unavailable(daemon_set: Mapping[str, Any], desired: int) -> int:
    return scaled_value(_rolling(daemon_set).get("maxUnavailable"), desired, round_up=True)
