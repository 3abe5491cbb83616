"""Roles, ClusterRoles and their bindings validate with kube's RBAC rules."""

from __future__ import annotations

import copy
from typing import Any

from flotilla.api.scheme import GroupVersionKind
from tests.unit.apiserver.registry.validation.manifests import create_errors, meta, stored, update_errors

GROUP = "rbac.authorization.k8s.io"
ROLE = GroupVersionKind(GROUP, "v1", "Role")
CLUSTER_ROLE = GroupVersionKind(GROUP, "v1", "ClusterRole")
ROLE_BINDING = GroupVersionKind(GROUP, "v1", "RoleBinding")
CLUSTER_ROLE_BINDING = GroupVersionKind(GROUP, "v1", "ClusterRoleBinding")


def role(*rules: dict[str, Any]) -> dict[str, Any]:
    return {"metadata": meta("reader"), "rules": list(rules)}


def binding(**body: object) -> dict[str, object]:
    defaults = {
        "roleRef": {"kind": "Role", "name": "reader"},
        "subjects": [{"kind": "User", "name": "alice"}, {"kind": "ServiceAccount", "name": "ci"}],
    }
    return {"metadata": meta("read"), **defaults, **body}


def test_a_resource_rule_with_verbs_groups_and_resources_is_valid() -> None:
    """The ordinary read-only role passes."""
    assert create_errors(ROLE, role({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]})) == []


def test_rules_need_verbs_api_groups_and_resources() -> None:
    """Each missing list is Required with kube's sentence."""
    assert create_errors(ROLE, role({})) == [
        "rules[0].verbs: Required value: verbs must contain at least one value",
        "rules[0].apiGroups: Required value: resource rules must supply at least one api group",
        "rules[0].resources: Required value: resource rules must supply at least one resource",
    ]


def test_namespaced_roles_cannot_grant_non_resource_urls() -> None:
    """Non-resource URLs only make sense cluster-wide."""
    rule = {"verbs": ["get"], "nonResourceURLs": ["/healthz"]}
    assert create_errors(ROLE, role(rule)) == [
        'rules[0].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to '
        "non-resource URLs"
    ]
    cluster_role = {"metadata": meta("health", namespace=None), "rules": [rule]}
    assert create_errors(CLUSTER_ROLE, cluster_role) == []


def test_aggregation_rules_need_a_selector() -> None:
    """An aggregation rule without selectors is Required."""
    cluster_role = {"metadata": meta("agg", namespace=None), "aggregationRule": {"clusterRoleSelectors": []}}
    assert create_errors(CLUSTER_ROLE, cluster_role) == [
        "aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if "
        "aggregationRule is non-nil"
    ]


def test_bindings_default_their_api_groups_and_validate() -> None:
    """roleRef and user subjects get RBAC's group from defaulting."""
    assert create_errors(ROLE_BINDING, binding()) == []


def test_role_refs_must_name_a_role_kind() -> None:
    """A roleRef to a Deployment is NotSupported."""
    errors = create_errors(ROLE_BINDING, binding(roleRef={"kind": "Deployment", "name": "x"}))
    assert errors == [
        'roleRef.kind: Unsupported value: "Deployment": supported values: "Role", "ClusterRole"'
    ]


def test_cluster_role_bindings_only_bind_cluster_roles() -> None:
    """A ClusterRoleBinding cannot reference a Role, and its service accounts need a namespace."""
    manifest = binding(roleRef={"kind": "Role", "name": "reader"})
    manifest["metadata"] = meta("read", namespace=None)
    assert create_errors(CLUSTER_ROLE_BINDING, manifest) == [
        'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
        "subjects[1].namespace: Required value",
    ]


def test_subject_kinds_are_an_enum() -> None:
    """Robots are not subjects."""
    errors = create_errors(ROLE_BINDING, binding(subjects=[{"kind": "Robot", "name": "r2"}]))
    assert errors == [
        'subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'
    ]


def test_role_ref_cannot_change() -> None:
    """Re-pointing a binding is refused; kube requires delete and recreate."""
    old = stored(ROLE_BINDING, binding())
    new = copy.deepcopy(old)
    new["roleRef"]["name"] = "admin"
    assert update_errors(ROLE_BINDING, new, old) == [
        'roleRef: Invalid value: {"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"admin"}: '
        "cannot change roleRef"
    ]


def test_subjects_may_change() -> None:
    """Adding a subject is an ordinary update."""
    old = stored(ROLE_BINDING, binding())
    new = copy.deepcopy(old)
    new["subjects"].append({"kind": "Group", "name": "devs"})
    assert update_errors(ROLE_BINDING, new, old) == []
