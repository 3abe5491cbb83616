"""RBAC objects for tests: roles, bindings, subjects, and an authorizer over exactly those."""

from __future__ import annotations

from typing import Any

from flotilla.apiserver.authz.rbac import (
    CLUSTER_ROLE_BINDINGS,
    CLUSTER_ROLES,
    ROLE_BINDINGS,
    ROLES,
    RBACAuthorizer,
)
from flotilla.apiserver.store.watchcache import CachedObject, WatchCache
from flotilla.apiserver.users import UserInfo
from flotilla.storage.memory import MemoryBackend

RBAC = "rbac.authorization.k8s.io"
JANE = UserInfo("jane", ("system:authenticated",))
BOB = UserInfo("bob", ("system:authenticated", "devs"))
ROBOT = UserInfo("system:serviceaccount:a:robot", ("system:serviceaccounts", "system:authenticated"))
ADMIN = UserInfo("admin", ("system:masters",))

POD_READER = [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]
METRICS = [{"verbs": ["get"], "nonResourceURLs": ["/metrics"]}]


def role(name: str, namespace: str, rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "Role", "metadata": {"name": name, "namespace": namespace}, "rules": rules}


def cluster_role(name: str, rules: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "ClusterRole", "metadata": {"name": name}, "rules": rules}


def user(name: str) -> dict[str, str]:
    return {"kind": "User", "apiGroup": RBAC, "name": name}


def group(name: str) -> dict[str, str]:
    return {"kind": "Group", "apiGroup": RBAC, "name": name}


def binding(
    name: str, namespace: str, role_kind: str, role_name: str, *subjects: dict[str, str]
) -> dict[str, Any]:
    meta: dict[str, str] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {
        "kind": "RoleBinding" if namespace else "ClusterRoleBinding",
        "metadata": meta,
        "roleRef": {"apiGroup": RBAC, "kind": role_kind, "name": role_name},
        "subjects": list(subjects),
    }


def authorizer(*objects: dict[str, Any]) -> RBACAuthorizer:
    """An authorizer over a watch cache holding exactly `objects`."""
    cache = WatchCache(MemoryBackend())
    prefixes = {"Role": ROLES, "ClusterRole": CLUSTER_ROLES}
    prefixes |= {"RoleBinding": ROLE_BINDINGS, "ClusterRoleBinding": CLUSTER_ROLE_BINDINGS}
    for revision, obj in enumerate(objects, start=1):
        meta = obj["metadata"]
        namespace = meta.get("namespace", "")
        prefix = prefixes[obj["kind"]]
        key = f"{prefix}{namespace}/{meta['name']}" if namespace else f"{prefix}{meta['name']}"
        cache.bucket(prefix).put(CachedObject(key, namespace, meta["name"], revision, obj))
    return RBACAuthorizer(cache)
