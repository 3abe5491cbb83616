"""The default RBAC policy: consistent, and granting anonymous and plain users what kube grants them."""

from __future__ import annotations

import pytest

from flotilla.apiserver.authz import AuthorizationAttributes
from flotilla.apiserver.authz.bootstrappolicy import (
    CLUSTER_ROLE_BINDINGS,
    CLUSTER_ROLES,
    NAMESPACED_ROLE_BINDINGS,
    NAMESPACED_ROLES,
)
from flotilla.apiserver.embedded import EmbeddedAPI
from flotilla.apiserver.users import ANONYMOUS, UserInfo

JANE = UserInfo("jane", ("system:authenticated",))
PUBLIC, INFO = "kube-public", "cluster-info"
AUTHZ, AUTHN = "authorization.k8s.io", "authentication.k8s.io"


def test_every_binding_refers_to_a_bootstrap_role() -> None:
    """No default binding points at a role the defaults do not create."""
    roles = {(r["kind"], r["metadata"]["name"]) for r in (*CLUSTER_ROLES, *NAMESPACED_ROLES)}
    for binding in (*CLUSTER_ROLE_BINDINGS, *NAMESPACED_ROLE_BINDINGS):
        assert (binding["roleRef"]["kind"], binding["roleRef"]["name"]) in roles


def path(who: UserInfo, verb: str, where: str) -> AuthorizationAttributes:
    return AuthorizationAttributes(who, verb, False, path=where)


def resource(
    who: UserInfo, verb: str, group: str, plural: str, namespace: str = "", name: str = ""
) -> AuthorizationAttributes:
    return AuthorizationAttributes(who, verb, True, group, "v1", plural, "", namespace, name)


CASES = [
    ("anonymous may read /healthz", path(ANONYMOUS, "get", "/healthz"), True),
    ("anonymous may read /version", path(ANONYMOUS, "get", "/version"), True),
    ("anonymous may not read /healthz/etcd", path(ANONYMOUS, "get", "/healthz/etcd"), False),
    ("anonymous may not discover /api", path(ANONYMOUS, "get", "/api"), False),
    ("anonymous may get cluster-info", resource(ANONYMOUS, "get", "", "configmaps", PUBLIC, INFO), True),
    ("anonymous may not list kube-public", resource(ANONYMOUS, "list", "", "configmaps", PUBLIC), False),
    ("anonymous may not ask can-i", resource(ANONYMOUS, "create", AUTHZ, "selfsubjectaccessreviews"), False),
    ("users may discover /apis/apps", path(JANE, "get", "/apis/apps"), True),
    ("users may read /openapi/v3", path(JANE, "get", "/openapi/v3"), True),
    ("users may ask can-i", resource(JANE, "create", AUTHZ, "selfsubjectaccessreviews"), True),
    ("users may ask whoami", resource(JANE, "create", AUTHN, "selfsubjectreviews"), True),
    ("users may not review others", resource(JANE, "create", AUTHZ, "subjectaccessreviews"), False),
    ("users may not list pods", resource(JANE, "list", "", "pods", "default"), False),
    ("users may not read /metrics", path(JANE, "get", "/metrics"), False),
]  # fmt: skip


@pytest.mark.parametrize(("case", "attributes", "expected"), CASES, ids=[c[0] for c in CASES])
async def test_the_default_policy_grants_what_kube_grants_anonymous_and_authenticated_users(
    api: EmbeddedAPI, case: str, attributes: AuthorizationAttributes, expected: bool
) -> None:
    """Each row: a request by an anonymous or a plain authenticated user, and the default answer."""
    assert api.context.authorizer.authorize(attributes).allowed is expected
