"""A ResourceRegistry's status conditions, from what its reflectors have done so far.

- `Synced`: True once every kind it selects in every cluster it selects has been listed into the
  cache (`CacheSynced`), the clusters that are not Ready named in the message (their objects are
  kept as last seen); False while one is still waiting for its first list (`Syncing`, naming it and
  its last error), or when no Cluster matches `spec.targetCluster` (`NoClusterSelected`).
- `BackendStore`: False (`OpenSearchNotSupported`) when `spec.backendStore.openSearch` is set: the
  hub serves the search API from its own cache and ignores it; absent otherwise.

Messages say which clusters and kinds, never counts that change by the second, so a registry's
status is written when something a reader cares about changed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from flotilla.api.karmada.search import ResourceRegistryCondition, ResourceRegistryReason
from flotilla.apiserver.search.targets import Target, plan, selected_clusters

Coverage = Callable[[Target], tuple[bool, str]]
"""Whether a target has been listed, and its last error ("" if none)."""

MAX_NAMED = 5


def _names(items: Iterable[str]) -> str:
    listed = sorted(items)
    shown = ", ".join(listed[:MAX_NAMED])
    return shown + (f" and {len(listed) - MAX_NAMED} more" if len(listed) > MAX_NAMED else "")


def synced_condition(
    registry: Mapping[str, Any],
    clusters: Sequence[Mapping[str, Any]],
    coverage: Coverage,
    not_ready: set[str],
) -> dict[str, Any]:
    generation = int((registry.get("metadata") or {}).get("generation") or 0)
    condition: dict[str, Any] = {
        "type": ResourceRegistryCondition.SYNCED.value,
        "observedGeneration": generation,
    }
    chosen = selected_clusters(registry, clusters)
    if not chosen:
        return {
            **condition,
            "status": "False",
            "reason": ResourceRegistryReason.NO_CLUSTER_SELECTED.value,
            "message": "no Cluster matches spec.targetCluster",
        }
    targets = sorted(plan([registry], clusters))
    waiting = []
    for target in targets:
        listed, error = coverage(target)
        if not listed:
            where = f"{target.gvk.kind} ({target.gvk.api_version}) of cluster {target.cluster}"
            if target.namespace:
                where += f" in namespace {target.namespace}"
            waiting.append(where + (f": {error}" if error else ""))
    if waiting:
        return {
            **condition,
            "status": "False",
            "reason": ResourceRegistryReason.SYNCING.value,
            "message": "waiting for the first list of "
            + "; ".join(waiting[:MAX_NAMED])
            + (f"; and {len(waiting) - MAX_NAMED} more" if len(waiting) > MAX_NAMED else ""),
        }
    kinds = {f"{target.gvk.kind} ({target.gvk.api_version})" for target in targets}
    message = f"{_names(kinds)} of {_names(chosen)} cached"
    stale = not_ready.intersection(chosen)
    if stale:
        message += f"; not Ready, their objects as last seen: {_names(stale)}"
    return {
        **condition,
        "status": "True",
        "reason": ResourceRegistryReason.CACHE_SYNCED.value,
        "message": message,
    }


def backend_store_condition(registry: Mapping[str, Any]) -> dict[str, Any] | None:
    backend = (registry.get("spec") or {}).get("backendStore")
    if not isinstance(backend, Mapping) or not backend.get("openSearch"):
        return None
    generation = int((registry.get("metadata") or {}).get("generation") or 0)
    return {
        "type": ResourceRegistryCondition.BACKEND_STORE.value,
        "status": "False",
        "reason": ResourceRegistryReason.OPENSEARCH_NOT_SUPPORTED.value,
        "message": "spec.backendStore.openSearch is ignored: the hub serves the search API from its own "
        "cache (search/cache)",
        "observedGeneration": generation,
    }
