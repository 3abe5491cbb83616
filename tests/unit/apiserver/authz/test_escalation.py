"""Escalation prevention: writing roles and bindings needs the permissions they grant."""

from __future__ import annotations

from typing import Any

import pytest

from flotilla.api.scheme import GroupVersionKind
from flotilla.apiserver import errors
from flotilla.apiserver.authz import Decision
from flotilla.apiserver.authz.escalation import check_rbac_write, only_gc_fields_changed
from flotilla.apiserver.authz.rbac import RBACAuthorizer
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.registry.resources import ResourceRegistry, ServedResource
from flotilla.apiserver.requestinfo import RequestInfo
from flotilla.apiserver.store.watchcache import CachedObject
from flotilla.apiserver.users import UserInfo
from flotilla.apiserver.writes.normalize import FieldValidation
from flotilla.apiserver.writes.pipeline import WriteOptions, create_object, update_flow
from tests.unit.apiserver.authz.policy import (
    ADMIN,
    JANE,
    POD_READER,
    RBAC,
    authorizer,
    binding,
    cluster_role,
    role,
    user,
)

REGISTRY = ResourceRegistry()
DELETE_PODS = [{"verbs": ["delete"], "apiGroups": [""], "resources": ["pods"]}]
RBAC_WRITER = [{"verbs": ["create", "update"], "apiGroups": [RBAC], "resources": ["roles", "rolebindings"]}]


def served(kind: str) -> ServedResource:
    found = REGISTRY.by_kind(GroupVersionKind(RBAC, "v1", kind))
    assert found is not None
    return found


def both(rbac: RBACAuthorizer) -> tuple[RBACAuthorizer, RBACAuthorizer]:
    """The RBAC authorizer as the request authorizer and as the rule resolver."""
    return rbac, rbac


def jane_holds(
    *rules: dict[str, Any], extra: tuple[dict[str, Any], ...] = ()
) -> tuple[RBACAuthorizer, RBACAuthorizer]:
    """An authorizer where jane holds `rules` (plus RBAC writing) in namespace a, twice (see `both`)."""
    return both(
        authorizer(
            role("jane", "a", [*RBAC_WRITER, *rules]),
            binding("jane", "a", "Role", "jane", user("jane")),
            *extra,
        )
    )


def test_a_role_within_the_writers_permissions_is_accepted() -> None:
    """jane reads pods in a, so she may create a Role that reads pods there."""
    check_rbac_write(*jane_holds(*POD_READER), served("Role"), role("r", "a", POD_READER), None, JANE)


def test_a_role_granting_more_than_the_writer_holds_is_forbidden_with_kube_wording() -> None:
    """The 403 names the writer, the groups, and each missing permission."""
    with pytest.raises(errors.Forbidden) as refused:
        check_rbac_write(*jane_holds(*POD_READER), served("Role"), role("r", "a", DELETE_PODS), None, JANE)
    assert refused.value.message == (
        'roles.rbac.authorization.k8s.io "r" is forbidden: user "jane" (groups=["system:authenticated"]) '
        "is attempting to grant RBAC permissions not currently held:\n"
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}'
    )


def test_permissions_in_another_namespace_do_not_count() -> None:
    """Holding pod reads in a does not allow a pod-reading Role in b."""
    with pytest.raises(errors.Forbidden):
        check_rbac_write(*jane_holds(*POD_READER), served("Role"), role("r", "b", POD_READER), None, JANE)


def test_the_escalate_verb_allows_granting_anything() -> None:
    """With `escalate` on roles, the rules are not compared."""
    escalate = {"verbs": ["escalate"], "apiGroups": [RBAC], "resources": ["roles"]}
    check_rbac_write(*jane_holds(escalate), served("Role"), role("r", "a", DELETE_PODS), None, JANE)


def test_masters_are_never_checked() -> None:
    """The admin and the API server's own writes bypass escalation checks."""
    check_rbac_write(*both(authorizer()), served("ClusterRole"), cluster_role("x", DELETE_PODS), None, ADMIN)


def test_an_aggregation_rule_needs_cluster_admin_authority() -> None:
    """Even a ClusterRole without rules may not aggregate unless its writer holds everything."""
    aggregated = {
        **cluster_role("agg", []),
        "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {}}]},
    }
    writer = cluster_role("w", [{"verbs": ["create"], "apiGroups": [RBAC], "resources": ["clusterroles"]}])
    rbac = authorizer(writer, binding("w", "", "ClusterRole", "w", user("jane")))
    with pytest.raises(
        errors.Forbidden, match="must have cluster-admin privileges to use the aggregationRule"
    ):
        check_rbac_write(rbac, rbac, served("ClusterRole"), aggregated, None, JANE)


