"""The RBAC authorizer: who gets which rules through which bindings, and where."""

from __future__ import annotations

import pytest

from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.authz.rules import PolicyRule
from flotilla.apiserver.users import UserInfo
from tests.unit.apiserver.authz.policy import (
    ADMIN,
    BOB,
    JANE,
    METRICS,
    POD_READER,
    RBAC,
    ROBOT,
    authorizer,
    binding,
    cluster_role,
    group,
    role,
    user,
)


def ask(
    who: UserInfo, verb: str, resource: str, namespace: str = "", name: str = ""
) -> AuthorizationAttributes:
    return AuthorizationAttributes(who, verb, True, "", "v1", resource, "", namespace, name)


def ask_path(who: UserInfo, path: str) -> AuthorizationAttributes:
    return AuthorizationAttributes(who, "get", False, path=path)


def test_a_role_binding_grants_its_role_only_in_its_namespace() -> None:
    """jane can list pods in a, not in b, not across all namespaces."""
    rbac = authorizer(
        role("pod-reader", "a", POD_READER), binding("jane", "a", "Role", "pod-reader", user("jane"))
    )
    assert rbac.authorize(ask(JANE, "list", "pods", "a")).allowed
    assert not rbac.authorize(ask(JANE, "list", "pods", "b")).allowed
    assert not rbac.authorize(ask(JANE, "list", "pods")).allowed
    assert not rbac.authorize(ask(JANE, "delete", "pods", "a", "p")).allowed


def test_a_role_binding_may_refer_to_a_cluster_role_within_its_namespace() -> None:
    """A ClusterRole bound by a RoleBinding grants its rules there only."""
    rbac = authorizer(
        cluster_role("reader", POD_READER), binding("r", "a", "ClusterRole", "reader", user("jane"))
    )
    assert rbac.authorize(ask(JANE, "get", "pods", "a", "p")).allowed
    assert not rbac.authorize(ask(JANE, "get", "pods", "b", "p")).allowed


def test_a_role_binding_never_grants_non_resource_urls() -> None:
    """Paths are cluster-wide: only a ClusterRoleBinding grants them."""
    local = authorizer(
        cluster_role("metrics", METRICS), binding("m", "a", "ClusterRole", "metrics", user("jane"))
    )
    assert not local.authorize(ask_path(JANE, "/metrics")).allowed
    cluster = authorizer(
        cluster_role("metrics", METRICS), binding("m", "", "ClusterRole", "metrics", user("jane"))
    )
    assert cluster.authorize(ask_path(JANE, "/metrics")).allowed


def test_a_cluster_role_binding_grants_everywhere_and_at_cluster_scope() -> None:
    """Every namespace, and requests without one."""
    rbac = authorizer(
        cluster_role("reader", POD_READER), binding("r", "", "ClusterRole", "reader", user("jane"))
    )
    for namespace in ("a", "b", ""):
        assert rbac.authorize(ask(JANE, "list", "pods", namespace)).allowed


def test_groups_are_subjects_too() -> None:
    """bob is in devs; jane is not."""
    rbac = authorizer(
        cluster_role("reader", POD_READER), binding("r", "", "ClusterRole", "reader", group("devs"))
    )
    assert rbac.authorize(ask(BOB, "list", "pods", "a")).allowed
    assert not rbac.authorize(ask(JANE, "list", "pods", "a")).allowed


def test_service_account_subjects_match_their_user_name_and_default_to_the_binding_namespace() -> None:
    """A RoleBinding's ServiceAccount subject without namespace is the binding's own namespace."""
    local = {"kind": "ServiceAccount", "name": "robot"}
    elsewhere = {"kind": "ServiceAccount", "name": "robot", "namespace": "b"}
    rbac = authorizer(
        role("pod-reader", "a", POD_READER),
        role("pod-reader", "b", POD_READER),
        binding("robot", "a", "Role", "pod-reader", local),
        binding("robot", "b", "Role", "pod-reader", elsewhere),
    )
    assert rbac.authorize(ask(ROBOT, "list", "pods", "a")).allowed
    assert not rbac.authorize(ask(ROBOT, "list", "pods", "b")).allowed


def test_masters_are_allowed_everything_without_rules() -> None:
    """system:masters bypasses RBAC entirely, as in kube-apiserver."""
    rbac = authorizer()
    assert rbac.authorize(ask(ADMIN, "delete", "nodes", name="n")).allowed
    assert rbac.authorize(ask_path(ADMIN, "/metrics")).allowed
    assert not rbac.authorize(ask(JANE, "get", "nodes", name="n")).allowed


def test_the_reason_names_the_binding_that_allowed_the_request() -> None:
    """kube's wording: RBAC: allowed by RoleBinding "name/namespace" of Role "role" to User "name"."""
    rbac = authorizer(
        role("pod-reader", "a", POD_READER), binding("jane", "a", "Role", "pod-reader", user("jane"))
    )
    decision = rbac.authorize(ask(JANE, "list", "pods", "a"))
    assert decision.reason == 'RBAC: allowed by RoleBinding "jane/a" of Role "pod-reader" to User "jane"'


def test_a_binding_to_a_missing_role_grants_nothing_and_says_why() -> None:
    """The denial's reason names the role that was not found."""
    rbac = authorizer(binding("jane", "a", "Role", "ghost", user("jane")))
    decision = rbac.authorize(ask(JANE, "list", "pods", "a"))
    assert not decision.allowed
    assert decision.reason == 'RBAC: role.rbac.authorization.k8s.io "ghost" not found'


def test_rules_for_lists_cluster_and_namespace_rules_once_per_binding() -> None:
    """A binding naming both the user and one of its groups contributes its rules once."""
    rbac = authorizer(
        cluster_role("metrics", METRICS),
        role("pod-reader", "a", POD_READER),
        binding("m", "", "ClusterRole", "metrics", user("bob"), group("devs")),
        binding("r", "a", "Role", "pod-reader", group("devs")),
    )
    rules, problems = rbac.rules_for(BOB, "a")
    assert rules == [PolicyRule.from_json(METRICS[0]), PolicyRule.from_json(POD_READER[0])]
    assert problems == []
    assert rbac.rules_for(BOB, "b")[0] == [PolicyRule.from_json(METRICS[0])]


@pytest.mark.parametrize("kind", ["Role", "ClusterRole"])
def test_role_reference_rules_resolve_roles_in_the_binding_namespace(kind: str) -> None:
    """A Role is looked up in the binding's namespace; a ClusterRole anywhere; missing is None."""
    rbac = authorizer(role("x", "a", POD_READER), cluster_role("x", POD_READER))
    ref = {"apiGroup": RBAC, "kind": kind, "name": "x"}
    assert rbac.role_reference_rules(ref, "a") == (PolicyRule.from_json(POD_READER[0]),)
    assert (rbac.role_reference_rules(ref, "b") is None) is (kind == "Role")
