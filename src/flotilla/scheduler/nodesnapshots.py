"""The accurate estimator's shell: node snapshots of the members this process reaches.

Karmada runs a `karmada-scheduler-estimator` per member, a gRPC service with its own watch of the
member's nodes and pods. Flotilla's hub process already watches them: the cluster status
collection reads every member's nodes and unfinished pods from the process's member informers
(`MemberInformers.cache`) for the resource summary. `MemberNodeSnapshots` asks for the very same
informers — same kinds, same field selector, so one watch of each serves both — and turns their
caches into the pure estimator's input (`core.noderesources.NodeRoom`s), so the estimator costs no
extra service and no extra watch.

- Only clusters this process reaches are sized (Push members in the controller manager); any other
  cluster, or one whose credentials are unusable, gets no snapshot, so the accurate estimator
  answers `UNAUTHENTIC` for it and the general estimator alone decides, as Karmada does when an
  estimator cannot be reached.
- A member whose informers have not listed yet is waited for, but only until
  `sync_timeout` (Karmada's `--scheduler-estimator-timeout`) after its informers were first asked
  for: a member that cannot be listed costs one bounded wait, not one per scheduling round.
- Snapshots are rebuilt only when an informer's resourceVersion moved, and a pod's requests are
  recomputed only when that pod changed, so sizing a busy member for every binding stays cheap.
  The informers themselves are asked for again (which builds the member's client config) only
  when the Cluster object changed or an informer was stopped — replaced for new credentials, or
  dropped with its cluster.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from flotilla.api.objectkeys import ObjectKey
from flotilla.api.scheme import GroupVersionKind
from flotilla.client.informer import Informer
from flotilla.runtime.hubcontroller import MemberInformers
from flotilla.runtime.members import MemberCredentialsError
from flotilla.scheduler.core.noderesources import (
    NodeResourceEstimator,
    NodeRoom,
    PodUsage,
    node_rooms,
    pod_usage,
)

NODE = GroupVersionKind("", "v1", "Node")
POD = GroupVersionKind("", "v1", "Pod")
UNFINISHED_PODS = "status.phase!=Succeeded,status.phase!=Failed"
"""The pods the status collection watches too (`controllers/cluster/probe.py`): the same selection
keys the same shared informer."""


class SyncWindow:
    """Waits for a member's informers to list, but at most `timeout` after they were first waited for.

    A member that cannot be listed (unreachable, no permission) would otherwise hold every caller
    for the whole timeout, round after round; here only the first callers wait, and later ones get
    "not synced" at once until the informers list (or are replaced, which opens a new window).
    """

    def __init__(self, timeout: float) -> None:
        self._timeout = timeout
        self._opened: dict[str, tuple[tuple[Informer, ...], float]] = {}

    async def synced(self, member: str, *informers: Informer) -> bool:
        """Whether all `informers` of `member` have listed, waiting out what is left of its window."""
        if all(informer.synced for informer in informers):
            self._opened.pop(member, None)
            return True
        now = asyncio.get_running_loop().time()
        opened = self._opened.get(member)
        if (
            opened is None
            or len(opened[0]) != len(informers)
            or any(mine is not theirs for mine, theirs in zip(opened[0], informers, strict=True))
        ):
            opened = self._opened[member] = (informers, now)
        remaining = opened[1] + self._timeout - now
        if remaining <= 0:
            return False
        try:
            async with asyncio.timeout(remaining):
                await asyncio.gather(*(informer.wait_synced() for informer in informers))
        except TimeoutError:
            return False
        return True


@dataclass(slots=True)
class _Snapshot:
    """One member's rooms, and what they were built from."""

    nodes: Informer
    pods: Informer
    cluster_version: str = ""
    versions: tuple[str, str] | None = None
    usages: dict[ObjectKey, tuple[str, PodUsage | None]] = field(default_factory=dict)
    rooms: tuple[NodeRoom, ...] = ()


class MemberNodeSnapshots:
    """Node snapshots of members, from the process's shared member informers."""

    def __init__(
        self,
        informers: MemberInformers,
        cluster_of: Callable[[str], Mapping[str, Any] | None],
        *,
        reaches: Callable[[Mapping[str, Any]], bool],
        sync_timeout: float = 3.0,
    ) -> None:
        self._informers = informers
        self._cluster_of = cluster_of
        self._reaches = reaches
        self._window = SyncWindow(sync_timeout)
        self._snapshots: dict[str, _Snapshot] = {}

    async def estimator(self, cluster_names: Iterable[str]) -> NodeResourceEstimator:
        """The accurate estimator over the snapshots of those of `cluster_names` that can be read."""
        members: dict[str, tuple[NodeRoom, ...]] = {}
        for name in cluster_names:
            rooms = await self.rooms(name)
            if rooms is not None:
                members[name] = rooms
        return NodeResourceEstimator(members)

    async def rooms(self, cluster_name: str) -> tuple[NodeRoom, ...] | None:
        """The member's nodes with what their pods take, or None when they cannot be known now."""
        cluster = self._cluster_of(cluster_name)
        if cluster is None or not self._reaches(cluster):
            self._snapshots.pop(cluster_name, None)
            return None
        snapshot = await self._snapshot(cluster_name, cluster)
        if snapshot is None or not await self._window.synced(cluster_name, snapshot.nodes, snapshot.pods):
            return None
        return _current(snapshot)

    async def _snapshot(self, name: str, cluster: Mapping[str, Any]) -> _Snapshot | None:
        """The member's snapshot, on the informers `MemberInformers` holds for it now."""
        version = str((cluster.get("metadata") or {}).get("resourceVersion") or "")
        snapshot = self._snapshots.get(name)
        if (
            snapshot is not None
            and snapshot.cluster_version == version
            and snapshot.nodes.running
            and snapshot.pods.running
        ):
            return snapshot
        try:
            nodes = await self._informers.cache(cluster, NODE)
            pods = await self._informers.cache(cluster, POD, field_selector=UNFINISHED_PODS)
        except MemberCredentialsError:
            return None
        if snapshot is None or snapshot.nodes is not nodes or snapshot.pods is not pods:
            snapshot = self._snapshots[name] = _Snapshot(nodes, pods)
        snapshot.cluster_version = version
        return snapshot


def _current(snapshot: _Snapshot) -> tuple[NodeRoom, ...]:
    """The snapshot's rooms, rebuilt when its informers moved since they were built."""
    nodes, pods = snapshot.nodes, snapshot.pods
    versions = (nodes.resource_version, pods.resource_version)
    if snapshot.versions != versions:
        snapshot.usages = _pod_usages(pods, snapshot.usages)
        usages = (usage for _, usage in snapshot.usages.values() if usage is not None)
        snapshot.rooms = node_rooms(nodes.list(), usages)
        snapshot.versions = versions
    return snapshot.rooms


def _pod_usages(
    pods: Informer, previous: Mapping[ObjectKey, tuple[str, PodUsage | None]]
) -> dict[ObjectKey, tuple[str, PodUsage | None]]:
    """Every cached pod's usage, reusing the previous answer for a pod that has not changed."""
    usages: dict[ObjectKey, tuple[str, PodUsage | None]] = {}
    for key, pod in pods.store.items():
        version = str((pod.get("metadata") or {}).get("resourceVersion") or "")
        known = previous.get(key)
        usages[key] = known if known is not None and known[0] == version else (version, pod_usage(pod))
    return usages
