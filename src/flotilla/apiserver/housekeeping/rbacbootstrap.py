"""Bring the bootstrap RBAC policy into the store at every start, as kube-apiserver does.

`ensure_bootstrap_policy` runs once when the API server starts, after the default namespaces exist
and before the first request. Missing roles and bindings are created. Existing ones are reconciled
the way kube reconciles them, additively, unless an administrator opted out by setting the
annotation `rbac.authorization.kubernetes.io/autoupdate: "false"`:

- a role gets back the bootstrap labels and annotations it lost, and any default permission its
  rules no longer cover (permissions an administrator added are kept); an aggregated ClusterRole
  gets back its selectors, its rules being the aggregation controller's business;
- a binding gets back the default subjects it lost; one whose `roleRef` differs (immutable) is
  deleted and created again.

`reconcile_role` and `reconcile_binding` are pure: they answer the object to write, or None.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.authz.bootstrappolicy import (
    API_VERSION,
    AUTOUPDATE,
    CLUSTER_ROLE_BINDINGS,
    CLUSTER_ROLES,
    NAMESPACED_ROLE_BINDINGS,
    NAMESPACED_ROLES,
)
from flotilla.apiserver.authz.rbac import RBAC_GROUP
from flotilla.apiserver.authz.rules import rules_from_json, uncovered
from flotilla.apiserver.context import APIContext
from flotilla.apiserver.localclient import LocalClient

MANAGER = "flotilla-rbac-bootstrap"


def _autoupdate(existing: dict[str, Any]) -> bool:
    annotations = (existing.get("metadata") or {}).get("annotations") or {}
    return annotations.get(AUTOUPDATE) != "false"


def _merge_metadata(existing: dict[str, Any], default: dict[str, Any]) -> bool:
    """Add the default labels and annotations the existing object lacks; True if any was added."""
    changed = False
    meta = existing.setdefault("metadata", {})
    for field in ("labels", "annotations"):
        wanted = default["metadata"].get(field) or {}
        current = meta.get(field) or {}
        missing = {key: value for key, value in wanted.items() if key not in current}
        if missing:
            meta[field] = {**current, **missing}
            changed = True
    return changed


def reconcile_role(existing: dict[str, Any], default: dict[str, Any]) -> dict[str, Any] | None:
    """The existing role with what the default adds (a private copy), or None if nothing is missing."""
    if not _autoupdate(existing):
        return None
    role = {**existing, "metadata": {**(existing.get("metadata") or {})}}
    changed = _merge_metadata(role, default)
    wanted_aggregation = default.get("aggregationRule")
    if wanted_aggregation is not None:
        selectors = list((role.get("aggregationRule") or {}).get("clusterRoleSelectors") or [])
        missing = [s for s in wanted_aggregation["clusterRoleSelectors"] if s not in selectors]
        if missing or role.get("aggregationRule") is None:
            role["aggregationRule"] = {"clusterRoleSelectors": selectors + missing}
            changed = True
    else:
        held = rules_from_json(role.get("rules"))
        lacking = [r for r in default["rules"] if uncovered(held, rules_from_json([r]))]
        if lacking:
            role["rules"] = list(role.get("rules") or []) + lacking
            changed = True
    return role if changed else None


def reconcile_binding(existing: dict[str, Any], default: dict[str, Any]) -> dict[str, Any] | None:
    """The existing binding with the default's missing subjects, or None if nothing is missing."""
    if not _autoupdate(existing):
        return None
    binding = {**existing, "metadata": {**(existing.get("metadata") or {})}}
    changed = _merge_metadata(binding, default)
    subjects = list(binding.get("subjects") or [])
    missing = [
        s for s in default.get("subjects") or [] if not any(_same_subject(s, have) for have in subjects)
    ]
    if missing:
        binding["subjects"] = subjects + missing
        changed = True
    return binding if changed else None


def _same_subject(left: dict[str, Any], right: dict[str, Any]) -> bool:
    return all(left.get(key, "") == right.get(key, "") for key in ("kind", "name", "namespace"))


def _same_role_ref(existing: dict[str, Any], default: dict[str, Any]) -> bool:
    current = existing.get("roleRef") or {}
    return all(current.get(key) == default["roleRef"][key] for key in ("apiGroup", "kind", "name"))


async def ensure_bootstrap_policy(ctx: APIContext) -> None:
    """Create or reconcile every bootstrap role, then every bootstrap binding."""
    client = LocalClient(ctx, MANAGER)
    for default in (*CLUSTER_ROLES, *NAMESPACED_ROLES):
        await _ensure(client, default, reconcile_role)
    for default in (*CLUSTER_ROLE_BINDINGS, *NAMESPACED_ROLE_BINDINGS):
        await _ensure(client, default, reconcile_binding)


Reconcile = Callable[[dict[str, Any], dict[str, Any]], dict[str, Any] | None]


async def _ensure(client: LocalClient, default: dict[str, Any], reconcile: Reconcile) -> None:
    gvk = GroupVersionKind(RBAC_GROUP, API_VERSION.rsplit("/", 1)[1], default["kind"])
    meta = default["metadata"]
    namespace, name = meta.get("namespace", ""), meta["name"]
    existing = client.peek(gvk, name, namespace=namespace)
    if existing is not None and "roleRef" in default and not _same_role_ref(existing, default):
        if not _autoupdate(existing):
            return
        await client.delete(gvk, name, namespace=namespace)
        existing = None
    if existing is None:
        # Another API server sharing the store may have created it meanwhile.
        with contextlib.suppress(errors.AlreadyExists):
            await client.create(gvk, default)
        return
    wanted = reconcile(existing, default)
    if wanted is not None:
        await client.update(gvk, wanted)
