"""Reconciling the bootstrap policy: created at start, repaired additively, opted out by annotation."""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver.authz.bootstrappolicy import (
    AUTOUPDATE,
    CLUSTER_ROLE_BINDINGS,
    CLUSTER_ROLES,
)
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.housekeeping.rbacbootstrap import (
    ensure_bootstrap_policy,
    reconcile_binding,
    reconcile_role,
)

RBAC = "rbac.authorization.k8s.io"
CLUSTER_ROLE = GroupVersionKind(RBAC, "v1", "ClusterRole")
CLUSTER_ROLE_BINDING = GroupVersionKind(RBAC, "v1", "ClusterRoleBinding")
BINDING = "ClusterRoleBinding"


def default(name: str, kind: str = "ClusterRole") -> dict[str, Any]:
    """A private copy of the bootstrap object of that kind and name."""
    found = next(
        o
        for o in (*CLUSTER_ROLES, *CLUSTER_ROLE_BINDINGS)
        if (o["kind"], o["metadata"]["name"]) == (kind, name)
    )
    return copy.deepcopy(found)


def test_a_role_that_lost_a_default_permission_gets_it_back_and_keeps_its_own() -> None:
    """Reconciling is additive: the admin's extra rule stays, the missing default rule returns."""
    existing = default("system:basic-user")
    extra = {"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}
    existing["rules"] = [extra]
    reconciled = reconcile_role(existing, default("system:basic-user"))
    assert reconciled is not None
    assert (
        reconciled["rules"][0] == extra and reconciled["rules"][1:] == default("system:basic-user")["rules"]
    )


def test_a_role_with_everything_is_left_alone() -> None:
    """Nothing missing: no write."""
    assert reconcile_role(default("system:discovery"), default("system:discovery")) is None


def test_autoupdate_false_opts_a_role_out() -> None:
    """An administrator's `autoupdate: "false"` keeps their version."""
    existing = default("system:basic-user")
    existing["rules"] = []
    existing["metadata"]["annotations"] = {AUTOUPDATE: "false"}
    assert reconcile_role(existing, default("system:basic-user")) is None


def test_an_aggregated_role_gets_its_selector_back_but_keeps_its_rules() -> None:
    """Rules of aggregated roles are the aggregation controller's; the selector is the default's."""
    existing = default("view")
    existing["aggregationRule"] = {"clusterRoleSelectors": []}
    existing["rules"] = [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]
    reconciled = reconcile_role(existing, default("view"))
    assert reconciled is not None
    assert reconciled["aggregationRule"] == default("view")["aggregationRule"]
    assert reconciled["rules"] == existing["rules"]


def test_a_binding_gets_back_lost_subjects_and_lost_labels() -> None:
    """Subjects are added, not replaced; bootstrap labels return."""
    existing = default("system:public-info-viewer", BINDING)
    mine = {"kind": "User", "apiGroup": RBAC, "name": "jane"}
    existing["subjects"] = [mine]
    existing["metadata"]["labels"] = {}
    reconciled = reconcile_binding(existing, default("system:public-info-viewer", BINDING))
    assert reconciled is not None
    assert reconciled["subjects"][0] == mine and len(reconciled["subjects"]) == 3
    assert reconciled["metadata"]["labels"] == {"kubernetes.io/bootstrapping": "rbac-defaults"}


async def test_restarting_restores_deleted_and_damaged_defaults(api: EmbeddedAPI) -> None:
    """A deleted role comes back; a binding whose roleRef was changed is recreated."""
    client = api.client("test")
    await client.delete(CLUSTER_ROLE, "system:basic-user")
    await client.delete(CLUSTER_ROLE_BINDING, "system:discovery")
    damaged = default("system:discovery", BINDING)
    damaged["roleRef"]["name"] = "view"
    await client.create(CLUSTER_ROLE_BINDING, damaged)
    await ensure_bootstrap_policy(api.context)
    assert client.peek(CLUSTER_ROLE, "system:basic-user") is not None
    restored = client.peek(CLUSTER_ROLE_BINDING, "system:discovery")
    assert restored is not None and restored["roleRef"]["name"] == "system:discovery"
