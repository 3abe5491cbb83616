"""What to cache: from the ResourceRegistries and the Clusters, each (cluster, kind, namespace) to reflect.

A registry selects clusters with a ClusterAffinity (`spec.targetCluster`: names, exclusions, label
and field selectors, as a PropagationPolicy's placement does) and kinds with resource selectors
(`apiVersion`, `kind`, optionally one `namespace`). Several registries may select the same kind of
the same cluster: their namespaces add up, and one that selects every namespace wins. A registry
being deleted selects nothing. A cluster that is not Ready stays selected (its objects are kept, as
last seen, and marked); a Cluster that is gone is not.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.overrides.clusteraffinity import cluster_matches

ALL_NAMESPACES = ""


@dataclass(frozen=True, slots=True, order=True)
class Target:
    """One list-and-watch: a kind in a cluster, in one namespace or all (`ALL_NAMESPACES`)."""

    cluster: str
    gvk: GroupVersionKind
    namespace: str = ALL_NAMESPACES


def _name(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("name") or "")


def selected_kinds(registry: Mapping[str, Any]) -> list[tuple[GroupVersionKind, str]]:
    """(kind, namespace) of each well-formed resource selector of a registry."""
    found = []
    for selector in (registry.get("spec") or {}).get("resourceSelectors") or []:
        if not isinstance(selector, Mapping):
            continue
        api_version, kind = selector.get("apiVersion"), selector.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str) or not api_version or not kind:
            continue
        namespace = selector.get("namespace")
        found.append(
            (GroupVersionKind.parse(api_version, kind), namespace if isinstance(namespace, str) else "")
        )
    return found


def selected_clusters(registry: Mapping[str, Any], clusters: Iterable[Mapping[str, Any]]) -> list[str]:
    """The names of the clusters a registry's `spec.targetCluster` selects."""
    affinity = (registry.get("spec") or {}).get("targetCluster")
    affinity = affinity if isinstance(affinity, Mapping) else {}
    return sorted(
        _name(cluster) for cluster in clusters if _name(cluster) and cluster_matches(cluster, affinity)
    )


def plan(registries: Iterable[Mapping[str, Any]], clusters: Iterable[Mapping[str, Any]]) -> set[Target]:
    """Every list-and-watch the registries ask for, each namespace once (all of them when any asks)."""
    cluster_list = [
        cluster for cluster in clusters if not (cluster.get("metadata") or {}).get("deletionTimestamp")
    ]
    wanted: dict[tuple[str, GroupVersionKind], set[str]] = {}
    for registry in registries:
        if (registry.get("metadata") or {}).get("deletionTimestamp"):
            continue
        kinds = selected_kinds(registry)
        for cluster in selected_clusters(registry, cluster_list):
            for gvk, namespace in kinds:
                wanted.setdefault((cluster, gvk), set()).add(namespace)
    targets = set()
    for (cluster, gvk), namespaces in wanted.items():
        if ALL_NAMESPACES in namespaces:
            targets.add(Target(cluster, gvk))
        else:
            targets.update(Target(cluster, gvk, namespace) for namespace in namespaces)
    return targets
