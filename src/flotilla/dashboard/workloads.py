"""Workloads as the dashboard lists them, computed from ResourceBindings: pure functions, no I/O.

Each resource template that a policy claimed has a ResourceBinding on the hub; its spec says where
the replicas go (`spec.clusters`) and its status how each member is doing (`aggregatedStatus`), so
one list of bindings answers the workload page and the overview's "workloads by state" without
reading the members. The state of a workload is one of:

- `unscheduled`: the scheduler has not placed it (no `Scheduled=True`), e.g. no cluster fits;
- `failed`: a member refused it (`applied: false`) or reports it unhealthy;
- `ready`: placed, fully applied and healthy on every target cluster;
- `progressing`: anything in between (dispatching, rolling out, health not reported yet).

Filtering and paging happen here, server-side, so a fleet of 10,000 workloads sends the browser one
page of rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from flotilla.api.karmada import constants

Object = Mapping[str, Any]

STATES = ("ready", "progressing", "failed", "unscheduled")
MAX_PAGE_SIZE = 500


def _condition(obj: Object, kind: str) -> Mapping[str, Any]:
    for condition in (obj.get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return dict(condition)
    return {}


def compact_binding(binding: Object) -> dict[str, Any]:
    """The fields of a ResourceBinding the dashboard reads, and nothing else: what a session keeps of
    10,000 bindings is then a fraction of the objects (no managedFields, no members' status bodies)."""
    meta = binding.get("metadata") or {}
    spec = binding.get("spec") or {}
    status = binding.get("status") or {}
    return {
        "metadata": {
            "name": meta.get("name", ""),
            "namespace": meta.get("namespace", ""),
            "annotations": {
                key: value
                for key, value in (meta.get("annotations") or {}).items()
                if key
                in (
                    constants.PROPAGATION_POLICY_NAME_ANNOTATION,
                    constants.PROPAGATION_POLICY_NAMESPACE_ANNOTATION,
                    constants.CLUSTER_PROPAGATION_POLICY_NAME_ANNOTATION,
                )
            },
            "labels": {
                key: value
                for key, value in (meta.get("labels") or {}).items()
                if key == constants.RESOURCE_BINDING_PERMANENT_ID_LABEL
            },
        },
        "spec": {
            "resource": spec.get("resource") or {},
            "replicas": spec.get("replicas"),
            "clusters": spec.get("clusters") or [],
        },
        "status": {
            "conditions": [
                {"type": item.get("type"), "status": item.get("status")}
                for item in status.get("conditions") or []
                if item.get("type") in (constants.CONDITION_SCHEDULED, constants.CONDITION_FULLY_APPLIED)
            ],
            "aggregatedStatus": [
                {
                    "clusterName": item.get("clusterName"),
                    "applied": item.get("applied"),
                    "health": item.get("health"),
                    "appliedMessage": item.get("appliedMessage", ""),
                }
                for item in status.get("aggregatedStatus") or []
            ],
        },
    }


def workload_state(binding: Object) -> str:
    """One of STATES for a ResourceBinding (see the module's docstring)."""
    scheduled = _condition(binding, constants.CONDITION_SCHEDULED)
    targets = (binding.get("spec") or {}).get("clusters") or []
    if scheduled.get("status") != "True" or not targets:
        return "unscheduled"
    statuses = (binding.get("status") or {}).get("aggregatedStatus") or []
    if any(item.get("applied") is False or item.get("health") == "Unhealthy" for item in statuses):
        return "failed"
    by_cluster = {item.get("clusterName"): item for item in statuses}
    fully_applied = _condition(binding, constants.CONDITION_FULLY_APPLIED).get("status") == "True"
    healthy = all((by_cluster.get(target.get("name")) or {}).get("health") == "Healthy" for target in targets)
    return "ready" if fully_applied and healthy else "progressing"


def policy_of(binding: Object) -> str:
    """The claiming policy: `namespace/name` of a PropagationPolicy, `name` of a ClusterPropagationPolicy."""
    annotations = (binding.get("metadata") or {}).get("annotations") or {}
    name = annotations.get(constants.PROPAGATION_POLICY_NAME_ANNOTATION)
    if name:
        return f"{annotations.get(constants.PROPAGATION_POLICY_NAMESPACE_ANNOTATION, '')}/{name}"
    return str(annotations.get(constants.CLUSTER_PROPAGATION_POLICY_NAME_ANNOTATION, ""))


def workload_row(binding: Object) -> dict[str, Any]:
    """One row of the workload list: the template, its policy, its split and each member's status."""
    meta = binding.get("metadata") or {}
    spec = binding.get("spec") or {}
    resource = spec.get("resource") or {}
    statuses = {
        item.get("clusterName"): item for item in (binding.get("status") or {}).get("aggregatedStatus") or []
    }
    clusters = []
    for target in spec.get("clusters") or []:
        item = statuses.get(target.get("name")) or {}
        clusters.append(
            {
                "name": target.get("name", ""),
                "replicas": target.get("replicas"),
                "applied": item.get("applied"),
                "health": item.get("health", ""),
                "message": item.get("appliedMessage", ""),
            }
        )
    return {
        "namespace": resource.get("namespace", meta.get("namespace", "")),
        "name": resource.get("name", ""),
        "kind": resource.get("kind", ""),
        "apiVersion": resource.get("apiVersion", ""),
        "binding": meta.get("name", ""),
        "replicas": spec.get("replicas"),
        "policy": policy_of(binding),
        "state": workload_state(binding),
        "clusters": clusters,
    }


def states_count(bindings: Iterable[Object]) -> dict[str, int]:
    counted = Counter(workload_state(binding) for binding in bindings)
    return {state: counted[state] for state in STATES}


@dataclass(frozen=True, slots=True)
class WorkloadFilter:
    """What the workload list asks for: every field optional; `search` matches a name's substring."""

    namespace: str = ""
    kind: str = ""
    state: str = ""
    cluster: str = ""
    search: str = ""

    def matches(self, binding: Object) -> bool:
        resource = (binding.get("spec") or {}).get("resource") or {}
        if self.namespace and resource.get("namespace") != self.namespace:
            return False
        if self.kind and resource.get("kind") != self.kind:
            return False
        if self.search and self.search not in str(resource.get("name", "")):
            return False
        if self.cluster and all(
            target.get("name") != self.cluster for target in (binding.get("spec") or {}).get("clusters") or []
        ):
            return False
        return not self.state or workload_state(binding) == self.state


def page_of(rows: Sequence[Object], offset: int, limit: int) -> tuple[list[Object], int | None]:
    """`limit` rows from `offset`, and the offset of the next page (None at the end)."""
    limit = max(1, min(limit, MAX_PAGE_SIZE))
    offset = max(0, offset)
    chosen = list(rows[offset : offset + limit])
    following = offset + limit
    return chosen, following if following < len(rows) else None


def bindings_by_policy(bindings: Iterable[Object]) -> dict[str, list[Object]]:
    """The bindings grouped by the policy that claimed them (one pass, for every policy row)."""
    grouped: dict[str, list[Object]] = {}
    for binding in bindings:
        grouped.setdefault(policy_of(binding), []).append(binding)
    return grouped


def policy_row(policy: Object, claimed: Mapping[str, Sequence[Object]]) -> dict[str, Any]:
    """A (Cluster)PropagationPolicy or (Cluster)OverridePolicy with the clusters and resources it
    touches (`claimed`: `bindings_by_policy` of the hub's bindings)."""
    meta = policy.get("metadata") or {}
    spec = policy.get("spec") or {}
    kind = str(policy.get("kind", ""))
    key = f"{meta.get('namespace', '')}/{meta.get('name', '')}" if meta.get("namespace") else meta.get("name")
    touched_resources = []
    touched_clusters: set[str] = set()
    if kind.endswith("PropagationPolicy"):
        for binding in claimed.get(str(key), ()):
            resource = (binding.get("spec") or {}).get("resource") or {}
            touched_resources.append(f"{resource.get('kind')}/{resource.get('name')}")
            touched_clusters.update(
                target.get("name", "") for target in (binding.get("spec") or {}).get("clusters") or []
            )
    affinity = (spec.get("placement") or {}).get("clusterAffinity") or {}
    return {
        "kind": kind,
        "namespace": meta.get("namespace", ""),
        "name": meta.get("name", ""),
        "selectors": [
            f"{item.get('kind', '')}/{item.get('name') or '*'}"
            for item in spec.get("resourceSelectors") or []
        ],
        "clusterNames": list(affinity.get("clusterNames") or []),
        "resources": touched_resources[:50],
        "resourceCount": len(touched_resources),
        "clusters": sorted(touched_clusters),
    }
