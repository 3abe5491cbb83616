"""The events and failover timeline: hub Events and cluster state changes as one list, newest first.

The hub's core/v1 Events say what controllers did (scheduled, applied, evicted, failed over). A
member going unreachable shows first on its Cluster: the Ready condition turns False or Unknown with
a new `lastTransitionTime`, and the taints follow. The timeline therefore merges both: every Event,
and one entry per Cluster condition transition (with the taints the cluster carries). Entries are
plain dicts with `time`, `type` (Normal / Warning), `reason`, `message`, `cluster`, `object`;
`matches` filters them by cluster and workload name, server-side.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from flotilla.api.karmada import constants

Object = Mapping[str, Any]

MAX_ENTRIES = 500


def _cluster_of_event(event: Object) -> str:
    involved = event.get("involvedObject") or {}
    if involved.get("kind") == "Cluster":
        return str(involved.get("name", ""))
    namespace = str(involved.get("namespace", ""))
    if namespace.startswith(constants.EXECUTION_NAMESPACE_PREFIX):
        return namespace.removeprefix(constants.EXECUTION_NAMESPACE_PREFIX)
    source = event.get("source") or {}
    return str(source.get("host", ""))


def event_entry(event: Object) -> dict[str, Any]:
    involved = event.get("involvedObject") or {}
    meta = event.get("metadata") or {}
    moment = (
        event.get("lastTimestamp")
        or event.get("eventTime")
        or event.get("firstTimestamp")
        or meta.get("creationTimestamp", "")
    )
    return {
        "time": moment,
        "type": event.get("type", "Normal"),
        "reason": event.get("reason", ""),
        "message": event.get("message", ""),
        "cluster": _cluster_of_event(event),
        "object": f"{involved.get('kind', '')}/{involved.get('name', '')}",
        "namespace": involved.get("namespace", ""),
        "count": event.get("count") or 1,
        "source": "event",
    }


def cluster_entries(cluster: Object) -> list[dict[str, Any]]:
    """An entry per condition of a Cluster, at its last transition: its current state and since when."""
    name = (cluster.get("metadata") or {}).get("name", "")
    taints = ", ".join(
        f"{t.get('key')}:{t.get('effect')}" for t in (cluster.get("spec") or {}).get("taints") or []
    )
    entries = []
    for condition in (cluster.get("status") or {}).get("conditions") or []:
        if condition.get("type") != constants.CLUSTER_CONDITION_READY:
            continue
        healthy = condition.get("status") == "True"
        message = condition.get("message", "")
        if taints and not healthy:
            message = f"{message} (taints: {taints})"
        entries.append(
            {
                "time": condition.get("lastTransitionTime", ""),
                "type": "Normal" if healthy else "Warning",
                "reason": f"Cluster{'Ready' if healthy else 'NotReady'}",
                "message": f"{condition.get('reason', '')}: {message}".strip(": "),
                "cluster": name,
                "object": f"Cluster/{name}",
                "namespace": "",
                "count": 1,
                "source": "cluster",
            }
        )
    return entries


def matches(entry: Object, cluster: str = "", workload: str = "") -> bool:
    if cluster and entry.get("cluster") != cluster:
        return False
    return (
        not workload or workload in str(entry.get("object", "")) or workload in str(entry.get("message", ""))
    )


def timeline(
    events: Iterable[Object], clusters: Iterable[Object], *, cluster: str = "", workload: str = ""
) -> list[dict[str, Any]]:
    """Every entry that matches, newest first, at most MAX_ENTRIES."""
    entries = [event_entry(event) for event in events]
    for item in clusters:
        entries.extend(cluster_entries(item))
    chosen = [entry for entry in entries if matches(entry, cluster, workload)]
    chosen.sort(key=lambda entry: str(entry.get("time") or ""), reverse=True)
    return chosen[:MAX_ENTRIES]