def test_a_binding_to_a_role_the_writer_holds_is_accepted_and_to_more_is_forbidden() -> None:
    """Binding passes on what the writer has; a role with more is refused."""
    rbac, _ = jane_holds(
        *POD_READER, extra=(role("reader", "a", POD_READER), role("deleter", "a", DELETE_PODS))
    )
    check_rbac_write(
        rbac, rbac, served("RoleBinding"), binding("b", "a", "Role", "reader", user("bob")), None, JANE
    )
    with pytest.raises(errors.Forbidden) as refused:
        check_rbac_write(
            rbac, rbac, served("RoleBinding"), binding("b", "a", "Role", "deleter", user("bob")), None, JANE
        )
    assert refused.value.message.startswith(
        'rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "jane"'
    )


def test_the_bind_verb_on_the_named_role_allows_binding_it() -> None:
    """`bind` with the role's name in resourceNames suffices, whatever the role holds."""
    bind = {"verbs": ["bind"], "apiGroups": [RBAC], "resources": ["roles"], "resourceNames": ["deleter"]}
    rbac, _ = jane_holds(bind, extra=(role("deleter", "a", DELETE_PODS),))
    check_rbac_write(
        rbac, rbac, served("RoleBinding"), binding("b", "a", "Role", "deleter", user("bob")), None, JANE
    )


def test_a_binding_to_a_missing_role_is_not_found() -> None:
    """Without `bind`, the role must exist to be compared: 404 with the lister's wording."""
    with pytest.raises(errors.NotFound) as missing:
        check_rbac_write(
            *jane_holds(), served("RoleBinding"), binding("b", "a", "Role", "ghost", user("bob")), None, JANE
        )
    assert missing.value.message == 'role.rbac.authorization.k8s.io "ghost" not found'


def test_updates_that_only_touch_gc_fields_are_not_checked() -> None:
    """Adding an ownerReference to a role granting more than the writer holds is fine."""
    old = role("r", "a", DELETE_PODS)
    new = {**old, "metadata": {**old["metadata"], "ownerReferences": [{"uid": "u"}]}}
    assert only_gc_fields_changed(new, old)
    check_rbac_write(*jane_holds(), served("Role"), new, old, JANE)
    relabelled = {**old, "metadata": {**old["metadata"], "labels": {"x": "y"}}}
    with pytest.raises(errors.Forbidden):
        check_rbac_write(*jane_holds(), served("Role"), relabelled, old, JANE)


def test_other_kinds_are_not_checked() -> None:
    """Only the four RBAC kinds are guarded."""
    configmaps = REGISTRY.by_kind(GroupVersionKind("", "v1", "ConfigMap"))
    assert configmaps is not None
    check_rbac_write(
        *both(authorizer()), configmaps, {"metadata": {"name": "x", "namespace": "a"}}, None, JANE
    )


class Delegating:
    def __init__(self, inner: RBACAuthorizer) -> None:
        self.inner = inner

    def authorize(self, attributes: Any) -> Decision:
        return self.inner.authorize(attributes)


class AllowEverything:
    def authorize(self, attributes: Any) -> Decision:
        return Decision(True)


def test_an_authorizer_without_rules_still_decides_by_escalate_and_bind() -> None:
    """A non-RBAC authorizer that allows `escalate` lets the write through."""
    nobody = UserInfo("nobody")
    check_rbac_write(
        AllowEverything(), authorizer(), served("Role"), role("r", "a", DELETE_PODS), None, nobody
    )


async def test_the_write_pipeline_refuses_escalating_creates_and_updates(api: EmbeddedAPI) -> None:
    """Through create_object and update_flow, as every HTTP write goes: jane may not widen a role.

    The request authorizer is wrapped (as other components may do); rules still come from RBAC.
    """
    api.context.authorizer = Delegating(api.context.rbac)
    client = api.client("test")
    await client.create(GroupVersionKind("", "v1", "Namespace"), {"metadata": {"name": "a"}})
    rbac = "rbac.authorization.k8s.io/v1"
    await client.create(GroupVersionKind(RBAC, "v1", "Role"), {"apiVersion": rbac, **jane_role()})
    await client.create(
        GroupVersionKind(RBAC, "v1", "RoleBinding"),
        {"apiVersion": rbac, **binding("jane", "a", "Role", "jane", user("jane"))},
    )
    as_jane = WriteOptions(False, FieldValidation.IGNORE, "kubectl", user=JANE)
    reader = {"apiVersion": rbac, **role("reader", "a", POD_READER)}
    await create_object(api.context, served("Role"), reader, as_jane)
    with pytest.raises(errors.Forbidden):
        await create_object(
            api.context, served("Role"), {"apiVersion": rbac, **role("x", "a", DELETE_PODS)}, as_jane
        )

    def widen(current: CachedObject) -> dict[str, Any]:
        obj = current.copy()
        obj["rules"] = DELETE_PODS
        return obj

    info = RequestInfo(RBAC, "v1", "a", "roles", "reader", "", "update")
    with pytest.raises(errors.Forbidden):
        await update_flow(api.context, served("Role"), info, as_jane, widen)


def jane_role() -> dict[str, Any]:
    return role("jane", "a", [*RBAC_WRITER, *POD_READER])
