"""Karmada's search.karmada.io names: the ResourceRegistry kind, the search API's paths, its annotation.

A ResourceRegistry (`spec.targetCluster`, `spec.resourceSelectors`) says which kinds of which member
clusters the hub caches; `/apis/search.karmada.io/v1alpha1/search/cache/<a Kubernetes path>` lists
and watches them across clusters, each object annotated with the cluster it came from
(`pkg/apis/search/v1alpha1`, `pkg/apis/cluster/v1alpha1/well_known_constants.go`).
"""

from __future__ import annotations

import enum

from flotilla.api.scheme import GroupResource, GroupVersionKind

SEARCH_GROUP = "search.karmada.io"
SEARCH_VERSION = "v1alpha1"
RESOURCE_REGISTRY = GroupVersionKind(SEARCH_GROUP, SEARCH_VERSION, "ResourceRegistry")
RESOURCE_REGISTRIES = GroupResource(SEARCH_GROUP, "resourceregistries")
SEARCH = GroupResource(SEARCH_GROUP, "search")
"""The resource whose `cache` object the search API hangs below: `search/cache/api/v1/pods`."""
CACHE_BACKEND = "cache"
"""The one backend Flotilla serves (Karmada also has `opensearch`)."""
NATIVE_PATH_ROOTS = ("api", "apis")
"""What follows `search/cache`: a Kubernetes path, which kube's request parser reads as the
subresource `api` or `apis` of `search/cache` (so RBAC grants `search/api` and `search/apis`)."""

CACHED_FROM_CLUSTER_ANNOTATION = "resource.karmada.io/cached-from-cluster"
"""On every object the search API answers with: the member cluster it was cached from."""


class ResourceRegistryCondition(enum.StrEnum):
    SYNCED = "Synced"
    """True once every selected kind of every selected cluster has been listed into the cache."""
    BACKEND_STORE = "BackendStore"
    """False when `spec.backendStore` asks for a store the hub does not serve (OpenSearch)."""


class ResourceRegistryReason(enum.StrEnum):
    CACHE_SYNCED = "CacheSynced"
    SYNCING = "Syncing"
    NO_CLUSTER_SELECTED = "NoClusterSelected"
    OPENSEARCH_NOT_SUPPORTED = "OpenSearchNotSupported"
